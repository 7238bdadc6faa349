/**
 * The real-document tier: every file of ../shared/corpus through the six
 * page actions and the two watermarks of the BUILT command line
 * (`node bin/pdfsvc.js`), each run with a time limit so that a hang or a
 * crash is reported, never waited on. For quick runs:
 * - PDFSVC_CORPUS_ACTIONS=text-wm,rotate runs only those actions;
 * - PDFSVC_CORPUS_FILES=qpdf_qtest_qpdf_bad,pdf-lib/ runs only the files
 *   whose corpus path (files/<source>/<name>) contains one of these
 *   comma-separated substrings.
 * (A filtered run still asserts the 25-minute budget, which it meets easily.)
 *
 * Expectations (docs/contract.md, "Inputs and outputs"):
 * - never exit 1 (internal error), a crash or a timeout;
 * - encrypted input: exit 2, the problem object's errors.file says which
 *   action to call first (remove_password / remove_restrictions);
 * - signed input (a signature field with a value): exit 2, errors.file
 *   mentions remove_signatures;
 * - input qpdf reads (unencrypted, unsigned): exit 0, the output passes
 *   `qpdf --check` (exit 0; exit 3 only when the input had warnings too,
 *   and those are listed) and has the expected page count;
 * - damaged input that qpdf reads (MANIFEST `damaged` and `qpdf_readable`:
 *   qpdf had to repair it): the same as any readable input, an output judged
 *   as above (we recover what qpdf recovers); a refusal is a
 *   failure, unless it names a real reason: qpdf finds no pages in it and
 *   the refusal says so ("no pages", "no page tree"); the same holds for a
 *   refusal of undamaged readable input. Where qpdf found no pages
 *   at all, any pages we recover are more than qpdf gives, not fewer;
 * - "warnings as the input had" is judged warning by warning: each of the
 *   output's qpdf --check warnings, without file name, object numbers and
 *   offsets, must be among the input's; for damaged input only warnings
 *   about the input's own stream data (content stream parse errors,
 *   undecodable stream data) may stay: the repairs qpdf reports (xref not
 *   found, expected endobj, ...) must not, since the output is written anew;
 * - input qpdf cannot read (`qpdf --check` exit 2, e.g. undecodable stream
 *   data): exit 2 with errors.file, or an output whose only qpdf --check
 *   errors are the input's own (stream data is copied as it was, never
 *   re-encoded, so a corrupt stream stays exactly as corrupt).
 * - no silent loss: for the six page actions, every output page
 *   has the text and the images of the input page it comes from, as poppler
 *   sees them: per page, the multiset of non-space characters of
 *   `pdftotext -raw` (why characters: see `glyphs`) and the images of
 *   `pdfimages -list` (type, size, colour, bits, encoding, interpolation).
 *   The input is read once per file, the output with one run of each tool.
 *   For damaged input a page may match poppler's reading of the input or of
 *   qpdf's repair of it (see `readReferences`). When poppler cannot read
 *   the input (tool error, timeout) or counts other pages than qpdf, the
 *   comparison is skipped for that file, and the summary lists it. This
 *   applies to every output with the expected page count, also of input
 *   qpdf cannot check. Mismatch: 'FAIL lost content', naming the output
 *   page, the input page and what differs.
 *
 * A judge (qpdf, pdftotext, pdfimages) has its own time limit, and its
 * time-out is no verdict on pdfsvc: when `qpdf --check` times
 * out (it decodes every page's content), qpdf's structural read decides
 * (helpers/pdf-tools.ts qpdfReads); any other judge's time-out makes the
 * run 'no verdict: a judge timed out', listed in the summary, not a failure.
 *
 * All runs happen first (two at a time); then one test per action asserts
 * that its list of offending files is empty, so a failure names every file.
 *
 * Needs dist/: `node scripts/build.mjs --no-types`.
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qpdfReads } from '../helpers/pdf-tools.js';
import { makePng } from '../helpers/render.js';
import { bin, builtCli, corpusPath, entryPath, hasCorpus, isSigned, readManifest, repo, withoutDuplicates, type CorpusEntry } from './manifest.js';

const CLI_TIMEOUT_MS = 60_000;
const QPDF_TIMEOUT_MS = 120_000;
const CONCURRENCY = 2;

if (!hasCorpus) {
  console.warn(`corpus tier skipped: no corpus at ${corpusPath} (expected MANIFEST.jsonl there; see ../shared/corpus/README.md)`);
}

// ---------------------------------------------------------------------------
// The runs per file
// ---------------------------------------------------------------------------

interface CorpusAction {
  name: 'rotate' | 'extract' | 'reverse' | 'reorder' | 'remove' | 'merge' | 'text-wm' | 'image-wm';
  args(path: string): string[];
  /** Output page count for an input of `pages` pages. */
  pages(pages: number): number;
  /** The page-selection field, which is rightly refused when the document lacks the page it names. */
  selection?: string;
  /** Smallest input page count for which the selection exists. */
  minPages?: number;
  /** Whether to run it at all on an input with this page count (null: qpdf could not tell). */
  applies?(pages: number | null): boolean;
  /** A further check of an output that passed qpdf: what is wrong with it, if anything. */
  verify?(out: string): Promise<string | undefined>;
  /**
   * For the page actions: the input page (1-based) that output page `page`
   * (1-based) is, for an input of `pages` pages. Its content must come
   * through unchanged (the no-silent-loss check). The watermarks add
   * content, so they have none.
   */
  source?(page: number, pages: number): number;
}

