/**
 * The real-document tier for splitting: every readable, unencrypted,
 * unsigned file of ../shared/corpus through the BUILT command line, each run
 * with a time limit (refusals of encrypted and signed input are the page
 * actions' corpus tier's business; they go through the same openDocument).
 *
 * Per file:
 * - split-by-page-count --page-count 1: exit 0, one part per page (qpdf's
 *   page count of the input), each part one page;
 * - split-by-size at 4 KB, a third of the file and the whole file: exit 0;
 *   the parts hold every page once, in order (their page counts add up);
 *   a part is at most the limit unless it is one page; every part but the
 *   last is packed: the part with the next page, written by split-by-groups
 *   (which writes a run of pages exactly as split-by-size does), passes the
 *   limit.
 * Every part passes `qpdf --check` (exit 3 only when the input had warnings
 * too). A document without pages is rightly refused.
 *
 * A judge (qpdf) has its own time limit, and its time-out is no verdict on
 * pdfsvc: when `qpdf --check` of a part times out (it decodes
 * every page's content), qpdf's structural read decides (helpers/pdf-tools.ts
 * qpdfReads); when qpdf cannot even count a part's pages in time, the file
 * is noted as without a verdict, not failed.
 *
 * All files run first (two at a time); then one assertion lists every
 * failure. Needs dist/: `node scripts/build.mjs --no-types`.
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qpdfReads } from '../helpers/pdf-tools.js';
import { bin, builtCli, corpusPath, entryPath, hasCorpus, isSigned, readManifest, repo, withoutDuplicates, type CorpusEntry } from './manifest.js';

const CLI_TIMEOUT_MS = 60_000;
const QPDF_TIMEOUT_MS = 120_000;
const CONCURRENCY = 2;
/** Longest groups value split-by-groups takes (docs/contract.md, "Fields"). */
const MAX_GROUPS_LENGTH = 1000;

if (!hasCorpus) {
  console.warn(`split corpus tier skipped: no corpus at ${corpusPath} (see ../shared/corpus/README.md)`);
}

interface FileResult {
  file: string;
  pages: number;
  runs: number;
  parts: number;
  ms: number;
  failures: string[];
  notes: string[];
}

const firstLines = (text: string, n = 3) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, n)
    .join(' | ')
    .slice(0, 400);

/** The problem object `--json` prints on standard error. */
function problemOf(stderr: string): { errors?: Record<string, string[]> } | undefined {
  for (const line of stderr.split('\n').reverse()) {
    if (!line.trim().startsWith('{')) continue;
    try {
      return JSON.parse(line);
    } catch {
      // not JSON
    }
  }
  return undefined;
}

async function cli(args: string[]): Promise<{ ok: boolean; detail: string; refusal?: Record<string, string[]> }> {
  const r = await execa('node', [bin, ...args, '--json'], { cwd: repo, reject: false, timeout: CLI_TIMEOUT_MS, stdin: 'ignore' });
  if (r.timedOut) return { ok: false, detail: `timeout after ${CLI_TIMEOUT_MS / 1000} s` };
  if (r.exitCode === 0) return { ok: true, detail: '' };
  if (r.exitCode === 2) return { ok: false, detail: `exit 2: ${firstLines(r.stderr)}`, refusal: problemOf(r.stderr)?.errors ?? {} };
  return { ok: false, detail: `exit ${r.exitCode ?? '-'} signal ${r.signal ?? '-'}: ${firstLines(r.stderr, 6)}` };
}

async function qpdf(args: string[]): Promise<{ exitCode: number | undefined; output: string; timedOut: boolean }> {
  const r = await execa('qpdf', args, { reject: false, timeout: QPDF_TIMEOUT_MS });
  return { exitCode: r.timedOut ? undefined : r.exitCode, output: `${r.stderr}\n${r.stdout}`, timedOut: Boolean(r.timedOut) };
}

/** A judge passed its own time limit: no verdict on pdfsvc (runFile notes the file as such). */
class JudgeTimedOut extends Error {}

interface Part {
  name: string;
  path: string;
  bytes: number;
  pages: number;
}

