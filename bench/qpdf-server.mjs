// The baselines for `npm run bench:serve`: the way several self-hosted PDF
// APIs work, a small HTTP server that runs a PDF command line once per
// request: qpdf (the default) or, with --tool mutool, MuPDF's mutool (`mutool
// run` with bench/mutool/rotate.js to rotate, `mutool merge` to merge). Same
// routes and form fields as pdfsvc serve:
//
//   POST /v1/rotate_pages     file (one PDF), angle (a multiple of 90)
//   POST /v1/merge_documents  file (repeated, in order)
//
// Each request: check X-API-Key, read the body, parse the multipart form
// (`Response.formData()`, as pdfsvc does), write the inputs to a fresh temp
// directory, run the tool as an asynchronous child process (so requests
// overlap and the OS spreads them over the cores), read the output, delete the
// temp directory, answer application/pdf. No artificial slowness and no limit
// on concurrent child processes.
//
//   QPDF_SERVER_KEY=secret node bench/qpdf-server.mjs [--tool qpdf|mutool] [--port 0] [--host 127.0.0.1] [--exit-with-stdin]
//
// Prints `<tool>-server listening on http://127.0.0.1:<port>` on its first
// stdout line. With --exit-with-stdin it exits when its standard input closes
// (the bench's pipe), so a bench killed outright leaves no server behind.
import { execFile } from 'node:child_process';
import { createHash, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAX_UPLOAD_BYTES = 100 * 1024 * 1024; // pdfsvc's default
const CHILD_TIMEOUT_MS = 120_000; // pdfsvc's default request timeout
const ANGLES = new Set([0, 90, 180, 270, -90, -180, -270]);

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const tool = option('--tool', 'qpdf');
if (tool !== 'qpdf' && tool !== 'mutool') {
  process.stderr.write('qpdf-server: --tool must be qpdf or mutool\n');
  process.exit(2);
}
const host = option('--host', '127.0.0.1');
const port = Number(option('--port', '0'));
const key = process.env.QPDF_SERVER_KEY;
if (!key) {
  process.stderr.write('qpdf-server: set QPDF_SERVER_KEY to the API key clients must send\n');
  process.exit(2);
}
const keyHash = createHash('sha256').update(key).digest();

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function authorised(presented) {
  if (typeof presented !== 'string') return false;
  return timingSafeEqual(createHash('sha256').update(presented).digest(), keyHash);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const announced = Number(req.headers['content-length']);
    if (announced > MAX_UPLOAD_BYTES) return reject(new HttpError(413, 'request body too large'));
    const chunks = [];
    let total = 0;
    req.on('data', (chunk) => {
      total += chunk.length;
      if (total > MAX_UPLOAD_BYTES) {
        req.destroy();
        reject(new HttpError(413, 'request body too large'));
      } else chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks, total)));
    req.once('error', reject);
  });
}

// How many child processes may run at once (0: no limit); more wait their turn.
const maxChildren = Number(option('--max-children', process.env.QPDF_SERVER_MAX_CHILDREN ?? '0'));
let running = 0;
const waiting = [];

/** Runs the tool (`command`: qpdf or mutool) with `args`, at most maxChildren at once. */
async function child(command, args) {
  if (maxChildren > 0 && running >= maxChildren) await new Promise((resolve) => waiting.push(resolve));
  running++;
  try {
    return await runChild(command, args);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** qpdf's exit status 3 means "succeeded with warnings". */
function runChild(command, args) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: CHILD_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (err, _stdout, stderr) => {
      if (!err || (command === 'qpdf' && err.code === 3)) return resolve();
      if (typeof err.code === 'number') return reject(new HttpError(400, `${command} exit ${err.code}: ${String(stderr).trim().split('\n')[0]}`));
      reject(err);
    });
  });
}

// `mutool run` has no modules: the rotate script runs with bench/mutool/common.js
// in front, written once to a temp file that is removed at exit.
let mutoolRotate;
if (tool === 'mutool') {
  const dir = mkdtempSync(join(tmpdir(), 'mutool-server-'));
  mutoolRotate = join(dir, 'rotate.js');
  const script = (name) => readFileSync(new URL(`./mutool/${name}`, import.meta.url), 'utf8');
  writeFileSync(mutoolRotate, `${script('common.js')}\n${script('rotate.js')}`);
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
}