/** The image-watermark runs' PNG: 64×32, RGBA, a translucent middle (made here, not committed). */
const WATERMARK_PNG = join(mkdtempSync(join(tmpdir(), 'pdfsvc-corpus-wm-')), 'mark.png');
writeFileSync(
  WATERMARK_PNG,
  makePng(64, 32, (x, y) => [200, 30, 30, x < 4 || y < 4 || x >= 60 || y >= 28 ? 255 : 90]),
);

/** The watermark text must be found on the first page by an independent reader. */
async function firstPageHas(out: string, text: string): Promise<string | undefined> {
  const r = await execa('pdftotext', ['-f', '1', '-l', '1', out, '-'], { reject: false, timeout: QPDF_TIMEOUT_MS });
  if (r.timedOut) throw new JudgeTimedOut(`pdftotext of page 1 took more than ${QPDF_TIMEOUT_MS / 1000} s`);
  const found = r.stdout.replace(/\s+/g, ' ');
  return found.includes(text) ? undefined : `pdftotext of page 1 lacks ${JSON.stringify(text)} (exit ${r.exitCode}): ${JSON.stringify(found.slice(0, 120))}`;
}

const ALL_ACTIONS: CorpusAction[] = [
  { name: 'rotate', args: (p) => ['rotate', '--angle', '90', p], pages: (n) => n, source: (i) => i },
  { name: 'extract', args: (p) => ['extract', '--pages', '1', p], pages: () => 1, selection: 'pages', minPages: 1, source: () => 1 },
  { name: 'reverse', args: (p) => ['reverse', p], pages: (n) => n, source: (i, n) => n + 1 - i },
  // -1..1: from the last page down to the first, i.e. reversed.
  { name: 'reorder', args: (p) => ['reorder', '--page-order', '-1..1', p], pages: (n) => n, selection: 'page_order', minPages: 1, source: (i, n) => n + 1 - i },
  { name: 'remove', args: (p) => ['remove', '--pages', '1', p], pages: (n) => n - 1, applies: (n) => n !== null && n > 1, source: (i) => i + 1 },
  { name: 'merge', args: (p) => ['merge', p, p], pages: (n) => 2 * n, source: (i, n) => ((i - 1) % n) + 1 },
  // Watermarks on every page: the text in Latin and Greek, so that the shipped font is subset into every file.
  {
    name: 'text-wm',
    args: (p) => ['add-text-watermark', '--line-1', 'pdfsvc corpus', '--line-2', 'Ελληνικά', p],
    pages: (n) => n,
    applies: (n) => n !== 0,
    verify: (out) => firstPageHas(out, 'pdfsvc corpus'),
  },
  { name: 'image-wm', args: (p) => ['add-image-watermark', '--image', WATERMARK_PNG, p], pages: (n) => n, applies: (n) => n !== 0 },
];
const ACTIONS = ALL_ACTIONS.filter((action) => !process.env.PDFSVC_CORPUS_ACTIONS || process.env.PDFSVC_CORPUS_ACTIONS.split(',').includes(action.name));

