// pdfsvc against qpdf: the same job on the same file in the same run, whole
// process (spawn → exit), medians and the ratio of medians. See bench/README.md.
//
//   npm run bench                        # 5 runs, every job on every document
//   npm run bench -- --quick             # 1 run, the 10-page document only
//   npm run bench -- --runs 9 --jobs rotate,merge --docs doc-500p
//   npm run bench -- --jobs "split 10 pages,split by size 5 MB" --docs doc-500p
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { DOCUMENTS, OUT_DIR, ensureDocuments } from './make-documents.mjs';
import { readArguments } from './arguments.mjs';
import { machineInfo, snapshotCli } from './machine.mjs';
import { BATCH_FILES, benchBatch, judgeBatch } from './batch.mjs';
import { IMAGE_ARGS, TEXT_ARGS, watermarkImage, watermarkStamp } from './watermark-assets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST_DIR = fileURLToPath(new URL('../dist/', import.meta.url));
const DIST_CLI = `${DIST_DIR}cli.js`;
// The CLI runs from a copy of bin/ and dist/ taken at the start, so a rebuild
// by someone else during the run (it deletes dist/ first) cannot break it.
const SNAPSHOT = `${OUT_DIR}snapshot/`;
const CLI = `${SNAPSHOT}bin/pdfsvc.js`;
const WRAPPER = fileURLToPath(new URL('./rss-wrapper.mjs', import.meta.url));
const WORK = `${OUT_DIR}tmp/`;
const NODE = process.execPath;
const MB = 1024 * 1024;
const RUN_TIMEOUT_MS = 10 * 60 * 1000;

// --------------------------------------------------------------------- jobs
//
// One entry per job. Page jobs run on every document; `pdfsvc(doc, out)` and
// `qpdf(doc, out)` give each tool's arguments, `expect(doc)` what the output
// must be: page count, which source page comes first and last (every page
// prints "pdfsvc-bench page N of M"), and optionally page 1's rotation.
// Start-up jobs have no document and compare with `baseline` instead of qpdf.
//
// Split jobs (`output: 'directory'`) write a directory of parts: each run gets
// a fresh empty directory (made before the clock starts, removed before the
// next run), and `expect(doc)` describes the parts (see verifyDirectory);
// `expectBaseline(doc)` when qpdf's output differs from pdfsvc's. A job with
// `relativeTo` is judged on its pdfsvc time against that job's pdfsvc time on
// the same document instead of against qpdf.
//
// When pdfsvc answers a job with exit status 2 and "not implemented" (or does
// not know the command), the row says n/a with pdfsvc's reason.

const half = (doc) => Math.floor(doc.pages / 2);

const BENCH_PASSWORD = 'bench-password';

/** The document encrypted by qpdf with AES-128 or AES-256, made once (the input of the decrypt jobs). */
function encryptedCopy(doc, bits) {
  const path = `${OUT_DIR}${doc.name}-aes${bits}.pdf`;
  if (!existsSync(path) || statSync(path).mtimeMs < statSync(doc.path).mtimeMs) {
    const made = spawnSync('qpdf', ['--encrypt', BENCH_PASSWORD, BENCH_PASSWORD, String(bits), ...(bits === 128 ? ['--use-aes=y'] : []), '--', doc.path, path]);
    if (made.status !== 0 && made.status !== 3) throw new Error(`qpdf --encrypt failed: ${made.stderr}`);
  }
  return path;
}

// The split jobs: 10-page parts, and parts of at most 5,000,000 bytes (5 MB,
// not MiB) for split_by_size. qpdf has no split by size; its nearest job,
// --split-pages=10, is the baseline of both rows.
const SPLIT_PAGES = 10;
const SPLIT_BYTES = 5_000_000;

/** The source pages of each part of a split into `per`-page parts: [{ from, to }]. */
function pageRanges(doc, per) {
  const ranges = [];
  for (let from = 1; from <= doc.pages; from += per) ranges.push({ from, to: Math.min(from + per - 1, doc.pages) });
  return ranges;
}

/** qpdf --split-pages=10 into `dir`: parts named part-<first>-<last>.pdf (zero-padded page numbers). */
const qpdfSplitPages = (d, dir) => [d.path, `--split-pages=${SPLIT_PAGES}`, `${dir}part-%d.pdf`];
const qpdfSplitExpect = (d) => ({ directory: true, names: 'qpdf', pages: d.pages, ranges: pageRanges(d, SPLIT_PAGES) });

