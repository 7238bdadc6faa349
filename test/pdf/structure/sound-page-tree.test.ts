/**
 * extract_pages and remove_pages read only the pages they keep when the page
 * tree is sound (page-tree.ts, soundPageTree): the tree's /Pages nodes and
 * the bytes of its leaves, not 500 parsed page dictionaries to keep 5. A
 * tree that is not sound (a wrong /Count, a loop, an untyped node, a kid that
 * is no page) takes the full walk with every repair it makes, as before.
 */
import { describe, expect, it } from 'vitest';
import extractPages from '../../../src/actions/extract_pages/action.js';
import removePages from '../../../src/actions/remove_pages/action.js';
import type { Warning } from '../../../src/core/warnings.js';
import { runAction } from '../../../src/core/run.js';
import { loadPdf } from '../../../src/pdf/document.js';
import { soundPageTree } from '../../../src/pdf/structure/page-tree.js';
import { objectTableOf } from '../../../src/pdf/reader/object-table.js';
import { buildPdf, drawText, FONT, type RawObject, replaceOnce } from '../../helpers/raw-pdf.js';
import { dictOf, expectCleanOutput, qpdfView } from '../../helpers/reader-checks.js';

// Objects: 1 catalog, 2 root /Pages, 3 font; pages 4, 6, 8, 12 with contents 5, 7, 9, 13; inner nodes 10, 11.
const RESOURCES = '/Resources << /Font << /F1 3 0 R >> >>';
const box = (n: number) => `/MediaBox [0 0 ${400 + 10 * n} ${600 + 10 * n}]`;
const size = (n: number): [number, number] => [400 + 10 * n, 600 + 10 * n];

function page(num: number, parent: number, text: string, entries = ''): RawObject[] {
  return [
    { num, body: `<< /Type /Page /Parent ${parent} 0 R /Contents ${num + 1} 0 R ${entries} >>` },
    { num: num + 1, body: { dict: '', stream: drawText(text, 100) } },
  ];
}