/** The parts in a -o DIR, each checked with qpdf; problems go to `failures`, a judge's time-outs to `notes`. */
async function readParts(dir: string, entry: CorpusEntry, what: string, failures: string[], notes: string[]): Promise<Part[]> {
  const names = existsSync(dir) ? readdirSync(dir).sort() : [];
  const expected = names.map((_, i) => `${String(i + 1).padStart(5, '0')}.pdf`);
  if (names.join() !== expected.join()) failures.push(`${what}: parts are named ${names.slice(0, 4).join(', ')}…, not 00001.pdf …`);
  const parts: Part[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const check = await qpdf(['--check', path]);
    if (check.timedOut) {
      const read = await qpdfReads(path);
      if (read.verdict === 'does not read') failures.push(`${what} ${name}: qpdf --check timed out; qpdf's structural read fails: ${firstLines(read.output)}`);
      else
        notes.push(
          `${what} ${name}: qpdf --check timed out; ${read.verdict === 'reads' ? 'qpdf reads its structure' : 'no verdict from the structural read either'}`,
        );
    } else if (check.exitCode !== 0 && !(check.exitCode === 3 && entry.qpdf_check_exit !== 0)) {
      failures.push(`${what} ${name}: qpdf --check exit ${check.exitCode}: ${firstLines(check.output.replace(/^checking .*$/m, ''))}`);
    }
    const counted = await qpdf(['--show-npages', path]);
    if (counted.timedOut) throw new JudgeTimedOut(`${what} ${name}: qpdf --show-npages took more than ${QPDF_TIMEOUT_MS / 1000} s`);
    const npages = Number.parseInt(counted.output.trim(), 10);
    parts.push({ name, path, bytes: statSync(path).size, pages: npages });
  }
  return parts;
}

/** Limits from a few KB to the whole file, without repeats. */
function limitsFor(bytes: number): number[] {
  return [...new Set([4096, Math.ceil(bytes / 3), bytes])].sort((a, b) => a - b);
}

async function runFile(entry: CorpusEntry, root: string, index: number): Promise<FileResult> {
  const input = entryPath(entry);
  const pages = entry.pages ?? 0;
  const dir = join(root, String(index));
  const result: FileResult = { file: entry.file, pages, runs: 0, parts: 0, ms: 0, failures: [], notes: [] };
  const started = performance.now();
  try {
    // One page per part.
    const byPage = join(dir, 'count');
    const run = await cli(['split-by-page-count', '--page-count', '1', input, '-o', byPage]);
    result.runs++;
    if (!run.ok) {
      if (pages === 0 && run.refusal?.file?.some((m) => /no pages/.test(m))) {
        result.notes.push('refused: the document has no pages');
        return result;
      }
      result.failures.push(`split-by-page-count 1: ${run.detail}`);
      return result;
    }
    const single = await readParts(byPage, entry, 'split-by-page-count 1', result.failures, result.notes);
    result.parts += single.length;
    if (single.length !== pages) result.failures.push(`split-by-page-count 1: ${single.length} parts for ${pages} pages`);
    const notSingle = single.filter((p) => p.pages !== 1);
    if (notSingle.length > 0) result.failures.push(`split-by-page-count 1: ${notSingle.map((p) => `${p.name} has ${p.pages} pages`).join(', ')}`);
    rmSync(byPage, { recursive: true, force: true });

    for (const limit of limitsFor(entry.bytes)) {
      const what = `split-by-size ${limit}`;
      const out = join(dir, `size-${limit}`);
      const sized = await cli(['split-by-size', '--maximum-bytes', String(limit), input, '-o', out]);
      result.runs++;
      if (!sized.ok) {
        result.failures.push(`${what}: ${sized.detail}`);
        continue;
      }
      const parts = await readParts(out, entry, what, result.failures, result.notes);
      result.parts += parts.length;
      const total = parts.reduce((sum, p) => sum + p.pages, 0);
      if (total !== pages) result.failures.push(`${what}: the parts hold ${total} pages; the document has ${pages}`);
      for (const part of parts) {
        if (part.pages > 1 && part.bytes > limit) result.failures.push(`${what}: ${part.name} is ${part.bytes} bytes with ${part.pages} pages`);
      }
      // Packed: each part with the next page passes the limit.
      const runs: string[] = [];
      let first = 1;
      for (const part of parts.slice(0, -1)) {
        const last = first + part.pages - 1;
        runs.push(`${first}..${last + 1}`);
        first = last + 1;
      }
      const batches: string[][] = [];
      for (const group of runs) {
        const batch = batches.at(-1);
        if (batch && [...batch, group].join(';').length <= MAX_GROUPS_LENGTH) batch.push(group);
        else batches.push([group]);
      }
      let k = 0;
      for (const [b, batch] of batches.entries()) {
        const grownDir = join(dir, `grown-${limit}-${b}`);
        const grown = await cli(['split-by-groups', '--groups', batch.join(';'), input, '-o', grownDir]);
        result.runs++;
        if (!grown.ok) {
          result.failures.push(`${what}: split-by-groups for the packing check: ${grown.detail}`);
          break;
        }
        for (const name of readdirSync(grownDir).sort()) {
          const size = statSync(join(grownDir, name)).size;
          if (size <= limit) result.failures.push(`${what}: ${parts[k].name} is not packed: with the next page it is ${size} bytes`);
          k++;
        }
        rmSync(grownDir, { recursive: true, force: true });
      }
      rmSync(out, { recursive: true, force: true });
    }
    return result;
  } catch (err) {
    if (!(err instanceof JudgeTimedOut)) throw err;
    result.notes.push(`no verdict: ${err.message}`);
    return result;
  } finally {
    result.ms = Math.round(performance.now() - started);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pool<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i], i);
      }
    }),
  );
  return results;
}