export const JOBS = [
  {
    name: 'rotate',
    pdfsvc: (d, out) => ['rotate', '--angle', '90', d.path, '-o', out],
    qpdf: (d, out) => [d.path, '--rotate=+90', out],
    expect: (d) => ({ pages: d.pages, first: 1, last: d.pages, rotation: 90 }),
  },
  {
    name: 'extract',
    pdfsvc: (d, out) => ['extract', '--pages', `1..${half(d)}`, d.path, '-o', out],
    qpdf: (d, out) => [d.path, '--pages', '.', `1-${half(d)}`, '--', out],
    expect: (d) => ({ pages: half(d), first: 1, last: half(d) }),
  },
  {
    name: 'reverse',
    pdfsvc: (d, out) => ['reverse', d.path, '-o', out],
    qpdf: (d, out) => [d.path, '--pages', '.', 'z-1', '--', out],
    expect: (d) => ({ pages: d.pages, first: d.pages, last: 1 }),
  },
  {
    name: 'reorder',
    pdfsvc: (d, out) => ['reorder', '--page-order', `${half(d) + 1}..${d.pages},1..${half(d)}`, d.path, '-o', out],
    qpdf: (d, out) => [d.path, '--pages', '.', `${half(d) + 1}-z,1-${half(d)}`, '--', out],
    expect: (d) => ({ pages: d.pages, first: half(d) + 1, last: half(d) }),
  },
  {
    name: 'remove',
    pdfsvc: (d, out) => ['remove', '--pages', '1', d.path, '-o', out],
    qpdf: (d, out) => [d.path, '--pages', '.', '2-z', '--', out],
    expect: (d) => ({ pages: d.pages - 1, first: 2, last: d.pages }),
  },
  {
    name: 'merge',
    inputs: 2, // the document with itself: the input is twice its size
    pdfsvc: (d, out) => ['merge', d.path, d.path, '-o', out],
    qpdf: (d, out) => ['--empty', '--pages', d.path, d.path, '--', out],
    expect: (d) => ({ pages: 2 * d.pages, first: 1, last: d.pages }),
  },
  // Security: encryption of each document, and decryption of the document as
  // qpdf encrypted it (made once beside the documents, see encryptedCopy).
  ...[128, 256].map((bits) => ({
    name: `encrypt aes-${bits}`,
    pdfsvc: (d, out) => ['add-password', '--password', BENCH_PASSWORD, '--encryption-algorithm', `AES-${bits}`, d.path, '-o', out],
    qpdf: (d, out) => ['--encrypt', BENCH_PASSWORD, BENCH_PASSWORD, String(bits), ...(bits === 128 ? ['--use-aes=y'] : []), '--', d.path, out],
    expect: (d) => ({ pages: d.pages, first: 1, last: d.pages, password: BENCH_PASSWORD }),
  })),
  ...[128, 256].map((bits) => ({
    name: `decrypt aes-${bits}`,
    pdfsvc: (d, out) => ['remove-password', '--password', BENCH_PASSWORD, encryptedCopy(d, bits), '-o', out],
    qpdf: (d, out) => ['--decrypt', `--password=${BENCH_PASSWORD}`, encryptedCopy(d, bits), out],
    expect: (d) => ({ pages: d.pages, first: 1, last: d.pages }),
  })),
  // Watermarks on every page, against qpdf laying a prepared one-page stamp over every page.
  {
    name: 'text watermark',
    pdfsvc: (d, out) => [...TEXT_ARGS, d.path, '-o', out],
    qpdf: (d, out) => [d.path, '--overlay', watermarkStamp('text', CLI), '--', out],
    expect: (d) => ({ pages: d.pages, first: 1, last: d.pages }),
  },
  {
    name: 'image watermark',
    pdfsvc: (d, out) => [...IMAGE_ARGS, watermarkImage(), d.path, '-o', out],
    qpdf: (d, out) => [d.path, '--overlay', watermarkStamp('image', CLI), '--', out],
    expect: (d) => ({ pages: d.pages, first: 1, last: d.pages }),
  },
  // Splits: a directory of parts (00001.pdf, 00002.pdf, … from pdfsvc).
  {
    name: `split ${SPLIT_PAGES} pages`,
    output: 'directory',
    pdfsvc: (d, dir) => ['split-by-page-count', '--page-count', String(SPLIT_PAGES), d.path, '-o', dir],
    qpdf: qpdfSplitPages,
    expect: (d) => ({ directory: true, names: 'pdfsvc', pages: d.pages, ranges: pageRanges(d, SPLIT_PAGES) }),
    expectBaseline: qpdfSplitExpect,
  },
  {
    name: 'split by size 5 MB',
    output: 'directory',
    relativeTo: `split ${SPLIT_PAGES} pages`, // target: pdfsvc time within 3x of that job's pdfsvc time
    pdfsvc: (d, dir) => ['split-by-size', '--maximum-bytes', String(SPLIT_BYTES), d.path, '-o', dir],
    qpdf: qpdfSplitPages,
    expect: (d) => ({ directory: true, names: 'pdfsvc', pages: d.pages, maxBytes: SPLIT_BYTES }),
    expectBaseline: qpdfSplitExpect,
  },
  // Issue 12: 200 copies of the 10-page document in one call, against shell
  // loops of qpdf and of pdfsvc (bench/batch.mjs); on doc-10p only.
  { name: 'batch', batch: true, document: 'doc-10p' },
  {
    name: '--help',
    startup: true,
    pdfsvc: () => ['--help'],
    baseline: { label: "node -e ''", command: NODE, args: ['-e', ''] },
  },
  {
    name: 'rotate --help',
    startup: true,
    pdfsvc: () => ['rotate', '--help'],
    baseline: { label: "node -e ''", command: NODE, args: ['-e', ''] },
  },
];

