#!/usr/bin/env node
// Runs deploy/compose.yaml in containers and checks the multi-region set-up
// through its published ports, as a customer and an operator would:
//
//   node scripts/test-compose.mjs [--report .ci/out/compose.json]
//
// Needs root when no Docker engine answers (scripts/docker-engine.mjs starts
// one) or when an image cannot be pulled (scripts/base-image.mjs makes
// stand-ins for node, postgres and nginx from Debian's packages), Debian's
// docker-compose, openssl and qpdf. Run it after `npm ci`.
//
// The file is run as it is, but for what a test on a shared machine must
// change, in a copy in a temporary directory: each published port is bound
// to 127.0.0.1 on a free port (not 0.0.0.0:8443…), the certificate is a
// throwaway one made there (not deploy/tls), the health checks are asked
// every 2 s instead of 30 s (the timing only), and the images are built
// beforehand (`docker build --network host`, as scripts/test-image.mjs does:
// `npm ci` in the build reaches the registry without a bridge). Checks, in
// order (the first failure stops the run, and the last line says which):
// every service healthy; accounts and keys made with `docker-compose run`
// and `exec` of the pdfsvc CLI; a Business key works on Global (nginx), eu
// and us-hipaa, a Starter key gets 403 on us-hipaa, a Free key works on
// Global only; one key's usage in three regions adds up in `pdfsvc usage` run
// in a container; a key revoked is refused by every region, and by each
// global server, within 2 s; a global container killed (`docker kill`) with a
// request in flight and a stream of requests running loses none of them; the
// postgres service keeps its data in its volume, enforces its password and
// holds nothing of the documents; then `docker-compose down -v` leaves no
// container, network or volume. What it made is removed however
// the run ends; the images stay for the next run.
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { ensureBaseImage, externalBaseImages } from './base-image.mjs';
import { checkList, freePort } from './check-list.mjs';
import { aptInstall, dockerEngine, runSync, which } from './docker-engine.mjs';
import { ALLOWED, DOCUMENT_TRACES, formBody, patientRecord, planRefusal, REGIONS, WATERMARK } from './region-checks.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const DEPLOY = join(ROOT, 'deploy');
const PDFSVC_IMAGE = 'pdfsvc:latest';

const options = parseArgs(process.argv.slice(2));
const checks = checkList('test-compose');
const { log, check, fail } = checks;

// Everything made here, undone in `cleanUp` however the run ends.
let engine;
let work;
let composeUp = false;
const project = `pdfsvc-compose-test-${process.pid}`;
const password = randomBytes(24).toString('hex');
/** The 3-page document most requests send. */
let smallInput;
let cleaning;
function cleanUp() {
  cleaning ??= (async () => {
    if (composeUp) compose(['down', '--volumes', '--remove-orphans', '--timeout', '20']);
    if (work) rmSync(work, { recursive: true, force: true });
    await engine?.stop();
  })();
  return cleaning;
}
await checks.run({ title: 'compose test', main, cleanUp, reportFile: options.report });

/** docker-compose on the copy of compose.yaml, with the engine's environment and the database password. */
function compose(args, runOptions = {}) {
  return runSync('docker-compose', ['--project-name', project, '--file', join(work, 'compose.yaml'), ...args], {
    env: { ...engine.env, PDFSVC_DB_PASSWORD: password },
    timeout: 600_000,
    ...runOptions,
  });
}

/** `pdfsvc …` in the running global-1 container (docker-compose exec); standard output. */
function pdfsvc(args) {
  const run = compose(['exec', '-T', 'global-1', 'node', 'bin/pdfsvc.js', ...args]);
  if (run.status !== 0) fail(`pdfsvc ${args.join(' ')} in global-1 answered ${run.status}: ${run.stderr.trim()}`);
  return run.stdout.trim();
}

