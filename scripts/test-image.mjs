#!/usr/bin/env node
// Builds deploy/Dockerfile and checks the image as it would be deployed:
//
//   node scripts/test-image.mjs [--tag pdfsvc:image-test] [--report .ci/out/image.json]
//
// Needs root when no Docker engine answers (it installs Debian's docker.io and
// starts a dockerd of its own: scripts/docker-engine.mjs) or when the base
// image cannot be pulled (it makes a stand-in: scripts/base-image.mjs), and
// qpdf on this machine (the independent judge of the PDF the image answers).
// Run it after `npm ci` (fixtures are made by scripts/build-fixtures.mjs).
//
// The container runs with a read-only root file system, as the image's own
// user, on the host's network only (`--network host`, bound to 127.0.0.1 on a
// free port): every request goes to loopback, never to a container address.
// Checks, in order (the first failure stops the run, and the last line says
// which): the image's user and contents (production dependencies only, as
// `npm ls --omit=dev` lists them; no sources, tests or leftovers), a key
// created with the image itself, the server answering with it over TLS, an
// action's 200 with a PDF qpdf accepts, /healthz and the image's HEALTHCHECK
// healthy, nothing written in the container, then `docker stop` during an
// upload: the request in flight is answered 200, new connections are refused,
// and the container exits 0 with nothing written. Containers made here are
// removed, and a dockerd started here is stopped, however the run ends.
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBaseImage, externalBaseImages } from './base-image.mjs';
import { checkList, freePort } from './check-list.mjs';
import { dockerEngine, runSync, which } from './docker-engine.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const DOCKERFILE = join(ROOT, 'deploy', 'Dockerfile');
const OUT = join(ROOT, '.ci', 'out');

const options = parseArgs(process.argv.slice(2));
const checks = checkList('test-image');
const { log, check, fail } = checks;

// Everything made here, undone in `cleanUp` however the run ends.
let engine;
const containers = [];
const scratch = [];
let cleaning;
function cleanUp() {
  cleaning ??= (async () => {
    for (const name of containers) engine?.docker(['rm', '--force', '--volumes', name]);
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    await engine?.stop();
  })();
  return cleaning;
}
await checks.run({ title: 'image test', main, cleanUp, reportFile: options.report });

