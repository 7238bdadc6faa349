/**
 * The writer's layout, judged by qpdf: an input that keeps its objects in
 * object streams comes back with object streams (as qpdf does by default),
 * so a document of many small objects does not grow several times over; an
 * input without them comes back with a classic cross-reference table; and
 * encrypted output keeps the input's object streams, each encrypted whole.
 */
import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addPassword, rotatePages } from '../../../src/index.js';
import { pageCount, pageTexts, qpdfCheck, tempFile } from '../../helpers/pdf-tools.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';

/** Three pages and 5000 small objects (as a tagged PDF's structure tree has), referenced from the catalog. */
async function manySmallObjects(useObjectStreams: boolean): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= 3; n++) doc.addPage([300, 300]).drawText(`writer page ${n}`, { x: 40, y: 150, size: 18, font });
  const kids = Array.from({ length: 5000 }, (_, i) => doc.context.register(doc.context.obj({ Type: 'StructElem', S: 'P', K: i, T: `element ${i}` })));
  doc.catalog.set(PDFName.of('PdfsvcTestElements'), doc.context.obj(kids));
  return doc.save({ useObjectStreams });
}

/** Counts of qpdf's cross-reference entries: in object streams, and not. */
async function xrefKinds(bytes: Uint8Array): Promise<{ compressed: number; uncompressed: number }> {
  const { stdout } = await execa('qpdf', ['--show-xref', tempFile(bytes)]);
  const lines = stdout.split('\n');
  return { compressed: lines.filter((l) => /: compressed;/.test(l)).length, uncompressed: lines.filter((l) => /: uncompressed;/.test(l)).length };
}

describe('object streams', () => {
  it('an input with object streams keeps them: qpdf finds the objects compressed, the size stays near the input', async () => {
    const input = await manySmallObjects(true);
    expect((await xrefKinds(input)).compressed).toBeGreaterThan(5000);
    const output = await rotatePages({ file: input, angle: 90 });
    expect((await qpdfCheck(output)).exitCode).toBe(0);
    expect(await pageCount(output)).toBe(3);
    expect(await pageTexts(output)).toEqual(['writer page 1', 'writer page 2', 'writer page 3'].map((t) => expect.stringContaining(t)));
    const kinds = await xrefKinds(output);
    expect(kinds.compressed).toBeGreaterThan(5000);
    expect(output.byteLength).toBeLessThan(input.byteLength * 1.2);
    // The objects themselves survive: qpdf unpacks them into plain text.
    const unpacked = tempFile(new Uint8Array(), '.qdf.pdf');
    await execa('qpdf', ['--qdf', '--object-streams=disable', tempFile(output), unpacked]);
    expect(readFileSync(unpacked, 'latin1').match(/\/S \/P/g)?.length).toBe(5000);
  });

  it('an input without object streams is written with a classic cross-reference table, as before', async () => {
    const input = await manySmallObjects(false);
    const output = await rotatePages({ file: input, angle: 90 });
    expect((await qpdfCheck(output)).exitCode).toBe(0);
    expect((await xrefKinds(output)).compressed).toBe(0);
  });

  it("encrypted output keeps the input's object streams, and opens with its password", async () => {
    const output = await addPassword({ file: await manySmallObjects(true), password: 'writer-test' });
    expect((await qpdfCheck(output, 'writer-test')).exitCode).toBe(0);
    const { stdout } = await execa('qpdf', ['--show-xref', '--password=writer-test', tempFile(output)]);
    expect(stdout.split('\n').filter((l) => /: compressed;/.test(l)).length).toBeGreaterThanOrEqual(5000);
    expect((await pageTexts(output, 'writer-test')).map((t) => t.trim())).toEqual(['writer page 1', 'writer page 2', 'writer page 3']);
  });
});

describe('objects an action only looked at', () => {
  // The signature check parses every form field; a long private string was once more than the skim would step over.
  const FIELD = '<</FT/Tx   /T(kept  as  written)/Rect[0 0 10 10]/Subtype/Widget/P 4 0 R>>';
  const LONG = `(${'private data '.repeat(250_000)})`;

  it('go out as their input bytes, unparsed: form fields after the signature check, a dictionary with a 3 MB string', async () => {
    const doc = simpleDoc(['looked at only'], { catalog: '/AcroForm 20 0 R /PdfsvcPrivate 22 0 R', page: () => '/Annots [21 0 R]' });
    doc.objects.push({ num: 20, body: '<< /Fields [21 0 R] >>' }, { num: 21, body: FIELD }, { num: 22, body: `<</Data ${LONG}>>` });
    const output = await rotatePages({ file: buildPdf([{ objects: doc.objects }]).bytes, angle: 90 });
    expect((await qpdfCheck(output)).exitCode).toBe(0);
    const text = Buffer.from(output).toString('latin1');
    // pdf-lib's serializer would have written `<<\n/FT /Tx\n/T (kept  as  written)` …: these are the input's bytes.
    expect(text).toContain(FIELD);
    expect(text).toContain(`<</Data ${LONG}>>`);
    expect(await pageTexts(output)).toEqual([expect.stringContaining('looked at only')]);
  });
});

describe('numbers in a dictionary the action changed', () => {
  it('are written as decimals qpdf reads, without float noise or exponents: 0.0000001 stays 0.0000001', async () => {
    // qpdf itself cannot read the last one (an integer past 64 bits): the output writes it as a real.
    const read = '0 -0 0.0000001 0.30000000000000004 0.3333333333333333 123456789.5 -0.000025 100000000000000000000';
    const written = '0 0 0.0000001 0.3 0.333333333333333 123456789.5 -0.000025 100000000000000000000.0';
    // A /Rotate written as a real: rotate parses the page (its bytes cannot tell its rotation; one they tell is
    // turned in them, leaf-bytes.ts), so these numbers go through the serializer.
    const doc = simpleDoc(['numbers'], { page: () => `/Rotate 0.0 /PdfsvcNumbers [${read}]` });
    const output = await rotatePages({ file: buildPdf([{ objects: doc.objects }]).bytes, angle: 90 });
    expect((await qpdfCheck(output)).exitCode).toBe(0);
    const { stdout } = await execa('qpdf', [`--show-object=${doc.pages[0]}`, tempFile(output)]);
    expect(stdout).toContain('/Rotate 90');
    expect(stdout).toContain(`/PdfsvcNumbers [ ${written} ]`);
  });
});
