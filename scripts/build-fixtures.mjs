#!/usr/bin/env node
// Builds every PDF the test suite needs into fixtures/out/, deterministically.
//
//   node scripts/build-fixtures.mjs           # build unless outputs are up to date
//   node scripts/build-fixtures.mjs --force   # always rebuild
//
// Uses only @cantoo/pdf-lib and Node built-ins. Every document gets fixed
// Info dates, a fixed trailer /ID (derived from the file name) and, for the
// encrypted ones, a seeded random source, so repeated runs produce identical
// bytes. See fixtures/README.md for what each file contains.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SIGNED_OUTPUTS, buildSignedFixtures } from './fixtures-signing.mjs';
import { deflateSync } from 'node:zlib';
import { HOSTILE_OUTPUTS, buildHostileFixtures, png } from './hostile-fixtures.mjs';
// @cantoo/pdf-lib is imported lazily (see the bottom of this file), so the
// up-to-date check stays fast.
let PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNull, PDFNumber, PDFString, StandardFonts, degrees, rgb;

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = dirname(dirname(SCRIPT));
const OUT = join(ROOT, 'fixtures', 'out');

const FIXED_DATE = new Date(Date.UTC(2024, 0, 1, 0, 0, 0));
const FIXED_DATE_PDF = 'D:20240101000000Z';
const FIXED_DATE_XMP = '2024-01-01T00:00:00Z';
const PRODUCER = 'pdfsvc build-fixtures';

const LETTER = [612, 792];
const A4 = [595.28, 841.89];

// Every file this script writes, in build order. The up-to-date check and the
// README both rely on this list.
const OUTPUTS = [
  'pages-10.pdf',
  'pages-3.pdf',
  'pages-1.pdf',
  'rotated.pdf',
  'boxes.pdf',
  'outline.pdf',
  'form.pdf',
  'signed.pdf',
  'signature-field-unsigned.pdf',
  'encrypted-user.pdf',
  'restricted.pdf',
  'not-a-pdf.pdf',
  'truncated.pdf',
  'empty.pdf',
  'header-only.pdf',
  'merge-a.pdf',
  'merge-b.pdf',
  'sized.pdf',
  'watermark-pages.pdf',
  'watermark.png',
  ...SIGNED_OUTPUTS,
  ...HOSTILE_OUTPUTS,
];

// ---------------------------------------------------------------------------
// helpers

const sha = (algo, data) => createHash(algo).update(data).digest();

/** A new document with fixed metadata and a fixed trailer /ID. */
async function newDoc(fileName, info = {}) {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setProducer(PRODUCER);
  doc.setCreator(PRODUCER);
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  if (info.title) doc.setTitle(info.title);
  if (info.author) doc.setAuthor(info.author);
  if (info.subject) doc.setSubject(info.subject);
  if (info.keywords) doc.setKeywords(info.keywords);
  const id = PDFHexString.of(sha('md5', `pdfsvc-fixture:${fileName}`).toString('hex').toUpperCase());
  doc.context.trailerInfo.ID = doc.context.obj([id, id]);
  const font = await doc.embedFont(StandardFonts.HelveticaBold);
  const small = await doc.embedFont(StandardFonts.Helvetica);
  return { doc, font, small };
}

/** Visible area of a page: CropBox if set, else MediaBox (pdf-lib falls back). */
function visibleBox(page) {
  return page.getCropBox();
}

/** Draw the big marker text (and optional small notes) inside the visible area. */
function drawMarker(page, fonts, text, notes = []) {
  const box = visibleBox(page);
  const x = box.x + 36;
  let y = box.y + box.height - 90;
  page.drawText(text, { x, y, size: 36, font: fonts.font, color: rgb(0, 0, 0) });
  for (const note of notes) {
    y -= 22;
    page.drawText(note, { x, y, size: 12, font: fonts.small, color: rgb(0.2, 0.2, 0.2) });
  }
}

/** Add `count` pages of the given size(s), each with `PDFSVC PAGE n`. */
function addMarkedPages(ctx, count, sizeFor, label = (n) => `PDFSVC PAGE ${n}`, notes = () => []) {
  const pages = [];
  for (let n = 1; n <= count; n++) {
    const page = ctx.doc.addPage(sizeFor(n));
    drawMarker(page, ctx, label(n), notes(n));
    pages.push(page);
  }
  return pages;
}

const pdfStr = (s) => PDFString.of(s);
const dateStr = () => PDFString.of(FIXED_DATE_PDF);

