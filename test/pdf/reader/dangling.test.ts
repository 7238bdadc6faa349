/**
 * Dangling references: a reference to an object the file does not have
 * means null (PDF 2.0 §7.3.10). A writer that renumbers objects, merges
 * documents or adds new objects must not let such a reference come to mean
 * an object of the output: the number right above the input's highest one is
 * exactly where a careless writer puts its next new object, and in a merge
 * the other document may well have that number.
 *
 * Judged with `qpdf --json`: qpdf lists a dangling reference's number with
 * value null and leaves a key whose value is null out of its dictionary, so
 * a /Probe that is absent, null, or a reference to an object qpdf does not
 * have all pass; a /Probe that leads to a real object fails.
 */
import { describe, expect, it } from 'vitest';
import addImageWatermark from '../../../src/actions/add_image_watermark/action.js';
import addPassword from '../../../src/actions/add_password/action.js';
import addTextWatermark from '../../../src/actions/add_text_watermark/action.js';
import extractPages from '../../../src/actions/extract_pages/action.js';
import mergeDocuments from '../../../src/actions/merge_documents/action.js';
import removePages from '../../../src/actions/remove_pages/action.js';
import removeSignatures from '../../../src/actions/remove_signatures/action.js';
import reorderPages from '../../../src/actions/reorder_pages/action.js';
import reversePages from '../../../src/actions/reverse_pages/action.js';
import rotatePages from '../../../src/actions/rotate_pages/action.js';
import splitByPageCount from '../../../src/actions/split_by_page_count/action.js';
import type { AnyAction } from '../../../src/core/action.js';
import type { RawValues } from '../../../src/core/fields.js';
import { runAction } from '../../../src/core/run.js';
import { ValidationError } from '../../../src/core/errors.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';
import { catalogOf, dictOf, expectCleanOutput, expectReadableInput, qpdfView, resolves, runOne, type QpdfView } from '../../helpers/reader-checks.js';
import { makePng } from '../../helpers/render.js';

/** The keys that hold a dangling reference: in the catalog, and in every page dictionary. */
interface Probes {
  catalog: string[];
  page: string[];
}

/** Every probe, in the catalog and on every page, leads to no object of the file. */
function expectDangling(view: QpdfView, probes: Probes, what: string): void {
  const catalog = catalogOf(view);
  for (const key of probes.catalog) expect(resolves(view.objects, catalog[key]), `${what}: catalog ${key} = ${JSON.stringify(catalog[key])}`).toBe(false);
  view.pages.forEach((page, i) => {
    const dict = dictOf(view.objects, page) ?? {};
    for (const key of probes.page) expect(resolves(view.objects, dict[key]), `${what}: page ${i + 1} ${key} = ${JSON.stringify(dict[key])}`).toBe(false);
  });
}

/** The input is sound, and qpdf itself sees every probe as dangling. */
async function expectSoundInput(bytes: Uint8Array, texts: string[], probes: Probes, what: string): Promise<void> {
  await expectReadableInput(bytes, texts, what);
  expectDangling(await qpdfView(bytes), probes, `fixture ${what}`);
}

// ---------------------------------------------------------------------------
// (a) merge: the first document's /Probe 6 0 R dangles; the second has an object 6
// ---------------------------------------------------------------------------

describe('merge_documents: a dangling reference in the first document', () => {
  // One page: objects 1..5, so 6 is missing. Its trailer /Size is 6.
  const first = buildPdf([{ objects: simpleDoc(['FIRST PAGE ONE'], { catalog: '/Probe 6 0 R', page: () => '/Probe 6 0 R' }).objects }]).bytes;
  // Two pages: object 6 is its second page.
  const second = buildPdf([{ objects: simpleDoc(['SECOND PAGE ONE', 'SECOND PAGE TWO']).objects }]).bytes;
  const probes = { catalog: ['/Probe'], page: [] };

  it("does not come to mean the second document's object 6", async () => {
    await expectSoundInput(first, ['FIRST PAGE ONE'], probes, 'first');
    await expectReadableInput(second, ['SECOND PAGE ONE', 'SECOND PAGE TWO'], 'second');
    const output = await runOne(mergeDocuments, { file: [first, second] });
    const texts = ['FIRST PAGE ONE', 'SECOND PAGE ONE', 'SECOND PAGE TWO'];
    await expectCleanOutput(output, { texts }, 'merge_documents');
    const view = await qpdfView(output);
    expectDangling(view, probes, 'merge_documents');
    // The first page's own /Probe 6 0 R dangles too.
    expect(resolves(view.objects, dictOf(view.objects, view.pages[0])?.['/Probe'])).toBe(false);
  });
});

