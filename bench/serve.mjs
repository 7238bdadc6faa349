// pdfsvc serve against two peers that run a command line per request
// (bench/qpdf-server.mjs: one runs qpdf, one mutool): the same requests, the
// same load, the same run. autocannon drives each server at several
// concurrencies; the result that counts is the ratio of throughputs.
// See bench/README.md, "bench:serve".
//
//   npm run bench:serve                        # 10 s per cell, concurrency 1, 8, 32
//   npm run bench:serve -- --quick             # 2 s per cell
//   npm run bench:serve -- --duration 20 --concurrency 8 --jobs rotate
//   npm run bench:serve -- --workers 4         # pdfsvc serve --workers 4 (default: its own, the core count)
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OUT_DIR, ensureDocuments } from './make-documents.mjs';
import { readArguments } from './arguments.mjs';
import { machineInfo, snapshotCli } from './machine.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST_DIR = fileURLToPath(new URL('../dist/', import.meta.url));
const PEER_SERVER = fileURLToPath(new URL('./qpdf-server.mjs', import.meta.url));
/** The peers: bench/qpdf-server.mjs with each tool. */
const PEERS = [
  { name: 'qpdf-server', tool: 'qpdf', how: 'one `qpdf` child process per request' },
  { name: 'mutool-server', tool: 'mutool', how: 'one `mutool` child process per request (`mutool run` bench/mutool/rotate.js, `mutool merge`)' },
];
// pdfsvc serve runs from a copy of bin/ and dist/ taken at the start (as in
// bench.mjs): its worker threads import action modules lazily, so a rebuild
// of dist/ by someone else during the run would break them. One copy per run.
const SNAPSHOT = `${OUT_DIR}serve-snapshot-${process.pid}/`;
const CLI = `${SNAPSHOT}bin/pdfsvc.js`;
const NODE = process.execPath;
const MB = 1024 * 1024;

// autocannon keeps every response body as a string (`body += chunk`, a UTF-8
// decoding of the binary PDF): about 10 ms of the load generator's CPU per
// 650 KB answer, most of a core at 70 req/s on a 2-core machine, taken from
// the servers under test. The bodies are not used here (outputs are checked
// with separate requests), so that bookkeeping is switched off. Same
// autocannon module instance: CommonJS modules are cached by path.
const PipelinedRequestsQueue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js');
if (typeof PipelinedRequestsQueue?.prototype?.addBody === 'function') PipelinedRequestsQueue.prototype.addBody = function addBody() {};
else
  process.stderr.write(
    "bench:serve: warning: could not switch off autocannon's response-body strings (autocannon changed?); the load generator will use much more CPU\n",
  );

// --------------------------------------------------------------------- jobs
//
// One entry per job: the action, the files and text fields of the form, what
// the output must be (page count, which source page comes first and last,
// page 1's rotation). Every page of the documents prints
// "pdfsvc-bench page N of M".

const PART_PAGES = 2;
const PARTS = 5;

export const JOBS = [
  {
    name: 'rotate',
    label: 'rotate_pages 90, doc-10p',
    action: 'rotate_pages',
    files: (docs) => [docs.doc10.path],
    fields: { angle: '90' },
    expect: { pages: 10, first: 1, last: 10, rotation: 90 },
  },
  {
    name: 'merge',
    label: `merge_documents, ${PARTS} files of ${PART_PAGES} pages`,
    action: 'merge_documents',
    files: (docs) => docs.parts,
    fields: {},
    expect: { pages: PARTS * PART_PAGES, first: 1, last: PARTS * PART_PAGES },
  },
];

const TARGETS = {
  // Issue 22: at least 3x qpdf-server's and 2x mutool-server's requests per second…
  throughputRatio: { 'qpdf-server': 3, 'mutool-server': 2 },
  throughputJob: 'rotate', // …on rotate of the 10-page document…
  throughputConcurrency: 8, // …at concurrency 8
  noFailuresConcurrency: 32, // and no failed request at concurrency 32
};

// ------------------------------------------------------------------ options

