#!/usr/bin/env node
// Seeded mutation fuzzing of every action, through the library (dist/), on
// worker threads with a heap cap and a deadline, as the server runs them; or,
// with --server, through a live `pdfsvc serve` that the run starts itself
// (scripts/fuzz-server.mjs).
//
//   npm run fuzz                                  # 60 s, seed from the clock (printed)
//   npm run fuzz -- --seconds 300 --seed 42
//   npm run fuzz -- --cases 200 --seed 1          # a fixed number of cases (the unit tests run a sample)
//   npm run fuzz -- --actions rotate_pages,merge_documents
//   npm run fuzz -- --server --cases 500 --seed 7 # the same cases as HTTP requests to serve --workers <jobs>
//
// Each case mutates one fixture of fixtures/out/ (built by
// scripts/build-fixtures.mjs) with a PRNG seeded by (seed, case number), so a
// case is made again from those two numbers alone. A case fails when the
// action throws anything but a validation error (a 400), runs past its
// deadline, passes its heap cap, or writes an output qpdf rejects although
// qpdf reads the input. Through the server, a case also fails on any 5xx (a
// 503 included), a reset, the server dying, or the server's RSS passing
// 512 MiB while it was in flight. Failing inputs go to fuzz/out/ with a JSON
// file that says how to make them again. Exit status 1 when a case failed.
//
// A plain seeded PRNG rather than fast-check: cases run in worker threads that
// may be killed, and a reproducible (seed, case) pair is what a report needs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { postCase, startFuzzServer } from './fuzz-server.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = join(ROOT, 'fixtures', 'out');
const OUT = join(ROOT, 'fuzz', 'out');
const DEADLINE_MS = 10_000;
const HEAP_MB = 512;
/** Through the server: no request of a small mutant may take the process past this. */
const SERVER_RSS_LIMIT_KB = 512 * 1024;

const options = { seconds: 60, cases: undefined, seed: Date.now() % 2 ** 31, actions: undefined, jobs: Math.max(1, availableParallelism()), server: false };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const value = () => argv[++i];
  if (argv[i] === '--seconds') options.seconds = Number(value());
  else if (argv[i] === '--cases') options.cases = Number(value());
  else if (argv[i] === '--seed') options.seed = Number(value());
  else if (argv[i] === '--actions') options.actions = value().split(',');
  else if (argv[i] === '--jobs') options.jobs = Number(value());
  else if (argv[i] === '--server') options.server = true;
  else {
    console.error(`fuzz: unknown option ${argv[i]} (see the top of scripts/fuzz.mjs)`);
    process.exit(2);
  }
}

if (!existsSync(join(ROOT, 'dist', 'index.js'))) {
  console.error('fuzz: dist/ is missing: run npm run build');
  process.exit(2);
}
execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-fixtures.mjs')], { stdio: 'ignore' });
const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.pdf'))
  .sort()
  .map((name) => ({ name, bytes: readFileSync(join(FIXTURES, name)) }));

/**
 * Every action of the catalog, with the values of its example request (the
 * declarations' examples: text, and files of fixtures/out/); `file` is the
 * mutant (the first of merge_documents' files).
 */
const { actions } = await import(new URL('../dist/index.js', import.meta.url).href);
const ACTIONS = Object.fromEntries(
  actions.map((action) => {
    const values = {};
    for (const [name, field] of Object.entries(action.fields)) {
      if (!field.required) continue;
      if (field.kind !== 'file') values[name] = String(field.example);
      else {
        const files = [field.example].flat().map((example) => new Uint8Array(readFileSync(join(FIXTURES, example))));
        values[name] = field.multiple ? files : files[0];
      }
    }
    return [action.name, (file) => ({ ...values, file: Array.isArray(values.file) ? [file, ...values.file.slice(1)] : file })];
  }),
);
const actionNames = options.actions ?? Object.keys(ACTIONS);
for (const name of actionNames) {
  if (!ACTIONS[name]) {
    console.error(`fuzz: unknown action ${name}`);
    process.exit(2);
  }
}