/** `[pageRef /XYZ null null null]` */
const xyzDest = (doc, page) => doc.context.obj([page.ref, PDFName.of('XYZ'), PDFNull, PDFNull, PDFNull]);

/**
 * Build an outline from `[{ title, page, useAction?, children? }]` using the
 * object API. Every item is open, so /Count values are positive totals of
 * visible descendants. Returns the /Outlines ref.
 */
function addOutline(doc, items) {
  const { context } = doc;
  const rootRef = context.nextRef();

  // returns number of visible descendants (all open) of the list
  const build = (list, parentRef) => {
    const refs = list.map(() => context.nextRef());
    let visible = 0;
    list.forEach((item, i) => {
      const dict = context.obj({ Title: PDFHexString.fromText(item.title), Parent: parentRef });
      if (item.useAction) {
        dict.set(PDFName.of('A'), context.obj({ S: 'GoTo', D: xyzDest(doc, item.page) }));
      } else {
        dict.set(PDFName.of('Dest'), xyzDest(doc, item.page));
      }
      if (i > 0) dict.set(PDFName.of('Prev'), refs[i - 1]);
      if (i < list.length - 1) dict.set(PDFName.of('Next'), refs[i + 1]);
      visible += 1;
      if (item.children && item.children.length) {
        const sub = build(item.children, refs[i]);
        dict.set(PDFName.of('First'), sub.refs[0]);
        dict.set(PDFName.of('Last'), sub.refs[sub.refs.length - 1]);
        dict.set(PDFName.of('Count'), PDFNumber.of(sub.visible));
        visible += sub.visible;
      }
      context.assign(refs[i], dict);
    });
    return { refs, visible };
  };

  const top = build(items, rootRef);
  context.assign(
    rootRef,
    context.obj({
      Type: 'Outlines',
      First: top.refs[0],
      Last: top.refs[top.refs.length - 1],
      Count: top.visible,
    }),
  );
  doc.catalog.set(PDFName.of('Outlines'), rootRef);
  return rootRef;
}

/** Append an annotation ref to a page's /Annots (creating the array). */
function addAnnot(page, annotRef) {
  const { context } = page.doc;
  let annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
  if (!annots) {
    annots = context.obj([]);
    page.node.set(PDFName.of('Annots'), annots);
  }
  annots.push(annotRef);
}

/**
 * pdf-lib's form API writes appearance streams (so poppler renders values)
 * and field /DA strings naming /Helvetica, but no AcroForm /DR or /DA. Add
 * them so a viewer or tool that regenerates appearances can resolve the font.
 */
function finishForm(doc, form) {
  const { context } = doc;
  const acroForm = doc.catalog.getOrCreateAcroForm().dict;
  const helvetica = form.getDefaultFont();
  acroForm.set(PDFName.of('DR'), context.obj({ Font: { Helvetica: helvetica.ref } }));
  acroForm.set(PDFName.of('DA'), PDFString.of('/Helvetica 0 Tf 0 g'));
}

/** Write bytes atomically and log one line. */
function writeOut(name, bytes) {
  const file = join(OUT, name);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
  console.log(`wrote fixtures/out/${name} (${bytes.length} bytes)`);
}

async function save(name, doc, options = {}) {
  const bytes = await doc.save({ useObjectStreams: false, ...options });
  writeOut(name, bytes);
  return bytes;
}

/**
 * pdf-lib draws encryption keys, the file /ID and AES IVs from
 * crypto.getRandomValues. For reproducible fixtures, swap in a seeded
 * generator (SHA-256 in counter mode) for the duration of encrypt + save.
 * Fixture passwords are public anyway; never do this for real documents.
 */
async function withSeededRandom(seed, fn) {
  const webCrypto = globalThis.crypto;
  const original = webCrypto.getRandomValues;
  let counter = 0;
  let pool = Buffer.alloc(0);
  webCrypto.getRandomValues = (array) => {
    const view = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    while (pool.length < view.length) {
      pool = Buffer.concat([pool, sha('sha256', `${seed}:${counter++}`)]);
    }
    view.set(pool.subarray(0, view.length));
    pool = pool.subarray(view.length);
    return array;
  };
  try {
    return await fn();
  } finally {
    webCrypto.getRandomValues = original;
  }
}

// ---------------------------------------------------------------------------
// fixtures

async function buildPages10() {
  const ctx = await newDoc('pages-10.pdf', { title: 'PDFSVC 10 Pages' });
  addMarkedPages(
    ctx,
    10,
    (n) => [400 + 10 * n, 600 + 10 * n],
    undefined,
    (n) => [`pages-10.pdf, page ${n} of 10, ${400 + 10 * n} x ${600 + 10 * n} pt`],
  );
  return save('pages-10.pdf', ctx.doc);
}

