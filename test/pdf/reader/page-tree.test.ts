/**
 * Page trees as damaged files have them: a loop, a node listed as its own kid, a node reached from
 * two parents, a /Pages node where a page should be, and attributes
 * inherited from intermediate nodes. After rotate_pages 0 and reverse_pages
 * the output must pass `qpdf --check` and show every page once, in the
 * expected order, with the size and rotation it inherited.
 *
 * The expected pages: as qpdf lists them where qpdf can (`qpdf --json`
 * `pages`, confirmed per row). Where qpdf 11.3 stops with "Loop detected in
 * /Pages structure" (loops, and a node reached twice), the expected list is
 * each page once, in the order a depth-first walk first meets it, skipping
 * nodes already visited: the reader's flat /Kids rebuild. Poppler's list is
 * recorded per row (it stops at the root's /Count; with /Count 4 it showed
 * page two twice for a node reached twice).
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import reversePages from '../../../src/actions/reverse_pages/action.js';
import rotatePages from '../../../src/actions/rotate_pages/action.js';
import { buildPdf, drawText, FONT, type RawObject } from '../../helpers/raw-pdf.js';
import { qpdfCheck, tempFile } from '../../helpers/pdf-tools.js';
import { dictOf, expectCleanOutput, qpdfView, runOne, texts, type QpdfObjects } from '../../helpers/reader-checks.js';

// Objects: 1 catalog, 2 root /Pages, 3 font; intermediate nodes 10, 11;
// pages 4, 6, 8, 12 with contents 5, 7, 9, 13.
const RESOURCES = '/Resources << /Font << /F1 3 0 R >> >>';
/** Text baseline: inside the smallest page (410 x 610), or pdftotext would not see it. */
const Y = 100;

/** A page (`num`) and its content (`num + 1`); `entries` are the page's own attributes. */
function page(num: number, parent: number, text: string, entries = RESOURCES): RawObject[] {
  return [
    { num, body: `<< /Type /Page /Parent ${parent} 0 R /Contents ${num + 1} 0 R ${entries} >>` },
    { num: num + 1, body: { dict: '', stream: drawText(text, Y) } },
  ];
}

/** Catalog, root node (with `rootEntries`), font, and the rest. */
function tree(rootKids: number[], count: number, rest: RawObject[], rootEntries = ''): Uint8Array {
  return buildPdf([
    {
      objects: [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
        { num: 2, body: `<< /Type /Pages /Kids [${rootKids.map((k) => `${k} 0 R`).join(' ')}] /Count ${count} ${rootEntries} >>` },
        { num: 3, body: FONT },
        ...rest,
      ],
    },
  ]).bytes;
}

/** Page n's own size: (400 + 10n) x (600 + 10n), so pages can be told apart by size too. */
const box = (n: number) => `/MediaBox [0 0 ${400 + 10 * n} ${600 + 10 * n}]`;
const size = (n: number): [number, number] => [400 + 10 * n, 600 + 10 * n];

interface PageWant {
  text: string;
  size: [number, number];
  rotation: number;
}

interface TreeCase {
  name: string;
  input: Uint8Array;
  /** Every page once, in order, with what it inherits. */
  pages: PageWant[];
  /** How qpdf 11.3 reads the input: its page list (`N 0 R`), or the error it stops with. */
  qpdf: { pages: string[] } | { error: RegExp };
  /** What poppler (pdftotext) shows for the input, where it differs from `pages` or not. */
  poppler: string[];
}