// ---------------------------------------------------------------------------
// Mutations

/** mulberry32: small, fast and the same everywhere. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HUGE = ['2147483648', '4294967296', '99999999999', '-1', '0', '1e308', '3.5', '1000000000'];
const WORDS = [
  'obj',
  'endobj',
  'stream',
  'endstream',
  'R',
  'xref',
  'trailer',
  'startxref',
  '/Kids',
  '/Count',
  '/Length',
  '/Parent',
  '/First',
  '/Next',
  '/N',
  '/Prev',
  '/Root',
];

/** One case: which fixture, which action, and the mutated bytes, all from (seed, index). */
function makeCase(seed, index) {
  const random = prng((seed * 2654435761 + index) >>> 0);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const fixture = pick(fixtures);
  const action = pick(actionNames);
  let bytes = Buffer.from(fixture.bytes);
  const steps = [];
  const count = 1 + Math.floor(random() * 4);
  for (let s = 0; s < count; s++) {
    const at = Math.floor(random() * bytes.length);
    const kind = pick(['flip', 'number', 'delete', 'duplicate', 'truncate', 'word']);
    steps.push(`${kind}@${at}`);
    if (kind === 'flip') {
      for (let k = 0; k < 1 + random() * 16; k++) bytes[Math.min(bytes.length - 1, at + k)] = Math.floor(random() * 256);
    } else if (kind === 'number') {
      // The next run of digits becomes an absurd number: counts, offsets, lengths, object numbers.
      const text = bytes.toString('latin1');
      const match = /\d+/g;
      match.lastIndex = at;
      const found = match.exec(text);
      if (found) bytes = Buffer.concat([bytes.subarray(0, found.index), Buffer.from(pick(HUGE)), bytes.subarray(found.index + found[0].length)]);
    } else if (kind === 'delete') {
      bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(Math.min(bytes.length, at + 1 + Math.floor(random() * 512)))]);
    } else if (kind === 'duplicate') {
      const piece = bytes.subarray(at, Math.min(bytes.length, at + 1 + Math.floor(random() * 4096)));
      bytes = Buffer.concat([bytes.subarray(0, at), piece, piece, bytes.subarray(at + piece.length)]);
    } else if (kind === 'truncate') {
      bytes = bytes.subarray(0, Math.max(16, at));
    } else {
      const text = bytes.toString('latin1');
      const word = pick(WORDS);
      const where = text.indexOf(word, at);
      if (where >= 0) bytes = Buffer.concat([bytes.subarray(0, where), Buffer.from(pick(WORDS)), bytes.subarray(where + word.length)]);
    }
  }
  return { index, fixture: fixture.name, action, steps, bytes: new Uint8Array(bytes) };
}

// ---------------------------------------------------------------------------
// Running cases on capped worker threads

const WORKER = `
import { parentPort } from 'node:worker_threads';
const { findAction, runAction, ValidationError } = await import(${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)});
parentPort.on('message', async ({ action, values }) => {
  try {
    const result = await runAction(findAction(action), values);
    const outputs = result.output === 'document' ? [result.bytes] : result.documents.map((d) => d.bytes);
    parentPort.postMessage({ outcome: 'ok', outputs });
  } catch (err) {
    if (err instanceof ValidationError) parentPort.postMessage({ outcome: 'refused', message: err.message });
    else parentPort.postMessage({ outcome: 'error', message: String(err && err.stack || err).slice(0, 2000) });
  }
});
parentPort.postMessage({ ready: true });
`;