/** Targets from the issue; `null` where a row has none. */
const TARGETS = {
  pageRatio: 2, // page actions: within 2x qpdf's time on the 500-page document
  pageRatioDocument: 'doc-500p',
  rssPerInput: 3, // peak memory within 3x the input's size (judged on the 500-page document)
  startupRatio: 2, // --help within 2x of node start-up
  relativeRatio: 3, // split_by_size: pdfsvc time within 3x of pdfsvc's page-count split on the same document
};

const NOT_AVAILABLE = /not implemented|unknown command|not available|not supported/i;

// ------------------------------------------------------------------ options

function parseOptions(argv) {
  const options = { runs: 5, quick: false, jobs: null, docs: null, build: false, rss: 'auto' };
  const take = (name, value) => {
    if (name === '--quick') options.quick = true;
    else if (name === '--build') options.build = true;
    else if (name === '--runs') options.runs = Number(value());
    else if (name === '--jobs') options.jobs = value().split(',');
    else if (name === '--docs') options.docs = value().split(',');
    else if (name === '--rss') options.rss = value();
    else return false;
    return true;
  };
  readArguments(argv, take, fail, 'bench/README.md');
  if (!Number.isInteger(options.runs) || options.runs < 1) fail('--runs needs a whole number of at least 1');
  if (!['auto', 'time', 'wrapper', 'none'].includes(options.rss)) fail('--rss is one of auto, time, wrapper, none');
  if (options.quick) {
    options.runs = 1;
    options.docs ??= ['doc-10p'];
  }
  // A job is named as in JOBS ("split by size 5 MB", quoted) or with dashes for spaces ("split-by-size-5-MB").
  if (options.jobs) {
    options.jobs = options.jobs.map((name) => {
      const job = JOBS.find((j) => j.name === name.trim() || jobSlug(j.name) === jobSlug(name));
      if (!job) fail(`unknown job ${name}; jobs: ${JOBS.map((j) => `"${j.name}"`).join(', ')}`);
      return job.name;
    });
  }
  const docNames = DOCUMENTS.map((d) => d.name);
  for (const d of options.docs ?? []) if (!docNames.includes(d)) fail(`unknown document ${d}; documents: ${docNames.join(', ')}`);
  return options;
}

function jobSlug(name) {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

const log = (line) => process.stderr.write(`${line}\n`);

// ------------------------------------------------------------ running things

/** Runs a command to completion; seconds are wall time from spawn to exit. */
function run(command, args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 16 * MB,
    timeout: RUN_TIMEOUT_MS,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    seconds,
    status: result.status,
    signal: result.signal,
    error: result.error,
    stderr: result.stderr ? result.stderr.toString() : '',
  };
}

function capture(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * MB });
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '', error: result.error };
}

/** How peak memory is measured: /usr/bin/time -v, the in-process wrapper, or not at all. */
function memoryMethod(choice) {
  if (choice === 'none') return 'none';
  if (choice === 'wrapper') return 'wrapper';
  const probe = `${WORK}time-probe.txt`;
  const ok =
    existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-v', '-o', probe, 'true']).status === 0 && /Maximum resident set size/.test(safeRead(probe));
  rmSync(probe, { force: true });
  if (ok) return 'time';
  if (choice === 'time') log('bench: /usr/bin/time -v is not available; measuring pdfsvc through bench/rss-wrapper.mjs');
  return 'wrapper';
}