const CASES: TreeCase[] = [
  {
    // Node 10 lists the root as its second kid. Its /MediaBox and /Rotate go to page two.
    name: 'a /Kids entry points back to an ancestor',
    input: tree([4, 10], 2, [
      ...page(4, 2, 'PAGE ONE', `${RESOURCES} ${box(1)}`),
      ...page(6, 10, 'PAGE TWO'),
      { num: 10, body: `<< /Type /Pages /Parent 2 0 R /Kids [6 0 R 2 0 R] /Count 1 ${box(2)} /Rotate 90 >>` },
    ]),
    pages: [
      { text: 'PAGE ONE', size: size(1), rotation: 0 },
      { text: 'PAGE TWO', size: size(2), rotation: 90 },
    ],
    qpdf: { error: /Loop detected in \/Pages structure/ },
    poppler: ['PAGE ONE', 'PAGE TWO'],
  },
  {
    name: 'a /Pages node listed as its own kid',
    input: tree([4, 10], 2, [
      ...page(4, 2, 'PAGE ONE', `${RESOURCES} ${box(1)}`),
      ...page(6, 10, 'PAGE TWO'),
      { num: 10, body: `<< /Type /Pages /Parent 2 0 R /Kids [6 0 R 10 0 R] /Count 1 ${box(2)} /Rotate 90 >>` },
    ]),
    pages: [
      { text: 'PAGE ONE', size: size(1), rotation: 0 },
      { text: 'PAGE TWO', size: size(2), rotation: 90 },
    ],
    qpdf: { error: /Loop detected in \/Pages structure/ },
    poppler: ['PAGE ONE', 'PAGE TWO'],
  },
  {
    // Node 10 (page two) is a kid of the root and of node 11; node 11 comes
    // after it, so the second visit adds nothing. Page three inherits from 11.
    name: 'the same intermediate /Pages node reached from two parents',
    input: tree([4, 10, 11], 3, [
      ...page(4, 2, 'PAGE ONE', `${RESOURCES} ${box(1)}`),
      ...page(6, 10, 'PAGE TWO'),
      ...page(8, 11, 'PAGE THREE'),
      { num: 10, body: `<< /Type /Pages /Parent 2 0 R /Kids [6 0 R] /Count 1 ${box(2)} /Rotate 90 >>` },
      { num: 11, body: `<< /Type /Pages /Parent 2 0 R /Kids [8 0 R 10 0 R] /Count 2 ${box(3)} /Rotate 180 >>` },
    ]),
    pages: [
      { text: 'PAGE ONE', size: size(1), rotation: 0 },
      { text: 'PAGE TWO', size: size(2), rotation: 90 },
      { text: 'PAGE THREE', size: size(3), rotation: 180 },
    ],
    qpdf: { error: /Loop detected in \/Pages structure/ },
    // Poppler walks into node 10 twice too, but stops at the root's /Count 3.
    poppler: ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'],
  },
  {
    // A page whose /Type says /Pages, without /Kids: qpdf and poppler both take it as a page.
    name: 'a /Type /Pages node (with no kids) where a leaf page should be',
    input: tree([4, 6, 8], 3, [
      ...page(4, 2, 'PAGE ONE', `${RESOURCES} ${box(1)}`),
      { num: 6, body: `<< /Type /Pages /Parent 2 0 R /Contents 7 0 R ${RESOURCES} ${box(2)} >>` },
      { num: 7, body: { dict: '', stream: drawText('PAGE TWO', Y) } },
      ...page(8, 2, 'PAGE THREE', `${RESOURCES} ${box(3)}`),
    ]),
    pages: [
      { text: 'PAGE ONE', size: size(1), rotation: 0 },
      { text: 'PAGE TWO', size: size(2), rotation: 0 },
      { text: 'PAGE THREE', size: size(3), rotation: 0 },
    ],
    qpdf: { pages: ['4 0 R', '6 0 R', '8 0 R'] },
    poppler: ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'],
  },
  {
    // An empty /Pages node (/Kids []) between two pages: no page of its own.
    name: 'an empty /Pages node (/Kids []) among the pages',
    input: tree([4, 10, 6], 2, [
      ...page(4, 2, 'PAGE ONE', `${RESOURCES} ${box(1)}`),
      ...page(6, 2, 'PAGE TWO', `${RESOURCES} ${box(2)}`),
      { num: 10, body: '<< /Type /Pages /Parent 2 0 R /Kids [] /Count 0 >>' },
    ]),
    pages: [
      { text: 'PAGE ONE', size: size(1), rotation: 0 },
      { text: 'PAGE TWO', size: size(2), rotation: 0 },
    ],
    qpdf: { pages: ['4 0 R', '6 0 R'] },
    poppler: ['PAGE ONE', 'PAGE TWO'],
  },
  {
    // The root gives /MediaBox, /Rotate 90 and /Resources (the font) to all;
    // node 10 overrides /MediaBox and /Rotate; page 12 its own /Rotate, page 8
    // its own /MediaBox. No page has /Resources of its own.
    name: 'inherited /MediaBox, /Rotate and /Resources on intermediate nodes',
    input: tree(
      [4, 10, 8],
      4,
      [
        ...page(4, 2, 'PAGE ONE', ''),
        ...page(6, 10, 'PAGE TWO', ''),
        ...page(12, 10, 'PAGE THREE', '/Rotate 270'),
        ...page(8, 2, 'PAGE FOUR', box(4)),
        { num: 10, body: `<< /Type /Pages /Parent 2 0 R /Kids [6 0 R 12 0 R] /Count 2 ${box(2)} /Rotate 180 >>` },
      ],
      `${box(1)} /Rotate 90 ${RESOURCES}`,
    ),
    pages: [
      { text: 'PAGE ONE', size: size(1), rotation: 90 },
      { text: 'PAGE TWO', size: size(2), rotation: 180 },
      { text: 'PAGE THREE', size: size(2), rotation: 270 },
      { text: 'PAGE FOUR', size: size(4), rotation: 90 },
    ],
    qpdf: { pages: ['4 0 R', '6 0 R', '12 0 R', '8 0 R'] },
    poppler: ['PAGE ONE', 'PAGE TWO', 'PAGE THREE', 'PAGE FOUR'],
  },
];