function startWorker() {
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER)}`), { resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } });
  const ready = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { worker, ready };
}

/** Runs one case on `slot`'s worker; a worker that dies or passes the deadline is replaced. */
async function runCase(slot, test) {
  await slot.ready;
  const values = ACTIONS[test.action](test.bytes);
  return new Promise((resolve) => {
    const started = performance.now();
    const finish = (result) => {
      clearTimeout(timer);
      slot.worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      resolve({ ...result, ms: Math.round(performance.now() - started) });
    };
    const replace = () => {
      slot.worker.terminate();
      Object.assign(slot, startWorker());
    };
    const onMessage = (message) => finish(message);
    const onError = (err) => {
      replace();
      finish({ outcome: 'error', message: `worker died: ${err.code ?? ''} ${err.message}` });
    };
    const onExit = () => {
      replace();
      finish({ outcome: 'error', message: 'worker exited' });
    };
    const timer = setTimeout(() => {
      replace();
      finish({ outcome: 'error', message: `no answer within ${DEADLINE_MS} ms` });
    }, DEADLINE_MS);
    slot.worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    slot.worker.postMessage({ action: test.action, values });
  });
}

/** The judge's own bound, far past the case's deadline: its time-out is no verdict on pdfsvc. */
const JUDGE_TIMEOUT_MS = 120_000;
/** Cases the judge gave no verdict on (qpdf passed its bound), reported at the end, not failed. */
let undecided = 0;

/**
 * qpdf --check: true when qpdf reads the file (exit 0, or 3 for warnings).
 * With `contentDamageAllowed`, errors inside page content (data that does not
 * decode) do not count: an action carries a page's content as it is, damage
 * included, and never makes it up. (A /Contents item that is no stream is
 * dropped, so an output that still has one fails.)
 * When --check passes its time limit (it decodes every page's content: a
 * bomb there costs it minutes), qpdf's structural read decides: rewriting
 * the file with its stream data as it is. Undefined: no verdict.
 */
function qpdfReads(bytes, password, contentDamageAllowed = false) {
  const path = join(tmpdir(), `pdfsvc-fuzz-${process.pid}-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(path, bytes);
  const passwordArgs = password ? [`--password=${password}`] : [];
  try {
    execFileSync('qpdf', ['--check', ...passwordArgs, path], { stdio: 'pipe', timeout: 20_000 });
    return true;
  } catch (err) {
    if (err.status === 3) return true;
    if (err.code === 'ETIMEDOUT' || (err.status === null && err.signal)) return qpdfReadsStructure(path, passwordArgs);
    if (!contentDamageAllowed || err.status !== 2) return false;
    const errors = String(err.stdout)
      .split('\n')
      .concat(String(err.stderr).split('\n'))
      .filter((line) => line.startsWith('ERROR'));
    return errors.length > 0 && errors.every((line) => CONTENT_DAMAGE.test(line));
  } finally {
    rmSync(path, { force: true });
  }
}

/** qpdf's structural read (see qpdfReads): true, false, or undefined past JUDGE_TIMEOUT_MS. */
function qpdfReadsStructure(path, passwordArgs) {
  try {
    execFileSync('qpdf', ['--stream-data=preserve', ...passwordArgs, path, '/dev/null'], { stdio: 'pipe', timeout: JUDGE_TIMEOUT_MS });
    return true;
  } catch (err) {
    if (err.status === 3) return true;
    if (err.code === 'ETIMEDOUT' || (err.status === null && err.signal)) return undefined;
    return false;
  }
}

// qpdf's content-stream checks, as it words them: data that does not decode, and
// a number too large for 64 bits among a page's content tokens (seed 7, case
// 4042: a damaged Flate stream of a page inflates to such a number; the action
// carries the page's content as it is).
const CONTENT_DAMAGE = /errors while decoding content stream|error decoding stream data|overflow\/underflow converting \d+ to 64-bit integer/;

