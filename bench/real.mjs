// Issue 22's benchmark: every job on every document shape (bench/make-shapes.mjs),
// pdfsvc against qpdf and against mutool (MuPDF), whole process, the three
// tools run in turn, medians; the verdict is a ratio against issue 22's
// targets, never an absolute time (the machines are shared and noisy).
//
//   npm run bench:real                                   # 5 runs of every job on every shape
//   npm run bench:real -- --runs 3 --shapes images,long-text --jobs rotate,extract
//
// Peak RSS comes from GNU time (/usr/bin/time -f %M). Each tool's output is
// checked once per job and shape (page count, which source pages come first
// and last, rotation, encryption, the watermark), so a fast wrong answer is
// reported as wrong instead of counted; pdfsvc's also passes qpdf --check.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readArguments } from './arguments.mjs';
import { machineInfo, snapshotCli } from './machine.mjs';
import { SHAPES, ensureShapes } from './make-shapes.mjs';
import { watermarkImage } from './watermark-assets.mjs';

const OUT = fileURLToPath(new URL('./out/', import.meta.url));
const WORK = `${OUT}real-tmp/`;
const SNAPSHOT = `${OUT}real-snapshot-${process.pid}/`;
const CLI = `${SNAPSHOT}bin/pdfsvc.js`;
const MUTOOL_DIR = fileURLToPath(new URL('./mutool/', import.meta.url));
const PASSWORD = 'bench-password';
const MiB = 2 ** 20;
const WATERMARK_TEXT = 'CONFIDENTIAL';

// ------------------------------------------------------------------ options

export function parseOptions(argv, fail) {
  const options = { runs: 5, jobs: undefined, shapes: undefined, force: false, keepEnv: false };
  readArguments(
    argv,
    (name, value) => {
      if (name === '--runs') options.runs = Number(value());
      else if (name === '--jobs') options.jobs = value().split(',');
      else if (name === '--shapes') options.shapes = value().split(',');
      else if (name === '--force') options.force = true;
      else if (name === '--keep-env') options.keepEnv = true;
      else return false;
      return true;
    },
    fail,
    'bench/README.md, "bench:real"',
  );
  if (!Number.isInteger(options.runs) || options.runs < 1) fail('--runs needs a whole number of at least 1');
  const known = SHAPES.map((s) => s.name);
  for (const s of options.shapes ?? []) if (!known.includes(s)) fail(`unknown shape ${s}; shapes: ${known.join(', ')}`);
  return options;
}

// --------------------------------------------------------------------- jobs
//
// A job builds each tool's command line for a shape (`out`: where that tool
// writes), says what the output must be, and which of issue 22's targets it
// is judged on: `vsQpdf` and `vsMutool` are the largest ratios pdfsvc / peer that
// meet the target; `mutoolPlus` (extract) is a bound in seconds over `node -e 0`
// instead of a ratio; `node0`: `node -e 0` runs in turn with the tools (the
// load changes during a run, so a start-up bound needs its own measure); `rss` is 'page' where "peak RSS ≤ input + 60 MiB" applies.

const mutoolRun = (script, ...args) => ['mutool', 'run', `${WORK}mutool-${script}`, ...args];

/**
 * The jobs on one single-file shape `s` ({ path, pages, bytes, encrypted: { 128, 256 } });
 * `overlay`: the page qpdf's watermark reference lays over every page.
 */