// ---------------------------------------------------------------------------
// (b) object streams: objects 1..7, object stream 8, cross-reference stream 9;
// the probes name 10 and 11, the numbers a writer would give its next objects.
// ---------------------------------------------------------------------------

describe('rotate_pages: dangling references in a document with object streams', () => {
  const doc = simpleDoc(['PAGE ONE', 'PAGE TWO'], { catalog: '/Probe 10 0 R /ProbeFar 99 0 R', page: () => '/Probe 11 0 R' });
  const input = buildPdf([{ objects: doc.objects, xref: 'stream', objectStreams: [{ num: 8, members: [1, 2, 3, 4, 6] }], xrefNum: 9 }]).bytes;
  const probes = { catalog: ['/Probe', '/ProbeFar'], page: ['/Probe'] };

  it('still lead to no object after rotate_pages 90', async () => {
    await expectSoundInput(input, ['PAGE ONE', 'PAGE TWO'], probes, 'object streams');
    const output = await runOne(rotatePages, { file: input, angle: 90 });
    await expectCleanOutput(output, { texts: ['PAGE ONE', 'PAGE TWO'], rotation: 90 }, 'rotate_pages');
    expectDangling(await qpdfView(output), probes, 'rotate_pages');
  });
});

// ---------------------------------------------------------------------------
// (c) every single-input action (and merge): a three-page document, objects
// 1..9, trailer /Size 10; the catalog has /Probe 10 0 R and /ProbeFar 99 0 R,
// every page /Probe 11 0 R.
// ---------------------------------------------------------------------------

const TEXTS = ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'];
const PROBES: Probes = { catalog: ['/Probe', '/ProbeFar'], page: ['/Probe'] };
const INPUT = buildPdf([{ objects: simpleDoc(TEXTS, { catalog: '/Probe 10 0 R /ProbeFar 99 0 R', page: () => '/Probe 11 0 R' }).objects }]).bytes;
/** Four pages: it has objects 10 and 11 (its fourth page and content). */
const OTHER_TEXTS = ['OTHER ONE', 'OTHER TWO', 'OTHER THREE', 'OTHER FOUR'];
const OTHER = buildPdf([{ objects: simpleDoc(OTHER_TEXTS).objects }]).bytes;
const PASSWORD = 'open sesame 42';
const RED_PNG = makePng(30, 10, () => [255, 0, 0, 255]);

interface ActionCase {
  name: string;
  action: AnyAction;
  values: RawValues;
  /** The text of each page of each output document. */
  parts: string[][];
  /** Page text must contain the expected text (a text watermark adds its own). */
  contains?: boolean;
  rotation?: number;
  password?: string;
}

