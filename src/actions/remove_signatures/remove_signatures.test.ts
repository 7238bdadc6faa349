/**
 * remove_signatures on documents really signed by the fixture builder: pdfsig
 * finds no signature afterwards, every other field and all page text stay,
 * and nothing of the signatures is left in the file (not /Contents, /Perms,
 * /SigFlags, /DSS, nor earlier revisions).
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { removeSignatures, rotatePages } from '../../index.js';
import { fixture, pageMarkers, qpdfCheck, qpdfJson, tempFile } from '../../../test/helpers/pdf-tools.js';
import { refused, signatureNames, text } from '../../../test/helpers/security.js';

/** Hex of every signature value (/Contents) in a file, as qpdf reads it. */
async function signatureContents(bytes: Uint8Array): Promise<string[]> {
  const json = await qpdfJson(bytes);
  const found: string[] = [];
  for (const object of Object.values(json.qpdf[1])) {
    const value = object.value as Record<string, unknown> | undefined;
    if (value && (value['/Type'] === '/Sig' || value['/Type'] === '/DocTimeStamp') && typeof value['/Contents'] === 'string') {
      found.push((value['/Contents'] as string).replace(/^[bu]:/, '').replace(/0+$/, ''));
    }
  }
  return found;
}

const FIXTURES = [
  ['signed-invisible.pdf', ['Signature1'], ['comment'], []],
  ['signed-visible.pdf', ['Signature1'], ['comment'], ['Signed by pdfsvc test signer']],
  ['signed-twice.pdf', ['Certification', 'approvals.manager'], ['comment'], ['Approved by pdfsvc test signer']],
  ['signed-timestamp.pdf', ['TimeStamp1'], [], []],
  ['signed.pdf', ['Signature1'], ['comment'], []],
] as const;

describe('remove_signatures', () => {
  it.each(FIXTURES)('%s: no signature left, other fields and the page text kept', async (name, signatures, otherFields, appearanceText) => {
    const input = fixture(name);
    expect(await signatureNames(input)).toEqual(signatures);
    const out = await removeSignatures({ file: input });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect(await signatureNames(out)).toEqual([]);
    const json = await qpdfJson(out);
    expect(json.acroform.fields.map((f) => f.fullname)).toEqual(otherFields);
    expect(json.acroform.fields.every((f) => f.fieldtype !== '/Sig')).toBe(true);
    // The page text is unchanged, but for the visible signature's own appearance.
    let expected = await text(input);
    for (const line of appearanceText) expected = expected.replace(`${line}\n\n`, '');
    expect(await text(out)).toBe(expected);
  });

  it.each(FIXTURES)('%s: no /Perms, /DSS, /SigFlags or signature value remains', async (name) => {
    const input = fixture(name);
    const before = await signatureContents(input);
    expect(before.length).toBeGreaterThan(0);
    const out = await removeSignatures({ file: input });
    const root = (await qpdfJson(out)).qpdf[1];
    const catalogRef = (root.trailer!.value as Record<string, string>)['/Root'];
    const catalog = root[`obj:${catalogRef}`].value!;
    expect(catalog).not.toHaveProperty('/Perms');
    expect(catalog).not.toHaveProperty('/DSS');
    const acroForm = (typeof catalog['/AcroForm'] === 'string' ? root[`obj:${catalog['/AcroForm']}`].value : catalog['/AcroForm']) as
      | Record<string, unknown>
      | undefined;
    expect(acroForm ?? {}).not.toHaveProperty('/SigFlags');
    expect(await signatureContents(out)).toEqual([]);
    // Not even in unreferenced objects or earlier revisions: the bytes are gone.
    const raw = Buffer.from(out).toString('latin1').toLowerCase();
    for (const contents of before) if (contents.length > 0) expect(raw).not.toContain(contents.toLowerCase().slice(0, 200));
    expect(Buffer.from(out).indexOf('pdfsvc test signer')).toBe(-1);
  });

  it('removes the widgets of signature fields from the pages, and a non-terminal field left empty', async () => {
    const out = await removeSignatures({ file: fixture('signed-twice.pdf') });
    const json = await qpdfJson(out);
    const objects = json.qpdf[1];
    for (const page of json.pages) {
      const annots = (objects[`obj:${page.object}`].value!['/Annots'] ?? []) as string[];
      for (const ref of annots) expect(objects[`obj:${ref}`].value!['/FT']).not.toBe('/Sig');
    }
    expect(JSON.stringify(objects)).not.toContain('approvals');
  });

  it('removes an empty signature field too, and keeps the document unchanged otherwise', async () => {
    const out = await removeSignatures({ file: fixture('signature-field-unsigned.pdf') });
    expect((await qpdfJson(out)).acroform.fields.map((f) => f.fullname)).toEqual(['comment']);
    const plain = await removeSignatures({ file: fixture('outline.pdf') });
    expect(await text(plain)).toBe(await text(fixture('outline.pdf')));
  });

  it('makes the document editable by the other actions', async () => {
    expect((await refused(() => rotatePages({ file: fixture('signed-twice.pdf'), angle: 90 }))).file[0]).toMatch(/remove_signatures/);
    const rotated = await rotatePages({ file: await removeSignatures({ file: fixture('signed-twice.pdf') }), angle: 90 });
    expect(await pageMarkers(rotated)).toEqual([1, 2]);
  });

  it('refuses encrypted input, naming remove_password', async () => {
    expect((await refused(() => removeSignatures({ file: fixture('encrypted-user.pdf') }))).file[0]).toMatch(/remove_password/);
  });

  it('pdfsig of the input sees valid signatures (the fixtures are really signed)', async () => {
    const { stdout } = await execa('pdfsig', [tempFile(fixture('signed-twice.pdf'))], { reject: false });
    expect(stdout.match(/Signature is Valid/g)).toHaveLength(2);
  });
});