function safeRead(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Runs once while measuring peak RSS (bytes, or null). `node` says whether the
 * command is a Node script (for the wrapper, which only works for those).
 */
function runMeasured(method, command, args, { node }) {
  const report = `${WORK}rss-${process.pid}.txt`;
  rmSync(report, { force: true });
  let result;
  if (method === 'time') {
    result = run('/usr/bin/time', ['-v', '-o', report, command, ...args]);
    const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(safeRead(report));
    result.rss = match ? Number(match[1]) * 1024 : null;
  } else if (method === 'wrapper' && node) {
    result = run(NODE, [WRAPPER, report, ...args]);
    const bytes = Number(safeRead(report));
    result.rss = bytes > 0 ? bytes : null;
  } else {
    result = run(command, args);
    result.rss = null;
  }
  rmSync(report, { force: true });
  return result;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function firstLine(text) {
  return (text.split('\n').find((l) => l.trim()) ?? '').trim().slice(0, 160);
}

function failure(result) {
  if (result.error) return result.error.message;
  if (result.signal) return `killed by ${result.signal}`;
  return `exit ${result.status}: ${firstLine(result.stderr)}`;
}

// --------------------------------------------------------------- verifying

const havePoppler = capture('pdftotext', ['-v']).status === 0 && capture('pdfinfo', ['-v']).status === 0;

function markerOf(path, page, password) {
  const upw = password === undefined ? [] : ['-upw', password];
  const text = capture('pdftotext', ['-f', String(page), '-l', String(page), ...upw, path, '-']).stdout;
  const match = /pdfsvc-bench page (\d+) of/.exec(text);
  return match ? Number(match[1]) : null;
}

/**
 * Checks an output against the job's expectation. `full` adds qpdf --check
 * (about a second on the 500-page document, so not on every run).
 * Returns null when the output is right, else what is wrong.
 */
function verify(path, expected, { full }) {
  if (!existsSync(path)) return 'no output file';
  // Encrypted outputs (the encrypt jobs) are read with their password.
  const pw = expected.password === undefined ? [] : [`--password=${expected.password}`];
  if (full) {
    const check = capture('qpdf', ['--check', ...pw, path]);
    if (check.status !== 0 && check.status !== 3) return `qpdf --check exit ${check.status}: ${firstLine(check.stdout + check.stderr)}`;
  }
  const npages = capture('qpdf', ['--show-npages', ...pw, path]);
  if (npages.status !== 0 && npages.status !== 3) return `qpdf --show-npages failed: ${firstLine(npages.stderr)}`;
  const pages = Number(npages.stdout.trim());
  if (pages !== expected.pages) return `${pages} pages, expected ${expected.pages}`;
  if (havePoppler) {
    const first = markerOf(path, 1, expected.password);
    if (first !== expected.first) return `page 1 is source page ${first}, expected ${expected.first}`;
    const last = markerOf(path, pages, expected.password);
    if (last !== expected.last) return `page ${pages} is source page ${last}, expected ${expected.last}`;
    if (expected.rotation !== undefined) {
      const info = capture('pdfinfo', ['-f', '1', '-l', '1', path]).stdout;
      const rot = /Page\s+1 rot:\s+(-?\d+)/.exec(info);
      if (!rot || Number(rot[1]) !== expected.rotation) return `page 1 rotation ${rot ? rot[1] : '?'}, expected ${expected.rotation}`;
    }
  }
  return null;
}

/** pdfsvc's name for the part at index i: 00001.pdf, 00002.pdf, … */
const partName = (i) => `${String(i + 1).padStart(5, '0')}.pdf`;
/** qpdf --split-pages names parts after their first and last page (zero-padded). */
const QPDF_PART = /^part-(\d+)-(\d+)\.pdf$/;
/**
 * split_by_size fills parts greedily, and the bench documents' pages are far
 * below 5 MB, so every part but the last should be well filled: at least this
 * share of the limit (unless the next part is a single, possibly large, page),
 * and never so small that it and the next part would fit together.
 */
const MIN_FILL = 0.5;

/**
 * Checks a directory of parts (a split job's output). `expected`: `pages`, the
 * document's page count; `names`, 'pdfsvc' (00001.pdf, … in order) or 'qpdf'
 * (part-<first>-<last>.pdf, naming the pages each part holds); `ranges`, the
 * source pages each part must hold (page-count split), or `maxBytes`, the size
 * limit (split by size). Every part's page count (qpdf --show-npages) and the
 * sum; source page 1 first and source page N last (pdftotext markers). `full`
 * adds qpdf --check of the first and last part and the marker of every part's
 * first page. Returns null when the parts are right, else what is wrong.
 */
function verifyDirectory(dir, expected, { full }) {
  if (!existsSync(dir)) return 'no output directory';
  const files = readdirSync(dir).sort();
  if (files.length === 0) return 'no parts in the output directory';
  if (expected.ranges && files.length !== expected.ranges.length) return `${files.length} parts, expected ${expected.ranges.length}`;
  const parts = [];
  let next = 1;
  for (const name of files) {
    const path = `${dir}${name}`;
    const npages = capture('qpdf', ['--show-npages', path]);
    if (npages.status !== 0 && npages.status !== 3) return `${name}: qpdf --show-npages failed: ${firstLine(npages.stderr)}`;
    const pages = Number(npages.stdout.trim());
    if (!(pages >= 1)) return `${name}: ${npages.stdout.trim() || '?'} pages`;
    parts.push({ name, path, pages, from: next, to: next + pages - 1, bytes: statSync(path).size });
    next += pages;
  }
  const total = next - 1;
  if (total !== expected.pages) return `the ${parts.length} parts hold ${total} pages, expected ${expected.pages}`;
  for (const [i, part] of parts.entries()) {
    if (expected.names === 'pdfsvc' && part.name !== partName(i)) return `part ${i + 1} is named ${part.name}, expected ${partName(i)}`;
    if (expected.names === 'qpdf') {
      const m = QPDF_PART.exec(part.name);
      if (!m || Number(m[1]) !== part.from || Number(m[2]) !== part.to) return `part ${i + 1} is named ${part.name} but holds pages ${part.from}-${part.to}`;
    }
    if (expected.ranges) {
      const want = expected.ranges[i].to - expected.ranges[i].from + 1;
      if (part.pages !== want) return `${part.name} has ${part.pages} pages, expected ${want}`;
    }
    if (expected.maxBytes !== undefined) {
      if (part.bytes > expected.maxBytes && part.pages > 1)
        return `${part.name} is ${part.bytes} bytes (${part.pages} pages), over the limit of ${expected.maxBytes}`;
      const following = parts[i + 1];
      if (following && part.bytes + following.bytes <= expected.maxBytes) {
        return `${part.name} and ${following.name} together are ${part.bytes + following.bytes} bytes, within the limit of ${expected.maxBytes}: the first should have taken more pages`;
      }
      if (following && following.pages > 1 && part.bytes < MIN_FILL * expected.maxBytes) {
        return `${part.name} is only ${part.bytes} bytes (${part.pages} pages) of ${expected.maxBytes}, and is not the last part`;
      }
    }
  }
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (full) {
    for (const part of new Set([first, last])) {
      const check = capture('qpdf', ['--check', part.path]);
      if (check.status !== 0 && check.status !== 3) return `${part.name}: qpdf --check exit ${check.status}: ${firstLine(check.stdout + check.stderr)}`;
    }
  }
  if (havePoppler) {
    for (const part of full ? parts : [first]) {
      const marker = markerOf(part.path, 1);
      if (marker !== part.from) return `${part.name} starts with source page ${marker}, expected ${part.from}`;
    }
    const marker = markerOf(last.path, last.pages);
    if (marker !== expected.pages) return `${last.name} ends with source page ${marker}, expected ${expected.pages}`;
  }
  return null;
}

/** Checks a single output file or a directory of parts, as the expectation says. */
function verifyOutput(path, expected, options) {
  return expected.directory ? verifyDirectory(path, expected, options) : verify(path, expected, options);
}

// ------------------------------------------------------------------ a job

/**
 * Times one job. Both tools: a warm-up run (also measures peak memory and is
 * fully verified), then `runs` timed runs alternating which tool goes first.
 */
function benchJob(job, doc, options, method) {
  const row = {
    job: job.name,
    document: doc ? doc.name : null,
    pages: doc ? doc.pages : null,
    megabytes: doc ? doc.bytes / MB : null,
    inputBytes: doc ? doc.bytes * (job.inputs ?? 1) : null,
    baseline: job.startup ? job.baseline.label : 'qpdf',
    status: 'ok',
    reason: null,
    pdfsvc: { runs: [], median: null, rss: null },
    other: { runs: [], median: null, rss: null },
    ratio: null,
    rssPerInput: null,
  };
  const tag = `${job.name.replace(/[^a-z0-9]+/gi, '-')}-${doc ? doc.name : 'startup'}`;
  // Split jobs write into a directory (path with a trailing slash), made afresh before every run.
  const directory = job.output === 'directory';
  const outPdfsvc = directory ? `${WORK}${tag}-pdfsvc/` : `${WORK}${tag}-pdfsvc.pdf`;
  const outOther = directory ? `${WORK}${tag}-qpdf/` : `${WORK}${tag}-qpdf.pdf`;
  const expected = doc ? job.expect(doc) : null;
  const expectedOther = doc ? (job.expectBaseline ?? job.expect)(doc) : null;
  const fresh = (out) => {
    if (!directory) return;
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
  };
  if (directory) row.parts = { pdfsvc: null, qpdf: null };

  const pdfsvcArgs = [CLI, ...job.pdfsvc(doc, outPdfsvc)];
  const other = job.startup
    ? { command: job.baseline.command, args: job.baseline.args, node: false }
    : { command: 'qpdf', args: job.qpdf(doc, outOther), node: false };
  const okStatus = (tool, status) => status === 0 || (tool === 'qpdf' && status === 3); // 3: qpdf warnings

  const cleanUp = () => {
    rmSync(outPdfsvc, { recursive: true, force: true });
    rmSync(outOther, { recursive: true, force: true });
  };
  const give = (status, reason) => {
    row.status = status;
    row.reason = reason;
    cleanUp();
    return row;
  };

  // Warm-up, measured.
  fresh(outPdfsvc);
  const warm = runMeasured(method, NODE, pdfsvcArgs, { node: true });
  if (warm.status === 2 && NOT_AVAILABLE.test(warm.stderr)) return give('n/a', firstLine(warm.stderr));
  if (!okStatus('pdfsvc', warm.status)) return give('failed', `pdfsvc ${failure(warm)}`);
  row.pdfsvc.rss = warm.rss;
  if (expected) {
    const wrong = verifyOutput(outPdfsvc, expected, { full: true });
    if (wrong) return give('wrong', `pdfsvc output: ${wrong}`);
    if (directory) row.parts.pdfsvc = readdirSync(outPdfsvc).length;
  }
  fresh(outOther);
  const warmOther = runMeasured(method === 'time' ? 'time' : 'none', other.command, other.args, { node: false });
  if (!okStatus(row.baseline, warmOther.status)) return give('failed', `${row.baseline} ${failure(warmOther)}`);
  row.other.rss = warmOther.rss;
  if (expectedOther) {
    const wrong = verifyOutput(outOther, expectedOther, { full: true });
    if (wrong) return give('failed', `qpdf output: ${wrong} (check the job's qpdf arguments)`);
    if (directory) row.parts.qpdf = readdirSync(outOther).length;
  }

  // Timed runs: ABBA order so drift in machine load falls on both tools alike.
  for (let i = 0; i < options.runs; i++) {
    const order = i % 2 === 0 ? ['pdfsvc', 'other'] : ['other', 'pdfsvc'];
    for (const tool of order) {
      fresh(tool === 'pdfsvc' ? outPdfsvc : outOther);
      const result = tool === 'pdfsvc' ? run(NODE, pdfsvcArgs) : run(other.command, other.args);
      if (!okStatus(tool === 'pdfsvc' ? 'pdfsvc' : row.baseline, result.status)) {
        return give('failed', `${tool === 'pdfsvc' ? 'pdfsvc' : row.baseline} (run ${i + 1}) ${failure(result)}`);
      }
      row[tool].runs.push(result.seconds);
      if (expected) {
        const last = i === options.runs - 1;
        const wrong = tool === 'pdfsvc' ? verifyOutput(outPdfsvc, expected, { full: last }) : verifyOutput(outOther, expectedOther, { full: last });
        if (wrong) return give(tool === 'pdfsvc' ? 'wrong' : 'failed', `${tool === 'pdfsvc' ? 'pdfsvc' : 'qpdf'} output (run ${i + 1}): ${wrong}`);
      }
    }
  }
  row.pdfsvc.median = median(row.pdfsvc.runs);
  row.other.median = median(row.other.runs);
  row.ratio = row.pdfsvc.median / row.other.median;
  if (row.pdfsvc.rss && row.inputBytes) row.rssPerInput = row.pdfsvc.rss / row.inputBytes;
  cleanUp();
  return row;
}

/**
 * For a job with `relativeTo` (split by size): its pdfsvc median over that
 * job's pdfsvc median on the same document, or why there is none.
 */
function relate(row, rows) {
  const job = JOBS.find((j) => j.name === row.job);
  if (!job?.relativeTo || row.status !== 'ok') return;
  const other = rows.find((r) => r.job === job.relativeTo && r.document === row.document);
  row.relative = {
    to: job.relativeTo,
    ratio: other?.status === 'ok' ? row.pdfsvc.median / other.pdfsvc.median : null,
    missing: !other ? 'not run (add it to --jobs)' : other.status !== 'ok' ? other.status : null,
  };
}

/**
 * Which targets a row is judged on, and whether it meets them (`ok: null`:
 * shown for information, not judged on this document).
 */
function judge(row) {
  const verdicts = [];
  if (row.status !== 'ok') return verdicts;
  if (row.batch) return judgeBatch(row);
  const judged = row.document === TARGETS.pageRatioDocument;
  if (row.document === null) {
    verdicts.push({ what: `time ≤${TARGETS.startupRatio}x`, ok: row.ratio <= TARGETS.startupRatio });
  } else if (row.relative) {
    const { to, ratio, missing } = row.relative;
    if (ratio === null) verdicts.push({ what: `time ≤${TARGETS.relativeRatio}x ${to}: n/a, ${to} ${missing}`, ok: null });
    else if (judged) verdicts.push({ what: `time ${ratio.toFixed(2)}x ${to} ≤${TARGETS.relativeRatio}x`, ok: ratio <= TARGETS.relativeRatio });
    else verdicts.push({ what: `time ${ratio.toFixed(2)}x ${to}`, ok: null });
  } else if (judged) {
    verdicts.push({ what: `time ≤${TARGETS.pageRatio}x`, ok: row.ratio <= TARGETS.pageRatio });
  }
  if (judged && row.rssPerInput !== null) verdicts.push({ what: `RSS ≤${TARGETS.rssPerInput}x`, ok: row.rssPerInput <= TARGETS.rssPerInput });
  return verdicts;
}

const verdictText = (v) => `${v.what}${v.ok === null ? '' : v.ok ? ' ✓' : ' ✗'}`;

// ------------------------------------------------------------------ report

function machine(options, method) {
  return {
    ...machineInfo(SNAPSHOT),
    runs: options.runs,
    memoryMethod: { time: '/usr/bin/time -v', wrapper: 'process.resourceUsage().maxRSS (bench/rss-wrapper.mjs)', none: 'not measured' }[method],
  };
}

const fmt = (n, digits) => (n === null || n === undefined ? 'n/a' : n.toFixed(digits));

function markdown(rows, info) {
  const lines = [];
  lines.push(`# pdfsvc benchmark, ${info.date.slice(0, 10)}`);
  lines.push('');
  lines.push(
    `- Machine: ${info.cores} cores (${info.cpu}), ${info.memoryGB} GB, ${info.os}; load average at start ${info.loadAverageAtStart.join(' ')}, at end ${info.loadAverageAtEnd.join(' ')}`,
  );
  lines.push(`- Node ${info.node}; ${info.qpdf}; pdfsvc at ${info.commit}, dist/ built ${info.distBuilt ?? 'never'}`);
  lines.push(
    `- ${info.runs} timed run${info.runs === 1 ? '' : 's'} per tool after a warm-up, alternating; whole-process wall time (spawn → exit); medians. Peak RSS: ${info.memoryMethod}, warm-up run.`,
  );
  lines.push(`- Date: ${info.date}; took ${info.seconds.toFixed(0)} s`);
  lines.push('');
  lines.push('| job | document | pages | MB | pdfsvc median s | qpdf median s | ratio | peak RSS MB | RSS/input | targets |');
  lines.push('|---|---|--:|--:|--:|--:|--:|--:|--:|---|');
  for (const row of rows) {
    const doc = row.document ?? '—';
    const pages = row.pages ?? '—';
    const mb = row.megabytes === null ? '—' : row.megabytes.toFixed(1);
    const rss = row.pdfsvc.rss ? (row.pdfsvc.rss / MB).toFixed(0) : 'n/a';
    if (row.status !== 'ok') {
      const what = row.status === 'n/a' ? 'n/a' : row.status === 'wrong' ? '**WRONG OUTPUT**' : '**FAILED**';
      lines.push(`| ${row.job} | ${doc} | ${pages} | ${mb} | ${what} | | | | | ${row.reason.replace(/\|/g, '\\|')} |`);
      continue;
    }
    const otherMedian = row.baseline === 'qpdf' ? fmt(row.other.median, 3) : `${fmt(row.other.median, 3)} (${row.baseline})`;
    const rssPerInput = row.rssPerInput === null ? '—' : `${row.rssPerInput.toFixed(2)}x`;
    const verdicts = judge(row).map(verdictText).join(', ');
    lines.push(
      `| ${row.job} | ${doc} | ${pages} | ${mb} | ${fmt(row.pdfsvc.median, 3)} | ${otherMedian} | ${row.ratio.toFixed(2)}x | ${rss} | ${rssPerInput} | ${verdicts} |`,
    );
  }
  lines.push('');
  lines.push(
    'MB: the document (MiB). Merge is the document with itself, so its input, for RSS/input, is twice that. ' +
      `Start-up rows compare with \`node -e ''\` instead of qpdf. Targets: page actions within ${TARGETS.pageRatio}x qpdf's time ` +
      `and peak RSS within ${TARGETS.rssPerInput}x the input on the 500-page document; --help within ${TARGETS.startupRatio}x node start-up. ` +
      `Splits write a directory of parts; the qpdf column of both split rows is \`qpdf --split-pages=${SPLIT_PAGES}\` ` +
      `(qpdf cannot split by size), and split by size (parts of at most ${SPLIT_BYTES.toLocaleString('en')} bytes) is judged ` +
      `on its pdfsvc time within ${TARGETS.relativeRatio}x of pdfsvc's \`split ${SPLIT_PAGES} pages\` on the same document. ` +
      `The batch row rotates ${BATCH_FILES} copies of the document in one \`pdfsvc rotate --out-dir\` call, against a shell loop of ` +
      '`qpdf --rotate` (one process per file) and a shell loop of `pdfsvc rotate`.',
  );
  return lines.join('\n') + '\n';
}

// -------------------------------------------------------------------- main

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  mkdirSync(WORK, { recursive: true });

  if (!capture('qpdf', ['--version']).stdout) fail('qpdf is not installed (apt-get install -y qpdf poppler-utils)');
  if (!havePoppler) log('bench: poppler-utils not found: outputs are checked by page count only, not page order or rotation');
  if (options.build || !existsSync(DIST_CLI)) {
    log('bench: building dist/ (node scripts/build.mjs --no-types)');
    const built = spawnSync(NODE, ['scripts/build.mjs', '--no-types'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) fail('the build failed');
  }
  try {
    snapshotCli(SNAPSHOT);
  } catch (err) {
    fail(err.message);
  }

  const docs = await ensureDocuments({ names: options.docs ?? undefined, log: (l) => log(`bench: ${l}`) });
  const method = memoryMethod(options.rss);
  const info = machine(options, method);
  const jobs = JOBS.filter((j) => !options.jobs || options.jobs.includes(j.name));

  const rows = [];
  const report = (row) => {
    rows.push(row);
    const where = row.document ?? 'start-up';
    if (row.status === 'ok') {
      relate(row, rows);
      log(
        `  ${row.job} ${where}: pdfsvc ${fmt(row.pdfsvc.median, 3)} s, ${row.baseline} ${fmt(row.other.median, 3)} s, ${row.ratio.toFixed(2)}x` +
          (row.pdfsvc.rss ? `, RSS ${(row.pdfsvc.rss / MB).toFixed(0)} MB` : '') +
          (row.parts ? `, parts: pdfsvc ${row.parts.pdfsvc}, qpdf ${row.parts.qpdf}` : '') +
          (row.relative?.ratio ? `, ${row.relative.ratio.toFixed(2)}x ${row.relative.to}` : ''),
      );
    } else {
      log(`  ${row.job} ${where}: ${row.status}: ${row.reason}`);
    }
  };
  for (const job of jobs.filter((j) => j.startup)) report(benchJob(job, null, options, method));
  for (const doc of docs) {
    log(`bench: ${doc.name} (${doc.pages} pages, ${(doc.bytes / MB).toFixed(1)} MB)`);
    for (const job of jobs.filter((j) => !j.startup)) {
      if (!job.batch) report(benchJob(job, doc, options, method));
      else if (job.document === doc.name) report(benchBatch(doc, options, { cli: CLI, node: NODE, work: WORK, run, verifyOutput }));
    }
  }
  // Page rows first, start-up rows last, as the table reads best.
  rows.sort((a, b) => (a.document === null) - (b.document === null));

  info.loadAverageAtEnd = os.loadavg().map((l) => +l.toFixed(2));
  info.seconds = (performance.now() - started) / 1000;
  const md = markdown(rows, info);
  process.stdout.write(md);
  writeFileSync(`${OUT_DIR}results.md`, md);
  const json = {
    machine: info,
    targets: TARGETS,
    rows: rows.map((r) => ({ ...r, verdicts: judge(r) })),
  };
  writeFileSync(`${OUT_DIR}results.json`, JSON.stringify(json, null, 2) + '\n');
  rmSync(WORK, { recursive: true, force: true });
  rmSync(SNAPSHOT, { recursive: true, force: true });
  log(`bench: wrote bench/out/results.md and bench/out/results.json`);
  if (rows.some((r) => r.status === 'wrong' || r.status === 'failed')) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