const CASES: ActionCase[] = [
  { name: 'rotate_pages', action: rotatePages, values: { angle: 90 }, parts: [TEXTS], rotation: 90 },
  { name: 'extract_pages', action: extractPages, values: { pages: '1,3' }, parts: [['PAGE ONE', 'PAGE THREE']] },
  { name: 'reorder_pages', action: reorderPages, values: { page_order: '3,1,2' }, parts: [['PAGE THREE', 'PAGE ONE', 'PAGE TWO']] },
  { name: 'reverse_pages', action: reversePages, values: {}, parts: [[...TEXTS].reverse()] },
  { name: 'remove_pages', action: removePages, values: { pages: '2' }, parts: [['PAGE ONE', 'PAGE THREE']] },
  { name: 'split_by_page_count', action: splitByPageCount, values: { page_count: 2 }, parts: [['PAGE ONE', 'PAGE TWO'], ['PAGE THREE']] },
  { name: 'add_text_watermark', action: addTextWatermark, values: { line_1: 'DRAFT' }, parts: [TEXTS], contains: true },
  { name: 'add_image_watermark', action: addImageWatermark, values: { image: RED_PNG }, parts: [TEXTS] },
  { name: 'remove_signatures', action: removeSignatures, values: {}, parts: [TEXTS] },
  { name: 'add_password', action: addPassword, values: { password: PASSWORD }, parts: [TEXTS], password: PASSWORD },
  { name: 'merge_documents', action: mergeDocuments, values: { file: [INPUT, OTHER] }, parts: [[...TEXTS, ...OTHER_TEXTS]] },
];

describe('every action keeps a dangling reference dangling', () => {
  let checked: Promise<void> | undefined;
  const sound = () =>
    (checked ??= (async () => {
      await expectSoundInput(INPUT, TEXTS, PROBES, 'three pages');
      await expectReadableInput(OTHER, OTHER_TEXTS, 'four pages');
    })());

  // Concurrent: the time goes to qpdf and poppler child processes.
  it.concurrent.each(CASES)('$name', async (c) => {
    await sound();
    const result = await runAction(c.action, { file: INPUT, ...c.values });
    const outputs = result.output === 'document' ? [result.bytes] : result.documents.map((d) => d.bytes);
    expect(outputs, `${c.name}: number of output documents`).toHaveLength(c.parts.length);
    for (const [i, output] of outputs.entries()) {
      const what = `${c.name}${outputs.length > 1 ? ` part ${i + 1}` : ''}`;
      await expectCleanOutput(output, { texts: c.parts[i], contains: c.contains, rotation: c.rotation, password: c.password }, what);
      expectDangling(await qpdfView(output, c.password), PROBES, what);
    }
  });
});

// ---------------------------------------------------------------------------
// The trailer: /Info and /Encrypt that lead to no object of the file. New
// objects (a watermark's image, a merge's outline) take the numbers right
// above the file's highest, which is where such a reference tends to point.
// ---------------------------------------------------------------------------

describe('a dangling reference in the trailer', () => {
  // simpleDoc with three pages has objects 1 to 9: /Info 10 0 R and /Encrypt 11 0 R point just past them.
  const input = buildPdf([{ objects: simpleDoc(TEXTS).objects, trailer: '/Info 10 0 R /Encrypt 11 0 R' }]).bytes;

  it.each([
    ['add_image_watermark', addImageWatermark, { image: RED_PNG }],
    ['add_text_watermark', addTextWatermark, { line_1: 'DRAFT' }],
    ['merge_documents', mergeDocuments, { file: [input, OTHER] }],
  ] as const)('%s: the output neither calls itself encrypted nor takes a new object for its Info', async (_, action, values) => {
    const result = await runAction(action as AnyAction, { file: input, ...values } as RawValues);
    const output = result.output === 'document' ? result.bytes : new Uint8Array();
    const view = await qpdfView(output);
    const trailer = view.objects.trailer?.value as Record<string, unknown>;
    expect(trailer['/Encrypt']).toBeUndefined();
    expect(trailer['/Info'] === undefined || !resolves(view.objects, trailer['/Info'])).toBe(true);
    await expectCleanOutput(output, { texts: action === mergeDocuments ? [...TEXTS, ...OTHER_TEXTS] : TEXTS, contains: true }, 'trailer probes');
  });
});

describe('an /Encrypt that leads to something other than a dictionary', () => {
  it('is 400 errors.file naming it, not an output no reader opens', async () => {
    // Object 5 is page one's content stream.
    const input = buildPdf([{ objects: simpleDoc(TEXTS).objects, trailer: '/Encrypt 5 0 R' }]).bytes;
    const error = await runAction(rotatePages, { file: input, angle: 90 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.file?.[0]).toMatch(/encryption dictionary, \/Encrypt, is damaged/);
  });
});