function parseOptions(argv) {
  const options = { duration: 10, quick: false, concurrency: [1, 8, 32], jobs: null, workers: null, build: false };
  let durationGiven = false;
  const take = (name, value) => {
    if (name === '--quick') options.quick = true;
    else if (name === '--build') options.build = true;
    else if (name === '--duration') {
      options.duration = Number(value());
      durationGiven = true;
    } else if (name === '--concurrency') options.concurrency = value().split(',').map(Number);
    else if (name === '--jobs') options.jobs = value().split(',');
    else if (name === '--workers') options.workers = Number(value());
    else return false;
    return true;
  };
  readArguments(argv, take, fail, 'bench/README.md, "bench:serve"');
  if (options.quick && !durationGiven) options.duration = 2;
  if (!(options.duration >= 1)) fail('--duration needs a number of seconds, at least 1');
  if (options.concurrency.some((c) => !Number.isInteger(c) || c < 1)) fail('--concurrency needs whole numbers of at least 1, e.g. 1,8,32');
  if (options.workers !== null && (!Number.isInteger(options.workers) || options.workers < 1)) fail('--workers needs a whole number of at least 1');
  const jobNames = JOBS.map((j) => j.name);
  for (const j of options.jobs ?? []) if (!jobNames.includes(j)) fail(`unknown job ${j}; jobs: ${jobNames.join(', ')}`);
  return options;
}

function fail(message) {
  process.stderr.write(`bench:serve: ${message}\n`);
  process.exit(2);
}

const log = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function capture(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * MB, ...options });
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '', error: result.error };
}

function firstLine(text) {
  return (
    String(text)
      .split('\n')
      .find((l) => l.trim()) ?? ''
  )
    .trim()
    .slice(0, 200);
}

// --------------------------------------------------------------- documents

/**
 * The merge inputs: doc-10p cut by qpdf into five 2-page files (pages 1-2,
 * 3-4, …), so the merged output is pages 1 to 10 again. Made once beside the
 * documents and remade when doc-10p is newer.
 */
function ensureParts(doc) {
  const parts = [];
  for (let i = 0; i < PARTS; i++) {
    const from = i * PART_PAGES + 1;
    const to = from + PART_PAGES - 1;
    const path = `${OUT_DIR}${doc.name}-pages-${from}-${to}.pdf`;
    if (!existsSync(path) || statSync(path).mtimeMs < statSync(doc.path).mtimeMs) {
      const temporary = `${path}.${process.pid}.tmp`;
      const made = capture('qpdf', [doc.path, '--pages', '.', `${from}-${to}`, '--', temporary]);
      if (made.status !== 0 && made.status !== 3) throw new Error(`qpdf could not cut ${doc.name}: ${firstLine(made.stderr)}`);
      renameSync(temporary, path);
    }
    parts.push(path);
  }
  return parts;
}

/** The multipart body of one job's request, built once, as a browser or fetch would send it. */
async function formBody(job, docs) {
  const form = new FormData();
  for (const path of job.files(docs)) {
    form.append('file', new Blob([readFileSync(path)], { type: 'application/pdf' }), path.split('/').pop());
  }
  for (const [name, value] of Object.entries(job.fields)) form.append(name, value);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { contentType: request.headers.get('content-type'), body: Buffer.from(await request.arrayBuffer()) };
}

// ----------------------------------------------------------------- servers

/** Child processes still running: stopped at the end, and killed if this process dies. */
const children = new Set();

/**
 * Starts a server process and waits for the first line of its standard output
 * that holds a URL. Standard error goes to `logPath`.
 */
async function startServer(name, args, { env = {}, logPath }) {
  const logFd = openSync(logPath, 'w');
  const child = spawn(NODE, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', logFd],
  });
  closeSync(logFd);
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.exited = exited;
  exited.then(() => children.delete(child));
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${name} printed no URL within 30 s`)), 30_000);
    const onData = (chunk) => {
      seen += chunk;
      const match = /https?:\/\/[^\s)]+/.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume(); // keep draining whatever else it prints
        resolve(match[0].replace(/\/$/, ''));
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${signal ?? `status ${code}`}) before it printed its URL: ${tail(logPath)}`));
    });
  });
  return { name, child, url, logPath };
}

function tail(path, lines = 5) {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-lines).join(' | ');
  } catch {
    return '(no log)';
  }
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
async function stopServer(server, graceMs = 15_000) {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), graceMs);
  await server.child.exited;
  clearTimeout(timer);
}

process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    log(`bench:serve: ${signal}, stopping the servers`);
    cleanUp().finally(() => process.exit(130));
  });
}