type Outcome =
  // expected
  | 'ok'
  | 'ok, output warnings as the input had'
  | 'refused: encrypted'
  | 'refused: signed'
  | 'refused: unreadable'
  | 'refused: no pages'
  | 'refused: page not in document'
  | 'recovered unreadable input'
  | 'ok, though qpdf --check timed out (qpdf reads its structure)'
  // no verdict: a judge passed its own time limit, which says nothing of pdfsvc
  | 'no verdict: a judge timed out'
  // failures
  | 'FAIL internal error (exit 1)'
  | 'FAIL crash'
  | 'FAIL timeout'
  | 'FAIL refused readable input'
  | 'FAIL refused damaged input qpdf reads'
  | 'FAIL accepted encrypted input'
  | 'FAIL accepted signed input'
  | 'FAIL wrong refusal'
  | 'FAIL output fails qpdf --check'
  | 'FAIL output has qpdf warnings the input had not'
  | 'FAIL wrong page count'
  | 'FAIL output misses what the action adds'
  | 'FAIL lost content'
  | 'FAIL no output';

interface Result {
  file: string;
  action: CorpusAction['name'];
  outcome: Outcome;
  detail: string;
  /** Time of the pdfsvc run, and of the checks of its output (qpdf, poppler; the input's readings, once per file, go to its first run). */
  ms: number;
  checkMs: number;
  /** The no-silent-loss check: done (pages compared), or skipped because no reading of the input has qpdf's page count. */
  content?: 'compared' | 'input unreadable to poppler';
}

interface Problem {
  status?: number;
  errors?: Record<string, string[]>;
}

/** The problem object `--json` prints on standard error (its last JSON line). */
function problemOf(stderr: string): Problem | undefined {
  const lines = stderr.split('\n').filter((l) => l.trim().startsWith('{'));
  for (const line of lines.reverse()) {
    try {
      return JSON.parse(line) as Problem;
    } catch {
      // not JSON after all
    }
  }
  return undefined;
}

const firstLines = (text: string, n = 3) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, n)
    .join(' | ')
    .slice(0, 400);

async function qpdfCheckFile(path: string): Promise<{ exitCode: number | undefined; output: string; timedOut: boolean }> {
  const r = await execa('qpdf', ['--check', path], { reject: false, timeout: QPDF_TIMEOUT_MS });
  return { exitCode: r.exitCode, output: `${r.stderr}\n${r.stdout}`, timedOut: Boolean(r.timedOut) };
}

async function qpdfPageCount(path: string): Promise<number | undefined> {
  const r = await execa('qpdf', ['--show-npages', path], { reject: false, timeout: QPDF_TIMEOUT_MS });
  if (r.timedOut) throw new JudgeTimedOut(`qpdf --show-npages took more than ${QPDF_TIMEOUT_MS / 1000} s`);
  const n = Number.parseInt(r.stdout.trim(), 10);
  return Number.isFinite(n) ? n : undefined;
}

// ---------------------------------------------------------------------------
// qpdf --check warnings, one by one
// ---------------------------------------------------------------------------

/**
 * The WARNING lines of a qpdf --check output, each reduced to what it says:
 * without the file name, and with every number (object numbers, offsets,
 * counts) as `#`, since the output numbers and places its objects anew.
 */
function warningsOf(output: string, path: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('WARNING:'))
    .map((line) => line.split(path).join('').replace(/\d+/g, '#').replace(/\s+/g, ' ').trim());
}

/**
 * Warnings about a stream's own data, which an output that copies the data
 * as it is keeps: a content stream qpdf cannot parse, stream data it cannot
 * decode. Everything else in a damaged input's warnings is a repair the
 * output, written anew, must not need again.
 */
const STREAM_DATA_WARNING = /^WARNING: page object # # stream # #|error decoding stream data|stream will be re-processed without filtering/;

/** The input's qpdf --check warnings (once per file; only asked for when an output has warnings). */
const inputWarnings = new Map<string, Promise<string[] | undefined>>();
function inputWarningsOf(entry: CorpusEntry): Promise<string[] | undefined> {
  let found = inputWarnings.get(entry.file);
  if (!found) {
    const path = entryPath(entry);
    found = qpdfCheckFile(path).then((c) => (c.timedOut ? undefined : warningsOf(c.output, path)));
    inputWarnings.set(entry.file, found);
  }
  return found;
}