function fileJobs(s, overlay) {
  const n = s.pages;
  const page = { vsQpdf: 0.8, vsMutool: 1.5, rss: 'page' };
  const split = { vsQpdf: 0.8, vsMutool: 2.0, rss: 'page' };
  const crypto = { vsQpdf: 1.0, vsMutool: 1.3 };
  // About 10 pages a part, so split by size does comparable work to the 10-page split.
  const maxBytes = Math.ceil((1.2 * s.bytes * 10) / n);
  const partsOf10 = Math.ceil(n / 10);
  const identity = { pages: n, first: 1, last: n };
  // The start-up shape is judged on the 10-page rotate against `node -e 0` alone (see markdown()).
  const judged = (job) => (s.startupOnly ? { ...job, vsQpdf: undefined, vsMutool: undefined, mutoolPlus: undefined, node0: job.name === 'rotate' } : job);
  const reversed = { pages: n, first: n, last: 1 };
  return [
    {
      name: 'rotate',
      ...page,
      expect: { ...identity, rotate: 90, form: true },
      pdfsvc: (o) => ['rotate', '--angle', '90', s.path, '-o', o],
      qpdf: (o) => ['qpdf', s.path, '--rotate=+90', o],
      mutool: (o) => mutoolRun('rotate.js', s.path, o, '90'),
    },
    {
      name: 'reverse',
      ...page,
      expect: reversed,
      pdfsvc: (o) => ['reverse', s.path, '-o', o],
      qpdf: (o) => ['qpdf', '--empty', '--pages', s.path, 'z-1', '--', o],
      mutool: (o) => ['mutool', 'merge', '-o', o, s.path, `${n}-1`],
    },
    {
      name: 'reorder',
      ...page,
      expect: reversed,
      pdfsvc: (o) => ['reorder', '--page-order', '-1..1', s.path, '-o', o],
      qpdf: (o) => ['qpdf', '--empty', '--pages', s.path, 'z-1', '--', o],
      mutool: (o) => ['mutool', 'merge', '-o', o, s.path, `${n}-1`],
    },
    {
      name: 'remove page 1',
      ...page,
      expect: { pages: n - 1, first: 2, last: n, form: true },
      pdfsvc: (o) => ['remove', '--pages', '1', s.path, '-o', o],
      qpdf: (o) => ['qpdf', s.path, '--pages', s.path, '2-z', '--', o],
      // Not `mutool merge 2-N`: it drops the AcroForm (bench/mutool/remove.js).
      mutool: (o) => mutoolRun('remove.js', s.path, o),
    },
    {
      name: 'extract 5',
      vsQpdf: 0.5,
      mutoolPlus: 0.04,
      node0: true,
      rss: 'page',
      expect: { pages: 5, first: 1, last: 5 },
      pdfsvc: (o) => ['extract', '--pages', '1..5', s.path, '-o', o],
      qpdf: (o) => ['qpdf', s.path, '--pages', s.path, '1-5', '--', o],
      mutool: (o) => ['mutool', 'merge', '-o', o, s.path, '1-5'],
    },
    {
      name: 'text watermark',
      ...page,
      expect: { ...identity, mark: 'text', form: true },
      pdfsvc: (o) => ['add-text-watermark', '--line-1', WATERMARK_TEXT, s.path, '-o', o],
      qpdf: (o) => ['qpdf', s.path, '--overlay', overlay, '--to=1-z', '--from=1', '--', o],
      mutool: (o) => mutoolRun('text-watermark.js', s.path, o, WATERMARK_TEXT),
    },
    {
      name: 'image watermark',
      ...page,
      expect: { ...identity, mark: 'image', form: true },
      pdfsvc: (o) => ['add-image-watermark', '--image', watermarkImage(), s.path, '-o', o],
      qpdf: (o) => ['qpdf', s.path, '--overlay', overlay, '--to=1-z', '--from=1', '--', o],
      mutool: (o) => mutoolRun('image-watermark.js', s.path, o, watermarkImage()),
    },
    {
      name: 'split 10 pages',
      ...split,
      dir: true,
      expect: { ...identity, parts: partsOf10 },
      pdfsvc: (o) => ['split-by-page-count', '--page-count', '10', s.path, '-o', o, '--force'],
      qpdf: (o) => ['qpdf', '--split-pages=10', s.path, `${o}/p.pdf`],
      mutool: (o) => mutoolRun('split.js', s.path, o, '10'),
    },
    // qpdf and mutool cannot split by size: their 10-page split is the reference.
    {
      name: 'split by size',
      ...split,
      dir: true,
      expect: { ...identity, maxBytes },
      note: `--maximum-bytes ${maxBytes}`,
      pdfsvc: (o) => ['split-by-size', '--maximum-bytes', String(maxBytes), s.path, '-o', o, '--force'],
      qpdf: (o) => ['qpdf', '--split-pages=10', s.path, `${o}/p.pdf`],
      mutool: (o) => mutoolRun('split.js', s.path, o, '10'),
    },
    ...[128, 256].flatMap((bits) => [
      {
        name: `add_password AES-${bits}`,
        ...crypto,
        expect: { ...identity, encryptedWith: bits, form: true },
        pdfsvc: (o) => ['add-password', '--password', PASSWORD, ...(bits === 256 ? ['--encryption-algorithm', 'AES-256'] : []), s.path, '-o', o],
        qpdf: (o) => ['qpdf', '--encrypt', PASSWORD, PASSWORD, String(bits), ...(bits === 128 ? ['--use-aes=y'] : []), '--', s.path, o],
        mutool: (o) => ['mutool', 'clean', '-E', `aes-${bits}`, '-U', PASSWORD, '-O', PASSWORD, s.path, o],
      },
      {
        name: `remove_password AES-${bits}`,
        ...crypto,
        expect: { ...identity, decrypted: true, form: true },
        pdfsvc: (o) => ['remove-password', '--password', PASSWORD, s.encrypted[bits], '-o', o],
        qpdf: (o) => ['qpdf', `--password=${PASSWORD}`, '--decrypt', s.encrypted[bits], o],
        mutool: (o) => ['mutool', 'clean', '-p', PASSWORD, '-D', s.encrypted[bits], o],
      },
    ]),
  ].map(judged);
}