/** Waits until the server has no request in flight (requests cut off at the end of a run finish or are cancelled). */
async function settle(server) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      const health = await (await fetch(`${server.url}/healthz`)).json();
      if (health.in_flight === 0) return;
    } catch {
      /* not answering yet */
    }
    await sleep(100);
  }
  log(`bench:serve: ${server.name} still had requests in flight after 30 s`);
}

// --------------------------------------------------------------- verifying

const havePoppler = capture('pdftotext', ['-v']).status === 0 && capture('pdfinfo', ['-v']).status === 0;

function markerOf(path, page) {
  const text = capture('pdftotext', ['-f', String(page), '-l', String(page), path, '-']).stdout;
  const match = /pdfsvc-bench page (\d+) of/.exec(text);
  return match ? Number(match[1]) : null;
}

/** Null when the PDF at `path` is what the job should produce, else what is wrong. */
function verifyFile(path, expected) {
  const check = capture('qpdf', ['--check', path]);
  if (check.status !== 0 && check.status !== 3) return `qpdf --check exit ${check.status}: ${firstLine(check.stdout + check.stderr)}`;
  const npages = capture('qpdf', ['--show-npages', path]);
  if (npages.status !== 0 && npages.status !== 3) return `qpdf --show-npages failed: ${firstLine(npages.stderr)}`;
  const pages = Number(npages.stdout.trim());
  if (pages !== expected.pages) return `${pages} pages, expected ${expected.pages}`;
  if (havePoppler) {
    const first = markerOf(path, 1);
    if (first !== expected.first) return `page 1 is source page ${first}, expected ${expected.first}`;
    const last = markerOf(path, pages);
    if (last !== expected.last) return `page ${pages} is source page ${last}, expected ${expected.last}`;
  }
  if (expected.rotation !== undefined) {
    const info = havePoppler ? capture('pdfinfo', ['-f', '1', '-l', '1', path]).stdout : '';
    const rot = havePoppler
      ? /Page\s+1 rot:\s+(-?\d+)/.exec(info)?.[1]
      : JSON.parse(capture('qpdf', ['--json', '--json-key=pages', path]).stdout || '{}').pages?.[0]?.rotate;
    if (rot === undefined || Number(rot) !== expected.rotation) return `page 1 rotation ${rot ?? '?'}, expected ${expected.rotation}`;
  }
  return null;
}

/** One request through fetch; null when the answer is the right PDF, else what is wrong. */
async function verifyServer(server, job, request, key, work) {
  let response;
  try {
    response = await fetch(`${server.url}/v1/${job.action}`, {
      method: 'POST',
      headers: { 'content-type': request.contentType, 'x-api-key': key },
      body: request.body,
    });
  } catch (err) {
    return `request failed: ${err.cause?.message ?? err.message}`;
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) return `HTTP ${response.status}: ${firstLine(bytes.toString('utf8'))}`;
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/pdf')) return `Content-Type ${type}, expected application/pdf`;
  const path = join(work, `${job.name}-${server.name}.pdf`);
  writeFileSync(path, bytes);
  const wrong = verifyFile(path, job.expect);
  rmSync(path, { force: true });
  return wrong;
}

// ---------------------------------------------------------------- loading

