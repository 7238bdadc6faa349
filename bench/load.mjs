// Issue 11's load target: `pdfsvc serve --max-memory 2GiB --workers 2` takes
// 100 concurrent uploads of the 59 MB bench document to rotate_pages without
// passing 2.2 GiB of RSS; every request is answered 200, or 503 with
// Retry-After (the memory budget refusing it, before its body when
// Content-Length says its size); none is reset or lost; and /healthz answers
// afterwards. A benchmark, not a test: it hogs a small machine for a minute.
// See bench/README.md, "bench:load".
//
//   npm run bench:load
//   npm run bench:load -- --requests 50 --max-memory 1GiB --workers 2
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readArguments } from './arguments.mjs';
import { OUT_DIR, ensureDocuments } from './make-documents.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin', 'pdfsvc.js');
const MIB = 2 ** 20;
const GIB = 2 ** 30;
const PEAK_TARGET = 2.2 * GIB;

const options = { requests: 100, maxMemory: '2GiB', workers: 2, document: 'doc-500p', deadlineSeconds: 300 };
readArguments(
  process.argv.slice(2),
  (name, value) => {
    if (name === '--requests') options.requests = Number(value());
    else if (name === '--max-memory') options.maxMemory = value();
    else if (name === '--workers') options.workers = Number(value());
    else if (name === '--document') options.document = value();
    else if (name === '--deadline') options.deadlineSeconds = Number(value());
    else return false;
    return true;
  },
  (message) => {
    process.stderr.write(`bench:load: ${message}\n`);
    process.exit(2);
  },
  'bench/README.md, "bench:load"',
);
const log = (line) => process.stderr.write(`${line}\n`);

// ------------------------------------------------------------ the document

const [doc] = await ensureDocuments({ names: [options.document], log });
const file = readFileSync(doc.path);
const boundary = 'pdfsvc-bench-load-boundary';
// One multipart body, sent by every request: its size is known, so each request carries Content-Length.
const body = Buffer.concat([
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="angle"\r\n\r\n90\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${options.document}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  ),
  file,
  Buffer.from(`\r\n--${boundary}--\r\n`),
]);

// ------------------------------------------------------------ the server

const scratch = mkdtempSync(join(tmpdir(), 'pdfsvc-bench-load-'));
const keysFile = join(scratch, 'keys.json');
const key = execFileSync(process.execPath, [CLI, 'keys', 'create', '--plan', 'business', '--name', 'bench-load', '--keys-file', keysFile], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'ignore'],
}).trim();
const server = spawn(
  process.execPath,
  [CLI, 'serve', '--max-memory', options.maxMemory, '--workers', String(options.workers), '--port', '0', '--keys-file', keysFile],
  { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
);
let serverOut = '';
let serverErr = '';
server.stdout.on('data', (chunk) => (serverOut += chunk));
server.stderr.on('data', (chunk) => (serverErr = (serverErr + chunk).slice(-20_000)));
let serverExit;
server.once('exit', (code, signal) => (serverExit = signal ?? code));
const base = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`the server did not start: ${serverOut}${serverErr}`)), 30_000);
  server.stdout.on('data', () => {
    const url = /https?:\/\/\S+/.exec(serverOut)?.[0];
    if (url) {
      clearTimeout(timer);
      resolve(url);
    }
  });
  server.once('exit', () => reject(new Error(`the server stopped before listening: ${serverErr}`)));
});
const target = new URL(base);

/** VmRSS and VmHWM of the server process, in bytes (its worker threads share it). */
function memory() {
  try {
    const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

// ------------------------------------------------------------ the load

const samples = [];
const sampler = setInterval(() => samples.push({ at: Date.now(), ...memory() }), 100);

/** One upload: the status and Retry-After when an answer came, else what happened to the connection. */
function upload(agent) {
  return new Promise((resolve) => {
    const started = performance.now();
    let answered;
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: '/v1/rotate_pages',
        method: 'POST',
        agent,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length, 'x-api-key': key },
      },
      (response) => {
        answered = { status: response.statusCode, retryAfter: response.headers['retry-after'], bytes: 0 };
        response.on('data', (chunk) => (answered.bytes += chunk.length));
        response.on('end', () => resolve({ ...answered, ms: performance.now() - started }));
        response.on('error', (err) => resolve({ ...answered, lost: `response cut: ${err.code ?? err.message}`, ms: performance.now() - started }));
      },
    );
    // A refusal before the body is read can close the socket while we still write: that is fine once the answer is in.
    request.on('error', (err) => {
      if (!answered) resolve({ lost: err.code ?? err.message, ms: performance.now() - started });
    });
    request.end(body);
  });
}