function tree(root: string, rest: RawObject[]): Uint8Array {
  return buildPdf([{ objects: [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' }, { num: 2, body: root }, { num: 3, body: FONT }, ...rest] }]).bytes;
}

/**
 * Four pages, two of them under node 10, which gives them its size and
 * /Rotate 180; the root gives every page the font and /Rotate 90.
 */
const NESTED = (pageTwo = page(6, 10, 'PAGE TWO')) =>
  tree(`<< /Type /Pages /Kids [4 0 R 10 0 R 8 0 R] /Count 4 ${box(1)} /Rotate 90 ${RESOURCES} >>`, [
    ...page(4, 2, 'PAGE ONE'),
    ...pageTwo,
    ...page(12, 10, 'PAGE THREE', '/Rotate 270'),
    ...page(8, 2, 'PAGE FOUR', box(4)),
    { num: 10, body: `<< /Type /Pages /Parent 2 0 R /Kids [6 0 R 12 0 R] /Count 2 ${box(2)} /Rotate 180 >>` },
    { num: 11, body: '<< /Type /Pages /Parent 2 0 R /Kids [] /Count 0 >>' },
  ]);

const FLAT = [...page(4, 2, 'PAGE ONE', RESOURCES), ...page(6, 2, 'PAGE TWO', RESOURCES), ...page(8, 2, 'PAGE THREE', RESOURCES)];

describe('soundPageTree: which trees are read without parsing their pages', () => {
  const pagesOf = (bytes: Uint8Array) => soundPageTree(loadPdf(bytes))?.refs.map((ref) => ref.objectNumber);

  it('a flat tree and a nested one (with an empty node) are sound: every page, in order', () => {
    expect(pagesOf(tree('<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count 3 >>', FLAT))).toEqual([4, 6, 8]);
    expect(pagesOf(NESTED())).toEqual([4, 6, 12, 8]);
    const withEmpty = tree('<< /Type /Pages /Kids [4 0 R 11 0 R 6 0 R] /Count 2 >>', [...FLAT, { num: 11, body: '<< /Type /Pages /Kids [] /Count 0 >>' }]);
    expect(pagesOf(withEmpty)).toEqual([4, 6]);
  });

  it.each([
    ['a root /Count too large', tree('<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count 4 >>', FLAT)],
    ['a root /Count too small', tree('<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count 2 >>', FLAT)],
    ['no /Count', tree('<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] >>', FLAT)],
    ['a root without /Type', tree('<< /Kids [4 0 R 6 0 R 8 0 R] /Count 3 >>', FLAT)],
    ['a page listed twice', tree('<< /Type /Pages /Kids [4 0 R 6 0 R 4 0 R] /Count 3 >>', FLAT)],
    ['a null kid', tree('<< /Type /Pages /Kids [4 0 R null 6 0 R] /Count 2 >>', FLAT)],
    ['a kid the file lacks', tree('<< /Type /Pages /Kids [4 0 R 99 0 R 6 0 R] /Count 2 >>', FLAT)],
    ['a kid that is a stream', tree('<< /Type /Pages /Kids [4 0 R 5 0 R 6 0 R] /Count 3 >>', FLAT)],
    [
      'a loop (a node whose kid is the root)',
      tree('<< /Type /Pages /Kids [4 0 R 10 0 R] /Count 2 >>', [...FLAT, { num: 10, body: '<< /Type /Pages /Kids [6 0 R 2 0 R] /Count 1 >>' }]),
    ],
    [
      'an inner /Count that does not add up, though the root is right',
      tree('<< /Type /Pages /Kids [4 0 R 10 0 R] /Count 3 >>', [...FLAT, { num: 10, body: '<< /Type /Pages /Kids [6 0 R 8 0 R] /Count 1 >>' }]),
    ],
    [
      'a leaf typed /Pages',
      tree('<< /Type /Pages /Kids [4 0 R 10 0 R] /Count 2 >>', [...FLAT, { num: 10, body: `<< /Type /Pages /Contents 7 0 R ${RESOURCES} >>` }]),
    ],
    ['a root with /Parent', tree('<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 6 0 R 8 0 R] /Count 3 >>', FLAT)],
  ])('%s: not sound (the full walk repairs it)', (_, bytes) => {
    expect(pagesOf(bytes)).toBeUndefined();
  });
});

/**
 * The walk looks at all the leaves of a node with one search per word over
 * the bytes they span (leavesAmong), not several searches per leaf. What it
 * finds must be what a look at each leaf's own bytes finds: a word in the
 * object next to a leaf is not the leaf's, and kids whose bytes are far
 * apart, packed in an object stream or not where the table says are looked
 * at one by one.
 */
describe('soundPageTree: the leaves of a node looked at together', () => {
  const FLAT_ROOT = '<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count 3 >>';
  const read = (bytes: Uint8Array) => {
    const found = soundPageTree(loadPdf(bytes));
    return { pages: found?.refs.map((ref) => ref.objectNumber), withoutAnnots: [...(found?.annotsUnwritten ?? [])].map((ref) => ref.objectNumber).sort() };
  };

  it("a word in the content stream right after a page is not the page's: every page is a leaf without annotations", () => {
    // Each content stream (5, 7, 9: written between the pages) holds every word the look searches for.
    const words = [4, 6, 8].flatMap((n) => page(n, 2, `PAGE ${n} /Kids /Pages /Annots # stream`, RESOURCES));
    expect(read(tree(FLAT_ROOT, words))).toEqual({ pages: [4, 6, 8], withoutAnnots: [4, 6, 8] });
  });

  it("a page's own /Annots or `#` is found: that page alone is not taken as without annotations", () => {
    const pages = [
      ...page(4, 2, 'ONE', `${RESOURCES} /Annots []`),
      ...page(6, 2, 'TWO', `${RESOURCES} /PieceInfo << /A#42 1 >>`),
      ...page(8, 2, 'THREE', RESOURCES),
    ];
    expect(read(tree(FLAT_ROOT, pages))).toEqual({ pages: [4, 6, 8], withoutAnnots: [8] });
  });

  it('pages far apart in the file (a large stream between them), packed in an object stream, or not at their listed offset: the same pages', () => {
    const large = { num: 20, body: { dict: '', stream: `% ${'/Kids /Annots # '.repeat(10_000)}\n` } };
    const apart = [...page(4, 2, 'ONE', RESOURCES), large, ...page(6, 2, 'TWO', RESOURCES), ...page(8, 2, 'THREE', RESOURCES)];
    expect(read(tree(FLAT_ROOT, apart))).toEqual({ pages: [4, 6, 8], withoutAnnots: [4, 6, 8] });

    const objects: RawObject[] = [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' }, { num: 2, body: FLAT_ROOT }, { num: 3, body: FONT }, ...FLAT];
    const packed = buildPdf([{ objects, xref: 'stream', objectStreams: [{ num: 30, members: [1, 2, 3, 6] }], xrefNum: 31 }]).bytes;
    expect(read(packed)).toEqual({ pages: [4, 6, 8], withoutAnnots: [4, 6, 8] });

    // Page two's row in the table points one byte past its object: the table is rebuilt and the pages found as before.
    const whole = buildPdf([{ objects }]);
    const row = (offset: number) => `${String(offset).padStart(10, '0')} 00000 n`;
    const moved = replaceOnce(whole, row(whole.offsets.get(6)!), row(whole.offsets.get(6)! + 1), whole.sections[0].xrefAt);
    const doc = loadPdf(moved);
    expect(soundPageTree(doc)?.refs.map((ref) => ref.objectNumber)).toEqual([4, 6, 8]);
    expect(objectTableOf(doc.context)?.recovered).toBe(true);
  });
});

describe('extract_pages and remove_pages on a sound tree', () => {
  it('keep the right pages with what they inherit from the nodes above them', async () => {
    const extracted = await runAction(extractPages, { file: NESTED(), pages: '3,2' });
    if (extracted.output !== 'document') throw new Error('one document expected');
    await expectCleanOutput(extracted.bytes, { texts: ['PAGE TWO', 'PAGE THREE'], sizes: [size(2), size(2)], rotation: [180, 270] }, 'extract_pages 3,2');
    const removed = await runAction(removePages, { file: NESTED(), pages: '2,3' });
    if (removed.output !== 'document') throw new Error('one document expected');
    await expectCleanOutput(removed.bytes, { texts: ['PAGE ONE', 'PAGE FOUR'], sizes: [size(1), size(4)], rotation: [90, 90] }, 'remove_pages 2,3');
  });

  it('a kept page whose /Contents lists an object the file lacks: dropped from the output and reported', async () => {
    const warnings: Warning[] = [];
    const input = NESTED(
      page(6, 10, 'PAGE TWO', '/Annots []').map((o) =>
        o.num === 6 ? { ...o, body: (o.body as string).replace('/Contents 7 0 R', '/Contents [7 0 R 99 0 R]') } : o,
      ),
    );
    const result = await runAction(extractPages, { file: input, pages: '2' }, { onWarning: (w) => warnings.push(w) });
    if (result.output !== 'document') throw new Error('one document expected');
    await expectCleanOutput(result.bytes, { texts: ['PAGE TWO'], sizes: [size(2)], rotation: [180] }, 'extract_pages 2');
    expect(warnings.map((w) => w.message).join('\n')).toMatch(/\/Contents held an item that leads to no content stream/);
  });

  it('a page it drops is not read: its damaged dictionary neither costs a warning nor reaches the output', async () => {
    // Page one's dictionary breaks off (a string that never closes): the full walk reads it as far as it goes, and says so.
    const broken: RawObject[] = [
      { num: 4, body: `<< /Type /Page /Parent 2 0 R /Contents 5 0 R ${RESOURCES} ${box(1)} /Broken (never closed >>` },
      { num: 5, body: { dict: '', stream: drawText('PAGE ONE', 100) } },
      ...FLAT.slice(2),
    ];
    const input = tree('<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count 3 >>', broken);
    const warnings: Warning[] = [];
    const result = await runAction(extractPages, { file: input, pages: '2..3' }, { onWarning: (w) => warnings.push(w) });
    if (result.output !== 'document') throw new Error('one document expected');
    await expectCleanOutput(result.bytes, { texts: ['PAGE TWO', 'PAGE THREE'] }, 'extract_pages 2..3');
    expect(warnings).toEqual([]);
    // Kept, the same page is read as far as it goes, and that is reported.
    const kept = await runAction(extractPages, { file: input, pages: '1..2' }, { onWarning: (w) => warnings.push(w) });
    if (kept.output !== 'document') throw new Error('one document expected');
    await expectCleanOutput(kept.bytes, { texts: ['PAGE ONE', 'PAGE TWO'], sizes: [size(1), [612, 792]] }, 'extract_pages 1..2');
    expect(warnings.map((w) => w.message).join('\n')).toMatch(/read as far as it goes/);
  });

  it.each([
    ['written in the page', '/Annots [20 0 R 21 0 R]', []],
    ['behind a reference', '/Annots 22 0 R', [{ num: 22, body: '[20 0 R 21 0 R]' }]],
    // The name escape hides the word from a look at the bytes: the page is parsed to find its annotations.
    ['under a name written with an escape', '/Ann#6fts [20 0 R 21 0 R]', []],
  ])("annotations of a dropped page (%s) that the kept page's annotation replies to: nulled, not written", async (_, annots, more) => {
    // Page two's note replies (/IRT) to page one's; page one also has a link to page two. Extracting page two
    // keeps its note, whose /IRT now leads to a page the output lacks: null, and page one's annotations stay out.
    const input = tree('<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count 3 >>', [
      { num: 4, body: `<< /Type /Page /Parent 2 0 R /Contents 5 0 R ${RESOURCES} ${box(1)} ${annots} >>` },
      ...FLAT.slice(1, 2),
      { num: 6, body: `<< /Type /Page /Parent 2 0 R /Contents 7 0 R ${RESOURCES} ${box(2)} /Annots [23 0 R] >>` },
      ...FLAT.slice(3),
      { num: 20, body: '<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (NOTE ON PAGE ONE) /P 4 0 R >>' },
      { num: 21, body: '<< /Type /Annot /Subtype /Link /Rect [40 10 60 30] /Dest [6 0 R /Fit] >>' },
      { num: 23, body: '<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (REPLY ON PAGE TWO) /IRT 20 0 R /P 6 0 R >>' },
      ...more,
    ]);
    const result = await runAction(extractPages, { file: input, pages: '2' });
    if (result.output !== 'document') throw new Error('one document expected');
    await expectCleanOutput(result.bytes, { texts: ['PAGE TWO'], sizes: [size(2)] }, 'extract_pages 2');
    const view = await qpdfView(result.bytes);
    const annotations = Object.values(view.objects).filter((o) => (o.value as Record<string, unknown> | undefined)?.['/Type'] === '/Annot');
    expect(annotations.map((o) => (o.value as Record<string, unknown>)['/Contents'])).toEqual(['u:REPLY ON PAGE TWO']);
    const pageAnnots = dictOf(view.objects, view.pages[0])?.['/Annots'] as string[] | undefined;
    const reply = dictOf(view.objects, pageAnnots?.[0]);
    expect(reply?.['/Contents'], "the reply is the page's annotation").toBe('u:REPLY ON PAGE TWO');
    // null (qpdf leaves a key whose value is null out of its JSON): it led to an annotation the output lacks.
    expect(reply?.['/IRT'] ?? null).toBeNull();
  });
});