function cannon(server, job, request, key, connections, how) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${server.url}/v1/${job.action}`,
        method: 'POST',
        headers: { 'content-type': request.contentType, 'x-api-key': key },
        body: request.body,
        connections,
        timeout: 30, // seconds; a request slower than that counts as failed
        ...how,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    // A bare autocannon instance prints nothing; without a listener its errors would throw.
    instance.on('error', () => {});
  });
}

/** Requests that ended well, per second, and the rest of what a cell reports. */
function summarise(result) {
  const codes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));
  const ok = Object.entries(codes)
    .filter(([code]) => code.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    requestsPerSecond: ok / result.duration,
    autocannonAverage: result.requests.average,
    ok,
    completed: result.requests.total,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    failed: result.non2xx + result.errors, // autocannon counts timeouts among errors
    statusCodes: codes,
    seconds: result.duration,
  };
}

/**
 * Brings a server to a steady state before a timed run: waits for requests
 * cut off by the previous run to finish (pdfsvc cancels them and replaces the
 * worker thread), then sends a fixed number of requests at the cell's
 * concurrency and waits for all of them, so the timed run starts on warm
 * threads and nothing is cut off.
 */
async function warm(server, job, request, key, connections, amount) {
  await settle(server);
  const result = await cannon(server, job, request, key, connections, { amount: Math.max(amount, connections) });
  await settle(server);
  return result;
}

// ------------------------------------------------------------------ report

function machine(options) {
  return { ...machineInfo(SNAPSHOT), duration: options.duration, concurrency: options.concurrency };
}

const fmt = (n, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(digits));

/** Which targets a row is judged on, and whether it meets them. */
function judge(row) {
  const verdicts = [];
  if (row.status === 'wrong') return [{ what: 'correct output', ok: false }];
  if (row.status !== 'ok') return verdicts;
  if (row.job === TARGETS.throughputJob && row.concurrency === TARGETS.throughputConcurrency) {
    for (const peer of PEERS) {
      const target = TARGETS.throughputRatio[peer.name];
      verdicts.push({ what: `≥${target}x ${peer.tool}`, ok: row.ratios[peer.name] !== null && row.ratios[peer.name] >= target });
    }
  }
  if (row.concurrency === TARGETS.noFailuresConcurrency) {
    verdicts.push({ what: 'no failed request', ok: row.pdfsvc.failed === 0 });
  }
  return verdicts;
}

function markdown(rows, info) {
  const lines = [];
  lines.push(`# pdfsvc serve benchmark, ${info.date.slice(0, 10)}`);
  lines.push('');
  lines.push(
    `- Machine: ${info.cores} cores (${info.cpu}), ${info.memoryGB} GB, ${info.os}; load average at start ${info.loadAverageAtStart.join(' ')}, at end ${info.loadAverageAtEnd.join(' ')}`,
  );
  lines.push(`- Node ${info.node}; ${info.qpdf}; ${info.mutool}; pdfsvc at ${info.commit}, dist/ built ${info.distBuilt ?? 'never'}`);
  lines.push(
    `- pdfsvc serve: ${info.pdfsvc.workers ?? '?'} worker threads${info.pdfsvc.workersOption ? ` (--workers ${info.pdfsvc.workersOption})` : ' (default: one per core)'}, max queue ${info.pdfsvc.maxQueue ?? '?'}, request timeout ${info.pdfsvc.requestTimeoutMs ?? '?'} ms, a JSON log line per request`,
  );
  for (const peer of PEERS)
    lines.push(
      `- ${peer.name} (bench/qpdf-server.mjs --tool ${peer.tool}): node:http, ${peer.how} (no limit on how many at once), inputs and output as files in a temp directory`,
    );
  lines.push(
    `- autocannon in the bench process, keep-alive connections, the same prepared multipart body on every request; ${info.duration} s per cell after a warm-up, taking turns at going first; req/s counts 2xx answers only`,
  );
  lines.push(`- Date: ${info.date}; took ${info.seconds.toFixed(0)} s`);
  lines.push('');
  lines.push(
    `| job | c | pdfsvc req/s | p50 ms | p99 ms | failed | ${PEERS.map((p) => `${p.name} req/s | p50 ms | p99 ms | failed | ratio`).join(' | ')} | targets |`,
  );
  lines.push(`|---|--:|--:|--:|--:|--:|${PEERS.map(() => '--:|--:|--:|--:|--:|').join('')}---|`);
  for (const row of rows) {
    const verdicts = judge(row)
      .map((v) => `${v.what} ${v.ok ? '✓' : '✗'}`)
      .join(', ');
    if (row.status !== 'ok') {
      const what = row.status === 'wrong' ? '**WRONG OUTPUT**' : '**FAILED**';
      lines.push(
        `| ${row.label} | ${row.concurrency} | ${what} | | | | ${PEERS.map(() => ' | | | | |').join('')} ${[verdicts, row.reason.replace(/\|/g, '\\|')].filter(Boolean).join('; ')} |`,
      );
      continue;
    }
    const p = row.pdfsvc;
    const peers = PEERS.map((peer) => {
      const q = row.peers[peer.name];
      return `${fmt(q.requestsPerSecond, 1)} | ${fmt(q.p50)} | ${fmt(q.p99)} | ${q.failed} | ${fmt(row.ratios[peer.name], 2)}x`;
    });
    lines.push(
      `| ${row.label} | ${row.concurrency} | ${fmt(p.requestsPerSecond, 1)} | ${fmt(p.p50)} | ${fmt(p.p99)} | ${p.failed} | ${peers.join(' | ')} | ${verdicts} |`,
    );
  }
  lines.push('');
  lines.push(
    'c: concurrent connections. req/s: answers with a 2xx status per second. failed: non-2xx answers, connection errors and ' +
      "timeouts (30 s). ratio: pdfsvc req/s / that peer's req/s (higher is better for pdfsvc). " +
      `Targets: at least ${PEERS.map((peer) => `${TARGETS.throughputRatio[peer.name]}x ${peer.name}'s`).join(' and ')} throughput on ${TARGETS.throughputJob} at c=${TARGETS.throughputConcurrency}; ` +
      `no failed pdfsvc request at c=${TARGETS.noFailuresConcurrency}.`,
  );
  return lines.join('\n') + '\n';
}

