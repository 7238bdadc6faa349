/**
 * split_by_size (docs/contract.md, "Fields"): every part's written size is at most
 * maximum_bytes, except a part of one page that alone is larger; parts are
 * packed (adding the next page would pass the limit); a part carries only
 * the objects its own pages use, shared ones once.
 *
 * The rules are checked as stated, for limits from one byte to past the whole
 * file. "Packed" is checked by writing each part together with the next
 * page, through split_by_groups, which writes a run of pages exactly as
 * split_by_size does.
 */
import { execa } from 'execa';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import splitByGroups from '../split_by_groups/action.js';
import splitBySize from './action.js';
import type { NamedDocument } from '../../core/action.js';
import { openDocument } from '../../pdf/document.js';
import { splitBySize as splitBySizeLayer } from '../../pdf/operations/split-by-size.js';
import { fixture, fixturePath, pageMarkers, qpdfJson } from '../../../test/helpers/pdf-tools.js';
import { buildPdf, simpleDoc } from '../../../test/helpers/raw-pdf.js';
import {
  catalogKeys,
  checkedMarkers,
  formFields,
  imagesHeld,
  outlineLines,
  pageLabels,
  partNames,
  refusal,
  split,
  unpack,
} from '../../../test/helpers/split-tools.js';
import { formRequest, inProcessApp, keys } from '../../../test/server/harness.js';

/**
 * Checks the three rules on the parts of `file` split at `limit`; returns
 * each part's pages (from the markers, 1-based). Every part also passes
 * `qpdf --check`.
 */
async function checkRules(file: string | Uint8Array, limit: number): Promise<number[][]> {
  const parts = await split(splitBySize, file, { maximum_bytes: limit });
  expect(parts.map((p) => p.name)).toEqual(partNames(parts.length));
  const pages = await checkedMarkers(parts);
  const all = pages.flat();
  expect(all, 'consecutive, every page once, in order').toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
  for (const [i, part] of parts.entries()) {
    if (pages[i].length > 1) expect(part.bytes.byteLength, `part ${i + 1} (${pages[i].length} pages) within ${limit}`).toBeLessThanOrEqual(limit);
  }
  if (parts.length > 1) {
    // Each part with the next part's first page: must pass the limit.
    const groups = pages
      .slice(0, -1)
      .map((run, i) => `${run[0]}..${pages[i + 1][0]}`)
      .join(';');
    const grown = await split(splitByGroups, file, { groups });
    grown.forEach((candidate: NamedDocument, i) => {
      expect(candidate.bytes.byteLength, `part ${i + 1} plus page ${pages[i + 1][0]} passes ${limit}`).toBeGreaterThan(limit);
    });
  }
  return pages;
}