async function buildPages3() {
  const ctx = await newDoc('pages-3.pdf', { title: 'PDFSVC 3 Pages' });
  addMarkedPages(
    ctx,
    3,
    () => LETTER,
    undefined,
    (n) => [`pages-3.pdf, page ${n} of 3, Letter`],
  );
  await save('pages-3.pdf', ctx.doc);
}

async function buildPages1() {
  const ctx = await newDoc('pages-1.pdf', { title: 'PDFSVC 1 Page' });
  addMarkedPages(
    ctx,
    1,
    () => A4,
    undefined,
    () => ['pages-1.pdf, page 1 of 1, A4'],
  );
  await save('pages-1.pdf', ctx.doc);
}

async function buildRotated() {
  const ctx = await newDoc('rotated.pdf', { title: 'PDFSVC Rotated' });
  const { doc } = ctx;
  const rotations = [null, 90, 180, 270, 'inherited 90'];
  const pages = addMarkedPages(
    ctx,
    5,
    () => LETTER,
    undefined,
    (n) => [`rotated.pdf, page ${n}: /Rotate ${rotations[n - 1] ?? 'absent (0)'}`],
  );
  pages[1].setRotation(degrees(90));
  pages[2].setRotation(degrees(180));
  pages[3].setRotation(degrees(270));

  // Nested page tree: root /Pages -> [p1 p2 p3 p4 <intermediate /Pages /Rotate 90 -> [p5]>]
  const { context } = doc;
  const rootRef = doc.catalog.get(PDFName.of('Pages'));
  const root = doc.catalog.Pages();
  const p5 = pages[4];
  const midRef = context.register(context.obj({ Type: 'Pages', Parent: rootRef, Kids: [p5.ref], Count: 1, Rotate: 90 }));
  p5.node.set(PDFName.of('Parent'), midRef);
  p5.node.delete(PDFName.of('Rotate'));
  root.set(PDFName.of('Kids'), context.obj([...pages.slice(0, 4).map((p) => p.ref), midRef]));
  root.set(PDFName.of('Count'), PDFNumber.of(5));
  await save('rotated.pdf', doc, { addDefaultPage: false });
}

async function buildBoxes() {
  const ctx = await newDoc('boxes.pdf', { title: 'PDFSVC Boxes' });
  const { doc } = ctx;
  const { context } = doc;
  const p1 = doc.addPage(LETTER);
  p1.node.set(PDFName.of('MediaBox'), context.obj([100, 200, 712, 992]));
  drawMarker(p1, ctx, 'PDFSVC PAGE 1', ['boxes.pdf: MediaBox [100 200 712 992]']);

  const p2 = doc.addPage(LETTER);
  p2.node.set(PDFName.of('MediaBox'), context.obj([0, 0, 612, 792]));
  p2.node.set(PDFName.of('CropBox'), context.obj([50, 60, 562, 732]));
  drawMarker(p2, ctx, 'PDFSVC PAGE 2', ['boxes.pdf: MediaBox [0 0 612 792]', 'CropBox [50 60 562 732]']);

  const p3 = doc.addPage(LETTER);
  p3.node.set(PDFName.of('MediaBox'), context.obj([-300, -400, 312, 392]));
  drawMarker(p3, ctx, 'PDFSVC PAGE 3', ['boxes.pdf: MediaBox [-300 -400 312 392]']);
  await save('boxes.pdf', doc);
}

const OUTLINE_TITLE = 'PDFSVC Outline Fixture';

function xmpPacket({ title, author, subject, keywords }) {
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
   <dc:format>application/pdf</dc:format>
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${title}</rdf:li></rdf:Alt></dc:title>
   <dc:creator><rdf:Seq><rdf:li>${author}</rdf:li></rdf:Seq></dc:creator>
   <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${subject}</rdf:li></rdf:Alt></dc:description>
   <pdf:Keywords>${keywords}</pdf:Keywords>
   <pdf:Producer>${PRODUCER}</pdf:Producer>
   <xmp:CreatorTool>${PRODUCER}</xmp:CreatorTool>
   <xmp:CreateDate>${FIXED_DATE_XMP}</xmp:CreateDate>
   <xmp:ModifyDate>${FIXED_DATE_XMP}</xmp:ModifyDate>
   <xmp:MetadataDate>${FIXED_DATE_XMP}</xmp:MetadataDate>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}