log(
  `bench:load: ${options.requests} concurrent uploads of ${options.document} (${(body.length / MIB).toFixed(1)} MiB) to rotate_pages on serve --max-memory ${options.maxMemory} --workers ${options.workers}`,
);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const started = Date.now();
const all = Promise.all(Array.from({ length: options.requests }, () => upload(agent)));
// Bounded: whatever has no answer by the deadline counts as lost, and the run ends.
const results = await Promise.race([all, new Promise((resolve) => setTimeout(() => resolve(undefined), options.deadlineSeconds * 1000))]);
const wallSeconds = (Date.now() - started) / 1000;
clearInterval(sampler);
samples.push({ at: Date.now(), ...memory() });

let health;
try {
  health = await new Promise((resolve, reject) => {
    http
      .get(`${base}/healthz`, { agent: false, timeout: 5_000 }, (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(text) }));
      })
      .on('error', reject)
      .on('timeout', function onTimeout() {
        this.destroy(new Error('no answer in 5 s'));
      });
  });
} catch (err) {
  health = { error: err.message };
}
server.kill('SIGTERM');
await new Promise((resolve) => (serverExit !== undefined ? resolve() : server.once('exit', resolve)));
rmSync(scratch, { recursive: true, force: true });

// ------------------------------------------------------------ the report

const answered = results ?? [];
const lostByDeadline = results ? 0 : options.requests;
const ok = answered.filter((r) => r.status === 200 && !r.lost);
const refused = answered.filter((r) => r.status === 503 && r.retryAfter !== undefined && !r.lost);
const other = answered.filter((r) => !ok.includes(r) && !refused.includes(r));
const peak = Math.max(...samples.map((s) => s.hwm));
const peakSampled = Math.max(...samples.map((s) => s.rss));
const maxBytes = health.body?.memory?.max_bytes;
// The budget's worth: as many uploads as fit in it at the server's working-set factor (3 times the upload).
const budgetsWorth = maxBytes ? Math.max(1, Math.floor(maxBytes / (3 * body.length))) : undefined;
const checks = [
  [`peak RSS ${(peak / GIB).toFixed(2)} GiB < 2.2 GiB`, peak < PEAK_TARGET],
  [`every request answered 200 or 503 with Retry-After (other, reset or lost: ${other.length + lostByDeadline})`, other.length + lostByDeadline === 0],
  [`at least the budget's worth succeeded (${ok.length} >= ${budgetsWorth ?? '?'})`, budgetsWorth !== undefined && ok.length >= budgetsWorth],
  [`/healthz answers 200 afterwards (${health.status ?? health.error})`, health.status === 200],
];
const summary = {
  when: new Date().toISOString(),
  options,
  upload_bytes: body.length,
  wall_seconds: wallSeconds,
  peak_rss_bytes: peak,
  peak_sampled_rss_bytes: peakSampled,
  answered_200: ok.length,
  answered_503_retry_after: refused.length,
  other: other.map((r) => ({ status: r.status, lost: r.lost })),
  lost_at_deadline: lostByDeadline,
  slowest_200_seconds: ok.length ? Math.max(...ok.map((r) => r.ms)) / 1000 : null,
  healthz: health,
  checks: checks.map(([what, passed]) => ({ what, passed })),
};
writeFileSync(join(OUT_DIR, 'load.json'), `${JSON.stringify(summary, null, 2)}\n`);
console.log(
  [
    `bench:load: ${options.requests} uploads of ${(body.length / MIB).toFixed(1)} MiB in ${wallSeconds.toFixed(1)} s`,
    `  200: ${ok.length}   503 with Retry-After: ${refused.length}   other/reset/lost: ${other.length + lostByDeadline}${other.length ? ` (${other.map((r) => r.status ?? r.lost).join(', ')})` : ''}`,
    `  server peak RSS (VmHWM) ${(peak / MIB).toFixed(0)} MiB; highest sampled VmRSS ${(peakSampled / MIB).toFixed(0)} MiB; slowest 200 ${summary.slowest_200_seconds?.toFixed(1) ?? '-'} s`,
    `  /healthz afterwards: ${health.status ?? health.error}${health.body?.memory ? ` (memory ${JSON.stringify(health.body.memory)})` : ''}`,
    ...checks.map(([what, passed]) => `  ${passed ? 'ok  ' : 'FAIL'} ${what}`),
    `  (bench/out/load.json)`,
  ].join('\n'),
);
process.exit(checks.every(([, passed]) => passed) ? 0 : 1);