/** The merge shape's one job: its files in order, pages of the first file first and of the last file last. */
function mergeJobs(s) {
  return [
    {
      name: 'merge 50 files',
      vsQpdf: 0.5,
      vsMutool: 3,
      rss: 'page',
      expect: { pages: s.pages, mergeOf: s.files },
      pdfsvc: (o) => ['merge', ...s.files, '-o', o],
      qpdf: (o) => ['qpdf', '--empty', '--pages', ...s.files, '--', o],
      mutool: (o) => ['mutool', 'merge', '-o', o, ...s.files],
    },
  ];
}

// --------------------------------------------------------------- running

// The environment every tool runs in (main() may leave out NODE_EXTRA_CA_CERTS).
let runEnv = process.env;

/** One whole-process run under GNU time: wall seconds and peak RSS in bytes. */
function run(argv, dir, env = runEnv) {
  if (dir) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', ...argv], { encoding: 'utf8', maxBuffer: 64 * MiB, env });
  const seconds = (performance.now() - started) / 1000;
  // qpdf's exit 3 is "succeeded with warnings".
  if (r.status !== 0 && !(argv[0] === 'qpdf' && r.status === 3)) return { error: `exit ${r.status}: ${lastLine(r.stderr)}` };
  const kb = Number(r.stderr.trim().split('\n').pop());
  return { seconds, rss: kb * 1024 };
}

const lastLine = (text) =>
  (
    String(text)
      .trim()
      .split('\n')
      .filter((l) => !/^\d+$/.test(l) && !/Command exited/.test(l))
      .pop() ?? ''
  ).slice(0, 200);
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function capture(command, args) {
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * MiB });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

// --------------------------------------------------------------- checking
//
// Real pages carry no page-number markers, so a page is recognised by a
// fingerprint from poppler: its size, the sizes of its images and (unless a
// watermark adds text) the start of its text.

const fingerprints = new Map();

/** Fingerprints of the inputs, kept: every tool's output of every job is compared with the same source pages. */
function sourceFingerprint(path, page) {
  const key = `${path}\0${page}`;
  if (!fingerprints.has(key)) fingerprints.set(key, fingerprint(path, page));
  return fingerprints.get(key);
}

function fingerprint(path, page, password) {
  const upw = password ? ['-upw', password] : [];
  const at = ['-f', String(page), '-l', String(page)];
  const size = /Page\s+\d+ size:\s+(.*)/.exec(capture('pdfinfo', [...at, ...upw, path]).stdout)?.[1]?.trim() ?? '?';
  const images = capture('pdfimages', ['-list', ...at, ...upw, path])
    .stdout.split('\n')
    .slice(2)
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c.length > 5)
    .map((c) => `${c[3]}x${c[4]}`)
    .sort();
  // Sorted words: pdftotext's reading order follows the page's rotation.
  const text = capture('pdftotext', [...at, ...upw, path, '-'])
    .stdout.split(/\s+/)
    .filter(Boolean)
    .sort()
    .join(' ');
  return { size, images, text };
}