async function main() {
  const qpdf = which('qpdf') ?? fail('qpdf is not installed (apt-get install qpdf): it judges the PDF the image answers');
  const fixtures = runSync(process.execPath, [join(ROOT, 'scripts', 'build-fixtures.mjs')], { cwd: ROOT });
  if (fixtures.status !== 0) fail(`scripts/build-fixtures.mjs failed (run npm ci first): ${fixtures.stderr.trim()}`);
  const input = readFileSync(join(ROOT, 'fixtures', 'out', 'pages-3.pdf'));

  checks.current = 'a Docker engine';
  engine = await dockerEngine({ log });
  log(
    `Docker engine ${engine.version} (storage driver ${engine.driver}; ${engine.started ? 'started by this run, stopped at its end' : 'already running'}), client ${engine.cli}`,
  );

  const bases = {};
  await check('the base image is available', async () => {
    for (const image of externalBaseImages(readFileSync(DOCKERFILE, 'utf8'))) bases[image] = await ensureBaseImage(engine, image, { log });
    return Object.entries(bases)
      .map(([image, how]) => `${image}: ${how}`)
      .join('; ');
  });

  await check('deploy/Dockerfile builds', async () => {
    const previous = engine.docker(['image', 'inspect', '--format', '{{.Id}}', options.tag]).stdout.trim();
    mkdirSync(OUT, { recursive: true });
    const logFile = join(OUT, 'image-build.log');
    const buildStarted = Date.now();
    // The host's network: an engine started by this script has no bridge, and npm ci must reach the registry.
    const build = engine.docker(['build', '--progress', 'plain', '--network', 'host', '-f', DOCKERFILE, '-t', options.tag, ROOT], { timeout: 1_200_000 });
    writeFileSync(logFile, build.stdout + build.stderr);
    if (build.status !== 0)
      fail(`docker build failed (whole log: ${relative(ROOT, logFile)}):\n${(build.stdout + build.stderr).trim().split('\n').slice(-25).join('\n')}`);
    const now = engine.docker(['image', 'inspect', '--format', '{{.Id}}', options.tag]).stdout.trim();
    // The image this tag named before is of no use now.
    if (previous && previous !== now) engine.docker(['image', 'rm', previous]);
    return `${Math.round((Date.now() - buildStarted) / 1000)} s`;
  });

  const config = JSON.parse(engine.docker(['image', 'inspect', '--format', '{{json .Config}}', options.tag]).stdout);
  await check("the image runs as the unprivileged user 'node' (uid 1000)", async () => {
    if (config.User !== 'node') fail(`the image's USER is ${JSON.stringify(config.User)}`);
    const id = engine.docker(['run', '--rm', '--network', 'none', '--read-only', '--entrypoint', 'id', options.tag]);
    if (!/^uid=1000\(node\) gid=1000\(node\)/.test(id.stdout)) fail(`id in the image says ${id.stdout.trim() || id.stderr.trim()}`);
  });

  const size = await check('the image holds the production dependencies, the build and nothing else', () => inspectContents(config));

  const keysDir = mkdtempSync(join(tmpdir(), 'pdfsvc-image-keys-'));
  scratch.push(keysDir);
  // The server's user must be able to write the keys file when it creates it, and read it later.
  if (process.getuid?.() === 0) chownSync(keysDir, 1000, 1000);
  else chmodSync(keysDir, 0o777);
  let key;
  await check('a key is created with the image (deploy/README.md)', async () => {
    const created = engine.docker([
      'run',
      '--rm',
      '--network',
      'none',
      '--read-only',
      '-v',
      `${keysDir}:/etc/pdfsvc`,
      options.tag,
      'keys',
      'create',
      '--plan',
      'business',
      '--name',
      'image-test',
      '--keys-file',
      '/etc/pdfsvc/keys.json',
    ]);
    const made = created.stdout.trim();
    if (created.status !== 0 || !/^pdfsvc_\S+$/.test(made)) fail(`keys create answered ${created.status}: ${created.stderr.trim() || made.slice(0, 200)}`);
    key = made;
    // What keys create says about the key (its id and name), never the key.
    return created.stderr.trim();
  });

  const port = await freePort();
  const base = `https://127.0.0.1:${port}`;
  const name = `pdfsvc-image-test-${process.pid}-${randomBytes(3).toString('hex')}`;
  await check('the image serves, read-only, on loopback with --network host', async () => {
    containers.push(name);
    const run = engine.docker([
      'run',
      '--detach',
      '--name',
      name,
      '--read-only',
      '--network',
      'host',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      // The image's HEALTHCHECK, asked every 2 s instead of every 30 s so the run need not wait.
      '--health-interval',
      '2s',
      '--env',
      `PDFSVC_HEALTHZ_URL=${base}/healthz`,
      '--volume',
      `${keysDir}:/etc/pdfsvc:ro`,
      options.tag,
      'serve',
      '--https',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--keys-file',
      '/etc/pdfsvc/keys.json',
      '--workers',
      '2',
    ]);
    if (run.status !== 0) fail(`docker run failed: ${run.stderr.trim()}`);
    const up = await poll(30_000, async () => {
      const state = inspect(name, '{{.State.Status}}');
      if (state !== 'running') fail(`the container is ${state}; its output:\n${containerLogs(name)}`);
      return (await request(`${base}/healthz`).catch(() => undefined))?.status === 200;
    });
    if (!up) fail(`no answer on ${base}/healthz within 30 s; the container's output:\n${containerLogs(name)}`);
    const pid = Number(inspect(name, '{{.State.Pid}}'));
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (uid !== '1000') fail(`the server process runs as uid ${uid}`);
    const printed = /SHA-256 fingerprint: (\S+)/.exec(containerLogs(name))?.[1];
    const answer = await request(`${base}/healthz`);
    if (!printed || answer.fingerprint !== printed) fail(`the TLS certificate served (${answer.fingerprint}) is not the one the server printed (${printed})`);
    return `${base}, server uid 1000`;
  });

  await check('the key created with the image works, and only it', async () => {
    const refused = await postRotate(base, 'pdfsvc_not-a-key', input);
    if (refused.status !== 401) fail(`a wrong key got ${refused.status}, not 401`);
    const none = await postRotate(base, undefined, input);
    if (none.status !== 401) fail(`no key got ${none.status}, not 401`);
  });

  await check('an action answers 200 with a PDF qpdf accepts', async () => {
    const answer = await postRotate(base, key, input);
    if (answer.status !== 200) fail(`rotate_pages answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
    if (answer.headers['content-type'] !== 'application/pdf') fail(`content-type ${answer.headers['content-type']}`);
    return judgePdf(qpdf, answer.body, 3);
  });

  await check("/healthz and the image's HEALTHCHECK report healthy", async () => {
    const answer = await request(`${base}/healthz`);
    const body = JSON.parse(answer.body.toString('utf8'));
    if (answer.status !== 200 || body.status !== 'ok') fail(`/healthz answered ${answer.status} ${answer.body}`);
    const used = JSON.stringify(JSON.parse(inspect(name, '{{json .Config.Healthcheck}}')).Test);
    if (used !== JSON.stringify(config.Healthcheck?.Test)) fail(`the container's health check ${used} is not the image's`);
    const healthy = await poll(30_000, () => inspect(name, '{{.State.Health.Status}}') === 'healthy');
    if (!healthy) fail(`health status ${inspect(name, '{{.State.Health.Status}}')}: ${inspect(name, '{{json .State.Health.Log}}')}`);
  });

  await check('nothing is written inside the running container (docker diff)', () => assertNoDiff(name));

  await check('docker stop drains the request in flight, refuses new connections and exits 0', () => drain(qpdf, base, key, input, name, port));

  await check('nothing was written inside the container, to the end (docker diff)', () => assertNoDiff(name));

  const baseSizes = Object.keys(bases).map(
    (image) =>
      `${image}, ${bases[image].startsWith('stand-in') ? 'stand-in' : bases[image]}, ${megabytes(Number(engine.docker(['image', 'inspect', '--format', '{{.Size}}', image]).stdout))}`,
  );
  return `${options.tag} is ${size} (base ${baseSizes.join('; ')})`;
}

/** The image's files against what it should hold; returns its size. */
function inspectContents(config) {
  // Listed inside the image by its own node: /app's files outside node_modules, and every installed package.
  const lister = `
    const fs = require('node:fs'), path = require('node:path');
    const files = [], packages = [], empty = [];
    const walk = (dir) => { for (const e of fs.readdirSync(dir, { withFileTypes: true })) { const p = path.join(dir, e.name); if (e.isDirectory()) { if (e.name !== 'node_modules') walk(p); } else files.push(path.relative('/app', p)); } };
    const modules = (dir) => { if (!fs.existsSync(dir)) return; for (const e of fs.readdirSync(dir, { withFileTypes: true })) { if (e.name.startsWith('.') || !e.isDirectory()) continue; const p = path.join(dir, e.name);
      const inner = e.name.startsWith('@') ? fs.readdirSync(p).map((n) => path.join(p, n)) : [p];
      if (inner.length === 0) empty.push(path.relative('/app', p));
      for (const q of inner) { packages.push(path.relative('/app', q)); modules(path.join(q, 'node_modules')); } } };
    walk('/app'); modules('/app/node_modules');
    process.stdout.write(JSON.stringify({ top: fs.readdirSync('/app').sort(), files, packages: packages.sort(), empty }));`;
  const listed = engine.docker(['run', '--rm', '--network', 'none', '--read-only', '--entrypoint', 'node', options.tag, '-e', lister]);
  if (listed.status !== 0) fail(`listing the image's files failed: ${listed.stderr.trim()}`);
  const image = JSON.parse(listed.stdout);
  if (image.top.join(' ') !== 'bin dist node_modules package.json') fail(`/app holds ${image.top.join(', ')}; expected bin, dist, node_modules, package.json`);
  const unwanted = image.files.filter(
    (file) => /(^|\/)(src|test|tests|scripts|fixtures)\//.test(file) || (/\.(ts|mts|cts)$/.test(file) && !/\.d\.[mc]?ts$/.test(file)),
  );
  if (unwanted.length > 0) fail(`sources or tests in the image: ${unwanted.slice(0, 10).join(', ')}`);
  // What production needs, as npm resolves it on this machine from the same lockfile.
  const ls = runSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT });
  const wanted = ls.stdout
    .trim()
    .split('\n')
    .map((line) => relative(ROOT, line))
    .filter((path) => path.startsWith('node_modules/'));
  if (wanted.length === 0) fail(`npm ls --omit=dev listed nothing (run npm ci first): ${ls.stderr.trim()}`);
  const extra = image.packages.filter((p) => !wanted.includes(p));
  const missing = wanted.filter((p) => !image.packages.includes(p));
  if (extra.length > 0) fail(`packages in the image that npm ls --omit=dev does not list (dev dependencies?): ${extra.join(', ')}`);
  if (missing.length > 0) fail(`production packages missing from the image: ${missing.join(', ')}`);
  if (image.empty.length > 0) fail(`empty directories left in node_modules: ${image.empty.join(', ')}`);
  const du = engine.docker([
    'run',
    '--rm',
    '--network',
    'none',
    '--read-only',
    '--entrypoint',
    'du',
    options.tag,
    '-sk',
    '/app/bin',
    '/app/dist',
    '/app/node_modules',
  ]);
  const parts = du.stdout
    .trim()
    .split('\n')
    .map((line) => line.split(/\s+/))
    .map(([kb, path]) => `${path.replace('/app/', '')} ${megabytes(Number(kb) * 1024)}`);
  const size = megabytes(Number(engine.docker(['image', 'inspect', '--format', '{{.Size}}', options.tag]).stdout));
  log(`image contents: ${wanted.length} production packages, no others; ${parts.join(', ')}; HEALTHCHECK ${config.Healthcheck ? 'present' : 'absent'}`);
  return size;
}

/**
 * `docker stop` while an upload is half sent: the server must count it in
 * flight, log `stopping`, refuse new connections, then answer it in full once
 * the rest arrives, and exit 0.
 */
async function drain(qpdf, base, key, input, name, port) {
  const { body, contentType } = await multipart({ file: input, angle: '90' });
  const cut = body.length - 64;
  let answered;
  const answer = new Promise((resolve, reject) => {
    const req = https.request(
      `${base}/v1/rotate_pages`,
      { method: 'POST', rejectUnauthorized: false, agent: false, headers: { 'content-type': contentType, 'content-length': body.length, 'x-api-key': key } },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, cut));
    answered = req;
  });
  answer.catch(() => {});
  const inFlight = await poll(10_000, async () => JSON.parse((await request(`${base}/healthz`)).body.toString('utf8')).in_flight >= 1);
  if (!inFlight) fail('the half-sent request never showed in /healthz in_flight');

  const stopping = engine.dockerAsync(['stop', '--time', '60', name]);
  const logged = await poll(20_000, () => /"event":"stopping"[^\n]*/.exec(containerLogs(name))?.[0]);
  if (!logged) fail(`the server never logged "stopping" after docker stop:\n${containerLogs(name)}`);
  const inFlightAtStop = Number(/"in_flight":(\d+)/.exec(logged)?.[1]);
  if (!(inFlightAtStop >= 1)) fail(`the server stopped with no request in flight: ${logged}`);
  const refused = await new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error) => resolve(error.code === 'ECONNREFUSED'));
  });
  if (!refused) fail('a new connection was accepted while the server was stopping');

  // The rest of the upload comes 2 s later: a server that exits soon after
  // SIGTERM instead of waiting for its requests fails here or below.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const state = inspect(name, '{{.State.Status}}');
  if (state !== 'running') fail(`2 s after docker stop, with a request in flight, the container is ${state}`);
  answered.end(body.subarray(cut));
  const reply = await answer.catch((error) => fail(`the request in flight failed: ${error.message}`));
  if (reply.status !== 200) fail(`the request in flight answered ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
  const judged = judgePdf(qpdf, reply.body, 3);
  const stopped = await stopping;
  if (stopped.status !== 0) fail(`docker stop failed: ${stopped.stderr.trim()}`);
  const exit = inspect(name, '{{.State.ExitCode}} {{.State.OOMKilled}}');
  if (exit !== '0 false') fail(`the container exited with ${exit} (exit code, OOM-killed); its output:\n${containerLogs(name)}`);
  if (!containerLogs(name).includes('"event":"stopped"')) fail('the server did not log "stopped"');
  return `in flight at SIGTERM: ${inFlightAtStop}, answered 200 (${judged}), exit 0`;
}

function assertNoDiff(name) {
  const diff = engine.docker(['diff', name]);
  if (diff.status !== 0) fail(`docker diff failed: ${diff.stderr.trim()}`);
  if (diff.stdout.trim() !== '') fail(`changes in the container's file system:\n${diff.stdout.trim()}`);
}

