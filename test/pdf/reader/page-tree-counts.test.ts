/**
 * Page trees whose numbers or kids are wrong: a /Count that is too
 * large, too small, 0, 10^10 or missing; kids that are null, numbers,
 * streams or references to objects the file lacks; an untyped inner node, a
 * /Kids array two nodes share, a tree 100,000 levels deep; pages whose
 * /Contents holds something other than streams, or whose /MediaBox is not
 * four numbers. Each
 * input goes through every page action (test/helpers/reader-checks.ts
 * PAGE_ACTIONS); every output must pass `qpdf --check` with no warning,
 * show the expected pages to qpdf, pdfinfo and pdftotext, and have every
 * /Count equal to the number of pages below its node.
 *
 * The expected pages are the leaves of the tree, each once, in order: what
 * qpdf's page list (`qpdf --json` `pages`) shows, except that qpdf 11.3 also
 * makes a blank page of a kid that is a number or a dangling reference,
 * where newer qpdf ignores it ("Pages tree includes non-dictionary object").
 * What qpdf and poppler show of each input is recorded per row: poppler
 * trusts the root's /Count, so it shows too few pages or none at all.
 */
import { describe, expect, it } from 'vitest';
import rotatePages from '../../../src/actions/rotate_pages/action.js';
import type { Warning } from '../../../src/core/warnings.js';
import { runAction } from '../../../src/core/run.js';
import { buildPdf, bytesOf, drawText, FONT, latin1, type RawObject } from '../../helpers/raw-pdf.js';
import { qpdfCheck } from '../../helpers/pdf-tools.js';
import { expectCleanAction, expectCleanOutput, PAGE_ACTIONS, popplerTexts, qpdfPageList, runOne } from '../../helpers/reader-checks.js';

// Objects: 1 catalog, 2 root /Pages, 3 font; pages 4, 6, 8 with contents 5, 7, 9; inner nodes from 10.
const PAGE_ENTRIES = '/Resources << /Font << /F1 3 0 R >> >> /MediaBox [0 0 612 792]';

function page(num: number, parent: number, text: string, entries = `/Contents ${num + 1} 0 R`): RawObject[] {
  return [
    { num, body: `<< /Type /Page /Parent ${parent} 0 R ${entries} ${PAGE_ENTRIES} >>` },
    { num: num + 1, body: { dict: '', stream: drawText(text) } },
  ];
}

