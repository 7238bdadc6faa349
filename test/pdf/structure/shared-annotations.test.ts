/**
 * Annotations listed by more than one page (one /Annots array shared among
 * pages, or the same references in arrays of their own), as qpdf's
 * rotated-shared-annotations-1.pdf has them: dropping some of those pages
 * leaves the kept ones their annotations, and the form its fields. Judged by
 * qpdf's JSON (each page's annotations, the form's fields) and pdftotext
 * (a widget's appearance is drawn text).
 */
import { describe, expect, it } from 'vitest';
import { extractPages, removePages, splitAtPage, splitByPageCount } from '../../../src/index.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';
import { pageTexts, qpdfCheck, qpdfJson } from '../../helpers/pdf-tools.js';

/**
 * Pages ONE, TWO, THREE; TWO lists [link, widget] in an array of its own,
 * THREE the same two through the shared array 20, which page ONE does not use.
 */
function sharedAnnotations(): Uint8Array {
  const doc = simpleDoc(['ONE', 'TWO', 'THREE'], {
    catalog: '/AcroForm << /Fields [22 0 R] >>',
    page: (i) => ['', '/Annots [21 0 R 22 0 R]', '/Annots 20 0 R'][i],
  });
  const objects = [
    ...doc.objects,
    { num: 20, body: '[21 0 R 22 0 R]' },
    { num: 21, body: '<< /Type /Annot /Subtype /Link /Rect [0 0 50 50] /A << /S /URI /URI (https://example.com/) >> >>' },
    { num: 22, body: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (shared) /V (FIELDVALUE) /Rect [100 100 300 130] /AP << /N 23 0 R >> >>' },
    {
      num: 23,
      body: {
        dict: '/Type /XObject /Subtype /Form /BBox [0 0 200 30] /Resources << /Font << /F1 3 0 R >> >>',
        stream: 'BT /F1 12 Tf 2 10 Td (FIELDVALUE) Tj ET',
      },
    },
  ];
  return buildPdf([{ objects }]).bytes;
}

/** Per page of `pdf`: its annotations' subtypes; and the form's field names. */
async function annotationsAndFields(pdf: Uint8Array): Promise<{ pages: string[][]; fields: string[] }> {
  expect((await qpdfCheck(pdf)).exitCode).toBe(0);
  const json = await qpdfJson(pdf);
  const objects = json.qpdf[1];
  const subtype = (ref: unknown) => String((objects[`obj:${ref}`]?.value as Record<string, unknown> | undefined)?.['/Subtype'] ?? ref);
  const pages = json.pages.map((page) => {
    let annots = objects[`obj:${page.object}`]?.value?.['/Annots'];
    if (typeof annots === 'string') annots = objects[`obj:${annots}`]?.value;
    return ((annots as unknown[] | undefined) ?? []).map(subtype);
  });
  return { pages, fields: json.acroform.fields.map((field) => field.fullname) };
}

describe('annotations more than one page lists', () => {
  const input = sharedAnnotations();
  const both = ['/Link', '/Widget'];

  it('stay on the kept page when another page that lists them is dropped: extract, remove', async () => {
    for (const out of [await extractPages({ file: input, pages: '1,3' }), await removePages({ file: input, pages: '2' })]) {
      expect(await annotationsAndFields(out)).toEqual({ pages: [[], both], fields: ['shared'] });
      expect((await pageTexts(out))[1]).toContain('FIELDVALUE');
    }
    expect(await annotationsAndFields(await extractPages({ file: input, pages: '2' }))).toEqual({ pages: [both], fields: ['shared'] });
  });

  it('go with the pages only when every page that lists them is dropped', async () => {
    expect(await annotationsAndFields(await removePages({ file: input, pages: '2,3' }))).toEqual({ pages: [[]], fields: [] });
  });

  it('stay in every part of a split whose pages list them', async () => {
    const parts = await splitByPageCount({ file: input, page_count: 1 });
    const read = await Promise.all(parts.map((part) => annotationsAndFields(part.bytes)));
    expect(read).toEqual([
      { pages: [[]], fields: [] },
      { pages: [both], fields: ['shared'] },
      { pages: [both], fields: ['shared'] },
    ]);
    const [first, second] = await splitAtPage({ file: input, page: '3' });
    expect(await annotationsAndFields(first.bytes)).toEqual({ pages: [[], both], fields: ['shared'] });
    expect(await annotationsAndFields(second.bytes)).toEqual({ pages: [both], fields: ['shared'] });
  });
});