/**
 * Null when output page `out` shows source page `src`, else what differs. A
 * watermark adds text (pdfsvc, mutool: the text job) or an image (the image
 * job); qpdf's overlay adds a whole page's text. What a job adds is allowed.
 */
function samePage(out, src, { mark, tool }) {
  if (out.size !== src.size) return `size ${out.size}, not ${src.size}`;
  const textAdded = mark === 'text' || (mark && tool === 'qpdf');
  if (!textAdded && out.text !== src.text) return 'different text';
  if (mark === 'image') {
    const left = [...out.images];
    for (const image of src.images) {
      const at = left.indexOf(image);
      if (at < 0) return `image ${image} missing`;
      left.splice(at, 1);
    }
  } else if (out.images.join() !== src.images.join()) return 'different images';
  return null;
}

/** How many form fields qpdf finds in `path` (its AcroForm's terminal fields). */
function formFields(path, password) {
  const r = capture('qpdf', [...(password ? [`--password=${password}`] : []), '--json', '--json-key=acroform', path]);
  try {
    return JSON.parse(r.stdout).acroform.fields.length;
  } catch {
    return 0;
  }
}

const sourceFields = new Map();

function rotationOf(path, page, password) {
  const info = capture('pdfinfo', ['-f', String(page), '-l', String(page), ...(password ? ['-upw', password] : []), path]).stdout;
  return Number(/Page\s+\d+ rot:\s+(-?\d+)/.exec(info)?.[1]);
}

function npages(path, password) {
  const r = capture('qpdf', [...(password ? [`--password=${password}`] : []), '--show-npages', path]);
  return r.status === 0 || r.status === 3 ? Number(r.stdout.trim()) : NaN;
}

/** Null when `output` (a file, or a folder of parts) is what the job should make from shape `s`, else what is wrong. */
function verify(tool, job, s, output) {
  const e = job.expect;
  if (!existsSync(output)) return 'no output';
  if (e.mergeOf) {
    if (npages(output) !== e.pages) return `${npages(output)} pages, expected ${e.pages}`;
    const lastFile = e.mergeOf.at(-1);
    const first = samePage(fingerprint(output, 1), sourceFingerprint(e.mergeOf[0], 1), {});
    if (first) return `page 1 is not the first file's page 1: ${first}`;
    const last = samePage(fingerprint(output, e.pages), sourceFingerprint(lastFile, npages(lastFile)), {});
    if (last) return `the last page is not the last file's last page: ${last}`;
    return null;
  }
  let files = [output];
  if (job.dir) {
    files = readdirSync(output)
      .filter((f) => f.endsWith('.pdf'))
      .sort()
      .map((f) => join(output, f));
    if (e.parts && files.length !== e.parts) return `${files.length} parts, expected ${e.parts}`;
    if (tool === 'pdfsvc' && e.maxBytes) {
      const big = files.find((f) => statSync(f).size > e.maxBytes && npages(f) > 1);
      if (big) return `${big} is ${statSync(big).size} bytes, over ${e.maxBytes}, with more than one page`;
    }
  }
  const password = e.encryptedWith ? PASSWORD : undefined;
  if (e.encryptedWith) {
    const shown = capture('qpdf', ['--show-encryption', `--password=${PASSWORD}`, output]).stdout;
    const r = /R = (\d+)/.exec(shown)?.[1];
    if (r !== (e.encryptedWith === 256 ? '6' : '4') || !/AESv[23]/.test(shown))
      return `not AES-${e.encryptedWith}: ${shown.split('\n').slice(0, 2).join('; ')}`;
    if (capture('qpdf', ['--check', '--password=wrong', output]).status !== 2) return 'opens without the password';
  }
  if (e.decrypted && !/not encrypted/.test(capture('qpdf', ['--show-encryption', output]).stdout)) return 'still encrypted';
  const counts = files.map((f) => npages(f, password));
  const total = counts.reduce((a, b) => a + b, 0);
  if (total !== e.pages) return `${total} pages in all, expected ${e.pages}`;
  const first = samePage(fingerprint(files[0], 1, password), sourceFingerprint(s.path, e.first), { mark: e.mark, tool });
  if (first) return `page 1 is not source page ${e.first}: ${first}`;
  const last = samePage(fingerprint(files.at(-1), counts.at(-1), password), sourceFingerprint(s.path, e.last), { mark: e.mark, tool });
  if (last) return `the last page is not source page ${e.last}: ${last}`;
  if (e.rotate !== undefined) {
    for (const p of [1, e.pages]) {
      const want = (rotationOf(s.path, p) + e.rotate) % 360;
      if (rotationOf(output, p) !== want) return `page ${p} rotation ${rotationOf(output, p)}, expected ${want}`;
    }
  }
  // DECISIONS.md: the document's AcroForm stays with the pages that keep its fields.
  if (e.form) {
    if (!sourceFields.has(s.path)) sourceFields.set(s.path, formFields(s.path));
    if (sourceFields.get(s.path) > 0 && formFields(output, password) === 0) return `the form's ${sourceFields.get(s.path)} fields are gone`;
  }
  if (e.mark === 'text' && tool !== 'qpdf') {
    if (!capture('pdftotext', ['-f', '1', '-l', '1', output, '-']).stdout.includes(WATERMARK_TEXT)) return `no "${WATERMARK_TEXT}" on page 1`;
  }
  if (e.mark === 'image' && tool !== 'qpdf') {
    const count = (path) =>
      capture('pdfimages', ['-list', '-f', '1', '-l', '1', path])
        .stdout.split('\n')
        .slice(2)
        .filter((l) => l.trim()).length;
    if (count(output) <= count(s.path)) return 'no image added on page 1';
  }
  if (tool === 'pdfsvc' && !job.dir) {
    const check = capture('qpdf', ['--check', ...(password ? [`--password=${password}`] : []), output]);
    if (check.status !== 0 && check.status !== 3) return `qpdf --check: ${lastLine(check.stdout + check.stderr)}`;
  }
  return null;
}

