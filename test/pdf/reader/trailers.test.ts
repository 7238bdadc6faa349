/**
 * Which trailer an incrementally updated file's /Info and /ID come from. An
 * update's trailer repeats every entry it keeps (ISO 32000-1, 7.5.6), so
 * one it lacks was dropped: qpdf, pdf.js, poppler and MuPDF read /Info and
 * /ID from the newest trailer alone, and so does pdfsvc. Each input is
 * first judged by qpdf (its trailer as qpdf --json shows it) and pdfinfo.
 */
import { describe, expect, it } from 'vitest';
import { rotatePages } from '../../../src/index.js';
import { pdfinfo, qpdfCheck, qpdfJson } from '../../helpers/pdf-tools.js';
import { buildPdf, drawText, simpleDoc, type Section } from '../../helpers/raw-pdf.js';
import { texts } from '../../helpers/reader-checks.js';

const OLD_ID = '<00112233445566778899AABBCCDDEEFF> <00112233445566778899AABBCCDDEEFF>';
const NEW_ID = '<00112233445566778899AABBCCDDEEFF> <FFEEDDCCBBAA99887766554433221100>';
const doc = simpleDoc(['ORIGINAL PAGE']);

/** The original file has /Info (object 9, titled) and /ID; its update rewrites the page's content with `trailer` entries. */
function updated(trailer: string, extra: Partial<Section> = {}): Uint8Array {
  const original: Section = {
    objects: [...doc.objects, { num: 9, body: '<< /Title (Old title) >>' }],
    trailer: `/Info 9 0 R /ID [${OLD_ID}]`,
    ...extra,
  };
  const update: Section = { objects: [{ num: doc.contents[0], body: { dict: '', stream: drawText('UPDATED PAGE') } }], trailer, ...extra };
  return buildPdf([original, update]).bytes;
}

/** The trailer as qpdf reads it. */
async function qpdfTrailer(bytes: Uint8Array): Promise<Record<string, unknown>> {
  return (await qpdfJson(bytes)).qpdf[1].trailer.value as Record<string, unknown>;
}

describe('an update whose trailer leaves out /Info or /ID', () => {
  for (const xref of ['table', 'stream'] as const) {
    it(`/Info (${xref}): the output has no document information, as qpdf and pdfinfo read the input`, async () => {
      const input = updated(`/ID [${NEW_ID}]`, { xref });
      expect(await qpdfTrailer(input)).not.toHaveProperty('/Info');
      expect((await pdfinfo(input)).fields.Title).toBeUndefined();

      const output = await rotatePages({ file: input, angle: 90 });
      expect((await qpdfCheck(output)).exitCode).toBe(0);
      const trailer = await qpdfTrailer(output);
      expect(trailer).not.toHaveProperty('/Info');
      expect(trailer['/ID']).toEqual(['b:00112233445566778899aabbccddeeff', 'b:ffeeddccbbaa99887766554433221100']);
      expect((await pdfinfo(output)).fields.Title).toBeUndefined();
      expect(await texts(output)).toEqual(['UPDATED PAGE']);
    });
  }

  it('/ID: the output does not take the older revision’s identifier', async () => {
    const input = updated('/Info 9 0 R');
    expect(await qpdfTrailer(input)).not.toHaveProperty('/ID');

    const output = await rotatePages({ file: input, angle: 90 });
    expect((await qpdfCheck(output)).exitCode).toBe(0);
    const trailer = await qpdfTrailer(output);
    expect(trailer).not.toHaveProperty('/ID');
    expect((await pdfinfo(output)).fields.Title).toBe('Old title');
  });

  it('both kept when the update repeats them (the usual case)', async () => {
    const output = await rotatePages({ file: updated(`/Info 9 0 R /ID [${NEW_ID}]`), angle: 90 });
    const trailer = await qpdfTrailer(output);
    expect(trailer['/ID']).toEqual(['b:00112233445566778899aabbccddeeff', 'b:ffeeddccbbaa99887766554433221100']);
    expect((await pdfinfo(output)).fields.Title).toBe('Old title');
  });
});

describe('an update whose trailer leaves out /Root (damage)', () => {
  it('the older trailer’s catalog is used, as poppler finds it (qpdf 11.3 refuses the input)', async () => {
    const input = buildPdf([
      { objects: doc.objects },
      { objects: [{ num: doc.contents[0], body: { dict: '', stream: drawText('UPDATED PAGE') } }], root: null },
    ]).bytes;
    expect((await qpdfCheck(input)).output).toContain('unable to find /Root dictionary');
    expect(await texts(input)).toEqual(['UPDATED PAGE']);

    const output = await rotatePages({ file: input, angle: 90 });
    expect((await qpdfCheck(output)).exitCode).toBe(0);
    expect(await texts(output)).toEqual(['UPDATED PAGE']);
  });
});