/** An attribute of a page, own or inherited through /Parent (qpdf JSON). */
function inherited(objects: QpdfObjects, pageRef: string, key: string): unknown {
  const seen = new Set<unknown>();
  let node: unknown = pageRef;
  while (typeof node === 'string' && !seen.has(node)) {
    seen.add(node);
    const dict = dictOf(objects, node);
    if (!dict) return undefined;
    if (key in dict) return dict[key];
    node = dict['/Parent'];
  }
  return undefined;
}

/**
 * The fixture is sound: qpdf lists the expected pages, or stops only with
 * the page-tree error and still reads every object; poppler shows the
 * recorded texts.
 */
async function expectSoundTree(c: TreeCase): Promise<void> {
  const check = await qpdfCheck(c.input);
  if ('pages' in c.qpdf) {
    expect([0, 3], `fixture: qpdf --check\n${check.output}`).toContain(check.exitCode);
    expect((await qpdfView(c.input)).pages, 'fixture: qpdf page list').toEqual(c.qpdf.pages);
  } else {
    expect(check.output, 'fixture: qpdf stops at the page tree').toMatch(c.qpdf.error);
    const errors = check.output.split('\n').filter((line) => /^(ERROR|WARNING)/.test(line));
    expect(errors, "fixture: the page tree is qpdf's only complaint").toHaveLength(1);
    const objects = await execa('qpdf', ['--json=2', '--json-key=qpdf', tempFile(c.input)], { reject: false });
    expect(objects.exitCode, `fixture: qpdf reads every object\n${objects.stderr}`).toBe(0);
  }
  expect(await texts(c.input), 'fixture: pdftotext per page').toEqual(c.poppler);
}

const ACTIONS = [
  { name: 'rotate_pages angle 0', run: (file: Uint8Array) => runOne(rotatePages, { file, angle: 0 }), order: (pages: PageWant[]) => pages },
  { name: 'reverse_pages', run: (file: Uint8Array) => runOne(reversePages, { file }), order: (pages: PageWant[]) => [...pages].reverse() },
];

// Concurrent: the time goes to qpdf and poppler child processes.
describe.concurrent.each(CASES)('$name', (c) => {
  let checked: Promise<void> | undefined;
  const sound = () => (checked ??= expectSoundTree(c));

  it('fixture: qpdf and poppler read it as recorded', async () => {
    await sound();
  });

  it.each(ACTIONS)('$name: every page once, in order, with its inherited size and rotation', async (a) => {
    await sound();
    const output = await a.run(c.input);
    const want = a.order(c.pages);
    await expectCleanOutput(
      output,
      { texts: want.map((p) => p.text), sizes: want.map((p) => p.size), rotation: want.map((p) => p.rotation) },
      `${a.name} on "${c.name}"`,
    );
    // Each output page still finds the font: its /Resources, own or inherited, has /F1.
    const view = await qpdfView(output);
    for (const [i, ref] of view.pages.entries()) {
      const resources = dictOf(view.objects, inherited(view.objects, ref, '/Resources'));
      const fonts = dictOf(view.objects, resources?.['/Font']);
      expect(fonts?.['/F1'], `${a.name}: page ${i + 1} /Resources /Font /F1`).toBeDefined();
    }
    expect(new Set(view.pages).size, `${a.name}: no page object listed twice`).toBe(view.pages.length);
  });
});

describe('a root /Pages node without /Kids, carrying a page of its own', () => {
  // qpdf lists no page for it; poppler and pdfsvc show its content as the one page. The
  // writer once made that page its own parent, a loop qpdf refuses (found by npm run fuzz).
  const input = buildPdf([
    {
      objects: [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
        { num: 2, body: `<< /Type /Pages /Count 1 /Contents 5 0 R ${RESOURCES} ${box(1)} >>` },
        { num: 3, body: FONT },
        { num: 5, body: { dict: '', stream: drawText('PAGE ONE', Y) } },
      ],
    },
  ]).bytes;

  it.each(ACTIONS)('$name: one page under a new root, no loop', async (a) => {
    const output = await a.run(input);
    const check = await qpdfCheck(output);
    expect(check.exitCode, check.output).toBe(0);
    expect((await qpdfView(output)).pages).toHaveLength(1);
    expect(await texts(output)).toEqual(['PAGE ONE']);
  });
});
