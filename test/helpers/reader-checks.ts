/**
 * Judges for the reader tests (test/pdf/reader): is a hand-made input sound as
 * qpdf and poppler read it, and is an action's output clean with the
 * expected pages. Running the actions in process is here too, so the three
 * test files share one way of doing it.
 */
import { execa } from 'execa';
import { expect } from 'vitest';
import type { AnyAction } from '../../src/core/action.js';
import type { RawValues } from '../../src/core/fields.js';
import { runAction } from '../../src/core/run.js';
import extractPages from '../../src/actions/extract_pages/action.js';
import mergeDocuments from '../../src/actions/merge_documents/action.js';
import removePages from '../../src/actions/remove_pages/action.js';
import reversePages from '../../src/actions/reverse_pages/action.js';
import rotatePages from '../../src/actions/rotate_pages/action.js';
import splitByPageCount from '../../src/actions/split_by_page_count/action.js';
import { qpdfCheck, tempFile } from './pdf-tools.js';
import { buildPdf, simpleDoc } from './raw-pdf.js';

export type QpdfObjects = Record<string, { value?: unknown; stream?: { dict: Record<string, unknown> } }>;

export interface QpdfView {
  /** The page objects as qpdf lists them (`N G R`). */
  pages: string[];
  objects: QpdfObjects;
}

/** `qpdf --json=2` (warnings tolerated: the check is separate); throws with qpdf's message when qpdf cannot read the file. */
export async function qpdfView(bytes: Uint8Array, password?: string): Promise<QpdfView> {
  const args = ['--json=2', ...(password !== undefined ? [`--password=${password}`] : []), tempFile(bytes)];
  const result = await execa('qpdf', args, { reject: false, maxBuffer: 256 * 1024 * 1024 });
  if (result.exitCode !== 0 && result.exitCode !== 3) throw new Error(`qpdf --json failed (${result.exitCode}): ${result.stderr}`);
  const json = JSON.parse(result.stdout) as { pages: Array<{ object: string }>; qpdf: [unknown, QpdfObjects] };
  return { pages: json.pages.map((p) => p.object), objects: json.qpdf[1] };
}

/**
 * qpdf's page list (`qpdf --json` `pages`, reading only the page tree): []
 * when it lists none (qpdf 11.3 stops its JSON halfway at a null kid), or
 * 'crashes' when qpdf dies of a segmentation fault (its page walk recurses,
 * and a tree 100,000 deep runs it out of stack).
 */
export async function qpdfPageList(bytes: Uint8Array): Promise<string[] | 'crashes'> {
  const run = await execa('qpdf', ['--json=2', '--json-key=pages', tempFile(bytes)], { reject: false, maxBuffer: 64 * 2 ** 20 });
  if (run.signal === 'SIGSEGV') return 'crashes';
  try {
    return (JSON.parse(run.stdout) as { pages: Array<{ object: string }> }).pages.map((p) => p.object);
  } catch {
    return [];
  }
}

/** What poppler shows of a damaged input: [] when it finds no page (pdftotext then fails: "Invalid page count"). */
export async function popplerTexts(bytes: Uint8Array): Promise<string[]> {
  try {
    return await texts(bytes);
  } catch {
    return [];
  }
}

/** pdftotext of each page (one run, split at the form feed that ends each page), white space folded and trimmed. */
export async function texts(bytes: Uint8Array, password?: string): Promise<string[]> {
  const pw = password !== undefined ? ['-upw', password] : [];
  const { stdout } = await execa('pdftotext', [...pw, tempFile(bytes), '-'], { stripFinalNewline: false });
  return stdout
    .split('\f')
    .slice(0, -1)
    .map((page) => page.replace(/\s+/g, ' ').trim());
}

/** pdfinfo's size and rotation of every page, in one run. */
async function pageInfo(bytes: Uint8Array, password?: string): Promise<Array<{ width: number; height: number; rotation: number }>> {
  const pw = password !== undefined ? ['-upw', password] : [];
  // -l past the last page lists every page.
  const { stdout } = await execa('pdfinfo', [...pw, '-f', '1', '-l', '100000', tempFile(bytes)]);
  const count = Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]);
  const pages = Array.from({ length: count }, () => ({ width: NaN, height: NaN, rotation: NaN }));
  for (const m of stdout.matchAll(/^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+)/gm))
    Object.assign(pages[Number(m[1]) - 1], { width: Number(m[2]), height: Number(m[3]) });
  for (const m of stdout.matchAll(/^Page\s+(\d+) rot:\s+(\d+)/gm)) pages[Number(m[1]) - 1].rotation = Number(m[2]);
  return pages;
}

