/**
 * split_at_page (docs/contract.md, "Actions"): two parts, pages 1 … page-1 and page …
 * last; `page` is one page number in page syntax, negatives allowed, and must
 * resolve to 2 … last, else 400 errors.page. Same output contract as the
 * other split actions (packagings and the CLI are covered at length in
 * split_by_page_count.test.ts; here once each).
 */
import { execa } from 'execa';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import splitAtPage from './action.js';
import { splitAtPage as library } from '../../index.js';
import { fixture, fixturePath, qpdfJson } from '../../../test/helpers/pdf-tools.js';
import {
  checkedMarkers,
  formFields,
  namedDestinations,
  outlineLines,
  pageLabels,
  partNames,
  refusal,
  split,
  unpack,
} from '../../../test/helpers/split-tools.js';
import { formRequest, inProcessApp, keys } from '../../../test/server/harness.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('split_at_page', () => {
  it.each([
    ['2', [[1], range(2, 10)]],
    ['4', [range(1, 3), range(4, 10)]],
    ['10', [range(1, 9), [10]]],
    ['-1', [range(1, 9), [10]]],
    ['-9', [[1], range(2, 10)]],
    [' 5 ', [range(1, 4), range(5, 10)]],
    [7, [range(1, 6), range(7, 10)]],
  ])('page %j: two parts, the second starting there', async (page, expected) => {
    const parts = await split(splitAtPage, 'pages-10.pdf', { page });
    expect(parts.map((p) => p.name)).toEqual(partNames(2));
    expect(await checkedMarkers(parts)).toEqual(expected);
  });

  it.each([
    ['1', /first page, which would leave the first part empty; give the first page of the second part, from 2 to 10/],
    ['-10', /first page/],
    ['11', /page "11" does not exist \(the document has 10 pages\)/],
    ['-11', /does not exist/],
    ['0', /pages are numbered from 1/],
    ['2..4', /one page number/],
    ['3,5', /one page number/],
    ['x', /not allowed/],
    ['', /^is empty/],
  ])('page %j is refused with errors.page', async (page, message) => {
    const errors = await refusal(splitAtPage, 'pages-10.pdf', { page });
    expect(Object.keys(errors)).toEqual(['page']);
    expect(errors.page.join(' ')).toMatch(message);
  });

  it('a one-page document has nowhere to split', async () => {
    expect((await refusal(splitAtPage, 'pages-1.pdf', { page: '1' })).page.join(' ')).toMatch(/has 1 page/);
    expect((await refusal(splitAtPage, 'pages-1.pdf', { page: '2' })).page.join(' ')).toMatch(/has 1 page/);
  });

  it('each part keeps its outline entries, labels, named destinations and fields', async () => {
    const parts = await split(splitAtPage, 'outline.pdf', { page: '3' });
    expect(await checkedMarkers(parts)).toEqual([[1, 2], range(3, 6)]);
    expect(await Promise.all(parts.map(async (p) => outlineLines((await qpdfJson(p.bytes)).outlines)))).toEqual([
      ['Chapter 1→1', '  Section 1.1→2'],
      ['Chapter 1→1', '  Section 1.2→1', 'Chapter 2→2', '  Section 2.1→3', 'Appendix→4'],
    ]);
    expect(await Promise.all(parts.map((p) => pageLabels(p.bytes)))).toEqual([
      ['i', 'ii'],
      ['1', '2', '3', '4'],
    ]);
    expect(await Promise.all(parts.map((p) => namedDestinations(p.bytes)))).toEqual([{ sec11: 2 }, { appendix: 4, chap2: 2 }]);
    const form = await split(splitAtPage, 'form.pdf', { page: '-1' });
    expect(await Promise.all(form.map((p) => formFields(p.bytes)))).toEqual([
      ['name=Ada Lovelace@1', 'email=ada@example.com@1', 'agree=/Yes@2'],
      ['address.street=1 Main St@1', 'address.city=London@1'],
    ]);
  });

  it('is a library function returning named parts', async () => {
    const parts = await library({ file: fixture('pages-3.pdf'), page: '-1' });
    expect(parts.map((p) => p.name)).toEqual(['00001.pdf', '00002.pdf']);
    expect(await checkedMarkers(parts)).toEqual([[1, 2], [3]]);
  });

  it('answers over HTTP as JSON when asked', async () => {
    const response = await inProcessApp().fetch(
      formRequest(
        'http://pdfsvc.test/v1/split_at_page',
        [
          ['file', fixture('pages-10.pdf')],
          ['page', '6'],
        ],
        { 'X-API-Key': keys.business, Accept: 'application/json' },
      ),
    );
    expect(response.status).toBe(200);
    const { documents } = unpack(new Uint8Array(await response.arrayBuffer()), response.headers.get('content-type')!);
    expect(documents.map((d) => d.name)).toEqual(partNames(2));
    expect(await checkedMarkers(documents)).toEqual([range(1, 5), range(6, 10)]);
  });

  describe('pdfsvc split-at-page', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-split-at-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('writes the two parts into -o DIR', async () => {
      const out = join(dir, 'parts');
      const run = await execa('node', ['bin/pdfsvc.js', 'split-at-page', '--page', '-2', fixturePath('pages-10.pdf'), '-o', out], { reject: false });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(readdirSync(out).sort()).toEqual(partNames(2));
      expect(await checkedMarkers(partNames(2).map((name) => ({ bytes: readFileSync(join(out, name)) })))).toEqual([range(1, 8), [9, 10]]);
    });

    it('refuses page 1 with exit status 2 naming the field', async () => {
      const run = await execa('node', ['bin/pdfsvc.js', 'split-at-page', '--page', '1', fixturePath('pages-10.pdf'), '-o', join(dir, 'bad')], {
        reject: false,
      });
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toMatch(/^pdfsvc: page: "1" is the first page/m);
    });
  });
});