// ----------------------------------------------------------------- report

const TOOLS = ['pdfsvc', 'qpdf', 'mutool'];
const secs = (x) => (x === undefined ? '' : x.toFixed(3));

/** A `mutoolPlus` row's bound in seconds: its own `node -e 0` (or the run's) plus the allowance. */
const startupBound = (row, node0) => (row.medians.node0 ?? node0) + row.job.mutoolPlus;

/** Verdicts for one row: the ratio (or bound) against each peer, and RSS. */
export function judgeRow(row, node0) {
  const out = { qpdf: '', mutool: '', rss: '' };
  if (row.wrong || row.failed) return out;
  const { pdfsvc, qpdf, mutool } = row.medians;
  if (row.job.vsQpdf !== undefined && qpdf) out.qpdf = verdict(pdfsvc / qpdf, row.job.vsQpdf);
  else if (qpdf) out.qpdf = `${(pdfsvc / qpdf).toFixed(2)}x`;
  if (row.job.vsMutool !== undefined && mutool) out.mutool = verdict(pdfsvc / mutool, row.job.vsMutool);
  if (row.job.mutoolPlus !== undefined && mutool) {
    const bound = startupBound(row, node0);
    out.mutool = `${(pdfsvc / mutool).toFixed(2)}x; ${(pdfsvc * 1000).toFixed(0)} ms ≤ node -e 0 + ${row.job.mutoolPlus * 1000} ms = ${(bound * 1000).toFixed(0)} ms ${pdfsvc <= bound ? '✓' : '✗'}`;
  } else if (row.job.vsMutool === undefined && mutool) out.mutool = `${(pdfsvc / mutool).toFixed(2)}x`;
  for (const peer of ['qpdf', 'mutool']) if (row.wrongBy?.[peer]) out[peer] = `${peer}'s output wrong (not counted): ${row.wrongBy[peer]}`;
  if (row.job.rss === 'page') {
    const bound = row.inputBytes + 60 * MiB;
    out.rss = `≤ ${(bound / MiB).toFixed(0)} ${row.rss <= bound ? '✓' : '✗'}`;
  }
  return out;
}

/**
 * How many judged rows meet their target against each peer, with `extra`
 * seconds added to every pdfsvc median and to `node -e 0` (a cost of Node's
 * start that the peers do not pay).
 */