async function main() {
  const qpdf = which('qpdf') ?? fail('qpdf is not installed (apt-get install qpdf): it judges the PDFs the regions answer');
  if (!which('docker-compose')) aptInstall(['docker-compose'], log);
  if (!which('openssl')) aptInstall(['openssl'], log);
  smallInput = await patientRecord(3);

  checks.current = 'a Docker engine';
  engine = await dockerEngine({ log });
  log(`Docker engine ${engine.version} (storage driver ${engine.driver}; ${engine.started ? 'started by this run, stopped at its end' : 'already running'})`);

  const file = parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true });
  const images = {};
  await check("compose.yaml's images are available", async () => {
    const wanted = [
      ...externalBaseImages(readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8')),
      ...Object.values(file.services).flatMap((s) => (s.image && !s.build ? [s.image] : [])),
    ];
    for (const image of wanted) images[image] = await ensureBaseImage(engine, image, { log });
    return Object.entries(images)
      .map(([image, how]) => `${image}: ${how}`)
      .join('; ');
  });

  await check('deploy/Dockerfile builds (the image of every pdfsvc service)', async () => {
    const buildStarted = Date.now();
    const build = engine.docker(['build', '--network', 'host', '-f', join(DEPLOY, 'Dockerfile'), '-t', PDFSVC_IMAGE, ROOT], { timeout: 1_200_000 });
    if (build.status !== 0) fail(`docker build failed:\n${(build.stdout + build.stderr).trim().split('\n').slice(-20).join('\n')}`);
    return `${Math.round((Date.now() - buildStarted) / 1000)} s`;
  });

  // The copy of compose.yaml, the throwaway certificate, and the ports on loopback.
  work = mkdtempSync(join(tmpdir(), 'pdfsvc-compose-test-'));
  const ports = {};
  for (const [name, service] of Object.entries(file.services)) {
    if (service.build) {
      if (service.image !== PDFSVC_IMAGE) fail(`service ${name} builds ${service.image}, not ${PDFSVC_IMAGE}`);
      delete service.build;
    }
    service.ports = await Promise.all(
      (service.ports ?? []).map(async (mapping) => {
        const [, container] = /^(?:.*:)?(\d+):(\d+)$/.exec(mapping).slice(1);
        ports[name] = await freePort();
        return `127.0.0.1:${ports[name]}:${container}`;
      }),
    );
    if (service.ports.length === 0) delete service.ports;
    service.volumes = service.volumes?.map((volume) => volume.replace(/^\.\/tls:/, `${join(work, 'tls')}:`).replace(/^\.\//, `${DEPLOY}/`));
    if (service.healthcheck) service.healthcheck.interval = '2s';
  }
  writeFileSync(join(work, 'compose.yaml'), stringify(file));
  const tls = join(work, 'tls');
  mkdirSync(tls);
  const cert = runSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout',
    join(tls, 'tls.key'),
    '-out',
    join(tls, 'tls.crt'),
  ]);
  if (cert.status !== 0) fail(`openssl could not make the certificate: ${cert.stderr.trim()}`);
  // The servers run as uid 1000 (deploy/README.md).
  for (const name of ['', 'tls.crt', 'tls.key']) chownSync(join(tls, name), 1000, 1000);
  const ca = readFileSync(join(tls, 'tls.crt'));
  const endpoints = {
    global: `https://localhost:${ports.nginx}`,
    eu: `https://localhost:${ports.eu}`,
    'us-hipaa': `https://localhost:${ports['us-hipaa']}`,
  };

  await check('docker-compose up: every service running and healthy', async () => {
    composeUp = true;
    const up = compose(['up', '--detach', '--no-build']);
    if (up.status !== 0) fail(`docker-compose up failed: ${(up.stdout + up.stderr).trim().split('\n').slice(-10).join('\n')}`);
    const names = Object.keys(file.services);
    const healthy = await poll(120_000, () => names.every((name) => health(name) === 'healthy'));
    if (!healthy) fail(`not healthy after 120 s: ${names.map((name) => `${name} ${health(name)}`).join(', ')}\n${compose(['logs', '--tail', '10']).stdout}`);
    return names.join(', ');
  });

  const keys = {};
  await check('accounts and keys made with the pdfsvc CLI in containers (docker-compose run and exec)', async () => {
    const made = compose([
      'run',
      '--rm',
      '-T',
      'global-1',
      'accounts',
      'create',
      'clinic',
      '--email',
      'it@clinic.example',
      '--plan',
      'business',
      '--dashboard-url',
      'https://localhost/dashboard',
    ]);
    if (made.status !== 0) fail(`docker-compose run … accounts create answered ${made.status}: ${made.stderr.trim()}`);
    // The rest in one `exec` each: a docker-compose client and a container process per command cost seconds on a busy machine.
    const inOneExec = (commands) => {
      const script = commands.map((args) => `node bin/pdfsvc.js ${args.map((a) => `'${a}'`).join(' ')}`).join(' && ');
      const run = compose(['exec', '-T', 'global-1', 'sh', '-c', script]);
      if (run.status !== 0) fail(`pdfsvc in global-1 answered ${run.status}: ${run.stderr.trim()}`);
      return run.stdout.trim().split('\n');
    };
    inOneExec([
      ['accounts', 'create', 'startup', '--email', 'it@startup.example', '--plan', 'starter', '--dashboard-url', 'https://localhost/dashboard'],
      ['accounts', 'create', 'hobby', '--email', 'me@hobby.example', '--plan', 'free', '--dashboard-url', 'https://localhost/dashboard'],
    ]);
    const names = ['clinic/plans', 'clinic/usage', 'clinic/revoked', 'clinic/stream', 'startup/plans', 'hobby/plans'];
    // keys create prints the key, and only the key, on standard output.
    const printed = inOneExec(names.map((name) => ['keys', 'create', '--account', name.split('/')[0], '--name', name.split('/')[1]]));
    if (printed.length !== names.length || !printed.every((key) => /^pdfsvc_\S+$/.test(key)))
      fail(`keys create printed ${printed.length} lines, not ${names.length} keys`);
    names.forEach((name, i) => (keys[name] = printed[i]));
    // Every region knows the keys (each follows the database within 2 s). A server loads all keys at once, so the
    // last one made stands for them all: a reload between two `keys create` would know the first and not the last.
    // Known is anything but 401 (the Free key is refused with 403 outside global).
    for (const [region, base] of Object.entries(endpoints)) {
      if (!(await poll(10_000, async () => (await rotate(base, keys['hobby/plans'])).status !== 401))) fail(`${region} does not know the keys made last`);
    }
    return `${Object.keys(keys).length} keys`;
  });

  await check('each plan reaches exactly its regions through the published ports; the others answer 403 naming the plan', async () => {
    for (const [account, plan] of [
      ['clinic', 'business'],
      ['startup', 'starter'],
      ['hobby', 'free'],
    ]) {
      for (const region of REGIONS) {
        const reply = await rotate(endpoints[region], keys[`${account}/plans`]);
        if (ALLOWED[plan].includes(region)) {
          if (reply.status !== 200) fail(`${plan} key on ${region}: ${reply.status} ${reply.body.toString().slice(0, 300)}`);
          if (reply.headers['x-region'] !== region) fail(`${region} answered with X-Region ${reply.headers['x-region']}`);
          judgePdf(qpdf, reply.body, 3);
        } else {
          if (reply.status !== 403) fail(`${plan} key on ${region}: ${reply.status}, not 403`);
          const detail = JSON.parse(reply.body.toString()).detail;
          if (!detail?.includes(planRefusal(plan, region))) fail(`${plan} key on ${region}: the 403 says ${JSON.stringify(detail)}`);
        }
      }
    }
    return 'business: global, eu, us-hipaa; starter: global, eu; free: global';
  });

  await check('one key used in three regions: the usage adds up in `pdfsvc usage` (in a container)', async () => {
    const key = keys['clinic/usage'];
    const counts = { global: 2, eu: 3, 'us-hipaa': 4 };
    for (const [region, count] of Object.entries(counts)) {
      for (let i = 0; i < count; i++) {
        const reply = await rotate(endpoints[region], key);
        if (reply.status !== 200) fail(`${region}: ${reply.status}`);
      }
    }
    let last;
    const rows = await poll(15_000, () => {
      last = JSON.parse(pdfsvc(['usage', '--format', 'json', '--account', 'clinic'])).rows.filter((r) => r.key === 'usage');
      const sum = (region) => last.filter((r) => r.region === region).reduce((n, r) => n + r.requests, 0);
      return Object.entries(counts).every(([region, count]) => sum(region) === count) ? last : undefined;
    });
    if (!rows) fail(`pdfsvc usage shows ${JSON.stringify(last)}, not ${JSON.stringify(counts)} requests per region`);
    const pages = rows.reduce((n, r) => n + Number(r.pages), 0);
    if (pages !== 27) fail(`pdfsvc usage counts ${pages} pages, not 27`);
    return '2 + 3 + 4 requests, 27 pages';
  });

  await check('a key revoked is refused by every region, and by both global servers, within 2 s', async () => {
    const key = keys['clinic/revoked'];
    for (const [region, base] of Object.entries(endpoints)) {
      const reply = await rotate(base, key);
      if (reply.status !== 200) fail(`before revoking, ${region} answered ${reply.status}`);
    }
    // nginx's workers each choose a server of their own, so answers through it need not come from both: each
    // global server is also asked directly, in its container (they are not published). A body that is not a
    // form gets 415 once the key is accepted, 401 when it is refused: no work either way.
    const globals = Object.fromEntries(['global-1', 'global-2'].map((name) => [name, compose(['ps', '-q', name]).stdout.trim()]));
    const direct = async (id) => {
      const asked = await engine.dockerAsync([
        'exec',
        '--env',
        `KEY=${key}`,
        id,
        'node',
        '-e',
        "require('node:https').request('https://127.0.0.1:8443/v1/rotate_pages', { method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'text/plain', 'x-api-key': process.env.KEY } }, (r) => { console.log(r.statusCode); r.resume(); }).end('x')",
      ]);
      return Number(asked.stdout.trim());
    };
    for (const [name, id] of Object.entries(globals)) {
      const status = await direct(id);
      if (status !== 415) fail(`before revoking, ${name} answered ${status} to the key, not 415`);
    }
    pdfsvc(['keys', 'revoke', 'revoked', '--account', 'clinic']);
    const revokedAt = Date.now();
    const within = async (what, refused) => {
      if (!(await poll(2000, refused))) fail(`${what} still accepts the revoked key 2 s after it was revoked`);
      return `${what} ${Date.now() - revokedAt} ms`;
    };
    const times = await Promise.all([
      ...Object.entries(endpoints).map(([region, base]) => within(region, async () => (await rotate(base, key)).status === 401)),
      // Times include docker exec's own (a few hundred ms): an upper bound.
      ...Object.entries(globals).map(([name, id]) => within(`${name} (in its container)`, async () => (await direct(id)) === 401)),
    ]);
    return times.join(', ');
  });

  await check('a global container killed (docker kill) with a request in flight: no request of a stream fails', async () => {
    const key = keys['clinic/stream'];
    // Seconds of work even on a fast, idle machine: the kill lands while it runs. (3,000 pages were enough
    // until page actions on long documents got faster; then the request was once done before the kill.)
    const PAGES = 10_000;
    const heavyInput = await patientRecord(PAGES);
    const globals = Object.fromEntries(['global-1', 'global-2'].map((name) => [name, compose(['ps', '-q', name]).stdout.trim()]));
    // From here on nothing blocks the event loop (no runSync): the uploads must keep flowing.
    const heavy = post(endpoints.global, key, 'add_text_watermark', { line_1: WATERMARK }, heavyInput, 300_000);
    // Which global server works on it: its /healthz counts the actions in flight.
    const busy = await poll(60_000, async () => {
      for (const name of Object.keys(globals)) if ((await inFlight(globals[name])) > 0) return name;
      return undefined;
    });
    if (!busy) fail('the heavy request was never seen at work on a global server');
    const agent = new https.Agent({ keepAlive: true, maxSockets: 2, ca });
    const stream = [];
    let streaming = true;
    const failed = (error) => ({ status: 0, body: Buffer.from(error.message) });
    const streamDone = Promise.all(
      Array.from({ length: 2 }, async () => {
        while (streaming) stream.push(await post(endpoints.global, key, 'rotate_pages', { angle: '90' }, smallInput, 60_000, agent).catch(failed));
      }),
    );
    await sleep(300);
    if (!((await inFlight(globals[busy])) > 0)) fail(`the heavy request was done on ${busy} before the kill: make it heavier`);
    const killed = await engine.dockerAsync(['kill', globals[busy]]);
    if (killed.status !== 0) fail(`docker kill ${busy}: ${killed.stderr.trim()}`);
    const heavyReply = await heavy.catch(failed);
    await sleep(1000);
    streaming = false;
    await streamDone;
    agent.destroy();
    if (heavyReply.status !== 200) fail(`the request in flight on ${busy} got ${heavyReply.status}: ${heavyReply.body.toString().slice(0, 300)}`);
    judgePdf(qpdf, heavyReply.body, PAGES);
    const bad = stream.filter((r) => r.status !== 200);
    if (stream.length < 3 || bad.length > 0)
      fail(`${stream.length} requests in the stream, ${bad.length} failed: ${bad.map((r) => `${r.status} ${r.body.toString().slice(0, 100)}`).join('; ')}`);
    // nginx's log (the container's output): the heavy request tried on the killed server, answered by the other.
    const logs = compose(['logs', '--no-color', 'nginx']).stdout;
    const retried = logs.split('\n').filter((line) => /POST \/v1\/add_text_watermark 200 upstream=\S+:8443, \S+:8443 upstream_status=502, 200/.test(line));
    if (retried.length !== 1)
      fail(
        `nginx's log shows ${retried.length} retried heavy requests, not 1:\n${logs
          .split('\n')
          .filter((line) => /add_text_watermark|\[(error|warn)\]/.test(line))
          .join('\n')}`,
      );
    return `${busy} killed; the ${PAGES}-page request and ${stream.length} streamed requests answered 200`;
  });

  await check('the postgres stand-in: its data in the pgdata volume, POSTGRES_PASSWORD enforced, and nothing of the documents or keys in it', async () => {
    const id = compose(['ps', '-q', 'postgres']).stdout.trim();
    const mounts = JSON.parse(engine.docker(['inspect', '--format', '{{json .Mounts}}', id]).stdout);
    const data = mounts.find((m) => m.Destination === '/var/lib/postgresql/data');
    if (data?.Type !== 'volume' || !data.Name.endsWith('_pgdata')) fail(`/var/lib/postgresql/data is ${JSON.stringify(data)}, not the pgdata volume`);
    const version = compose(['exec', '-T', 'postgres', 'cat', '/var/lib/postgresql/data/PG_VERSION']).stdout.trim();
    if (version !== '15') fail(`PG_VERSION in the data directory says ${JSON.stringify(version)}`);
    // From another container (eu: never killed), as the servers connect: a wrong password is refused (scram-sha-256), the right one works.
    const connect = (pass) =>
      compose([
        'exec',
        '-T',
        'eu',
        'node',
        '-e',
        `new (require('pg').Client)({ host: 'postgres', user: 'pdfsvc', database: 'pdfsvc', password: '${pass}' }).connect().then((c) => { console.log('connected'); return c.end(); }, (e) => console.log(e.message))`,
      ]).stdout.trim();
    if (connect(password) !== 'connected') fail(`the database password does not work: ${connect(password)}`);
    const wrong = connect('wrong');
    if (!/password authentication failed for user "pdfsvc"/.test(wrong)) fail(`a wrong password got ${JSON.stringify(wrong)}`);
    // What crosses regions: account records, key hashes and counters only.
    const dump = compose(['exec', '-T', 'postgres', 'pg_dump', '--data-only', '-U', 'pdfsvc', 'pdfsvc']);
    if (dump.status !== 0 || !dump.stdout.includes('it@clinic.example') || !dump.stdout.includes('rotate_pages'))
      fail(`pg_dump shows no accounts or audit records: ${dump.stderr.trim()}`);
    const forbidden = [...DOCUMENT_TRACES, ...Object.values(keys)];
    const found = forbidden.filter((text) => dump.stdout.toLowerCase().includes(text.toLowerCase()));
    if (found.length > 0) fail(`the database holds ${found.map((t) => JSON.stringify(t.slice(0, 20))).join(', ')}`);
    return `pg_dump: ${dump.stdout.length} bytes, none of ${forbidden.length} forbidden strings`;
  });

  await check('docker-compose down -v removes every container, network and volume it made', async () => {
    const down = compose(['down', '--volumes', '--remove-orphans', '--timeout', '20']);
    if (down.status !== 0) fail(`docker-compose down failed: ${down.stderr.trim()}`);
    composeUp = false;
    const label = `label=com.docker.compose.project=${project}`;
    const left = ['ps -aq', 'network ls -q', 'volume ls -q']
      .map((what) => engine.docker([...what.split(' '), '--filter', label]).stdout.trim())
      .filter(Boolean);
    if (left.length > 0) fail(`left behind: ${left.join(' ')}`);
  });

  return `images: ${Object.entries(images)
    .map(([image, how]) => `${image} ${how}`)
    .join(', ')}`;

  function health(name) {
    const id = compose(['ps', '-q', name]).stdout.trim();
    return id
      ? engine.docker(['inspect', '--format', '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}', id]).stdout.trim()
      : 'absent';
  }

  /** A global server's actions in flight, from its /healthz, asked inside its container `id` (it is not published). */
  async function inFlight(id) {
    const asked = await engine.dockerAsync([
      'exec',
      id,
      'node',
      '-e',
      "require('node:https').get('https://127.0.0.1:8443/healthz', { rejectUnauthorized: false }, (r) => { let b = ''; r.on('data', (c) => (b += c)); r.on('end', () => console.log(JSON.parse(b).in_flight)); })",
    ]);
    return Number(asked.stdout.trim()) || 0;
  }

  function rotate(base, key) {
    return post(base, key, 'rotate_pages', { angle: '90' }, smallInput);
  }

  async function post(base, key, action, fields, input, timeoutMs = 60_000, agent = undefined) {
    const { body, contentType } = await formBody(fields, input);
    return request(`${base}/v1/${action}`, { body, ca, agent, timeoutMs, headers: { 'content-type': contentType, 'x-api-key': key } });
  }
}