/** qpdf --check passes and the page count is `pages`; returns what was seen. */
function judgePdf(qpdf, bytes, pages) {
  const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-image-pdf-'));
  scratch.push(dir);
  const file = join(dir, 'answer.pdf');
  writeFileSync(file, bytes);
  const checked = runSync(qpdf, ['--check', file]);
  if (checked.status !== 0)
    fail(`qpdf --check rejects the answer (${checked.status}): ${(checked.stdout + checked.stderr).trim().split('\n').slice(-3).join(' ')}`);
  const counted = runSync(qpdf, ['--show-npages', file]).stdout.trim();
  if (counted !== String(pages)) fail(`the answer has ${counted} pages, not ${pages}`);
  return `qpdf --check: no errors, ${pages} pages`;
}

function postRotate(base, key, input) {
  return multipart({ file: input, angle: '90' }).then(({ body, contentType }) =>
    request(`${base}/v1/rotate_pages`, { method: 'POST', body, headers: { 'content-type': contentType, ...(key ? { 'x-api-key': key } : {}) } }),
  );
}

/** A multipart/form-data body as Node's FormData encodes it. */
async function multipart(fields) {
  const form = new FormData();
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(field, value);
    else form.append(field, new Blob([value], { type: 'application/pdf' }), 'in.pdf');
  }
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') };
}