export function tally(rows, node0, extra = 0) {
  const count = { qpdf: [0, 0], mutool: [0, 0] };
  for (const row of rows) {
    if (row.wrong || row.failed || row.medians.pdfsvc === undefined) continue;
    const pdfsvc = row.medians.pdfsvc + extra;
    for (const peer of ['qpdf', 'mutool']) {
      const time = row.medians[peer];
      if (!time || row.wrongBy?.[peer]) continue;
      const target = peer === 'qpdf' ? row.job.vsQpdf : row.job.vsMutool;
      if (target !== undefined) count[peer] = [count[peer][0] + (pdfsvc / time <= target ? 1 : 0), count[peer][1] + 1];
      else if (peer === 'mutool' && row.job.mutoolPlus !== undefined)
        count.mutool = [count.mutool[0] + (pdfsvc <= startupBound(row, node0) + extra ? 1 : 0), count.mutool[1] + 1];
    }
  }
  return count;
}

const verdict = (ratio, target) => `${ratio.toFixed(2)}x ${ratio <= target ? '✓' : '✗'} (≤ ${target}x)`;

/** What the run's environment left out, and the tallies with and without it. */
function environmentLines(rows, info) {
  const met = (c) => `against qpdf ${c.qpdf[0]} of ${c.qpdf[1]}, against mutool ${c.mutool[0]} of ${c.mutool[1]}`;
  const lines = [`- Rows meeting their target (ten-pages aside): ${met(tally(rows, info.node0))}`];
  if (info.caCerts === undefined) return lines;
  const extra = info.node0WithEnv - info.node0;
  const startup = info.startup ? `; the 10-page rotate ${((info.startup.pdfsvc + extra) / (info.startup.node0 + extra)).toFixed(2)}x \`node -e 0\`` : '';
  lines.push(
    `- \`NODE_EXTRA_CA_CERTS\` (this machine sets it to ${info.caCerts}) was left out of every tool's environment: Node reads and parses that file at every start, before any script runs; qpdf and mutool never read it. \`node -e 0\` took ${secs(info.node0WithEnv)} s with it, ${secs(info.node0)} s without. ` +
      `With it, every pdfsvc row would take about ${(extra * 1000).toFixed(0)} ms more: ${met(tally(rows, info.node0, extra))}${startup} (pdfsvc's medians plus that difference). \`--keep-env\` runs every tool with the environment as it is.`,
  );
  return lines;
}

export function markdown(rows, info) {
  const lines = [
    `# bench:real, ${info.date.slice(0, 10)}: pdfsvc against qpdf and mutool on every document shape`,
    '',
    `- Machine: ${info.cores} cores (${info.cpu}), ${info.memoryGB} GB; Node ${info.node}; ${info.qpdf}; ${info.mutool}; pdfsvc at ${info.commit}`,
    `- Load average (1 min) during the run: at start ${info.load.start}, mean ${info.load.mean}, max ${info.load.max}, at end ${info.load.end}${info.load.max > info.cores ? ` — **a loaded machine** (more runnable processes than cores): read the ratios, and expect noise` : ''}`,
    `- Whole process, the three tools in turn, medians of ${info.runs}; \`node -e 0\` at the start: ${secs(info.node0)} s (the extract and 10-page rows run their own, in turn with the tools); took ${info.seconds.toFixed(0)} s`,
    '- ÷qpdf, ÷mutool: pdfsvc time / peer time (lower is better for pdfsvc), ✓ when it meets issue 22\'s target; RSS: pdfsvc\'s peak, MiB, and the "input + 60 MiB" bound for page actions',
    ...environmentLines(rows, info),
    '',
    '| shape | job | pdfsvc s | qpdf s | mutool s | ÷qpdf | ÷mutool | pdfsvc RSS | RSS bound |',
    '|---|---|--:|--:|--:|---|---|--:|---|',
  ];
  for (const row of rows) {
    const v = judgeRow(row, info.node0);
    if (row.wrong || row.failed) {
      lines.push(
        `| ${row.shape} | ${row.job.name} | ${secs(row.medians.pdfsvc)} | ${secs(row.medians.qpdf)} | ${secs(row.medians.mutool)} | **${row.wrong ? 'WRONG OUTPUT' : 'FAILED'}**: ${(row.wrong ?? row.failed).replace(/\|/g, '\\|')} | | | |`,
      );
      continue;
    }
    lines.push(
      `| ${row.shape} | ${row.job.name} | ${secs(row.medians.pdfsvc)} | ${secs(row.medians.qpdf)} | ${secs(row.medians.mutool)} | ${v.qpdf} | ${v.mutool} | ${(row.rss / MiB).toFixed(0)} | ${v.rss} |`,
    );
  }
  if (info.startup) {
    const { pdfsvc, node0 } = info.startup;
    lines.push(
      '',
      `10-page rotate (shape ten-pages) against \`node -e 0\`: ${secs(pdfsvc)} s / ${secs(node0)} s = ${(pdfsvc / node0).toFixed(2)}x ${pdfsvc / node0 <= 1.5 ? '✓' : '✗'} (target ≤ 1.5x). ` +
        'The ten-pages rows are not judged against qpdf and mutool: start-up is most of their time, and this is its target.',
    );
  }
  const notes = rows.filter((r) => r.job.note).map((r) => `${r.shape}: ${r.job.note}`);
  lines.push(
    '',
    'Split by size: qpdf and mutool have no such split; their 10-page split is the reference. The size limit gives parts of about 10 pages' +
      (notes.length ? ` (${notes.join('; ')}).` : '.'),
  );
  lines.push('Text and image watermark, qpdf: `qpdf --overlay` of one page (qpdf cannot draw text or place an image).');
  lines.push("A peer's wrong output is not counted: that ratio is left out, the other is judged.");
  return `${lines.join('\n')}\n`;
}