const haveQpdf = (() => {
  try {
    execFileSync('qpdf', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Every output of a case: the document, or each part of a split. */
function judge(test, result) {
  if (result.outcome === 'error') return result.message;
  const outputs = result.outcome === 'ok' ? result.outputs : [];
  if (outputs.length === 0 || !haveQpdf) return undefined;
  const input = qpdfReads(test.bytes);
  if (input === undefined) undecided++;
  if (!input) return undefined;
  // The password of the example request opens an output it encrypted (add_password).
  const password = ACTIONS[test.action](test.bytes).password;
  for (const [index, output] of outputs.entries()) {
    const reads = qpdfReads(output, password, true);
    if (reads === undefined) undecided++;
    if (reads === false) return `qpdf reads the input but rejects the output${outputs.length > 1 ? ` (part ${index + 1} of ${outputs.length})` : ''}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------

const through = options.server ? `a live server (serve --workers ${options.jobs})` : `${options.jobs} workers`;
console.error(
  `fuzz: seed ${options.seed}, ${options.cases !== undefined ? `${options.cases} cases` : `${options.seconds} s`}, ${through}, ${actionNames.length} actions, ${fixtures.length} fixtures`,
);
const stopAt = Date.now() + options.seconds * 1000;
let next = 0;
const tally = { ok: 0, refused: 0, failed: 0 };
const failures = [];
const more = () => (options.cases !== undefined ? next < options.cases : Date.now() < stopAt);

/** Judges a case's result, and saves its input and how to make it again when it failed. */
function record(test, result) {
  const failure = judge(test, result);
  if (!failure) {
    tally[result.outcome === 'ok' ? 'ok' : 'refused']++;
    return;
  }
  tally.failed++;
  failures.push({ ...test, failure });
  mkdirSync(OUT, { recursive: true });
  const stem = join(OUT, `seed-${options.seed}-case-${test.index}-${test.action}${options.server ? '-server' : ''}`);
  writeFileSync(`${stem}.pdf`, test.bytes);
  const again = `npm run fuzz -- --seed ${options.seed} --cases ${test.index + 1}${options.server ? ' --server' : ''}`;
  writeFileSync(
    `${stem}.json`,
    `${JSON.stringify({ seed: options.seed, case: test.index, fixture: test.fixture, action: test.action, mutations: test.steps, through: options.server ? 'server' : 'library', failure, again }, null, 2)}\n`,
  );
  console.error(`FAIL case ${test.index} ${test.action} on ${test.fixture} (${test.steps.join(' ')}): ${failure.split('\n')[0]}`);
}

let peakRssKb = 0;
if (options.server) {
  // One request per worker at a time, as a loaded server sees them; a server that dies is replaced.
  const start = () => startFuzzServer({ root: ROOT, workers: options.jobs, rssLimitKb: SERVER_RSS_LIMIT_KB, requestTimeoutMs: 2 * DEADLINE_MS });
  let server = await start();
  let restarting;
  await Promise.all(
    Array.from({ length: options.jobs }, async () => {
      while (more()) {
        if (restarting) await restarting;
        const test = makeCase(options.seed, next++);
        const current = server;
        const result = await postCase(current, test, ACTIONS[test.action](test.bytes), DEADLINE_MS);
        record(test, result);
        peakRssKb = Math.max(peakRssKb, current.peakRssKb);
        // One slot replaces a dead server; the others wait for it (two would start two, and leave one running).
        const dead = await Promise.race([current.died, Promise.resolve(false)]);
        if (dead && current === server && !restarting) {
          restarting = (async () => {
            await current.stop();
            server = await start();
            restarting = undefined;
          })();
        }
      }
    }),
  );
  await restarting;
  peakRssKb = Math.max(peakRssKb, server.peakRssKb);
  await server.stop();
} else {
  const slots = Array.from({ length: options.jobs }, () => startWorker());
  await Promise.all(
    slots.map(async (slot) => {
      while (more()) {
        const test = makeCase(options.seed, next++);
        record(test, await runCase(slot, test));
      }
    }),
  );
  for (const slot of slots) await slot.worker.terminate();
}

console.log(
  `fuzz: seed ${options.seed}: ${next} cases, ${tally.ok} outputs, ${tally.refused} refused with a 400, ${tally.failed} failed${undecided ? `, ${undecided} without a verdict from qpdf (past its own ${JUDGE_TIMEOUT_MS / 1000} s)` : ''}${options.server ? `; through a live server, peak RSS ${Math.round(peakRssKb / 1024)} MiB` : ''}${failures.length ? ` (inputs in ${OUT})` : ''}`,
);
process.exit(failures.length > 0 ? 1 : 0);
