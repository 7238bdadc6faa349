/**
 * remove_pages: the output has every page but the selected ones, in order,
 * with what pointed at the removed pages gone; removing every page is
 * refused. The tables (test/helpers/page-actions.ts) are those of every page
 * action.
 */
import { describe, expect, it } from 'vitest';
import removePages from './action.js';
import { buildPdf, simpleDoc } from '../../../test/helpers/raw-pdf.js';
import { catalogOf, dictOf, expectCleanOutput, qpdfView, resolves, runOne } from '../../../test/helpers/reader-checks.js';
import {
  boxesTable,
  formFieldsTable,
  loadingRules,
  pageOrderTable,
  range,
  rotationTable,
  structureTable,
  validationTable,
} from '../../../test/helpers/page-actions.js';

pageOrderTable(removePages, [
  { values: { pages: '1' }, order: range(2, 10) },
  { values: { pages: '..-2' }, order: [10] },
  { values: { pages: '2..9' }, order: [1, 10] },
  { values: { pages: '10,1,5' }, order: [2, 3, 4, 6, 7, 8, 9] },
  { values: { pages: '5..3' }, order: [1, 2, 6, 7, 8, 9, 10] },
]);

// Page 5 leaves its /Rotate-carrying /Pages node and keeps its rotation.
rotationTable(removePages, [{ values: { pages: '1..4' }, order: [5], rotation: [90] }]);

boxesTable(removePages, [{ values: { pages: '2' }, order: [1, 3] }]);

structureTable(removePages, [
  {
    values: { pages: '2,4' },
    order: [1, 3, 5, 6],
    outline: [
      ['Chapter 1', 1, [['Section 1.2', 2]]],
      ['Chapter 2', 3, [['Section 2.1', 3]]],
      ['Appendix', 4],
    ],
  },
  {
    values: { pages: '5' },
    order: [1, 2, 3, 4, 6],
    outline: [
      [
        'Chapter 1',
        1,
        [
          ['Section 1.1', 2],
          ['Section 1.2', 3],
        ],
      ],
      ['Chapter 2', 4],
      ['Appendix', 5],
    ],
  },
  {
    values: { pages: '6' },
    order: [1, 2, 3, 4, 5],
    outline: [
      [
        'Chapter 1',
        1,
        [
          ['Section 1.1', 2],
          ['Section 1.2', 3],
        ],
      ],
      ['Chapter 2', 4, [['Section 2.1', 5]]],
    ],
  },
  {
    values: { pages: '4,5' },
    order: [1, 2, 3, 6],
    outline: [
      [
        'Chapter 1',
        1,
        [
          ['Section 1.1', 2],
          ['Section 1.2', 3],
        ],
      ],
      ['Appendix', 4],
    ],
  },
  {
    values: { pages: '1..5' },
    order: [6],
    outline: [['Appendix', 1]],
  },
]);

formFieldsTable(removePages, [
  { values: { pages: '2' }, order: [1, 3] },
  { values: { pages: '3' }, order: [1, 2] },
  { values: { pages: '1' }, order: [2, 3] },
]);

validationTable(removePages, [
  { file: 'pages-10.pdf', values: { pages: '..' }, field: 'pages', message: /every page/ },
  { file: 'pages-10.pdf', values: { pages: '1..5,6..10' }, field: 'pages', message: /every page/ },
  { file: 'pages-10.pdf', values: { pages: '10..1' }, field: 'pages', message: /every page/ },
  { file: 'pages-3.pdf', values: { pages: '1,2,3' }, field: 'pages', message: /every page/ },
  { file: 'pages-1.pdf', values: { pages: '1' }, field: 'pages', message: /every page/ },
  { file: 'pages-10.pdf', values: { pages: '11' }, field: 'pages', message: /\b11\b.*\b10 pages\b/ },
  { file: 'pages-10.pdf', values: { pages: '-11' }, field: 'pages', message: /-11\b.*\b10 pages\b/ },
  { file: 'pages-10.pdf', values: {}, field: 'pages', message: /./ },
]);

loadingRules(removePages, { pages: '1' }, [2]);

describe('references to a removed page from objects that stay', () => {
  // Three pages (objects 4, 6, 8; their contents 5, 7, 9). Page 2 is also named by the catalog's /Stray and by
  // object 10, a structure element under the catalog's /Elements: places remove_pages knows nothing of.
  const objects = [
    ...simpleDoc(['PAGE ONE', 'PAGE TWO', 'PAGE THREE'], { catalog: '/Stray 6 0 R /Elements [10 0 R]' }).objects,
    { num: 10, body: '<< /Type /StructElem /S /P /Pg 6 0 R /K 0 >>' },
  ];
  const input = buildPdf([{ objects }]).bytes;

  it('hold null instead, so the page and its content are not in the output', async () => {
    const output = await runOne(removePages, { file: input, pages: '2' });
    await expectCleanOutput(output, { texts: ['PAGE ONE', 'PAGE THREE'] }, 'remove page 2');
    const view = await qpdfView(output);
    const catalog = catalogOf(view);
    expect(resolves(view.objects, catalog['/Stray'])).toBe(false);
    const element = dictOf(view.objects, (catalog['/Elements'] as string[])[0]);
    expect(element?.['/S']).toBe('/P');
    expect(resolves(view.objects, element?.['/Pg'])).toBe(false);
    // The ten objects but page 2 and its content stream.
    const kept = Object.entries(view.objects).filter(
      ([key, entry]) => key.startsWith('obj:') && (entry.stream !== undefined || (entry.value ?? null) !== null),
    );
    expect(kept).toHaveLength(8);
  });
});