/** Why the output's qpdf --check warnings are not the input's, or undefined when they are. */
async function newWarnings(entry: CorpusEntry, out: string, output: string): Promise<string | undefined> {
  const had = await inputWarningsOf(entry);
  if (!had) throw new JudgeTimedOut('qpdf --check timed out on the input: its warnings are not known');
  const mine = warningsOf(output, out);
  // A watermark wraps and joins a page's content streams, so qpdf words the input's own content defects
  // differently on the output: a content-stream warning is the input's when the input had such warnings.
  const inputStreamDefects = had.some((w) => STREAM_DATA_WARNING.test(w));
  const known = (w: string) => had.includes(w) || (inputStreamDefects && STREAM_DATA_WARNING.test(w));
  const unexpected = mine.filter((w) => !known(w) || (entry.damaged && !STREAM_DATA_WARNING.test(w)));
  if (unexpected.length === 0) return undefined;
  const kind = entry.damaged ? "not about the input's own stream data, or not the input's" : "not the input's";
  return `${unexpected.length} of ${mine.length} warnings ${kind}: ${[...new Set(unexpected)].slice(0, 3).join(' | ').slice(0, 400)}`;
}

// ---------------------------------------------------------------------------
// No silent loss: each page's text and images, as poppler sees them
// ---------------------------------------------------------------------------

/** What poppler finds on each page (index 0 is page 1). */
interface PageContent {
  /** pdftotext's text of the page. */
  texts: string[];
  /** One signature per image drawn on the page (`pdfimages -list` rows), sorted. */
  images: string[][];
}

const TOOL_TIMEOUT_MS = 60_000;

/**
 * Text and images of every page of a file, with one pdftotext run (each page
 * ends with a form feed) and one `pdfimages -list` run. A string says why
 * poppler could not tell.
 *
 * pdftotext -raw: the text in content-stream order, without the layout
 * analysis. The default mode joins a word hyphenated at the end of a line
 * and drops the hyphen, and where a line ends depends on the page's
 * rotation: tried with `qpdf --rotate=+90` over every readable corpus file
 * (276), the default mode gave 12 pages with a hyphen more or less, -raw
 * none.
 */
async function pageContentOf(path: string): Promise<PageContent | string> {
  const [text, list] = await Promise.all([
    execa('pdftotext', ['-q', '-raw', '-enc', 'UTF-8', path, '-'], { reject: false, timeout: TOOL_TIMEOUT_MS, stripFinalNewline: false }),
    execa('pdfimages', ['-q', '-list', path], { reject: false, timeout: TOOL_TIMEOUT_MS }),
  ]);
  for (const [tool, r] of [
    ['pdftotext', text],
    ['pdfimages -list', list],
  ] as const) {
    if (r.timedOut) return `${tool} timed out after ${TOOL_TIMEOUT_MS / 1000} s`;
    if (r.exitCode !== 0) return `${tool} exit ${r.exitCode ?? '-'}${r.signal ? ` (${r.signal})` : ''}${r.stderr ? `: ${firstLines(r.stderr, 1)}` : ''}`;
  }
  const texts = text.stdout.split('\f').slice(0, -1);
  const images: string[][] = texts.map(() => []);
  // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
  for (const line of list.stdout.split('\n').slice(2)) {
    const cols = line.trim().split(/\s+/);
    const page = Number(cols[0]);
    if (!Number.isInteger(page) || cols.length < 10) continue;
    if (page < 1 || page > images.length) return `pdfimages -list names page ${page}; pdftotext finds ${images.length} pages`;
    // Type, width, height, colour, components, bits, encoding, interpolation: what is drawn, not where it is (the object number) nor its resolution on the page.
    images[page - 1].push(cols.slice(2, 10).join(' '));
  }
  for (const page of images) page.sort();
  return { texts, images };
}

/** One reading of the input that the output's pages are held to. */
interface Reference {
  name: string;
  content: PageContent;
}

/**
 * The input's pages as poppler reads them, and for damaged input (and input
 * qpdf cannot check) also as poppler reads qpdf's repair of it (`qpdf in
 * out`): where the damage leaves room, the two differ (in
 * xref-compressed-in-compressed poppler reads "Potato 27" on page 28, qpdf
 * "Potato 7"), and the reader's target is to recover what qpdf recovers,
 * so an output page may match either. A reading counts only when it has the
 * page count qpdf gives (the manifest's `pages`); with none, the check is
 * skipped for the file, and the summary says why.
 */
const inputReferences = new Map<string, Promise<Reference[] | string>>();
/** Why the check was skipped, per file (for the summary). */
const popplerSkips = new Map<string, string>();

