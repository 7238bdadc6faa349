/**
 * reorder_pages: the output has the pages `page_order` lists, in that order
 * (a page may come several times), each keeping what the reader had on it.
 * The tables (test/helpers/page-actions.ts) are those of every page action.
 */
import { describe, expect, it } from 'vitest';
import reorderPages from './action.js';
import {
  boxesTable,
  expectCleanCheck,
  fieldTreeNames,
  formFieldsTable,
  loadingRules,
  pageOrderTable,
  qpdfFullJson,
  range,
  rotationTable,
  run,
  structureTable,
  validationTable,
} from '../../../test/helpers/page-actions.js';
import { buildPdf, simpleDoc } from '../../../test/helpers/raw-pdf.js';

pageOrderTable(reorderPages, [
  { values: { page_order: '3,1,2' }, order: [3, 1, 2] },
  { values: { page_order: '10..1' }, order: range(1, 10).reverse() },
  { values: { page_order: '-1..1' }, order: range(1, 10).reverse() },
  { values: { page_order: '..' }, order: range(1, 10) },
  { values: { page_order: '2,2,5' }, order: [2, 2, 5] },
  { values: { page_order: '7..,1..2' }, order: [7, 8, 9, 10, 1, 2] },
  { values: { page_order: ' 1 .. 3 , 9 ' }, order: [1, 2, 3, 9] },
  { values: { page_order: '-2,-2,-2' }, order: [9, 9, 9] },
]);

// Rotation follows pages that move, including page 5 leaving its /Rotate-carrying /Pages node.
rotationTable(reorderPages, [
  { values: { page_order: '5,5,1' }, order: [5, 5, 1], rotation: [90, 90, 0] },
  { values: { page_order: '4,2' }, order: [4, 2], rotation: [270, 90] },
]);

boxesTable(reorderPages, [{ values: { page_order: '2,3,3,1' }, order: [2, 3, 3, 1] }]);

structureTable(reorderPages, [
  {
    values: { page_order: '6,1' },
    order: [6, 1],
    outline: [
      ['Chapter 1', 2],
      ['Appendix', 1],
    ],
  },
  {
    values: { page_order: '1,1,5' },
    order: [1, 1, 5],
    outline: [
      ['Chapter 1', 1],
      ['Chapter 2', 3, [['Section 2.1', 3]]],
    ],
  },
  { values: { page_order: '3,3' }, order: [3, 3], outline: [['Chapter 1', 1, [['Section 1.2', 1]]]] },
  {
    values: { page_order: '6,6,2' },
    order: [6, 6, 2],
    outline: [
      ['Chapter 1', 3, [['Section 1.1', 3]]],
      ['Appendix', 1],
    ],
  },
]);

formFieldsTable(reorderPages, [
  { values: { page_order: '1,1' }, order: [1, 1] },
  { values: { page_order: '2,2' }, order: [2, 2] },
  { values: { page_order: '3,2,3' }, order: [3, 2, 3] },
]);

describe('form fields (signature-field-unsigned.pdf)', () => {
  it('a merged signature field and widget listed twice (reorder 1,1 of signature-field-unsigned.pdf) shows on both copies', async () => {
    const output = await run(reorderPages, 'signature-field-unsigned.pdf', { page_order: '1,1' });
    await expectCleanCheck(output, 'reorder 1,1');
    const json = await qpdfFullJson(output);
    const signature = json.acroform.fields.filter((f) => f.fullname === 'Signature1');
    expect(signature.map((f) => f.pageposfrom1).sort()).toEqual([1, 2]);
    expect(new Set(signature.map((f) => f.annotation.object)).size).toBe(2);
    expect(fieldTreeNames(json)).toEqual(['Signature1']);
  });

  it("a widget its field's /Kids lists but which lacks /Parent (reorder 1,1) becomes another widget of that field on the copy", async () => {
    const doc = simpleDoc(['orphan widget'], { catalog: '/AcroForm << /Fields [20 0 R] /DA (/Helv 12 Tf 0 g) >>', page: () => '/Annots [21 0 R]' });
    doc.objects.push(
      { num: 20, body: '<< /FT /Tx /T (name) /V (Ada) /Kids [21 0 R] >>' },
      { num: 21, body: '<< /Type /Annot /Subtype /Widget /Rect [72 600 272 620] /P 4 0 R >>' },
    );
    const output = await run(reorderPages, buildPdf([{ objects: doc.objects }]).bytes, { page_order: '1,1' });
    await expectCleanCheck(output, 'reorder 1,1');
    const json = await qpdfFullJson(output);
    const widgets = json.acroform.fields.filter((f) => f.fullname === 'name');
    expect(widgets.map((f) => f.pageposfrom1).sort()).toEqual([1, 2]);
    expect(new Set(widgets.map((f) => f.annotation.object)).size).toBe(2);
    expect(fieldTreeNames(json)).toEqual(['name']);
  });
});

validationTable(reorderPages, [
  { file: 'pages-10.pdf', values: { page_order: '1,11' }, field: 'page_order', message: /\b11\b.*\b10 pages\b/ },
  { file: 'pages-1.pdf', values: { page_order: '1,2' }, field: 'page_order', message: /\b2\b.*\b1 page\b/ },
  { file: 'pages-10.pdf', values: { page_order: '-12..1' }, field: 'page_order', message: /-12\b.*\b10 pages\b/ },
  { file: 'pages-10.pdf', values: { page_order: '0' }, field: 'page_order', message: /\b0\b/ },
  { file: 'pages-10.pdf', values: { page_order: '1,,2' }, field: 'page_order', message: /empty/ },
  { file: 'pages-10.pdf', values: {}, field: 'page_order', message: /./ },
]);

loadingRules(reorderPages, { page_order: '-1..1' }, [2, 1]);
