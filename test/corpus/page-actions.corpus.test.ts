/**
 * The real-document tier: every file of ../shared/corpus through the six
 * page actions and the two watermarks of the BUILT command line
 * (`node bin/pdfsvc.js`), each run with a time limit so that a hang or a
 * crash is reported, never waited on. PDFSVC_CORPUS_ACTIONS=text-wm,rotate
 * runs only those.
 *
 * Expectations (DECISIONS.md §2):
 * - never exit 1 (internal error), a crash or a timeout;
 * - encrypted input: exit 2, the problem object's errors.file says which
 *   action to call first (remove_password / remove_restrictions);
 * - signed input (a signature field with a value): exit 2, errors.file
 *   mentions remove_signatures;
 * - input qpdf reads (unencrypted, unsigned): exit 0, the output passes
 *   `qpdf --check` (exit 0; exit 3 only when the input had warnings too,
 *   and those are listed) and has the expected page count;
 * - damaged input (qpdf had to repair it: MANIFEST `damaged`): exit 2 with
 *   errors.file, or an output judged as above; where qpdf found no pages at
 *   all, any pages we recover are more than qpdf gives, not fewer;
 * - input qpdf cannot read (`qpdf --check` exit 2, e.g. undecodable stream
 *   data): exit 2 with errors.file, or an output whose only qpdf --check
 *   errors are the input's own (stream data is copied as it was, never
 *   re-encoded, so a corrupt stream stays exactly as corrupt).
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
  const found = r.stdout.replace(/\s+/g, ' ');
  return found.includes(text) ? undefined : `pdftotext of page 1 lacks ${JSON.stringify(text)} (exit ${r.exitCode}): ${JSON.stringify(found.slice(0, 120))}`;
}

const ACTIONS: CorpusAction[] = [
  { name: 'rotate', args: (p) => ['rotate', '--angle', '90', p], pages: (n) => n },
  { name: 'extract', args: (p) => ['extract', '--pages', '1', p], pages: () => 1, selection: 'pages', minPages: 1 },
  { name: 'reverse', args: (p) => ['reverse', p], pages: (n) => n },
  { name: 'reorder', args: (p) => ['reorder', '--page-order', '-1..1', p], pages: (n) => n, selection: 'page_order', minPages: 1 },
  { name: 'remove', args: (p) => ['remove', '--pages', '1', p], pages: (n) => n - 1, applies: (n) => n !== null && n > 1 },
  { name: 'merge', args: (p) => ['merge', p, p], pages: (n) => 2 * n },
  // Watermarks on every page: the text in Latin and Greek, so that the shipped font is subset into every file.
  {
    name: 'text-wm',
    args: (p) => ['add-text-watermark', '--line-1', 'pdfsvc corpus', '--line-2', 'Ελληνικά', p],
    pages: (n) => n,
    applies: (n) => n !== 0,
    verify: (out) => firstPageHas(out, 'pdfsvc corpus'),
  },
  { name: 'image-wm', args: (p) => ['add-image-watermark', '--image', WATERMARK_PNG, p], pages: (n) => n, applies: (n) => n !== 0 },
].filter((action) => !process.env.PDFSVC_CORPUS_ACTIONS || process.env.PDFSVC_CORPUS_ACTIONS.split(',').includes(action.name)) as CorpusAction[];

type Outcome =
  // expected
  | 'ok'
  | 'ok, output warnings as the input had'
  | 'refused: encrypted'
  | 'refused: signed'
  | 'refused: unreadable'
  | 'refused: damaged'
  | 'refused: page not in document'
  | 'recovered unreadable input'
  // failures
  | 'FAIL internal error (exit 1)'
  | 'FAIL crash'
  | 'FAIL timeout'
  | 'FAIL refused readable input'
  | 'FAIL accepted encrypted input'
  | 'FAIL accepted signed input'
  | 'FAIL wrong refusal'
  | 'FAIL output fails qpdf --check'
  | 'FAIL output has qpdf warnings the input had not'
  | 'FAIL wrong page count'
  | 'FAIL output misses what the action adds'
  | 'FAIL no output';

interface Result {
  file: string;
  action: CorpusAction['name'];
  outcome: Outcome;
  detail: string;
  ms: number;
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

const firstLines = (text: string, n = 3) => text.split('\n').map((l) => l.trim()).filter(Boolean).slice(0, n).join(' | ').slice(0, 400);

async function qpdfCheckFile(path: string): Promise<{ exitCode: number | undefined; output: string; timedOut: boolean }> {
  const r = await execa('qpdf', ['--check', path], { reject: false, timeout: QPDF_TIMEOUT_MS });
  return { exitCode: r.exitCode, output: `${r.stderr}\n${r.stdout}`, timedOut: Boolean(r.timedOut) };
}

async function qpdfPageCount(path: string): Promise<number | undefined> {
  const r = await execa('qpdf', ['--show-npages', path], { reject: false, timeout: QPDF_TIMEOUT_MS });
  const n = Number.parseInt(r.stdout.trim(), 10);
  return Number.isFinite(n) ? n : undefined;
}

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
  const result = (outcome: Outcome, detail = ''): Result => ({ file: entry.file, action: action.name, outcome, detail, ms });
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
      if (entry.damaged && fileError) return result('refused: damaged', fileError);
      return result(entry.qpdf_readable ? 'FAIL refused readable input' : 'FAIL wrong refusal', refusal);
    }

    // Exit 0: judge the output.
    if (!existsSync(out)) return result('FAIL no output', 'exit 0 but no file at -o');
    const check = await qpdfCheckFile(out);
    const inputHadWarnings = entry.qpdf_check_exit !== 0;
    const warnings = firstLines(check.output.replace(/^checking .*$/m, ''), 3);
    const inputFailsCheck = entry.qpdf_check_exit === 2;
    if (check.timedOut || (check.exitCode !== 0 && check.exitCode !== 3 && !(check.exitCode === 2 && inputFailsCheck))) {
      return result('FAIL output fails qpdf --check', `qpdf --check exit ${check.exitCode}${check.timedOut ? ' (timeout)' : ''}: ${warnings}`);
    }
    if (check.exitCode === 3 && !inputHadWarnings) return result('FAIL output has qpdf warnings the input had not', warnings);
    const count = await qpdfPageCount(out);
    const qpdfFoundNoPages = entry.damaged && pages === 0;
    if (pages !== null && count !== action.pages(pages) && !(qpdfFoundNoPages && count !== undefined && count > 0)) {
      return result('FAIL wrong page count', `expected ${action.pages(pages)} pages (input has ${pages} per qpdf), got ${count}`);
    }
    const wrong = await action.verify?.(out);
    if (wrong) return result('FAIL output misses what the action adds', wrong);
    if (!entry.qpdf_readable) return result('recovered unreadable input', `output has ${count} pages; qpdf --check exit ${check.exitCode}`);
    if (check.exitCode === 3) return result('ok, output warnings as the input had', warnings);
    return result('ok');
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
    const { kept, skipped } = withoutDuplicates(readManifest());
    skippedDuplicates = skipped;
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
    const lines = [`corpus tier: ${new Set(results.map((r) => r.file)).size} files (${skippedDuplicates.length} byte-identical duplicates skipped), ${results.length} runs in ${seconds.toFixed(0)} s with concurrency ${CONCURRENCY}`];
    const header = ['outcome'.padEnd(48), ...ACTIONS.map((a) => a.name.padStart(10)), 'total'.padStart(7)].join('');
    lines.push(header);
    for (const outcome of outcomes) {
      const of = results.filter((r) => r.outcome === outcome);
      lines.push([outcome.padEnd(48), ...ACTIONS.map((a) => String(of.filter((r) => r.action === a.name).length).padStart(10)), String(of.length).padStart(7)].join(''));
    }
    const tolerated = results.filter((r) => r.outcome === 'ok, output warnings as the input had');
    if (tolerated.length > 0) {
      lines.push(`qpdf --check warnings tolerated (the input had warnings too): ${new Set(tolerated.map((r) => r.file)).size} files`);
      for (const file of [...new Set(tolerated.map((r) => r.file))]) {
        const of = tolerated.filter((r) => r.file === file);
        lines.push(`  ${file} [${of.map((r) => r.action).join(',')}]: ${of[0].detail}`);
      }
    }
    const recovered = results.filter((r) => r.outcome === 'recovered unreadable input');
    for (const r of recovered) lines.push(`  recovered: ${r.file} [${r.action}]: ${r.detail}`);
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

  it('finishes within 25 minutes on 2 cores', () => {
    expect(seconds).toBeLessThan(25 * 60);
  });
});