// ----------------------------------------------------------------- clean-up

const servers = [];
let work = null;

async function cleanUp() {
  await Promise.all(servers.map((s) => stopServer(s)));
  if (work) rmSync(work, { recursive: true, force: true });
  rmSync(SNAPSHOT, { recursive: true, force: true });
}

// -------------------------------------------------------------------- main

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();

  if (!capture('qpdf', ['--version']).stdout) fail('qpdf is not installed (apt-get install -y qpdf poppler-utils)');
  if (capture('mutool', ['-v']).error) fail('mutool is not installed (apt-get install -y mupdf-tools)');
  if (!havePoppler) log('bench:serve: poppler-utils not found: outputs are checked by page count and rotation only, not page order');
  if (options.build || !existsSync(`${DIST_DIR}cli.js`)) {
    log('bench:serve: building dist/ (node scripts/build.mjs --no-types)');
    const built = spawnSync(NODE, ['scripts/build.mjs', '--no-types'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) fail('the build failed');
  }
  mkdirSync(OUT_DIR, { recursive: true });
  snapshotCli(SNAPSHOT);
  work = mkdtempSync(join(os.tmpdir(), 'pdfsvc-bench-serve-'));

  const [doc10] = await ensureDocuments({ names: ['doc-10p'], log: (l) => log(`bench:serve: ${l}`) });
  const docs = { doc10, parts: ensureParts(doc10) };
  const jobs = JOBS.filter((j) => !options.jobs || options.jobs.includes(j.name));
  const requests = new Map();
  for (const job of jobs) requests.set(job.name, await formBody(job, docs));

  // The key: made by pdfsvc itself, given to the peers too.
  const keysFile = join(work, 'keys.json');
  const made = capture(NODE, [CLI, 'keys', 'create', '--plan', 'business', '--name', 'bench', '--keys-file', keysFile]);
  const key = made.stdout.trim();
  if (made.status !== 0 || !key) throw new Error(`pdfsvc keys create failed: ${firstLine(made.stderr)}`);

  const info = machine(options);
  const pdfsvcLog = join(work, 'pdfsvc.log');
  const pdfsvc = await startServer(
    'pdfsvc',
    [CLI, 'serve', '--port', '0', '--keys-file', keysFile, ...(options.workers ? ['--workers', String(options.workers)] : [])],
    { logPath: pdfsvcLog },
  );
  servers.push(pdfsvc);
  const peers = [];
  for (const peer of PEERS) {
    const server = await startServer(peer.name, [PEER_SERVER, '--tool', peer.tool, '--port', '0', '--exit-with-stdin'], {
      env: { QPDF_SERVER_KEY: key },
      logPath: join(work, `${peer.name}.log`),
    });
    servers.push(server);
    peers.push(server);
  }
  // The settings pdfsvc reports in its 'listening' log line.
  let listening = null;
  for (let i = 0; i < 50 && !listening; i++) {
    listening =
      readFileSync(pdfsvcLog, 'utf8')
        .split('\n')
        .map((l) => {
          try {
            return JSON.parse(l);
          } catch {
            return null;
          }
        })
        .find((e) => e?.event === 'listening') ?? null;
    if (!listening) await sleep(100);
  }
  info.pdfsvc = {
    workers: listening?.workers ?? null,
    workersOption: options.workers,
    maxQueue: listening?.max_queue ?? null,
    requestTimeoutMs: listening?.request_timeout_ms ?? null,
    url: pdfsvc.url,
  };
  info.peers = Object.fromEntries(peers.map((p) => [p.name, { url: p.url }]));
  info.mutool = capture('mutool', ['-v']).stderr.trim().split('\n')[0] || 'mutool: not found';
  log(
    `bench:serve: pdfsvc ${pdfsvc.url} (${info.pdfsvc.workers} workers), ${peers.map((p) => `${p.name} ${p.url}`).join(', ')}; ${options.duration} s per cell`,
  );

  const rows = [];
  let cell = 0;
  for (const job of jobs) {
    const request = requests.get(job.name);
    const base = { job: job.name, label: job.label, action: job.action, requestBytes: request.body.length };
    const give = (status, reason) => {
      for (const c of options.concurrency) rows.push({ ...base, concurrency: c, status, reason, pdfsvc: null, peers: null, ratios: null });
      log(`  ${job.name}: ${status}: ${reason}`);
    };
    // Correct outputs first: a fast wrong answer must not win.
    const wrong = await verifyServer(pdfsvc, job, request, key, work);
    if (wrong) {
      give('wrong', `pdfsvc output: ${wrong}`);
      continue;
    }
    let wrongPeer = null;
    for (const peer of peers) {
      const wrongOutput = await verifyServer(peer, job, request, key, work);
      if (wrongOutput) {
        wrongPeer = `${peer.name} output: ${wrongOutput}`;
        break;
      }
    }
    if (wrongPeer) {
      give('failed', wrongPeer);
      continue;
    }
    // Warm-up: JIT on every worker thread, page cache, connection set-up.
    const warmAmount = options.quick ? 16 : 48;
    for (const server of [pdfsvc, ...peers]) await warm(server, job, request, key, 4, warmAmount);

    for (const c of options.concurrency) {
      // Each server takes its turn at going first.
      const all = [pdfsvc, ...peers];
      const first = cell++ % all.length;
      const order = [...all.slice(first), ...all.slice(0, first)];
      const row = { ...base, concurrency: c, status: 'ok', reason: null, pdfsvc: null, peers: {}, ratios: {}, order: order.map((s) => s.name) };
      for (const server of order) {
        await warm(server, job, request, key, c, 2 * c);
        const result = summarise(await cannon(server, job, request, key, c, { duration: options.duration }));
        if (server === pdfsvc) row.pdfsvc = result;
        else row.peers[server.name] = result;
        log(
          `  ${job.name} c=${c} ${server.name}: ${fmt(result.requestsPerSecond, 1)} req/s, p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms, ${result.failed} failed` +
            (result.failed ? ` (${JSON.stringify(result.statusCodes)}, ${result.errors} errors, ${result.timeouts} timeouts)` : ''),
        );
      }
      for (const peer of peers) {
        const theirs = row.peers[peer.name].requestsPerSecond;
        row.ratios[peer.name] = theirs > 0 ? row.pdfsvc.requestsPerSecond / theirs : null;
      }
      rows.push(row);
    }
  }

  // Still right after the load?
  for (const job of jobs) {
    if (rows.some((r) => r.job === job.name && r.status !== 'ok')) continue;
    const wrong = await verifyServer(pdfsvc, job, requests.get(job.name), key, work);
    if (wrong)
      for (const row of rows.filter((r) => r.job === job.name)) Object.assign(row, { status: 'wrong', reason: `pdfsvc output after the load: ${wrong}` });
  }

  await Promise.all(servers.map((s) => stopServer(s)));
  for (const server of servers) {
    const { code, signal } = await server.child.exited;
    if (code !== 0) log(`bench:serve: ${server.name} exited ${signal ?? `with status ${code}`} when stopped: ${tail(server.logPath)}`);
  }

  info.loadAverageAtEnd = os.loadavg().map((l) => +l.toFixed(2));
  info.seconds = (performance.now() - started) / 1000;
  const md = markdown(rows, info);
  process.stdout.write(md);
  writeFileSync(`${OUT_DIR}serve-results.md`, md);
  writeFileSync(
    `${OUT_DIR}serve-results.json`,
    JSON.stringify({ machine: info, targets: TARGETS, rows: rows.map((r) => ({ ...r, verdicts: judge(r) })) }, null, 2) + '\n',
  );
  log('bench:serve: wrote bench/out/serve-results.md and bench/out/serve-results.json');
  if (rows.some((r) => r.status !== 'ok')) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await main();
  } catch (err) {
    log(`bench:serve: ${err && err.stack ? err.stack : err}`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}
