// Signed and certificate-encrypted fixtures, for remove_signatures and the
// security actions. Imported by build-fixtures.mjs, which passes its helpers.
//
// The signatures are real: a self-signed RSA-2048 test certificate made here
// with node-forge (from a seeded generator, so every build makes the same key
// and the same bytes), a detached CMS (adbe.pkcs7.detached) over the
// /ByteRange, as Acrobat writes them. pdfsig reports them as signed by
// "pdfsvc test signer" (untrusted: the certificate is self-signed).
//
//   signed-invisible.pdf   one approval signature, invisible widget
//   signed-visible.pdf     one approval signature with a visible appearance
//   signed-twice.pdf       a certification signature (DocMDP, catalog /Perms),
//                          then, in an incremental update, a visible approval
//                          signature as a kid of the non-terminal field
//                          `approvals`, and a /DSS
//   signed-timestamp.pdf   a document time stamp field (/Type /DocTimeStamp,
//                          fake token), catalog /Perms /UR3 (fake) and /DSS
//   encrypted-certificate.pdf  an /Encrypt dictionary of the public-key
//                          handler (/Adobe.PubSec): pdfsvc must refuse it
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

export const SIGNED_OUTPUTS = ['signed-invisible.pdf', 'signed-visible.pdf', 'signed-twice.pdf', 'signed-timestamp.pdf', 'encrypted-certificate.pdf'];

const PLACEHOLDER_BYTES = 8192;
const BYTE_RANGE_PLACEHOLDER = [0, 9999999999, 9999999999, 9999999999];
const SIGNING_TIME = new Date(Date.UTC(2024, 0, 1, 12, 0, 0));

/**
 * A deterministic RSA key and self-signed certificate (test only: the seed is
 * public). Generating the key in JavaScript takes seconds, so it is kept in
 * `cacheFile` (beside the fixtures, git-ignored) and made again only when missing.
 */
function testSigner(forge, cacheFile) {
  let key;
  if (existsSync(cacheFile)) {
    key = forge.pki.privateKeyFromPem(readFileSync(cacheFile, 'utf8'));
  } else {
    key = generateKey(forge).privateKey;
    // Whole or not at all: a second build beside this one may be reading it.
    writeFileSync(`${cacheFile}.tmp-${process.pid}`, forge.pki.privateKeyToPem(key));
    renameSync(`${cacheFile}.tmp-${process.pid}`, cacheFile);
  }
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.UTC(2024, 0, 1));
  cert.validity.notAfter = new Date(Date.UTC(2044, 0, 1));
  const name = [
    { name: 'commonName', value: 'pdfsvc test signer' },
    { name: 'organizationName', value: 'pdfsvc fixtures' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
  ]);
  cert.sign(key, forge.md.sha256.create());
  return { key, cert };
}

function generateKey(forge) {
  let counter = 0;
  const prng = forge.random.createInstance();
  prng.seedFileSync = (needed) => {
    let out = '';
    while (out.length < needed) out += createHash('sha256').update(`pdfsvc-test-signer:${counter++}`).digest('binary');
    return out.slice(0, needed);
  };
  return forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001, prng, algorithm: 'PRIMEINC', workers: -1 });
}

/** Detached CMS SignedData over `data`, DER bytes. */
function cmsSignature(forge, signer, data) {
  const p7 = forge.pkcs7.createSignedData();
  p7.content = forge.util.createBuffer(Buffer.from(data).toString('binary'));
  p7.addCertificate(signer.cert);
  p7.addSigner({
    key: signer.key,
    certificate: signer.cert,
    digestAlgorithm: forge.pki.oids.sha256,
    authenticatedAttributes: [
      { type: forge.pki.oids.contentType, value: forge.pki.oids.data },
      { type: forge.pki.oids.messageDigest },
      { type: forge.pki.oids.signingTime, value: SIGNING_TIME },
    ],
  });
  p7.sign({ detached: true });
  return Buffer.from(forge.asn1.toDer(p7.toAsn1()).getBytes(), 'binary');
}

/**
 * Fills the last signature placeholder of `bytes`: the /ByteRange covers
 * everything but the /Contents hex string, which then gets the CMS.
 */
function fillPlaceholder(forge, signer, bytes) {
  const text = Buffer.from(bytes).toString('latin1');
  const rangeText = `/ByteRange [ ${BYTE_RANGE_PLACEHOLDER.join(' ')} ]`;
  const rangeAt = text.lastIndexOf(rangeText);
  if (rangeAt < 0) throw new Error('signature placeholder /ByteRange not found');
  const contentsAt = text.indexOf(`/Contents <${'0'.repeat(PLACEHOLDER_BYTES * 2)}>`, rangeAt);
  if (contentsAt < 0) throw new Error('signature placeholder /Contents not found');
  const start = contentsAt + '/Contents '.length; // the '<'
  const end = start + PLACEHOLDER_BYTES * 2 + 2; // after the '>'
  const range = [0, start, end, bytes.length - end];
  const out = Buffer.from(bytes);
  out.write(`/ByteRange [${range.join(' ')}]`.padEnd(rangeText.length, ' '), rangeAt, 'latin1');
  const signed = Buffer.concat([out.subarray(0, start), out.subarray(end)]);
  const der = cmsSignature(forge, signer, signed);
  if (der.length > PLACEHOLDER_BYTES) throw new Error('signature larger than its placeholder');
  out.write(der.toString('hex').padEnd(PLACEHOLDER_BYTES * 2, '0'), start + 1, 'latin1');
  return out;
}