async function buildOutline() {
  const info = {
    title: OUTLINE_TITLE,
    author: 'pdfsvc fixtures',
    subject: 'Outline, named destinations, page labels, links, metadata and an attachment',
    keywords: ['pdfsvc', 'fixture', 'outline'],
  };
  const ctx = await newDoc('outline.pdf', info);
  const { doc } = ctx;
  const { context } = doc;
  const labels = ['i', 'ii', '1', '2', '3', '4'];
  const pages = addMarkedPages(
    ctx,
    6,
    () => LETTER,
    undefined,
    (n) => [`outline.pdf, page ${n} of 6, page label "${labels[n - 1]}"`],
  );

  // Outline (bookmarks): explicit /Dest arrays and /A GoTo actions mixed.
  addOutline(doc, [
    {
      title: 'Chapter 1',
      page: pages[0],
      children: [
        { title: 'Section 1.1', page: pages[1], useAction: true },
        { title: 'Section 1.2', page: pages[2] },
      ],
    },
    {
      title: 'Chapter 2',
      page: pages[3],
      useAction: true,
      children: [{ title: 'Section 2.1', page: pages[4] }],
    },
    { title: 'Appendix', page: pages[5], useAction: true },
  ]);
  doc.catalog.set(PDFName.of('PageMode'), PDFName.of('UseOutlines'));

  // Old-style named destinations: catalog /Dests dictionary.
  doc.catalog.set(PDFName.of('Dests'), context.register(context.obj({ chap2: xyzDest(doc, pages[3]) })));

  // Attachment: /EmbeddedFile stream + /Filespec.
  const attachment = Buffer.from('pdfsvc attachment', 'utf8');
  const efRef = context.register(
    context.stream(attachment, {
      Type: 'EmbeddedFile',
      Subtype: 'text/plain',
      Params: {
        Size: attachment.length,
        CreationDate: dateStr(),
        ModDate: dateStr(),
        CheckSum: PDFHexString.of(sha('md5', attachment).toString('hex').toUpperCase()),
      },
    }),
  );
  const fsRef = context.register(
    context.obj({
      Type: 'Filespec',
      F: pdfStr('notes.txt'),
      UF: PDFHexString.fromText('notes.txt'),
      Desc: pdfStr('pdfsvc fixture attachment'),
      AFRelationship: 'Supplement',
      EF: { F: efRef, UF: efRef },
    }),
  );

  // /Names: /Dests name tree (sorted keys) and /EmbeddedFiles name tree.
  const destsTreeRef = context.register(
    context.obj({
      Names: [pdfStr('appendix'), xyzDest(doc, pages[5]), pdfStr('sec11'), xyzDest(doc, pages[1])],
    }),
  );
  const filesTreeRef = context.register(context.obj({ Names: [pdfStr('notes.txt'), fsRef] }));
  doc.catalog.set(PDFName.of('Names'), context.register(context.obj({ Dests: destsTreeRef, EmbeddedFiles: filesTreeRef })));

  // Page labels: i, ii, then 1..4.
  doc.catalog.set(PDFName.of('PageLabels'), context.register(context.obj({ Nums: [0, { S: 'r' }, 2, { S: 'D', St: 1 }] })));

  // Links.
  const linkText = (page, text, x, y) => {
    page.drawText(text, { x, y, size: 14, font: ctx.small, color: rgb(0, 0, 0.8) });
  };
  linkText(pages[0], 'https://example.com/pdfsvc', 72, 400);
  addAnnot(
    pages[0],
    context.register(
      context.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [68, 394, 300, 418],
        Border: [0, 0, 0],
        F: 4,
        P: pages[0].ref,
        A: { S: 'URI', URI: pdfStr('https://example.com/pdfsvc') },
      }),
    ),
  );
  linkText(pages[0], 'Internal link to page five', 72, 360);
  addAnnot(
    pages[0],
    context.register(
      context.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [68, 354, 260, 378],
        Border: [0, 0, 0],
        F: 4,
        P: pages[0].ref,
        Dest: xyzDest(doc, pages[4]),
      }),
    ),
  );
  linkText(pages[2], 'Go to named destination "appendix"', 72, 400);
  addAnnot(
    pages[2],
    context.register(
      context.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [68, 394, 330, 418],
        Border: [0, 0, 0],
        F: 4,
        P: pages[2].ref,
        Dest: pdfStr('appendix'),
      }),
    ),
  );

  // XMP metadata stream on the catalog (uncompressed, UTF-8).
  const xmp = Buffer.from(xmpPacket({ ...info, keywords: info.keywords.join(' ') }), 'utf8');
  doc.catalog.set(PDFName.of('Metadata'), context.register(context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' })));

  await save('outline.pdf', doc);
}

async function buildForm() {
  const ctx = await newDoc('form.pdf', { title: 'PDFSVC Form' });
  const { doc } = ctx;
  const pages = addMarkedPages(
    ctx,
    3,
    () => LETTER,
    undefined,
    (n) => [['form.pdf: text fields name, email', 'form.pdf: checkbox agree', 'form.pdf: address.street, address.city'][n - 1]],
  );
  const form = doc.getForm();
  const label = (page, text, y) => page.drawText(text, { x: 72, y: y + 6, size: 12, font: ctx.small });

  label(pages[0], 'Name:', 600);
  const name = form.createTextField('name');
  name.setText('Ada Lovelace');
  name.addToPage(pages[0], { x: 150, y: 600, width: 300, height: 24 });

  label(pages[0], 'Email:', 560);
  const email = form.createTextField('email');
  email.setText('ada@example.com');
  email.addToPage(pages[0], { x: 150, y: 560, width: 300, height: 24 });

  label(pages[1], 'I agree:', 600);
  const agree = form.createCheckBox('agree');
  agree.addToPage(pages[1], { x: 150, y: 600, width: 20, height: 20 });
  agree.check();

  // Hierarchical field: pdf-lib's form API splits dotted names and creates the
  // non-terminal parent `address` (no /FT, /Kids [street city]) itself.
  label(pages[2], 'Street:', 600);
  const street = form.createTextField('address.street');
  street.setText('1 Main St');
  street.addToPage(pages[2], { x: 150, y: 600, width: 300, height: 24 });

  label(pages[2], 'City:', 560);
  const city = form.createTextField('address.city');
  city.setText('London');
  city.addToPage(pages[2], { x: 150, y: 560, width: 300, height: 24 });

  // Appearance streams are generated by save(); no /NeedAppearances needed.
  finishForm(doc, form);
  await save('form.pdf', doc);
}

async function buildSignatureFixture(fileName, signed) {
  const ctx = await newDoc(fileName, { title: signed ? 'PDFSVC Signed' : 'PDFSVC Unsigned Signature Field' });
  const { doc } = ctx;
  const { context } = doc;
  const pages = addMarkedPages(
    ctx,
    2,
    () => LETTER,
    undefined,
    (n) => [n === 1 ? `${fileName}: invisible signature field Signature1${signed ? ' (with /V)' : ' (no /V)'}` : `${fileName}: text field comment`],
  );

  const form = doc.getForm();
  pages[1].drawText('Comment:', { x: 72, y: 606, size: 12, font: ctx.small });
  const comment = form.createTextField('comment');
  comment.setText('fixture comment');
  comment.addToPage(pages[1], { x: 150, y: 600, width: 300, height: 24 });

  // Signature field + widget (merged dictionary), invisible, on page 1.
  const sigField = context.obj({
    FT: 'Sig',
    T: pdfStr('Signature1'),
    Type: 'Annot',
    Subtype: 'Widget',
    Rect: [0, 0, 0, 0],
    F: 132, // Print | Locked
    P: pages[0].ref,
  });
  if (signed) {
    const sigDict = context.obj({
      Type: 'Sig',
      Filter: 'Adobe.PPKLite',
      SubFilter: 'adbe.pkcs7.detached',
      ByteRange: [0, 0, 0, 0],
      Contents: PDFHexString.of('00'.repeat(64)),
      M: dateStr(),
      Name: pdfStr('pdfsvc fixture signer'),
      Reason: pdfStr('pdfsvc fixture (not a real signature)'),
    });
    sigField.set(PDFName.of('V'), context.register(sigDict));
  }
  const sigRef = context.register(sigField);
  addAnnot(pages[0], sigRef);

  const acroForm = doc.catalog.getOrCreateAcroForm();
  acroForm.dict.lookup(PDFName.of('Fields'), PDFArray).insert(0, sigRef);
  // /SigFlags 3 (SignaturesExist | AppendOnly) in both variants on purpose: a
  // detector must look at the field's /V, not at /SigFlags.
  acroForm.dict.set(PDFName.of('SigFlags'), PDFNumber.of(3));
  finishForm(doc, form);

  await save(fileName, doc);
}

async function buildEncrypted(fileName, { userPassword, ownerPassword, permissions, algorithm, notes }) {
  const ctx = await newDoc(fileName, { title: `PDFSVC ${fileName}` });
  const { doc } = ctx;
  addMarkedPages(
    ctx,
    2,
    () => LETTER,
    undefined,
    () => notes,
  );
  await withSeededRandom(`pdfsvc-fixture:${fileName}`, async () => {
    doc.encrypt({ userPassword, ownerPassword, permissions, algorithm });
    // @cantoo/pdf-lib 2.11.1 encrypts stream data only, never strings
    // (cantoo-scribe/pdf-lib#138). Strings survive intact only inside an
    // object stream (which is encrypted as a whole), so save with object
    // streams and make sure no string sits in an object that stays outside one.
    assertNoStringsOutsideObjectStreams(doc, fileName);
    await save(fileName, doc, { useObjectStreams: true });
  });
}

/**
 * PDFStreamWriter keeps the catalog, page tree nodes, pages, streams and /Sig
 * dictionaries out of object streams; any string in those would be written
 * unencrypted (and read back as garbage). Fail loudly instead.
 */
function assertNoStringsOutsideObjectStreams(doc, fileName) {
  const { context } = doc;
  const hasString = (obj) => {
    if (obj instanceof PDFString || obj instanceof PDFHexString) return true;
    if (obj instanceof PDFArray) return obj.asArray().some(hasString);
    if (obj instanceof PDFDict) return [...obj.entries()].some(([, v]) => hasString(v));
    if (obj && obj.dict instanceof PDFDict) return hasString(obj.dict); // streams
    return false;
  };
  for (const [ref, obj] of context.enumerateIndirectObjects()) {
    if (ref === context.trailerInfo.Encrypt) continue;
    const dict = obj instanceof PDFDict ? obj : obj && obj.dict;
    if (!(dict instanceof PDFDict)) continue;
    const type = dict.lookup(PDFName.of('Type'));
    const outside =
      obj.dict instanceof PDFDict || obj === doc.catalog || type === PDFName.of('Pages') || type === PDFName.of('Page') || type === PDFName.of('Sig');
    if (outside && hasString(obj)) {
      throw new Error(`${fileName}: object ${ref} would carry an unencrypted string`);
    }
  }
}

/**
 * Pages of clearly different sizes, for split_by_size. Page n (1-12) draws its
 * own uncompressed noise image /ImN, 64 x (8 + 6n) RGB pixels (1 536 + 1 152n
 * bytes), except page 7, whose image is 64 x 400 (76 800 bytes); every page
 * also draws one shared 64 x 48 image /Logo (9 216 bytes). Every image
 * dictionary carries /PdfsvcImage n (0 for the logo), so a test can list the
 * images a part holds. A small structure tree (/StructTreeRoot, /MarkInfo,
 * /StructParents on the pages) and a document-level attachment are there to
 * check what split parts leave out.
 */
async function buildSized() {
  const ctx = await newDoc('sized.pdf', { title: 'PDFSVC Sized Pages' });
  const { doc } = ctx;
  const { context } = doc;
  let state = 0x5eed1234;
  const noise = (length) => {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) {
      state ^= state << 13;
      state >>>= 0;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      out[i] = state & 0xff;
    }
    return out;
  };
  const image = (width, height, id) =>
    context.register(
      context.stream(noise(width * height * 3), {
        Type: 'XObject',
        Subtype: 'Image',
        Width: width,
        Height: height,
        ColorSpace: 'DeviceRGB',
        BitsPerComponent: 8,
        PdfsvcImage: id,
      }),
    );
  const heights = Array.from({ length: 12 }, (_, i) => (i + 1 === 7 ? 400 : 8 + 6 * (i + 1)));
  const logo = image(64, 48, 0);
  const pages = addMarkedPages(
    ctx,
    12,
    () => LETTER,
    undefined,
    (n) => [`sized.pdf, page ${n} of 12: its own image of ${64 * heights[n - 1] * 3} bytes, and the shared logo`],
  );
  pages.forEach((page, i) => {
    const n = i + 1;
    page.node.setXObject(PDFName.of(`Im${n}`), image(64, heights[i], n));
    page.node.setXObject(PDFName.of('Logo'), logo);
    const ops = `q 128 0 0 ${Math.min(2 * heights[i], 500)} 72 100 cm /Im${n} Do Q q 64 0 0 48 400 100 cm /Logo Do Q`;
    page.node.addContentStream(context.register(context.stream(ops)));
    page.node.set(PDFName.of('StructParents'), PDFNumber.of(i));
  });
  // A structure tree: one paragraph element per page.
  const rootRef = context.nextRef();
  const elements = pages.map((page) => context.register(context.obj({ Type: 'StructElem', S: 'P', P: rootRef, Pg: page.ref, K: 0 })));
  const parentTree = context.register(context.obj({ Nums: elements.flatMap((element, i) => [i, [element]]) }));
  context.assign(rootRef, context.obj({ Type: 'StructTreeRoot', K: elements, ParentTree: parentTree, ParentTreeNextKey: 12 }));
  doc.catalog.set(PDFName.of('StructTreeRoot'), rootRef);
  doc.catalog.set(PDFName.of('MarkInfo'), context.obj({ Marked: true }));
  // A document-level attachment.
  const data = Buffer.from('pdfsvc sized attachment', 'utf8');
  const file = context.register(context.stream(data, { Type: 'EmbeddedFile', Subtype: 'text/plain', Params: { Size: data.length } }));
  const spec = context.register(
    context.obj({ Type: 'Filespec', F: pdfStr('sized-notes.txt'), UF: PDFHexString.fromText('sized-notes.txt'), EF: { F: file, UF: file } }),
  );
  doc.catalog.set(
    PDFName.of('Names'),
    context.register(context.obj({ EmbeddedFiles: context.register(context.obj({ Names: [pdfStr('sized-notes.txt'), spec] })) })),
  );
  await save('sized.pdf', doc);
}