function judgePdf(qpdf, bytes, pages) {
  const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-compose-pdf-'));
  try {
    const file = join(dir, 'answer.pdf');
    writeFileSync(file, bytes);
    const checked = runSync(qpdf, ['--check', file]);
    if (checked.status !== 0) fail(`qpdf --check rejects the answer: ${(checked.stdout + checked.stderr).trim().split('\n').slice(-3).join(' ')}`);
    const counted = runSync(qpdf, ['--show-npages', file]).stdout.trim();
    if (counted !== String(pages)) fail(`the answer has ${counted} pages, not ${pages}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One HTTPS POST, the server's certificate checked against the throwaway one. */
function request(url, { body, ca, agent, timeoutMs, headers }) {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      { method: 'POST', ca, agent: agent ?? false, timeout: timeoutMs, headers: { 'content-length': body.length, ...headers } },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Calls `test` until it returns something truthy (returned) or the time is up (undefined). */
async function poll(ms, test) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await test();
    if (value) return value;
    if (Date.now() > until) return undefined;
    await sleep(200);
  }
}

function parseArgs(args) {
  const parsed = { report: undefined };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--report' && args[i + 1]) parsed.report = resolve(args[++i]);
    else {
      console.error('usage: node scripts/test-compose.mjs [--report FILE.json]');
      process.exit(2);
    }
  }
  return parsed;
}
