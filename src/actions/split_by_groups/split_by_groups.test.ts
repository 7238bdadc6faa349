/**
 * split_by_groups (docs/contract.md, "Fields"): groups separated by ';', each an ordered
 * page list with the page_order syntax; one output per group in the order
 * given; a page may appear in several groups (and twice in one: an
 * independent copy, as reorder_pages makes). An empty or malformed group, or
 * a page the document lacks, is 400 errors.groups.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import splitByGroups from './action.js';
import { fixture, fixturePath, qpdfJson } from '../../../test/helpers/pdf-tools.js';
import { checkedMarkers, formFields, linksPerPage, outlineLines, pageLabels, partNames, refusal, split, unpack } from '../../../test/helpers/split-tools.js';
import { formRequest, inProcessApp, keys } from '../../../test/server/harness.js';
import { buildPdf, simpleDoc } from '../../../test/helpers/raw-pdf.js';

describe('split_by_groups', () => {
  it.each([
    [
      '1..3;4,6;7..',
      [
        [1, 2, 3],
        [4, 6],
        [7, 8, 9, 10],
      ],
    ],
    ['..', [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]],
    ['5..1;-1;-3..-2', [[5, 4, 3, 2, 1], [10], [8, 9]]],
    ['2;2;1,2', [[2], [2], [1, 2]]],
    ['1,1,3 ; 3', [[1, 1, 3], [3]]],
    [' 9 .. 10 ;1', [[9, 10], [1]]],
  ])('groups %j: one part per group, pages in the listed order', async (groups, expected) => {
    const parts = await split(splitByGroups, 'pages-10.pdf', { groups });
    expect(parts.map((p) => p.name)).toEqual(partNames(expected.length));
    expect(await checkedMarkers(parts)).toEqual(expected);
  });

  it.each([
    ['1;;2', /group 2 is empty/],
    ['1..3;', /group 2 is empty/],
    [';', /group 1 is empty/],
    ['1;2-3', /write a range with "\.\."/],
    ['1..3;11', /group 2 \("11"\): page "11" does not exist \(the document has 10 pages\)/],
    ['1,0', /pages are numbered from 1/],
    ['x'.repeat(1001), /maximum is 1000/],
    ['', /^is empty: give groups such as/],
  ])('groups %j is refused with errors.groups', async (groups, message) => {
    const errors = await refusal(splitByGroups, 'pages-10.pdf', { groups });
    expect(Object.keys(errors)).toEqual(['groups']);
    expect(errors.groups.join(' ')).toMatch(message);
  });

  it('a page in several groups, or twice in one, keeps its form fields in each (one field, two widgets)', async () => {
    const parts = await split(splitByGroups, 'form.pdf', { groups: '1,1;1;3' });
    expect(await checkedMarkers(parts)).toEqual([[1, 1], [1], [3]]);
    expect(await Promise.all(parts.map(async (p) => (await formFields(p.bytes)).sort()))).toEqual([
      ['email=ada@example.com@1', 'email=ada@example.com@2', 'name=Ada Lovelace@1', 'name=Ada Lovelace@2'],
      ['email=ada@example.com@1', 'name=Ada Lovelace@1'],
      ['address.city=London@1', 'address.street=1 Main St@1'],
    ]);
  });

  it("a widget its field's /Kids lists but which lacks /Parent, twice in one group, is a widget of that field both times", async () => {
    const doc = simpleDoc(['orphan widget'], { catalog: '/AcroForm << /Fields [20 0 R] /DA (/Helv 12 Tf 0 g) >>', page: () => '/Annots [21 0 R]' });
    doc.objects.push(
      { num: 20, body: '<< /FT /Tx /T (name) /V (Ada) /Kids [21 0 R] >>' },
      { num: 21, body: '<< /Type /Annot /Subtype /Widget /Rect [72 600 272 620] /P 4 0 R >>' },
    );
    const parts = await split(splitByGroups, buildPdf([{ objects: doc.objects }]).bytes, { groups: '1,1;1' });
    // checkedMarkers wants qpdf --check clean: qpdf warns of a widget no field reaches.
    expect(await checkedMarkers(parts)).toEqual([[], []]);
    expect(await formFields(parts[0].bytes)).toEqual(['name=Ada@1', 'name=Ada@2']);
  });

  it('links, outline and labels follow the pages into each group', async () => {
    const parts = await split(splitByGroups, 'outline.pdf', { groups: '5,1;3,6' });
    expect(await checkedMarkers(parts)).toEqual([
      [5, 1],
      [3, 6],
    ]);
    // Page 1's link to page 5 now leads to page 1 of its part; page 3's named link to the appendix stays.
    expect(await Promise.all(parts.map((p) => linksPerPage(p.bytes)))).toEqual([
      [[], ['uri:https://example.com/pdfsvc', 'page:1']],
      [['name:appendix'], []],
    ]);
    expect(await Promise.all(parts.map((p) => pageLabels(p.bytes)))).toEqual([
      ['3', 'i'],
      ['1', '4'],
    ]);
    expect(await Promise.all(parts.map(async (p) => outlineLines((await qpdfJson(p.bytes)).outlines)))).toEqual([
      ['Chapter 1→2', 'Chapter 2→1', '  Section 2.1→1'],
      ['Chapter 1→1', '  Section 1.2→1', 'Appendix→2'],
    ]);
  });

  it('answers over HTTP as multipart/mixed when asked', async () => {
    const response = await inProcessApp().fetch(
      formRequest(
        'http://pdfsvc.test/v1/split_by_groups',
        [
          ['file', fixture('pages-10.pdf')],
          ['groups', '10;1..2'],
        ],
        {
          'X-API-Key': keys.business,
          Accept: 'multipart/mixed',
        },
      ),
    );
    expect(response.status).toBe(200);
    const { documents } = unpack(new Uint8Array(await response.arrayBuffer()), response.headers.get('content-type')!);
    expect(documents.map((d) => d.name)).toEqual(partNames(2));
    expect(await checkedMarkers(documents)).toEqual([[10], [1, 2]]);
  });

  it('pdfsvc split-by-groups writes a ZIP to standard output by default', async () => {
    const run = await execa('node', ['bin/pdfsvc.js', 'split-by-groups', '--groups', '2;1', fixturePath('pages-3.pdf')], { reject: false, encoding: 'buffer' });
    expect(run.exitCode).toBe(0);
    const { documents } = unpack(run.stdout, 'application/zip');
    expect(await checkedMarkers(documents)).toEqual([[2], [1]]);
  });
});