async function readReferences(entry: CorpusEntry, scratch: string): Promise<Reference[] | string> {
  const input = entryPath(entry);
  const refs: Reference[] = [];
  const why: string[] = [];
  const add = (name: string, content: PageContent | string) => {
    if (typeof content === 'string') why.push(`${name}: ${content}`);
    else if (content.texts.length !== entry.pages) why.push(`${name}: poppler counts ${content.texts.length} pages, qpdf ${entry.pages}`);
    else refs.push({ name, content });
  };
  add('the input', await pageContentOf(input));
  if (entry.damaged || !entry.qpdf_readable) {
    const repaired = join(scratch, `qpdf-repair-${Math.random().toString(36).slice(2)}.pdf`);
    try {
      const r = await execa('qpdf', [input, repaired], { reject: false, timeout: QPDF_TIMEOUT_MS });
      if (r.exitCode === 0 || r.exitCode === 3) add("qpdf's repair", await pageContentOf(repaired));
      else why.push(`qpdf's repair: qpdf exit ${r.exitCode ?? '-'}${r.timedOut ? ' (timeout)' : ''}`);
    } finally {
      rmSync(repaired, { force: true });
    }
  }
  if (refs.length > 0) return refs;
  const reason = why.join('; ');
  popplerSkips.set(entry.file, reason);
  return reason;
}

/** Each input's references, read once per file (the actions of one file run one after the other). */
function referencesOf(entry: CorpusEntry, scratch: string): Promise<Reference[] | string> {
  let found = inputReferences.get(entry.file);
  if (!found) {
    found = readReferences(entry, scratch);
    inputReferences.set(entry.file, found);
  }
  return found;
}

/**
 * A page's text as the multiset of its non-space characters (sorted). Not
 * its lines, nor its words: pdftotext, even with -raw, breaks lines and
 * words by the glyphs' places and spacing on the page as displayed, so a
 * page with /Rotate 90 comes out with other line breaks and other words.
 * Tried with `qpdf --rotate=+90` over the 276 readable corpus files: 1933
 * pages gave other text, 723 pages (39 files) another multiset of words,
 * none another multiset of characters. The glyphs drawn are the same
 * whatever the rotation, and a lost or added glyph still shows.
 */
const glyphs = (text: string) => [...text.replace(/\s+/g, '')].sort().join('');

/** Items of `a` that `b` lacks, counted (multiset difference). */
function lacking<T>(a: T[], b: T[]): T[] {
  const left = new Map<T, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  return a.filter((x) => {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    return n === 0;
  });
}

/** What differs between an input page and an output page, briefly; undefined when nothing does. */
function pageDifference(inText: string, outText: string, inImages: string[], outImages: string[]): string | undefined {
  const what: string[] = [];
  if (glyphs(inText) !== glyphs(outText)) {
    const chars = (t: string) => [...t.replace(/\s+/g, '')];
    const missing = lacking(chars(inText), chars(outText));
    const extra = lacking(chars(outText), chars(inText));
    // Words only to show what differs; the judgement is on characters.
    const words = (t: string) => t.split(/\s+/).filter(Boolean);
    const sample = (list: string[]) => JSON.stringify(list.slice(0, 6).join(' ').slice(0, 80));
    const gone = lacking(words(inText), words(outText));
    const added = lacking(words(outText), words(inText));
    what.push(
      `text: ${missing.length} of ${chars(inText).length} characters missing, ${extra.length} extra` +
        (gone.length > 0 ? `; input words not in the output: ${sample(gone)}` : '') +
        (added.length > 0 ? `; output words not in the input: ${sample(added)}` : ''),
    );
  }
  if (inImages.join('\n') !== outImages.join('\n')) {
    const missing = lacking(inImages, outImages);
    const extra = lacking(outImages, inImages);
    what.push(
      `images: ${outImages.length} where the input page has ${inImages.length}` +
        (missing.length > 0 ? `; missing ${missing.slice(0, 2).join(', ')}` : '') +
        (extra.length > 0 ? `; extra ${extra.slice(0, 2).join(', ')}` : ''),
    );
  }
  return what.length > 0 ? what.join('; ') : undefined;
}

/**
 * The no-silent-loss check of one output: every output page against the
 * input page it comes from, in each reading of the input; a page passes
 * when it matches one. Undefined when nothing is lost; 'skipped' when no
 * reading of the input has qpdf's page count.
 */