/**
 * The fixture itself is sound: qpdf reads it (`--check` exit 0, or 3 for
 * warnings: the damage is on purpose) and lists `expected.length` pages, and
 * poppler shows the expected text on each page. Run before any action, so a
 * failure below it is about the action's output, not the fixture.
 */
export async function expectReadableInput(bytes: Uint8Array, expected: string[], what: string): Promise<void> {
  const check = await qpdfCheck(bytes);
  expect([0, 3], `fixture ${what}: qpdf --check exit ${check.exitCode}\n${check.output}`).toContain(check.exitCode);
  expect((await qpdfView(bytes)).pages, `fixture ${what}: qpdf's page count`).toHaveLength(expected.length);
  expect(await texts(bytes), `fixture ${what}: pdftotext per page`).toEqual(expected);
}

export interface Expected {
  /** pdftotext of each page, in order (exact, or each must contain it with `contains`). */
  texts: string[];
  contains?: boolean;
  /** pdfinfo's rotation: one value for every page, or one per page. */
  rotation?: number | number[];
  /** pdfinfo's page size of each page, [width, height]. */
  sizes?: Array<[number, number]>;
  password?: string;
}

/**
 * The output passes `qpdf --check` without a warning, qpdf, pdfinfo and
 * pdftotext see the expected pages, and every /Count of its page tree is the
 * number of pages below that node.
 */
export async function expectCleanOutput(bytes: Uint8Array, expected: Expected, what: string): Promise<void> {
  const check = await qpdfCheck(bytes, expected.password);
  expect(check.exitCode, `${what}: qpdf --check\n${check.output}`).toBe(0);
  const view = await qpdfView(bytes, expected.password);
  expect(view.pages, `${what}: qpdf's page count`).toHaveLength(expected.texts.length);
  expectCountsRight(view, what);
  const info = await pageInfo(bytes, expected.password);
  expect(info, `${what}: pdfinfo's page count`).toHaveLength(expected.texts.length);
  const got = await texts(bytes, expected.password);
  if (expected.contains) {
    expect(got, `${what}: pdftotext per page`).toHaveLength(expected.texts.length);
    got.forEach((text, i) => expect(text, `${what}: pdftotext of page ${i + 1}`).toContain(expected.texts[i]));
  } else expect(got, `${what}: pdftotext per page`).toEqual(expected.texts);
  if (expected.rotation !== undefined) {
    const rotation = typeof expected.rotation === 'number' ? expected.texts.map(() => expected.rotation as number) : expected.rotation;
    expect(
      info.map((p) => p.rotation),
      `${what}: pdfinfo rotation per page`,
    ).toEqual(rotation);
  }
  if (expected.sizes)
    expect(
      info.map((p) => [p.width, p.height]),
      `${what}: pdfinfo size per page`,
    ).toEqual(expected.sizes);
}

/** Runs an action that gives one document. */
export async function runOne(action: AnyAction, values: RawValues): Promise<Uint8Array> {
  const result = await runAction(action, values);
  if (result.output !== 'document') throw new Error(`${action.name} gave several documents; expected one`);
  return result.bytes;
}

/** Runs an action that gives several documents (a split). */
async function runMany(action: AnyAction, values: RawValues): Promise<Uint8Array[]> {
  const result = await runAction(action, values);
  if (result.output !== 'documents') throw new Error(`${action.name} gave one document; expected several`);
  return result.documents.map((d) => d.bytes);
}

const REF = /^(\d+) (\d+) R$/;

/**
 * Whether `value` (from qpdf JSON) leads to an object of the file: a
 * reference that qpdf lists with a non-null value or as a stream. qpdf
 * lists a dangling reference's number with value null, and leaves a key
 * whose value is null out of its dictionary, so both count as not resolving.
 */
export function resolves(objects: QpdfObjects, value: unknown): boolean {
  if (typeof value !== 'string' || !REF.test(value)) return value !== undefined && value !== null;
  const entry = objects[`obj:${value}`];
  return entry !== undefined && (entry.stream !== undefined || (entry.value !== undefined && entry.value !== null));
}

/** The dictionary `value` is, or leads to (qpdf JSON). */
export function dictOf(objects: QpdfObjects, value: unknown): Record<string, unknown> | undefined {
  const target = typeof value === 'string' && REF.test(value) ? (objects[`obj:${value}`]?.value ?? objects[`obj:${value}`]?.stream?.dict) : value;
  return target && typeof target === 'object' && !Array.isArray(target) ? (target as Record<string, unknown>) : undefined;
}

/** The catalog (qpdf JSON). */
export function catalogOf(view: QpdfView): Record<string, unknown> {
  const trailer = view.objects.trailer?.value as Record<string, unknown> | undefined;
  return dictOf(view.objects, trailer?.['/Root']) ?? {};
}