function tree(root: string, rest: RawObject[]): Uint8Array {
  return buildPdf([{ objects: [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' }, { num: 2, body: root }, { num: 3, body: FONT }, ...rest] }]).bytes;
}

const TWO = [...page(4, 2, 'PAGE ONE'), ...page(6, 2, 'PAGE TWO')];
const THREE = [...TWO, ...page(8, 2, 'PAGE THREE')];

/**
 * `depth` /Pages nodes in a chain under the root (objects 10 …), with page
 * two at the bottom; page one is the root's first kid, page three its last.
 * At 100,000 levels the file is 10 MB.
 */
function deepTree(depth: number): Uint8Array {
  const objects: RawObject[] = [...page(4, 2, 'PAGE ONE'), ...page(6, 10 + depth - 1, 'PAGE TWO DEEP DOWN'), ...page(8, 2, 'PAGE THREE')];
  for (let i = 0; i < depth; i++) {
    const kid = i === depth - 1 ? 6 : 10 + i + 1;
    objects.push({ num: 10 + i, body: `<< /Type /Pages /Parent ${i === 0 ? 2 : 10 + i - 1} 0 R /Kids [${kid} 0 R] /Count 1 >>` });
  }
  return tree('<< /Type /Pages /Kids [4 0 R 10 0 R 8 0 R] /Count 3 >>', objects);
}

interface TreeCase {
  name: string;
  input: () => Uint8Array;
  /** The text of each page of the document: every leaf once, in order. */
  pages: string[];
  /** qpdf 11.3's page list of the input (qpdfPageList); 'crashes': its page walk, which recurses, runs out of stack. */
  qpdf: string[] | 'crashes';
  /** What poppler (pdftotext) shows of the input. */
  poppler: string[];
  /** What the warning says was wrong. */
  warning: RegExp;
}

const CASES: TreeCase[] = [
  {
    name: '/Count too large: 5 over two pages',
    input: () => tree('<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 5 >>', TWO),
    pages: ['PAGE ONE', 'PAGE TWO'],
    qpdf: ['4 0 R', '6 0 R'],
    poppler: ['PAGE ONE', 'PAGE TWO'],
    warning: /\/Count that is not the number of pages below it/,
  },
  {
    name: '/Count too small: 1 over three pages',
    input: () => tree('<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count 1 >>', THREE),
    pages: ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'],
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: ['PAGE ONE'],
    warning: /\/Count/,
  },
  {
    name: '/Count 0 over two pages',
    input: () => tree('<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 0 >>', TWO),
    pages: ['PAGE ONE', 'PAGE TWO'],
    qpdf: ['4 0 R', '6 0 R'],
    poppler: [],
    warning: /\/Count/,
  },
  {
    name: '/Count 10^10 over two pages',
    input: () => tree('<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 10000000000 >>', TWO),
    pages: ['PAGE ONE', 'PAGE TWO'],
    qpdf: ['4 0 R', '6 0 R'],
    poppler: [],
    warning: /\/Count/,
  },
  {
    name: 'no /Count at all',
    input: () => tree('<< /Type /Pages /Kids [4 0 R 6 0 R] >>', TWO),
    pages: ['PAGE ONE', 'PAGE TWO'],
    qpdf: ['4 0 R', '6 0 R'],
    poppler: [],
    warning: /\/Count/,
  },
  {
    // The root's /Count is right; the inner node's is not.
    name: "an inner node's /Count 7 over its two pages",
    input: () =>
      tree('<< /Type /Pages /Kids [4 0 R 10 0 R] /Count 3 >>', [
        ...page(4, 2, 'PAGE ONE'),
        ...page(6, 10, 'PAGE TWO'),
        ...page(8, 10, 'PAGE THREE'),
        { num: 10, body: '<< /Type /Pages /Parent 2 0 R /Kids [6 0 R 8 0 R] /Count 7 >>' },
      ]),
    pages: ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'],
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'],
    warning: /\/Count/,
  },
  {
    // qpdf --check: "operation for dictionary attempted on object of type null" (an error); poppler shows nothing.
    name: 'a root full of null kids around one page',
    input: () => tree('<< /Type /Pages /Kids [null null 4 0 R null null] /Count 1 >>', page(4, 2, 'PAGE ONE')),
    pages: ['PAGE ONE'],
    qpdf: [],
    poppler: [],
    warning: /kids that are no page/,
  },
  {
    name: 'null kids between two pages, and in an inner node',
    input: () =>
      tree('<< /Type /Pages /Kids [null 4 0 R 10 0 R null] /Count 2 >>', [
        ...page(4, 2, 'PAGE ONE'),
        ...page(6, 10, 'PAGE TWO'),
        { num: 10, body: '<< /Type /Pages /Parent 2 0 R /Kids [null 6 0 R null] /Count 1 >>' },
      ]),
    pages: ['PAGE ONE', 'PAGE TWO'],
    qpdf: [],
    poppler: [],
    warning: /kids that are no page/,
  },
  {
    // qpdf 11.3 makes a blank page of 40 0 R; poppler skips it.
    name: 'a kid that is a reference to an object the file lacks',
    input: () => tree('<< /Type /Pages /Kids [4 0 R 40 0 R 6 0 R] /Count 3 >>', TWO),
    pages: ['PAGE ONE', 'PAGE TWO'],
    qpdf: ['4 0 R', '40 0 R', '6 0 R'],
    poppler: ['PAGE ONE', 'PAGE TWO'],
    warning: /kids that are no page/,
  },
  {
    // qpdf 11.3 makes blank pages of the number and the name (as new objects 13 and 14); poppler stops at the first.
    name: 'kids that are a number, a name, a stream and a null object',
    input: () => tree('<< /Type /Pages /Kids [4 0 R 7 /Name 5 0 R 12 0 R 6 0 R] /Count 2 >>', [...TWO, { num: 12, body: 'null' }]),
    pages: ['PAGE ONE', 'PAGE TWO'],
    qpdf: ['4 0 R', '13 0 R', '14 0 R', '5 0 R', '12 0 R', '6 0 R'],
    poppler: ['PAGE ONE'],
    warning: /kids that are no page/,
  },
  {
    // qpdf --check: "/Type key should be /Pages but is not; overriding" (a warning).
    name: 'an inner node without /Type /Pages',
    input: () =>
      tree('<< /Type /Pages /Kids [4 0 R 10 0 R] /Count 3 >>', [
        ...page(4, 2, 'PAGE ONE'),
        ...page(6, 10, 'PAGE TWO'),
        ...page(8, 10, 'PAGE THREE'),
        { num: 10, body: '<< /Parent 2 0 R /Kids [6 0 R 8 0 R] /Count 2 >>' },
      ]),
    pages: ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'],
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'],
    warning: /a \/Pages node without \/Type \/Pages/,
  },
  {
    // Nodes 10 and 11 share the /Kids array 12: qpdf and poppler show its two pages twice (qpdf: "appears more
    // than once in the pages tree; creating a new page object as a copy"), and so must the output.
    name: 'two nodes that share one /Kids array',
    input: () =>
      tree('<< /Type /Pages /Kids [10 0 R 11 0 R] /Count 4 >>', [
        ...page(4, 10, 'PAGE ONE'),
        ...page(6, 10, 'PAGE TWO'),
        { num: 10, body: '<< /Type /Pages /Parent 2 0 R /Kids 12 0 R /Count 2 >>' },
        { num: 11, body: '<< /Type /Pages /Parent 2 0 R /Kids 12 0 R /Count 2 >>' },
        { num: 12, body: '[4 0 R 6 0 R]' },
      ]),
    pages: ['PAGE ONE', 'PAGE TWO', 'PAGE ONE', 'PAGE TWO'],
    qpdf: ['4 0 R', '6 0 R', '13 0 R', '14 0 R'],
    poppler: ['PAGE ONE', 'PAGE TWO', 'PAGE ONE', 'PAGE TWO'],
    warning: /two nodes that share one \/Kids array/,
  },
  {
    name: 'a tree 100,000 levels deep',
    input: () => deepTree(100_000),
    pages: ['PAGE ONE', 'PAGE TWO DEEP DOWN', 'PAGE THREE'],
    qpdf: 'crashes',
    poppler: ['PAGE ONE', 'PAGE TWO DEEP DOWN', 'PAGE THREE'],
    warning: /nested more than 100 levels deep/,
  },
];

// Inputs are made once per case: the deep one is 10 MB.
const inputs = new Map<TreeCase, Uint8Array>();
const inputOf = (c: TreeCase) => inputs.get(c) ?? inputs.set(c, c.input()).get(c)!;

/** The tests of one case; `deep`: its input is the 10 MB tree, whose every run parses 100,000 objects. */
function treeCase(c: TreeCase, deep: boolean): void {
  const timeout = deep ? 120_000 : 60_000;
  let checked: Promise<void> | undefined;
  const sound = () =>
    (checked ??= (async () => {
      const input = inputOf(c);
      expect(await qpdfPageList(input), "fixture: qpdf's page list").toEqual(c.qpdf);
      expect(await popplerTexts(input), 'fixture: pdftotext per page').toEqual(c.poppler);
    })());

  it(
    'fixture: qpdf and poppler read it as recorded',
    async () => {
      await sound();
    },
    timeout,
  );

  it(
    'the repair is reported as a warning',
    async () => {
      const warnings: Warning[] = [];
      await runAction(rotatePages, { file: inputOf(c), angle: 90 }, { onWarning: (w) => warnings.push(w) });
      expect(warnings.map((w) => w.message)).toContainEqual(expect.stringMatching(/page tree is damaged/));
      expect(warnings.map((w) => w.message).join('\n')).toMatch(c.warning);
    },
    timeout,
  );

  it.each(PAGE_ACTIONS.filter((a) => c.pages.length >= a.minPages))(
    '$name: every page once, in order, every /Count right',
    async (action) => {
      await sound();
      await expectCleanAction(action, inputOf(c), c.pages, c.name);
    },
    timeout,
  );
}

const isDeep = (c: TreeCase) => c.name.includes('100,000');
// Concurrent: the time goes to qpdf and poppler child processes.
describe.concurrent.each(CASES.filter((c) => !isDeep(c)))('$name', (c) => treeCase(c, false));
// One action at a time: each holds the 100,000 parsed nodes until it has written its output.
describe.each(CASES.filter(isDeep))('$name', (c) => {
  treeCase(c, true);

  it('rotate_pages reads it without recursion, in seconds of CPU time', async () => {
    const cpu = process.cpuUsage();
    const result = await runAction(rotatePages, { file: inputOf(c), angle: 90 });
    const { user, system } = process.cpuUsage(cpu);
    expect(result.output).toBe('document');
    // About 1 s; CPU time, not wall time, so that a loaded machine does not count. A walk that went up the
    // /Parent chain from each node, or copied the inherited attributes per level, would take minutes.
    expect((user + system) / 1000, 'CPU ms').toBeLessThan(10_000);
  }, 60_000);
});

// ---------------------------------------------------------------------------
// /Contents that holds something other than streams. qpdf reads such input
// with a warning ("ignoring non-stream in an array of streams") and draws the
// streams; poppler draws nothing on the page ("Weird page contents"). An
// output that writes the item as null fails `qpdf --check` with an error.
// The items that are no stream are dropped: both then draw the streams.
// ---------------------------------------------------------------------------

interface ContentsCase {
  name: string;
  /** Page one's /Contents, and objects to add (after the others). */
  contents: string;
  extra?: RawObject[];
  /** Damage done to the file's text after it is built. */
  damage?: (text: string) => string;
  /** qpdf --check's exit status on the input (3: warnings, 2: errors). */
  qpdfExit: number;
  /** The text of each page: what qpdf draws of the input. */
  pages: string[];
  /** What poppler shows of the input, when it draws something of page one. */
  poppler?: string[];
}

/** Poppler draws nothing of page one, whatever the array holds. */
const POPPLER = ['', 'PAGE TWO'];

const CONTENTS_CASES: ContentsCase[] = [
  { name: 'a reference to an object the file lacks', contents: '[5 0 R 40 0 R]', qpdfExit: 3, pages: ['PAGE ONE', 'PAGE TWO'] },
  { name: 'null', contents: '[null 5 0 R null]', qpdfExit: 2, pages: ['PAGE ONE', 'PAGE TWO'] },
  { name: 'a dictionary and a number', contents: '[12 0 R 5 0 R 7]', extra: [{ num: 12, body: '<< /Foo 1 >>' }], qpdfExit: 3, pages: ['PAGE ONE', 'PAGE TWO'] },
  {
    // Found by the fuzz tier (seed 41, case 397): the last object, a content stream, runs into the table with
    // no `endstream` or `endobj`. qpdf ignores it (poppler draws it); written as its bytes, qpdf read the
    // output's as a stream of garbage running on through the table, and failed on it.
    name: 'a stream cut off by the table that follows it',
    contents: '[5 0 R 12 0 R]',
    extra: [{ num: 12, body: { dict: '', stream: drawText('CUT OFF', 400) } }],
    damage: (text) => text.replace(/(CUT OFF\) Tj ET)\nendstream\nendobj\n/, '$1\n'),
    qpdfExit: 3,
    pages: ['PAGE ONE', 'PAGE TWO'],
    poppler: ['PAGE ONE CUT OFF', 'PAGE TWO'],
  },
  {
    name: 'nothing but a dictionary (no array, no stream)',
    contents: '12 0 R',
    extra: [{ num: 12, body: '<< /Foo 1 >>' }],
    qpdfExit: 3,
    pages: ['', 'PAGE TWO'],
  },
];

describe.concurrent.each(CONTENTS_CASES)("page one's /Contents holds $name", (c) => {
  const built = tree('<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>', [
    ...page(4, 2, 'PAGE ONE', `/Contents ${c.contents}`),
    ...page(6, 2, 'PAGE TWO'),
    ...(c.extra ?? []),
  ]);
  const input = c.damage ? bytesOf(c.damage(latin1(built))) : built;
  let checked: Promise<void> | undefined;
  const sound = () =>
    (checked ??= (async () => {
      const check = await qpdfCheck(input);
      expect(check.exitCode, `fixture: qpdf --check\n${check.output}`).toBe(c.qpdfExit);
      expect(check.output).toMatch(/non-stream in an array of streams|supposed to be a stream or an array of streams/);
      expect(await popplerTexts(input), 'fixture: pdftotext per page').toEqual(c.poppler ?? POPPLER);
    })());

  it('fixture: qpdf warns about it, poppler shows what is recorded', async () => {
    await sound();
  });

  it('the items dropped are reported as a warning', async () => {
    const warnings: Warning[] = [];
    await runAction(rotatePages, { file: input, angle: 90 }, { onWarning: (w) => warnings.push(w) });
    expect(warnings.map((w) => w.message)).toContainEqual(
      expect.stringMatching(/\/Contents held (an item that leads|\d+ items that lead) to no content stream/),
    );
  });

  it.each(PAGE_ACTIONS)(
    '$name: the output passes qpdf --check, the pages show their text',
    async (action) => {
      await sound();
      await expectCleanAction(action, input, c.pages, `/Contents holding ${c.name}`);
    },
    60_000,
  );
});

describe('a page whose /MediaBox is not four numbers', () => {
  // Page one's own box has three numbers, under a node that gives one; page two's holds a string, with none above.
  const input = tree('<< /Type /Pages /Kids [11 0 R 10 0 R] /Count 2 >>', [
    { num: 4, body: '<< /Type /Page /Parent 11 0 R /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> /MediaBox [0 0 300] >>' },
    { num: 11, body: '<< /Type /Pages /Parent 2 0 R /Kids [4 0 R] /Count 1 /MediaBox [0 0 500 700] >>' },
    { num: 5, body: { dict: '', stream: drawText('PAGE ONE', 100) } },
    { num: 6, body: '<< /Type /Page /Parent 10 0 R /Contents 7 0 R /Resources << /Font << /F1 3 0 R >> >> /MediaBox [0 (x) 612 792] >>' },
    { num: 7, body: { dict: '', stream: drawText('PAGE TWO', 100) } },
    { num: 10, body: '<< /Type /Pages /Parent 2 0 R /Kids [6 0 R] /Count 1 >>' },
  ]);

  it('gets the box it inherits, else letter size, as qpdf gives it', async () => {
    const output = await runOne(rotatePages, { file: input, angle: 90 });
    await expectCleanOutput(
      output,
      {
        texts: ['PAGE ONE', 'PAGE TWO'],
        rotation: 90,
        sizes: [
          [500, 700],
          [612, 792],
        ],
      },
      'rotate_pages',
    );
  });
});