async function lostContent(entry: CorpusEntry, action: CorpusAction, out: string, scratch: string): Promise<string | undefined | 'skipped'> {
  const refs = await referencesOf(entry, scratch);
  if (typeof refs === 'string') return 'skipped';
  const output = await pageContentOf(out);
  if (typeof output === 'string' && / timed out after /.test(output)) throw new JudgeTimedOut(output);
  if (typeof output === 'string') return `poppler cannot read the output (it reads the input): ${output}`;
  const n = entry.pages!;
  const expected = action.pages(n);
  if (output.texts.length !== expected) return `poppler counts ${output.texts.length} output pages, expected ${expected}`;
  const problems: string[] = [];
  for (let page = 1; page <= expected; page++) {
    const from = action.source!(page, n);
    const differences = refs.map(({ content }) =>
      pageDifference(content.texts[from - 1], output.texts[page - 1], content.images[from - 1], output.images[page - 1]),
    );
    if (differences.some((d) => d === undefined)) continue;
    const against =
      refs.length > 1
        ? ` (against ${refs[0].name}; ${refs
            .slice(1)
            .map((r) => r.name)
            .join(', ')} differs too)`
        : '';
    problems.push(`output page ${page} (input page ${from}): ${differences[0]}${against}`);
  }
  if (problems.length === 0) return undefined;
  return `${problems.length} of ${expected} pages differ: ${problems.slice(0, 3).join(' || ')}${problems.length > 3 ? ' || …' : ''}`.slice(0, 1200);
}

/** A judge of an output passed its own time limit: no verdict on pdfsvc (runOne reports it as such). */
class JudgeTimedOut extends Error {}

/** What errors.file must say for an encrypted input. */
function encryptedRemedy(entry: CorpusEntry): RegExp {
  if (entry.needs_password === true) return /remove_password/;
  if (entry.needs_password === false) return /remove_restrictions/;
  return /remove_password|remove_restrictions/;
}