/**
 * Every page-tree node's /Count (qpdf JSON) is the number of pages below it,
 * counted by walking /Kids; and the root's is the number of pages qpdf lists.
 */
function expectCountsRight(view: QpdfView, what: string): void {
  const root = catalogOf(view)['/Pages'];
  const below = new Map<string, number>();
  // Post-order over the tree, with a stack of its own (and each node once: the output has no loop to follow).
  const stack: Array<{ ref: string; done: boolean }> = typeof root === 'string' ? [{ ref: root, done: false }] : [];
  const visited = new Set<string>();
  while (stack.length > 0) {
    const top = stack.pop()!;
    const kids = dictOf(view.objects, top.ref)?.['/Kids'];
    if (!Array.isArray(kids)) {
      below.set(top.ref, 1);
      continue;
    }
    if (top.done) {
      below.set(
        top.ref,
        kids.reduce((sum: number, kid) => sum + (below.get(kid as string) ?? 0), 0),
      );
      continue;
    }
    expect(visited.has(top.ref), `${what}: page-tree node ${top.ref} reached twice`).toBe(false);
    visited.add(top.ref);
    stack.push({ ref: top.ref, done: true });
    for (const kid of kids) if (typeof kid === 'string') stack.push({ ref: kid, done: false });
  }
  for (const ref of visited) {
    expect(dictOf(view.objects, ref)?.['/Count'], `${what}: /Count of page-tree node ${ref}`).toBe(below.get(ref));
  }
  if (typeof root === 'string') expect(below.get(root), `${what}: pages below the root`).toBe(view.pages.length);
}

/** One output of a page action, and what it must show. */
export interface PageActionOutput {
  bytes: Uint8Array;
  texts: string[];
  rotation?: number;
}

/** A page action as the reader tests run it on a document whose pages show `texts`. */
export interface PageAction {
  name: string;
  /** Fewest pages the input needs (removing the only page is refused). */
  minPages: number;
  run(file: Uint8Array, texts: string[]): Promise<PageActionOutput[]>;
}

/** The second document of the merge: one clean page. */
const MERGE_PARTNER = { bytes: buildPdf([{ objects: simpleDoc(['MERGED AFTER']).objects }]).bytes, texts: ['MERGED AFTER'] };

/**
 * The page actions every damaged page tree and recovered file goes through:
 * each reads the page tree, and the outputs between them rebuild it in every
 * way (kept, reordered, cut down, combined, split).
 */
export const PAGE_ACTIONS: PageAction[] = [
  { name: 'rotate_pages 90', minPages: 1, run: async (file, texts) => [{ bytes: await runOne(rotatePages, { file, angle: 90 }), texts, rotation: 90 }] },
  {
    name: 'extract_pages -1',
    minPages: 1,
    run: async (file, texts) => [{ bytes: await runOne(extractPages, { file, pages: '-1' }), texts: texts.slice(-1), rotation: 0 }],
  },
  {
    name: 'reverse_pages',
    minPages: 1,
    run: async (file, texts) => [{ bytes: await runOne(reversePages, { file }), texts: [...texts].reverse(), rotation: 0 }],
  },
  {
    name: 'remove_pages 1',
    minPages: 2,
    run: async (file, texts) => [{ bytes: await runOne(removePages, { file, pages: '1' }), texts: texts.slice(1), rotation: 0 }],
  },
  {
    name: 'merge_documents with a clean document after it',
    minPages: 1,
    run: async (file, texts) => [
      { bytes: await runOne(mergeDocuments, { file: [file, MERGE_PARTNER.bytes] }), texts: [...texts, ...MERGE_PARTNER.texts], rotation: 0 },
    ],
  },
  {
    name: 'split_by_page_count 1',
    minPages: 1,
    run: async (file, texts) => (await runMany(splitByPageCount, { file, page_count: 1 })).map((bytes, i) => ({ bytes, texts: [texts[i]], rotation: 0 })),
  },
];

/** Runs `action` on `input` and judges every output with expectCleanOutput. */
export async function expectCleanAction(action: PageAction, input: Uint8Array, texts: string[], what: string): Promise<void> {
  const outputs = await action.run(input, texts);
  if (action.name.startsWith('split')) expect(outputs, `${action.name} on ${what}: one part per page`).toHaveLength(texts.length);
  for (const [i, output] of outputs.entries()) {
    await expectCleanOutput(
      output.bytes,
      { texts: output.texts, rotation: output.rotation },
      `${action.name} on ${what}${outputs.length > 1 ? `, part ${i + 1}` : ''}`,
    );
  }
}