describe.skipIf(!hasCorpus)('corpus: split actions through the built CLI', () => {
  const results: FileResult[] = [];
  let seconds = 0;
  let root = '';

  beforeAll(async () => {
    if (!existsSync(builtCli)) throw new Error(`dist/ is not built (${builtCli} missing): run \`node scripts/build.mjs --no-types\` first`);
    // Undamaged files only: damaged ones (qpdf had to repair them) may rightly be refused; the page-action tier judges those.
    const entries = withoutDuplicates(readManifest()).kept.filter((e) => e.qpdf_readable && !e.damaged && !e.encrypted && !isSigned(e) && e.pages !== null);
    root = mkdtempSync(join(tmpdir(), 'pdfsvc-split-corpus-'));
    const started = performance.now();
    results.push(...(await pool(entries, CONCURRENCY, (entry, i) => runFile(entry, root, i))));
    seconds = (performance.now() - started) / 1000;
  }, 30 * 60_000);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    if (results.length === 0) return;
    const failed = results.filter((r) => r.failures.length > 0);
    const lines = [
      `split corpus tier: ${results.length} files, ${results.reduce((s, r) => s + r.runs, 0)} CLI runs, ${results.reduce((s, r) => s + r.parts, 0)} parts checked, in ${seconds.toFixed(0)} s with concurrency ${CONCURRENCY}; ${failed.length} files with failures`,
    ];
    for (const r of results.filter((r) => r.notes.length > 0)) lines.push(`  ${r.file}: ${r.notes.join('; ')}`);
    const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 5);
    lines.push(`slowest files: ${slowest.map((r) => `${r.file} (${r.pages} pages) ${(r.ms / 1000).toFixed(1)} s`).join('; ')}`);
    console.log(lines.join('\n'));
  });

  it('every readable, unencrypted, unsigned file splits by page count and by size within the rules', () => {
    expect(results.length).toBeGreaterThan(0);
    const failures = results.flatMap((r) => r.failures.map((f) => `${r.file}: ${f}`));
    expect(failures, `${failures.length} failures:\n${failures.join('\n')}`).toEqual([]);
  });

  // A bound that catches a hang or a pathological slowdown, with room for a shared machine.
  it('finishes within 20 minutes on 2 cores', () => {
    expect(seconds).toBeLessThan(20 * 60);
  });
});