async function runOne(entry: CorpusEntry, action: CorpusAction, outDir: string, index: number): Promise<Result> {
  const input = entryPath(entry);
  const out = join(outDir, `${index}-${action.name}.pdf`);
  const started = performance.now();
  const r = await execa('node', [bin, ...action.args(input), '-o', out, '--json'], {
    cwd: repo,
    reject: false,
    timeout: CLI_TIMEOUT_MS,
    stdin: 'ignore',
    env: { PDFSVC_DEBUG: '1' },
  });
  const ms = Math.round(performance.now() - started);
  const result = (outcome: Outcome, detail = ''): Result => ({
    file: entry.file,
    action: action.name,
    outcome,
    detail,
    ms,
    checkMs: Math.round(performance.now() - started) - ms,
  });
  try {
    if (r.timedOut) return result('FAIL timeout', `no answer within ${CLI_TIMEOUT_MS / 1000} s`);
    if (r.exitCode === 1) return result('FAIL internal error (exit 1)', firstLines(r.stderr, 6));
    if (r.exitCode !== 0 && r.exitCode !== 2) return result('FAIL crash', `exit ${r.exitCode ?? '-'} signal ${r.signal ?? '-'}: ${firstLines(r.stderr, 6)}`);

    const problem = r.exitCode === 2 ? problemOf(r.stderr) : undefined;
    const fileError = problem?.errors?.file?.join(' ') ?? '';
    const refusal = r.exitCode === 2 ? `errors ${JSON.stringify(problem?.errors ?? r.stderr.trim())}` : '';

    // Encrypted and signed input is refused, whatever else it is.
    if (entry.encrypted) {
      if (r.exitCode === 0) return result('FAIL accepted encrypted input');
      const remedy = encryptedRemedy(entry);
      if (!remedy.test(fileError)) return result('FAIL wrong refusal', `expected errors.file matching ${remedy}; got ${refusal}`);
      return result('refused: encrypted');
    }
    if (isSigned(entry)) {
      if (r.exitCode === 0) return result('FAIL accepted signed input');
      if (!/remove_signatures/.test(fileError)) return result('FAIL wrong refusal', `expected errors.file mentioning remove_signatures; got ${refusal}`);
      return result('refused: signed');
    }

    const pages = entry.pages;
    if (r.exitCode === 2) {
      // A selection naming a page a page-less document lacks is rightly refused.
      if (action.selection && pages !== null && pages < (action.minPages ?? 0) && problem?.errors?.[action.selection]) {
        return result('refused: page not in document');
      }
      if (!entry.qpdf_readable && fileError) return result('refused: unreadable', fileError);
      // A real reason: qpdf finds no pages either, and the refusal says so ("no pages", "no page tree").
      const said = Object.values(problem?.errors ?? {})
        .flat()
        .join(' ');
      if (pages === 0 && /no pages|no (document catalog with a )?page tree/i.test(said)) return result('refused: no pages', said);
      // Damaged input qpdf reads (it repairs it) must give an output, as qpdf does.
      if (entry.qpdf_readable && entry.damaged) return result('FAIL refused damaged input qpdf reads', refusal);
      return result(entry.qpdf_readable ? 'FAIL refused readable input' : 'FAIL wrong refusal', refusal);
    }

    // Exit 0: judge the output.
    if (!existsSync(out)) return result('FAIL no output', 'exit 0 but no file at -o');
    const check = await qpdfCheckFile(out);
    const inputHadWarnings = entry.qpdf_check_exit !== 0;
    const warnings = firstLines(check.output.replace(/^checking .*$/m, ''), 3);
    const inputFailsCheck = entry.qpdf_check_exit === 2;
    if (check.timedOut) {
      // qpdf --check decodes every page's content; its structural read decides instead.
      const read = await qpdfReads(out);
      if (read.verdict === 'no verdict') return result('no verdict: a judge timed out', "qpdf --check and qpdf's structural read");
      if (read.verdict === 'does not read')
        return result('FAIL output fails qpdf --check', `qpdf --check timed out; qpdf's structural read fails: ${firstLines(read.output, 3)}`);
    } else if (check.exitCode !== 0 && check.exitCode !== 3 && !(check.exitCode === 2 && inputFailsCheck)) {
      return result('FAIL output fails qpdf --check', `qpdf --check exit ${check.exitCode}: ${warnings}`);
    }
    if (check.exitCode === 3 && !inputHadWarnings) return result('FAIL output has qpdf warnings the input had not', warnings);
    if (check.exitCode === 3) {
      const unexpected = await newWarnings(entry, out, check.output);
      if (unexpected) return result('FAIL output has qpdf warnings the input had not', unexpected);
    }
    const count = await qpdfPageCount(out);
    const qpdfFoundNoPages = entry.damaged && pages === 0;
    if (pages !== null && count !== action.pages(pages) && !(qpdfFoundNoPages && count !== undefined && count > 0)) {
      return result('FAIL wrong page count', `expected ${action.pages(pages)} pages (input has ${pages} per qpdf), got ${count}`);
    }
    const wrong = await action.verify?.(out);
    if (wrong) return result('FAIL output misses what the action adds', wrong);
    // No silent loss, where the output has the pages it should (with qpdf's count of the input known).
    let content: Result['content'];
    if (action.source && pages !== null && pages > 0 && count === action.pages(pages)) {
      const lost = await lostContent(entry, action, out, outDir);
      content = lost === 'skipped' ? 'input unreadable to poppler' : 'compared';
      if (lost && lost !== 'skipped') return { ...result('FAIL lost content', lost), content };
    }
    if (!entry.qpdf_readable)
      return {
        ...result('recovered unreadable input', `output has ${count} pages; qpdf --check exit ${check.timedOut ? 'timeout' : check.exitCode}`),
        content,
      };
    if (check.timedOut) return { ...result('ok, though qpdf --check timed out (qpdf reads its structure)'), content };
    if (check.exitCode === 3) return { ...result('ok, output warnings as the input had', warnings), content };
    return { ...result('ok'), content };
  } catch (err) {
    if (err instanceof JudgeTimedOut) return result('no verdict: a judge timed out', err.message);
    throw err;
  } finally {
    rmSync(out, { force: true });
  }
}