describe('split_by_size', () => {
  const sizedBytes = fixture('sized.pdf').byteLength;

  it.each([1, 1000, 14_000, 20_000, 25_000, 30_000, 45_000, 60_000, 90_000, 100_000, 150_000, sizedBytes - 3_000, sizedBytes, 10 * sizedBytes])(
    'sized.pdf at %i bytes: parts within the limit, packed, in order',
    async (limit) => {
      await checkRules('sized.pdf', limit);
    },
  );

  it('a page larger than the limit on its own is a part of its own; the others are packed around it', async () => {
    // Page 7 holds a 77 KB image; every other page is under 26 KB.
    const pages = await checkRules('sized.pdf', 45_000);
    expect(pages).toContainEqual([7]);
    expect((await checkRules('sized.pdf', 1)).length).toBe(12);
    expect(await checkRules('sized.pdf', 10 * sizedBytes)).toEqual([Array.from({ length: 12 }, (_, i) => i + 1)]);
  });

  it("a part carries only its own pages' images, and the shared logo once", async () => {
    const parts = await split(splitBySize, 'sized.pdf', { maximum_bytes: 60_000 });
    const pages = await checkedMarkers(parts);
    const images = await Promise.all(parts.map((p) => imagesHeld(p.bytes)));
    images.forEach((held, i) => expect(held).toEqual([0, ...pages[i]]));
    for (const part of parts) {
      const { catalog, structParents } = await catalogKeys(part.bytes);
      expect(catalog).not.toContain('/StructTreeRoot');
      expect(structParents).toBe(false);
    }
  });

  it.each([
    ['outline.pdf', [1, 4_500, 6_000, 7_500, 100_000]],
    ['form.pdf', [1, 3_500, 6_000, 7_000, 100_000]],
    ['pages-10.pdf', [1, 2_000, 5_000, 9_000, 20_000]],
    ['rotated.pdf', [2_500, 4_000]],
  ] as const)('%s: the rules hold at every limit', async (file, limits) => {
    for (const limit of limits) await checkRules(file, limit);
  });

  it('parts keep outline, fields and metadata as the other splits do', async () => {
    // Every part carries the attachment too, so the limit leaves room for it.
    const outline = await split(splitBySize, 'outline.pdf', { maximum_bytes: 6_500 });
    const pages = await checkedMarkers(outline);
    expect(pages[0]).toEqual([1, 2, 3]);
    expect(outlineLines((await qpdfJson(outline[0].bytes)).outlines)).toEqual(['Chapter 1→1', '  Section 1.1→2', '  Section 1.2→3']);
    const form = await split(splitBySize, 'form.pdf', { maximum_bytes: 6_000 });
    expect(await checkedMarkers(form)).toEqual([[1, 2], [3]]);
    expect(await formFields(form[1].bytes)).toEqual(['address.street=1 Main St@1', 'address.city=London@1']);
  });

  it('saves each part about once, never a growing candidate after every page', async () => {
    for (const limit of [1, 14_000, 20_000, 30_000, 45_000, 60_000, 100_000, 150_000, sizedBytes]) {
      let saves = 0;
      const parts = splitBySizeLayer(await openDocument(fixture('sized.pdf')), limit, { onSave: () => saves++ });
      expect(saves, `limit ${limit}: ${parts.length} parts`).toBeLessThanOrEqual(parts.length + 2);
    }
  });

  it('a document of many label ranges: rules and labels hold, each part saved once', async () => {
    // 40 small pages sharing one font; a label range starts on every third page (roman, decimal, prefixed), so
    // how many entries a part's /PageLabels has, and its /Kids, grow with its pages. Left out of the estimate,
    // they made it miss and parts be saved again.
    const ranges = Array.from({ length: 14 }, (_, r) => `${3 * r} ${['<< /S /r >>', '<< /S /D /St 7 >>', '<< /S /D /P (A-) >>'][r % 3]}`);
    const texts = Array.from({ length: 40 }, (_, i) => `PDFSVC PAGE ${i + 1}`);
    const input = buildPdf([{ objects: simpleDoc(texts, { catalog: `/PageLabels << /Nums [${ranges.join(' ')}] >>` }).objects }]).bytes;
    const labels = await pageLabels(input);
    expect(labels.slice(0, 7)).toEqual(['i', 'ii', 'iii', '7', '8', '9', 'A-1']);
    for (const limit of [1_400, 2_000, 3_000, 5_000]) {
      const pages = await checkRules(input, limit);
      const parts = await split(splitBySize, input, { maximum_bytes: limit });
      for (const [i, part] of parts.entries()) expect(await pageLabels(part.bytes), `part ${i + 1}`).toEqual(pages[i].map((page) => labels[page - 1]));
      let saves = 0;
      splitBySizeLayer(await openDocument(input), limit, { onSave: () => saves++ });
      // Once each: the estimate knows the labels and /Kids, and the lower bound proves every part packed.
      expect(saves, `limit ${limit}: ${parts.length} parts`).toBe(parts.length);
    }
  });

  it("pages whose own objects follow the page before's in number: each part saved once", async () => {
    // As long documents are laid out: the page dictionaries in a row, then each page's content stream and its
    // own fonts (one to four) after the page before's. A page's objects continue the part's last subsection of
    // the cross-reference table and save no header of it; counted as saving one header each, the lower bound
    // could not prove parts packed, and they were saved once more with the next page.
    const count = 60;
    const objects: Array<{ num: number; body: string | { dict: string; stream: string } }> = [];
    let next = 3 + count;
    for (let i = 0; i < count; i++) {
      const fonts = Array.from({ length: 1 + (i % 4) }, (_, f) => `/F${f + 1} ${next + 1 + f} 0 R`);
      objects.push({ num: 3 + i, body: `<< /Type /Page /Parent 2 0 R /Resources << /Font << ${fonts.join(' ')} >> >> /Contents ${next} 0 R >>` });
      objects.push({ num: next, body: { dict: '', stream: `BT /F1 12 Tf 72 700 Td (PDFSVC PAGE ${i + 1} ${'x'.repeat((i * 37) % 200)}) Tj ET` } });
      for (let f = 0; f < fonts.length; f++) objects.push({ num: next + 1 + f, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' });
      next += 1 + fonts.length;
    }
    const kids = Array.from({ length: count }, (_, i) => `${3 + i} 0 R`).join(' ');
    objects.push({ num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' }, { num: 2, body: `<< /Type /Pages /Kids [${kids}] /Count ${count} >>` });
    const input = buildPdf([{ objects }]).bytes;
    for (const limit of [1_500, 2_000, 2_500, 3_000, 4_000, 6_000]) {
      await checkRules(input, limit);
      let saves = 0;
      const parts = splitBySizeLayer(await openDocument(input), limit, { onSave: () => saves++ });
      expect(saves, `limit ${limit}: ${parts.length} parts`).toBe(parts.length);
    }
  });

  it.each([
    [{ maximum_bytes: 0 }, /must be 1 or greater; got 0/],
    [{ maximum_bytes: -100 }, /must be 1 or greater/],
    [{ maximum_bytes: '1.5' }, /whole number/],
    [{ maximum_bytes: '5MB' }, /whole number/],
    [{}, /required/],
  ])('refuses %j with errors.maximum_bytes', async (values, message) => {
    const errors = await refusal(splitBySize, 'pages-10.pdf', values);
    expect(Object.keys(errors)).toEqual(['maximum_bytes']);
    expect(errors.maximum_bytes.join(' ')).toMatch(message);
  });

  it('answers over HTTP with a ZIP whose entries are the parts as written', async () => {
    const response = await inProcessApp().fetch(
      formRequest(
        'http://pdfsvc.test/v1/split_by_size',
        [
          ['file', fixture('sized.pdf')],
          ['maximum_bytes', '100000'],
        ],
        { 'X-API-Key': keys.business },
      ),
    );
    expect(response.status).toBe(200);
    const { documents } = unpack(new Uint8Array(await response.arrayBuffer()), response.headers.get('content-type')!);
    const direct = await split(splitBySize, 'sized.pdf', { maximum_bytes: 100_000 });
    expect(documents.map((d) => [d.name, d.bytes.byteLength])).toEqual(direct.map((d) => [d.name, d.bytes.byteLength]));
  });

  describe('pdfsvc split-by-size', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-split-size-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('writes parts no larger than --maximum-bytes into -o DIR', async () => {
      const out = join(dir, 'parts');
      const run = await execa('node', ['bin/pdfsvc.js', 'split-by-size', '--maximum-bytes', '50000', fixturePath('sized.pdf'), '-o', out], { reject: false });
      expect(run.exitCode, run.stderr).toBe(0);
      const names = readdirSync(out).sort();
      expect(names).toEqual(partNames(names.length));
      const markers: number[][] = [];
      for (const name of names) {
        const bytes = readFileSync(join(out, name));
        markers.push(await pageMarkers(bytes));
        if (markers.at(-1)!.length > 1) expect(statSync(join(out, name)).size).toBeLessThanOrEqual(50_000);
      }
      expect(markers.flat()).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    });
  });
});