/** One HTTPS request; the server's self-signed certificate is accepted and its fingerprint returned for comparison. */
function request(url, { method = 'GET', body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      { method, rejectUnauthorized: false, agent: false, timeout: 30_000, headers: { ...(body ? { 'content-length': body.length } : {}), ...headers } },
      (res) => {
        const fingerprint = res.socket.getPeerCertificate?.()?.fingerprint256;
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), fingerprint }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 30 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

function inspect(name, format) {
  return engine.docker(['inspect', '--format', format, name]).stdout.trim();
}

function containerLogs(name) {
  const logs = engine.docker(['logs', name]);
  return logs.stdout + logs.stderr;
}

/** Calls `test` until it returns something truthy (returned) or the time is up (undefined). */
async function poll(ms, test) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await test();
    if (value) return value;
    if (Date.now() > until) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function megabytes(bytes) {
  return `${Math.round(bytes / 1e6)} MB`;
}

/** For scripts/ci-summary.mjs: one test per check, in vitest's JSON report fields. */

function parseArgs(args) {
  const parsed = { tag: 'pdfsvc:image-test', report: undefined };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--tag' && args[i + 1]) parsed.tag = args[++i];
    else if (args[i] === '--report' && args[i + 1]) parsed.report = resolve(args[++i]);
    else {
      console.error('usage: node scripts/test-image.mjs [--tag NAME:TAG] [--report FILE.json]');
      process.exit(2);
    }
  }
  return parsed;
}