async function buildMerge(fileName, letter, pageCount, size) {
  const ctx = await newDoc(fileName, { title: `PDFSVC Merge ${letter}` });
  const { doc } = ctx;
  const pages = addMarkedPages(
    ctx,
    pageCount,
    () => size,
    (n) => `MERGE ${letter} PAGE ${n}`,
    (n) => [`${fileName}, page ${n} of ${pageCount}`],
  );
  addOutline(doc, [{ title: `${letter} start`, page: pages[0] }]);
  const form = doc.getForm();
  pages[0].drawText('Shared:', { x: 72, y: 506, size: 12, font: ctx.small });
  const shared = form.createTextField('shared');
  shared.setText(`from ${letter}`);
  shared.addToPage(pages[0], { x: 150, y: 500, width: 300, height: 24 });
  finishForm(doc, form);
  await save(fileName, doc);
}

async function buildAll() {
  mkdirSync(OUT, { recursive: true });

  const pages10 = await buildPages10();
  await buildPages3();
  await buildPages1();
  await buildRotated();
  await buildBoxes();
  await buildOutline();
  await buildForm();
  await buildSignatureFixture('signed.pdf', true);
  await buildSignatureFixture('signature-field-unsigned.pdf', false);

  const allPermissions = {
    printing: 'highResolution',
    modifying: true,
    copying: true,
    annotating: true,
    fillingForms: true,
    contentAccessibility: true,
    documentAssembly: true,
  };
  await buildEncrypted('encrypted-user.pdf', {
    userPassword: 'secret-user',
    ownerPassword: 'secret-owner',
    permissions: allPermissions,
    algorithm: 'AES-128',
    notes: ['encrypted-user.pdf: AES-128, user secret-user, owner secret-owner'],
  });
  await buildEncrypted('restricted.pdf', {
    userPassword: '',
    ownerPassword: 'secret-owner',
    permissions: { ...allPermissions, printing: false, copying: false },
    algorithm: 'AES-256',
    notes: ['restricted.pdf: AES-256, empty user password, owner secret-owner', 'printing and copying not allowed'],
  });

  writeOut(
    'not-a-pdf.pdf',
    Buffer.from(
      [
        'This is not a PDF file.',
        '',
        'It is a plain-text fixture for pdfsvc. It carries a .pdf extension on purpose so',
        'that the tool has to look at the bytes (no %PDF- header here) rather than trust the',
        'file name, and must reject it with a clear "not a PDF" error instead of crashing.',
        '',
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.',
        '',
      ].join('\n'),
      'utf8',
    ),
  );
  writeOut('truncated.pdf', pages10.subarray(0, Math.floor(pages10.length * 0.4)));
  writeOut('empty.pdf', new Uint8Array(0));
  writeOut('header-only.pdf', Buffer.from('%PDF-1.7\n%%EOF\n', 'latin1'));

  await buildMerge('merge-a.pdf', 'A', 2, LETTER);
  await buildMerge('merge-b.pdf', 'B', 3, A4);
  await buildSized();
  await buildWatermarkPages();
  // The example image of add_image_watermark (its declaration names it): 64 x 32 mid-grey pixels.
  writeOut('watermark.png', png(64, 32, deflateSync(Buffer.concat(Array.from({ length: 32 }, () => Buffer.from([0, ...new Array(64).fill(0x80)]))))));

  // Really signed documents and a certificate-encrypted one (see fixtures-signing.mjs).
  await buildSignedFixtures({
    lib: await import('@cantoo/pdf-lib'),
    newDoc,
    addMarkedPages,
    addAnnot,
    finishForm,
    writeOut,
    LETTER,
    signerKeyCache: join(OUT, 'test-signer-key.pem'),
  });

  // Bombs, loops, absurd numbers and broken images, written byte by byte (see hostile-fixtures.mjs).
  mkdirSync(join(OUT, 'hostile'), { recursive: true });
  buildHostileFixtures(writeOut);
}