// ------------------------------------------------------------------- main

/** Writes bench/out/real-results.md (after every row, so a run cut short leaves its table so far); returns it. */
function writeTable(rows, info, loads, started, partial) {
  const ten = rows.find((r) => r.shape === 'ten-pages' && r.job.name === 'rotate' && r.medians.pdfsvc);
  if (ten) info.startup = { pdfsvc: ten.medians.pdfsvc, node0: ten.medians.node0 ?? info.node0 };
  info.load = {
    start: loads[0].toFixed(1),
    mean: (loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(1),
    max: Math.max(...loads).toFixed(1),
    end: loads.at(-1).toFixed(1),
  };
  info.seconds = (performance.now() - started) / 1000;
  const md = markdown(rows, info) + (partial ? '\n(partial: the run is still going, or was cut short)\n' : '');
  writeFileSync(`${OUT}real-results.md`, md);
  return md;
}

async function main() {
  const fail = (message) => {
    console.error(`bench:real: ${message}`);
    process.exit(2);
  };
  const options = parseOptions(process.argv.slice(2), fail);
  for (const [tool, args] of [
    ['qpdf', ['--version']],
    ['mutool', ['-v']],
    ['pdfinfo', ['-v']],
    ['/usr/bin/time', ['true']],
  ]) {
    if (spawnSync(tool, args).error) fail(`${tool} is not installed (apt-get install -y qpdf mupdf-tools poppler-utils time)`);
  }
  const started = performance.now();
  mkdirSync(WORK, { recursive: true });
  snapshotCli(SNAPSHOT);
  try {
    // `mutool run` has no modules: each script runs with bench/mutool/common.js in front.
    const common = readFileSync(`${MUTOOL_DIR}common.js`, 'utf8');
    for (const script of ['rotate.js', 'remove.js', 'split.js', 'text-watermark.js', 'image-watermark.js']) {
      writeFileSync(`${WORK}mutool-${script}`, `${common}\n${readFileSync(`${MUTOOL_DIR}${script}`, 'utf8')}`);
    }
    const shapes = ensureShapes({ names: options.shapes, force: options.force, log: (l) => console.error(`bench:real: ${l}`) });
    // In the order asked for: a run cut short has the shapes that matter most.
    if (options.shapes) shapes.sort((a, b) => options.shapes.indexOf(a.name) - options.shapes.indexOf(b.name));
    const loads = [os.loadavg()[0]];
    const info = { ...machineInfo(SNAPSHOT), runs: options.runs };
    info.mutool = capture('mutool', ['-v']).stderr.trim().split('\n')[0] || 'mutool';

    // A CA file named here costs every Node start its parse (~35 ms of CPU for the system bundle), not qpdf's or mutool's.
    const withEnv = [];
    if (!options.keepEnv && process.env.NODE_EXTRA_CA_CERTS !== undefined) {
      info.caCerts = process.env.NODE_EXTRA_CA_CERTS;
      const { NODE_EXTRA_CA_CERTS: _left, ...rest } = process.env;
      runEnv = rest;
    }
    // In turn with and without it, so that both see the same load.
    const node0Runs = Array.from({ length: Math.max(options.runs, 5) }, () => {
      if (info.caCerts !== undefined) withEnv.push(run(['node', '-e', '0'], undefined, process.env).seconds);
      return run(['node', '-e', '0']).seconds;
    });
    info.node0 = median(node0Runs);
    if (withEnv.length) info.node0WithEnv = median(withEnv);

    const rows = [];
    for (const s of shapes) {
      if (!s.files) {
        s.encrypted = {};
        for (const bits of [128, 256]) {
          s.encrypted[bits] = `${WORK}${s.name}-aes${bits}.pdf`;
          const r = capture('qpdf', ['--encrypt', PASSWORD, PASSWORD, String(bits), ...(bits === 128 ? ['--use-aes=y'] : []), '--', s.path, s.encrypted[bits]]);
          if (r.status !== 0 && r.status !== 3) throw new Error(`qpdf --encrypt ${s.name}: ${r.stderr}`);
        }
      }
      const overlay = shapes.find((x) => x.name === 'ten-pages')?.path ?? ensureShapes({ names: ['ten-pages'] })[0].path;
      const jobs = (s.files ? mergeJobs(s) : fileJobs(s, overlay)).filter((job) => !options.jobs || options.jobs.some((j) => job.name.startsWith(j)));
      for (const job of jobs) {
        const row = { shape: s.name, job, inputBytes: s.bytes, medians: {}, rss: undefined, wrongBy: {} };
        const times = { pdfsvc: [], qpdf: [], mutool: [], node0: [] };
        const rsses = [];
        for (let i = 0; i < options.runs && !row.failed; i++) {
          // Rotate which tool goes first, so none always gets the warm cache.
          const tools = job.node0 ? [...TOOLS, 'node0'] : TOOLS;
          for (const tool of [...tools.slice(i % tools.length), ...tools.slice(0, i % tools.length)]) {
            if (tool === 'node0') {
              times.node0.push(run(['node', '-e', '0']).seconds);
              continue;
            }
            const out = `${WORK}${tool}-out${job.dir ? '' : '.pdf'}`;
            const argv = tool === 'pdfsvc' ? ['node', CLI, ...job.pdfsvc(out)] : job[tool](out);
            if (!job.dir) rmSync(out, { force: true });
            const r = run(argv, job.dir ? out : undefined);
            if (r.error) {
              row.failed = `${tool}: ${r.error}`;
              break;
            }
            times[tool].push(r.seconds);
            if (tool === 'pdfsvc') rsses.push(r.rss);
            // Each tool's output is checked once, after its first run.
            if (i === 0) {
              const wrong = verify(tool, job, s, out);
              if (wrong) row.wrongBy[tool] = wrong;
            }
          }
        }
        for (const tool of [...TOOLS, 'node0']) if (times[tool].length) row.medians[tool] = median(times[tool]);
        row.rss = rsses.length ? median(rsses) : undefined;
        // pdfsvc wrong: the row counts for nothing. A peer wrong: no ratio against that peer (a finding about the peer).
        if (row.wrongBy.pdfsvc) row.wrong = `pdfsvc: ${row.wrongBy.pdfsvc}`;
        rows.push(row);
        loads.push(os.loadavg()[0]);
        writeTable(rows, info, loads, started, true);
        const v = judgeRow(row, info.node0);
        console.error(
          `${s.name} / ${job.name}: ${row.wrong ? `WRONG ${row.wrong}` : row.failed ? `FAILED ${row.failed}` : `÷qpdf ${v.qpdf}; ÷mutool ${v.mutool}`} (load ${os.loadavg()[0].toFixed(1)})`,
        );
      }
    }
    loads.push(os.loadavg()[0]);
    console.log(writeTable(rows, info, loads, started, false));
    console.error('bench:real: wrote bench/out/real-results.md');
    if (rows.some((r) => r.wrong || r.failed)) process.exitCode = 1;
  } finally {
    rmSync(SNAPSHOT, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