export async function buildSignedFixtures(h) {
  const { PDFName, PDFHexString, PDFString, PDFArray, PDFNumber, PDFDocument } = h.lib;
  const forge = (await import('node-forge')).default;
  const signer = testSigner(forge, h.signerKeyCache);
  const certDer = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(signer.cert)).getBytes(), 'binary');

  const sigDict = (context, extra = {}) =>
    context.obj({
      Type: 'Sig',
      Filter: 'Adobe.PPKLite',
      SubFilter: 'adbe.pkcs7.detached',
      ByteRange: BYTE_RANGE_PLACEHOLDER,
      Contents: PDFHexString.of('0'.repeat(PLACEHOLDER_BYTES * 2)),
      M: PDFString.of('D:20240101120000Z'),
      Name: PDFString.of('pdfsvc test signer'),
      Reason: PDFString.of('pdfsvc fixture signature'),
      ...extra,
    });

  /** A signature field with a merged widget on `page`; visible when given appearance text. */
  const addSignatureField = (doc, page, { name, value, rect = [0, 0, 0, 0], appearance, parent }) => {
    const { context } = doc;
    const field = context.obj({
      FT: 'Sig',
      T: PDFString.of(name),
      Type: 'Annot',
      Subtype: 'Widget',
      Rect: rect,
      F: 132,
      P: page.ref,
      V: value,
    });
    if (appearance) {
      const [x1, y1, x2, y2] = rect;
      const content = `q 0.9 0.95 1 rg 0 0 ${x2 - x1} ${y2 - y1} re f Q BT /Helv 10 Tf 6 ${(y2 - y1) / 2 - 4} Td (${appearance}) Tj ET`;
      const ap = context.register(
        context.stream(content, {
          Type: 'XObject',
          Subtype: 'Form',
          BBox: [0, 0, x2 - x1, y2 - y1],
          Resources: { Font: { Helv: h.fonts.small.ref } },
        }),
      );
      field.set(PDFName.of('AP'), context.obj({ N: ap }));
    }
    const ref = context.register(field);
    if (parent) field.set(PDFName.of('Parent'), parent);
    h.addAnnot(page, ref);
    return ref;
  };

  const sigFlags = (doc) => doc.catalog.getOrCreateAcroForm().dict.set(PDFName.of('SigFlags'), PDFNumber.of(3));

  // One signature, invisible or visible.
  for (const visible of [false, true]) {
    const fileName = visible ? 'signed-visible.pdf' : 'signed-invisible.pdf';
    const ctx = await h.newDoc(fileName, { title: `PDFSVC ${fileName}` });
    h.fonts = ctx;
    const { doc } = ctx;
    const pages = h.addMarkedPages(
      ctx,
      2,
      () => h.LETTER,
      undefined,
      (n) => [n === 1 ? `${fileName}: ${visible ? 'visible' : 'invisible'} signature Signature1` : `${fileName}: text field comment`],
    );
    const form = doc.getForm();
    const comment = form.createTextField('comment');
    comment.setText('fixture comment');
    comment.addToPage(pages[1], { x: 150, y: 600, width: 300, height: 24 });
    const ref = addSignatureField(doc, pages[0], {
      name: 'Signature1',
      value: doc.context.register(sigDict(doc.context)),
      ...(visible ? { rect: [72, 560, 320, 600], appearance: 'Signed by pdfsvc test signer' } : {}),
    });
    doc.catalog.getOrCreateAcroForm().dict.lookup(PDFName.of('Fields'), PDFArray).push(ref);
    sigFlags(doc);
    h.finishForm(doc, form);
    h.writeOut(fileName, fillPlaceholder(forge, signer, await doc.save({ useObjectStreams: false })));
  }

  // Certified, then approved in an incremental update.
  {
    const fileName = 'signed-twice.pdf';
    const ctx = await h.newDoc(fileName, { title: 'PDFSVC Signed Twice' });
    h.fonts = ctx;
    const { doc } = ctx;
    const { context } = doc;
    const pages = h.addMarkedPages(
      ctx,
      2,
      () => h.LETTER,
      undefined,
      (n) => [n === 1 ? `${fileName}: certification signature (DocMDP), invisible` : `${fileName}: approval signature approvals.manager, visible`],
    );
    const form = doc.getForm();
    const comment = form.createTextField('comment');
    comment.setText('fixture comment');
    comment.addToPage(pages[0], { x: 150, y: 500, width: 300, height: 24 });
    const certification = context.register(
      sigDict(context, {
        Reference: [{ Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: { Type: 'TransformParams', P: 2, V: PDFName.of('1.2') } }],
      }),
    );
    const ref = addSignatureField(doc, pages[0], { name: 'Certification', value: certification });
    doc.catalog.getOrCreateAcroForm().dict.lookup(PDFName.of('Fields'), PDFArray).push(ref);
    doc.catalog.set(PDFName.of('Perms'), context.obj({ DocMDP: certification }));
    sigFlags(doc);
    h.finishForm(doc, form);
    const first = fillPlaceholder(forge, signer, await doc.save({ useObjectStreams: false }));

    const update = await PDFDocument.load(first, { forIncrementalUpdate: true, updateMetadata: false });
    const uctx = update.context;
    const upages = update.getPages();
    h.fonts = { small: { ref: ctx.small.ref } };
    const acroForm = update.catalog.lookup(PDFName.of('AcroForm'));
    const parentRef = uctx.register(uctx.obj({ T: PDFString.of('approvals'), Kids: [] }));
    const kid = addSignatureField(update, upages[1], {
      name: 'manager',
      value: uctx.register(sigDict(uctx)),
      rect: [72, 560, 320, 600],
      appearance: 'Approved by pdfsvc test signer',
      parent: parentRef,
    });
    uctx.lookup(parentRef).lookup(PDFName.of('Kids'), PDFArray).push(kid);
    acroForm.lookup(PDFName.of('Fields'), PDFArray).push(parentRef);
    const certStream = uctx.register(uctx.stream(certDer, {}));
    update.catalog.set(PDFName.of('DSS'), uctx.register(uctx.obj({ Certs: [certStream] })));
    const snapshot = uctx.snapshot;
    snapshot.markRefForSave(uctx.trailerInfo.Root);
    snapshot.markRefForSave(upages[1].ref);
    const acroFormRef = update.catalog.get(PDFName.of('AcroForm'));
    if (acroFormRef instanceof h.lib.PDFRef) snapshot.markRefForSave(acroFormRef);
    const fieldsRef = acroForm.get(PDFName.of('Fields'));
    if (fieldsRef instanceof h.lib.PDFRef) snapshot.markRefForSave(fieldsRef);
    h.writeOut(fileName, fillPlaceholder(forge, signer, await update.save({ useObjectStreams: false })));
  }

  // A document time stamp, usage rights and a DSS (fake tokens: structure only).
  {
    const fileName = 'signed-timestamp.pdf';
    const ctx = await h.newDoc(fileName, { title: 'PDFSVC Time Stamp' });
    const { doc } = ctx;
    const { context } = doc;
    const pages = h.addMarkedPages(
      ctx,
      1,
      () => h.LETTER,
      undefined,
      () => [`${fileName}: document time stamp, /Perms /UR3, /DSS (fake tokens)`],
    );
    const stamp = context.register(
      context.obj({
        Type: 'DocTimeStamp',
        Filter: 'Adobe.PPKLite',
        SubFilter: 'ETSI.RFC3161',
        ByteRange: [0, 0, 0, 0],
        Contents: PDFHexString.of('00'.repeat(64)),
      }),
    );
    const ur = context.register(
      sigDict(context, {
        ByteRange: [0, 0, 0, 0],
        Contents: PDFHexString.of('00'.repeat(64)),
        Reference: [{ Type: 'SigRef', TransformMethod: 'UR3', TransformParams: { Type: 'TransformParams', V: PDFName.of('2.2') } }],
      }),
    );
    const ref = addSignatureField(doc, pages[0], { name: 'TimeStamp1', value: stamp });
    const acroForm = doc.catalog.getOrCreateAcroForm().dict;
    acroForm.lookup(PDFName.of('Fields'), PDFArray).push(ref);
    acroForm.set(PDFName.of('SigFlags'), PDFNumber.of(3));
    doc.catalog.set(PDFName.of('Perms'), context.obj({ UR3: ur }));
    doc.catalog.set(PDFName.of('DSS'), context.register(context.obj({ Certs: [context.register(context.stream(certDer, {}))] })));
    h.writeOut(fileName, await doc.save({ useObjectStreams: false }));
  }

  // The public-key security handler: only its /Encrypt dictionary (the content is not really encrypted).
  {
    const fileName = 'encrypted-certificate.pdf';
    const ctx = await h.newDoc(fileName, { title: 'PDFSVC Certificate Encryption' });
    const { doc } = ctx;
    const { context } = doc;
    h.addMarkedPages(
      ctx,
      1,
      () => h.LETTER,
      undefined,
      () => [`${fileName}: /Encrypt /Filter /Adobe.PubSec`],
    );
    context.trailerInfo.Encrypt = context.register(
      context.obj({
        Filter: 'Adobe.PubSec',
        SubFilter: 'adbe.pkcs7.s5',
        V: 4,
        R: 4,
        Length: 128,
        CF: { DefaultCryptFilter: { CFM: 'AESV2', AuthEvent: 'DocOpen', Length: 16, Recipients: [PDFHexString.of(certDer.toString('hex'))] } },
        StmF: 'DefaultCryptFilter',
        StrF: 'DefaultCryptFilter',
      }),
    );
    h.writeOut(fileName, await doc.save({ useObjectStreams: false }));
  }
}