/**
 * Pages that trip watermark placement: content that leaves the graphics state
 * changed (an unbalanced `cm`, colour and line width, no q/Q; a `q` never
 * closed; a `Q` too many), an opaque rectangle (for layer over/under), and one
 * /Resources dictionary shared by every page (copy-on-write when only some
 * pages are watermarked).
 */
async function buildWatermarkPages() {
  const ctx = await newDoc('watermark-pages.pdf', { title: 'PDFSVC Watermark Pages' });
  const { doc } = ctx;
  const { context } = doc;
  const resources = context.register(context.obj({ Font: { F1: ctx.font.ref, F2: ctx.small.ref } }));
  const marker = (n, note, x = 72, y = 702) => `BT 0 0 0 rg /F1 36 Tf ${x} ${y} Td (PDFSVC PAGE ${n}) Tj /F2 12 Tf 0 -22 Td (${note}) Tj ET`;
  const pages = [
    // 1: an unbalanced cm (scale and shift), colour and line width, never restored.
    '0 0.6 0 rg 3 w 1.5 0 0 0.5 20 300 cm ' + marker(1, 'watermark-pages.pdf: unbalanced 1.5 0 0 0.5 20 300 cm', 20, 700),
    // 2: an opaque blue rectangle over the middle of the page.
    marker(2, 'watermark-pages.pdf: opaque rectangle 60 150 492 492') + ' 0 0 1 rg 60 150 492 492 re f',
    // 3: plain.
    marker(3, 'watermark-pages.pdf: plain, shares /Resources with every page'),
    // 4: everything at once: MediaBox off the origin, a smaller CropBox, /Rotate 270, an unbalanced cm.
    '0.5 0 0 0.5 0 0 cm ' + marker(4, 'MediaBox [50 -100 662 692] CropBox [80 -60 632 652] /Rotate 270, unbalanced cm', 180, 1200),
    // 5: a q never closed, saving a flipped state (a single Q after the content would restore it).
    '1 0 0 -1 0 792 cm q 1 0 0 -1 0 792 cm ' + marker(5, 'watermark-pages.pdf: 1 0 0 -1 0 792 cm q (never closed)'),
    // 6: one Q too many at the start, then an unbalanced cm.
    'Q 0.5 0 0 0.5 0 0 cm ' + marker(6, 'watermark-pages.pdf: Q too many, then 0.5 0 0 0.5 0 0 cm', 144, 1404),
  ];
  pages.forEach((content, i) => {
    const page = doc.addPage(LETTER);
    page.node.set(PDFName.of('Resources'), resources);
    page.node.set(PDFName.of('Contents'), context.register(context.stream(content)));
    if (i === 3) {
      page.node.set(PDFName.of('MediaBox'), context.obj([50, -100, 662, 692]));
      page.node.set(PDFName.of('CropBox'), context.obj([80, -60, 632, 652]));
      page.setRotation(degrees(270));
    }
  });
  await save('watermark-pages.pdf', doc);
}

function upToDate() {
  const scriptTime = Math.max(
    ...[SCRIPT, ...['fixtures-signing.mjs', 'hostile-fixtures.mjs', 'raw-pdf.mjs'].map((name) => join(dirname(SCRIPT), name))].map(
      (file) => statSync(file).mtimeMs,
    ),
  );
  return OUTPUTS.every((name) => {
    const file = join(OUT, name);
    return existsSync(file) && statSync(file).mtimeMs >= scriptTime;
  });
}

const force = process.argv.includes('--force');
if (!force && upToDate()) {
  console.log(`fixtures up to date in fixtures/out/ (${OUTPUTS.length} files; use --force to rebuild)`);
} else {
  ({ PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNull, PDFNumber, PDFString, StandardFonts, degrees, rgb } = await import('@cantoo/pdf-lib'));
  await buildAll();
}