/** Runs `work` over `items` with at most `limit` at a time, in order of start. */
async function pool<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i], i);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** Newest modification time under a folder (to warn about a stale dist/). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, name.name);
    newest = Math.max(newest, name.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

// ---------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------

describe.skipIf(!hasCorpus)('corpus: page actions through the built CLI', () => {
  const results: Result[] = [];
  let seconds = 0;
  let skippedDuplicates: CorpusEntry[] = [];
  let outDir = '';

  beforeAll(async () => {
    if (!existsSync(builtCli)) throw new Error(`dist/ is not built (${builtCli} missing): run \`node scripts/build.mjs --no-types\` first`);
    if (newestMtime(join(repo, 'src')) > statSync(builtCli).mtimeMs) {
      console.warn('corpus tier: dist/ is older than src/; results are for the last build (node scripts/build.mjs --no-types)');
    }
    const { kept: all, skipped } = withoutDuplicates(readManifest());
    skippedDuplicates = skipped;
    const only =
      process.env.PDFSVC_CORPUS_FILES?.split(',')
        .map((s) => s.trim())
        .filter(Boolean) ?? [];
    const kept = only.length === 0 ? all : all.filter((entry) => only.some((part) => entry.file.includes(part)));
    if (only.length > 0) console.log(`corpus tier: PDFSVC_CORPUS_FILES keeps ${kept.length} of ${all.length} files`);
    outDir = mkdtempSync(join(tmpdir(), 'pdfsvc-corpus-'));
    const jobs = kept.flatMap((entry) => ACTIONS.filter((a) => a.applies?.(entry.pages) ?? true).map((action) => ({ entry, action })));
    const started = performance.now();
    results.push(...(await pool(jobs, CONCURRENCY, ({ entry, action }, i) => runOne(entry, action, outDir, i))));
    seconds = (performance.now() - started) / 1000;
  }, 40 * 60_000);

  afterAll(() => {
    if (outDir) rmSync(outDir, { recursive: true, force: true });
    rmSync(dirname(WATERMARK_PNG), { recursive: true, force: true });
    if (results.length === 0) return;
    const outcomes = [...new Set(results.map((r) => r.outcome))].sort();
    const lines = [
      `corpus tier: ${new Set(results.map((r) => r.file)).size} files (${skippedDuplicates.length} byte-identical duplicates skipped), ${results.length} runs in ${seconds.toFixed(0)} s with concurrency ${CONCURRENCY}`,
    ];
    const header = ['outcome'.padEnd(48), ...ACTIONS.map((a) => a.name.padStart(10)), 'total'.padStart(7)].join('');
    lines.push(header);
    for (const outcome of outcomes) {
      const of = results.filter((r) => r.outcome === outcome);
      lines.push(
        [outcome.padEnd(48), ...ACTIONS.map((a) => String(of.filter((r) => r.action === a.name).length).padStart(10)), String(of.length).padStart(7)].join(''),
      );
    }
    const tolerated = results.filter((r) => r.outcome === 'ok, output warnings as the input had');
    if (tolerated.length > 0) {
      lines.push(`qpdf --check warnings tolerated (the input had warnings too): ${new Set(tolerated.map((r) => r.file)).size} files`);
      for (const file of [...new Set(tolerated.map((r) => r.file))]) {
        const of = tolerated.filter((r) => r.file === file);
        lines.push(`  ${file} [${of.map((r) => r.action).join(',')}]: ${of[0].detail}`);
      }
    }
    const compared = results.filter((r) => r.content === 'compared');
    const unread = results.filter((r) => r.content === 'input unreadable to poppler');
    lines.push(
      `no silent loss: pages compared with pdftotext and pdfimages in ${compared.length} runs over ${new Set(compared.map((r) => r.file)).size} files; skipped where poppler cannot read the input: ${unread.length} runs over ${new Set(unread.map((r) => r.file)).size} files`,
    );
    for (const [file, why] of popplerSkips) lines.push(`  skipped: ${file}: ${why}`);
    const recovered = results.filter((r) => r.outcome === 'recovered unreadable input');
    for (const r of recovered) lines.push(`  recovered: ${r.file} [${r.action}]: ${r.detail}`);
    const sum = (key: 'ms' | 'checkMs') => (results.reduce((s, r) => s + r[key], 0) / 1000).toFixed(0);
    lines.push(`time summed over both lanes: ${sum('ms')} s in pdfsvc runs, ${sum('checkMs')} s in the checks (qpdf, pdftotext, pdfimages)`);
    const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 5);
    lines.push(`slowest runs: ${slowest.map((r) => `${r.action} ${r.file} ${(r.ms / 1000).toFixed(1)} s`).join('; ')}`);
    console.log(lines.join('\n'));
  });

  it.each(ACTIONS.map((a) => [a.name] as const))('%s: no file crashes, hangs or breaks its expectations', (name) => {
    const mine = results.filter((r) => r.action === name);
    expect(mine.length).toBeGreaterThan(0);
    const failures = mine.filter((r) => r.outcome.startsWith('FAIL')).map((r) => `${r.outcome}: ${r.file}${r.detail ? ` — ${r.detail}` : ''}`);
    expect(failures, `${failures.length} of ${mine.length} ${name} runs failed:\n${failures.join('\n')}`).toEqual([]);
  });

  // A bound that catches a hang or a pathological slowdown, with room for a shared machine.
  it('finishes within 30 minutes on 2 cores', () => {
    expect(seconds).toBeLessThan(30 * 60);
  });
});