/** Each tool's command lines for the two routes. */
const COMMANDS = {
  qpdf: {
    rotate: (input, output, angle) => ['qpdf', [input, `--rotate=${angle < 0 ? angle : `+${angle}`}`, output]],
    merge: (inputs, output) => ['qpdf', ['--empty', '--pages', ...inputs, '--', output]],
  },
  mutool: {
    rotate: (input, output, angle) => ['mutool', ['run', mutoolRotate, input, output, String(angle)]],
    merge: (inputs, output) => ['mutool', ['merge', '-o', output, ...inputs]],
  },
}[tool];

/** The form's files (in order) and text fields. */
async function readForm(req, body) {
  let form;
  try {
    form = await new Response(body, { headers: { 'content-type': req.headers['content-type'] } }).formData();
  } catch {
    throw new HttpError(400, 'the multipart/form-data body could not be read');
  }
  const files = [];
  const fields = {};
  for (const [name, value] of form.entries()) {
    if (name === 'file' && typeof value !== 'string') files.push(new Uint8Array(await value.arrayBuffer()));
    else if (typeof value === 'string') fields[name] = value;
  }
  return { files, fields };
}

const ROUTES = {
  async rotate_pages({ files, fields }, dir) {
    if (files.length !== 1) throw new HttpError(400, 'send exactly one file');
    const angle = Number(fields.angle);
    if (!/^-?\d+$/.test(fields.angle ?? '') || !ANGLES.has(angle)) throw new HttpError(400, 'angle must be a multiple of 90');
    const input = join(dir, 'in.pdf');
    const output = join(dir, 'out.pdf');
    await writeFile(input, files[0]);
    await child(...COMMANDS.rotate(input, output, angle));
    return readFile(output);
  },
  async merge_documents({ files }, dir) {
    if (files.length < 1) throw new HttpError(400, 'send at least one file');
    const inputs = files.map((_, i) => join(dir, `in-${i + 1}.pdf`));
    await Promise.all(files.map((bytes, i) => writeFile(inputs[i], bytes)));
    const output = join(dir, 'out.pdf');
    await child(...COMMANDS.merge(inputs, output));
    return readFile(output);
  },
};

let inFlight = 0;

async function handle(req, res) {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname === '/healthz' && req.method === 'GET') {
    const text = JSON.stringify({ status: 'ok', in_flight: inFlight });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    return res.end(text);
  }
  inFlight++;
  try {
    await handleAction(req, res, url);
  } finally {
    inFlight--;
  }
}

async function handleAction(req, res, url) {
  const route = url.pathname.startsWith('/v1/') ? ROUTES[url.pathname.slice(4)] : undefined;
  if (!route || !Object.hasOwn(ROUTES, url.pathname.slice(4))) throw new HttpError(404, 'no such endpoint');
  if (req.method !== 'POST') throw new HttpError(405, 'POST only');
  if (!authorised(req.headers['x-api-key'])) throw new HttpError(401, 'send a valid API key in the X-API-Key header');
  if (!/^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? '')) throw new HttpError(415, 'send multipart/form-data');
  const body = await readBody(req);
  const form = await readForm(req, body);
  const dir = await mkdtemp(join(tmpdir(), `${tool}-server-`));
  try {
    const pdf = await route(form, dir);
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length });
    res.end(pdf);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const server = createServer((req, res) => {
  handle(req, res).catch((err) => {
    const status = err instanceof HttpError ? err.status : 500;
    if (status === 500) process.stderr.write(`${tool}-server: ${err && err.stack ? err.stack : err}\n`);
    if (res.headersSent) return res.destroy();
    const text = JSON.stringify({ status, detail: err instanceof HttpError ? err.message : 'internal error' });
    res.writeHead(status, {
      'content-type': 'application/problem+json',
      'content-length': Buffer.byteLength(text),
      ...(status === 413 ? { connection: 'close' } : {}),
    });
    res.end(text);
  });
});
// Keep-alive connections stay open as long as pdfsvc keeps its (65 s).
server.keepAliveTimeout = 65_000;

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (process.argv.includes('--exit-with-stdin')) {
  process.stdin
    .on('data', () => {})
    .once('end', stop)
    .once('close', stop);
  process.stdin.resume();
}

server.listen(port, host, () => {
  const address = server.address();
  const shown = host.includes(':') ? `[${host}]` : host;
  process.stdout.write(`${tool}-server listening on http://${shown}:${address.port}\n`);
});
