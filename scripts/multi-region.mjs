#!/usr/bin/env node
/**
 * The multi-region deployment of deploy/compose.yaml without containers:
 * the same services as processes on this machine's loopback, for machines
 * with no Docker engine (and for test/deploy/multi-region.test.ts):
 *
 *   PostgreSQL          a throwaway cluster of Debian's postgresql (or --database-url)
 *   dashboard           pdfsvc dashboard
 *   global-1, global-2  pdfsvc serve --region global --https,
 *   nginx               in front of both: the Global endpoint (deploy/nginx-global.conf)
 *   eu                  pdfsvc serve --region eu --https
 *   us-hipaa            pdfsvc serve --region us-hipaa --https --audit-log database
 *
 * every server with the same self-signed certificate (--cert/--key) for
 * 127.0.0.1, as compose.yaml gives them the one in deploy/tls.
 *
 * Every pdfsvc process reads the database URL from PDFSVC_DATABASE_URL (not
 * its command line, which any user can read in ps). Everything lives in one
 * temporary directory (certificate, nginx's configuration and logs, the
 * cluster, each process's log) that is removed on stop.
 *
 * By hand: `node scripts/multi-region.mjs` (after `npm run build`) starts it
 * all, creates a Business account `demo` with a key, prints every base URL,
 * the key and the dashboard's password link, and stops everything on Ctrl-C.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { selfSignedCertificate } from './certificate.mjs';
import { freePort } from './check-list.mjs';
import { localNginxConf } from './local-nginx.mjs';
import { startCluster } from './postgres-cluster.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin', 'pdfsvc.js');
export const NGINX = '/usr/sbin/nginx';

/** The API servers, as in deploy/compose.yaml: every one serves TLS (the global ones to nginx). */
export const SERVERS = [
  { name: 'global-1', region: 'global' },
  { name: 'global-2', region: 'global' },
  { name: 'eu', region: 'eu' },
  { name: 'us-hipaa', region: 'us-hipaa' },
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET `url` (a self-signed certificate accepted); its status, or undefined when nothing answers. */
function status(url, timeoutMs = 2000) {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve) => {
    const request = client.get(url, { rejectUnauthorized: false, timeout: timeoutMs, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
}

/**
 * deploy/nginx-global.conf itself (the Global endpoint of deploy/compose.yaml:
 * TLS, least_conn, and a request whose server dies retried on the other one,
 * POST included; the file says why that is safe for pdfsvc), made runnable
 * here (scripts/local-nginx.mjs, as test/server/scale-out.test.ts does
 * deploy/nginx.conf): its paths in `dir`, listening on 127.0.0.1:`port`,
 * balancing over the loopback ports `upstreams`, in the foreground.
 */
export function globalNginxConf(options) {
  return localNginxConf('deploy/nginx-global.conf', options);
}

/** Environment for pdfsvc processes: none of the caller's PDFSVC_* (a PDFSVC_KEYS_FILE would win over the database). */
function pdfsvcEnv(databaseUrl, home) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('PDFSVC_')) env[name] = value;
  return { ...env, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), PDFSVC_DATABASE_URL: databaseUrl };
}

/**
 * Starts `command` and waits until its standard output matches `ready`
 * (whose first group is returned). Output goes to `log` (a file) and is kept
 * in memory for callers.
 */
function startProcess(name, command, args, { env, ready, logDir, timeoutMs }) {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const file = createWriteStream(join(logDir, `${name}.log`));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    file.write(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    file.write(chunk);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  void exited.then(() => file.end());
  const proc = {
    name,
    pid: child.pid,
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    /** Sends `signal`; waits for the exit (SIGKILL after `graceMs`). */
    async stop(signal = 'SIGTERM', graceMs = 20_000) {
      if (!proc.running) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  if (!ready) return { proc, started: Promise.resolve(undefined) };
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs / 1000} s:\n${stdout}\n${stderr}`)), timeoutMs);
    const check = () => {
      const match = ready.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${stdout}\n${stderr}`));
    });
  });
  return { proc, started };
}

/**
 * Starts the whole deployment; resolves once every process answers.
 * Options: databaseUrl (an empty PostgreSQL database to use; default: a
 * cluster of its own), logStatements (that cluster logs every statement it
 * receives, with its parameters), workers (per server, default 1),
 * startTimeoutMs.
 */
export async function startMultiRegion(options = {}) {
  if (!existsSync(join(ROOT, 'dist'))) throw new Error('dist/ is missing: run npm run build (npm ci does) first');
  if (!existsSync(NGINX)) throw new Error(`no ${NGINX}: apt-get install nginx`);
  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const workers = String(options.workers ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-multi-region-'));
  const logDir = join(dir, 'logs');
  mkdirSync(logDir);
  const processes = [];
  let postgres;
  const stop = async () => {
    // The API servers and nginx first (they finish their requests and write
    // their last usage and audit records), the dashboard, then the database.
    const [servers, rest] = [processes.filter((p) => p.name !== 'dashboard'), processes.filter((p) => p.name === 'dashboard')];
    await Promise.all(servers.map((p) => p.stop()));
    await Promise.all(rest.map((p) => p.stop()));
    try {
      postgres?.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    postgres = options.databaseUrl ? undefined : await startCluster({ database: 'pdfsvc', logStatements: options.logStatements });
    const databaseUrl = options.databaseUrl ?? postgres.url;
    const env = pdfsvcEnv(databaseUrl, join(dir, 'home'));
    // The tests' own certificate maker (scripts/certificate.mjs), for 127.0.0.1 and localhost.
    const tls = await selfSignedCertificate(dir, { keyType: 'ec', prefix: 'tls-', commonName: 'pdfsvc-multi-region' });
    // The schema first, by one process: the servers then start on a database that is ready.
    const migrated = spawnSync(process.execPath, [CLI, 'accounts', 'list'], { cwd: ROOT, env, encoding: 'utf8' });
    if (migrated.status !== 0) throw new Error(`cannot prepare the database: ${migrated.stderr}`);

    const launch = (name, args, ready) => {
      const { proc, started } = startProcess(name, process.execPath, [CLI, ...args], { env, ready, logDir, timeoutMs });
      processes.push(proc);
      return started;
    };
    const dashboardStarted = launch('dashboard', ['dashboard', '--host', '127.0.0.1', '--port', '0'], /pdfsvc dashboard on (https?:\/\/\S+?)\/?\s/);
    const serverStarted = SERVERS.map((server) => {
      const args = [
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--region',
        server.region,
        '--workers',
        workers,
        '--no-dashboard',
        '--https',
        '--cert',
        tls.cert,
        '--key',
        tls.key,
      ];
      if (server.region === 'us-hipaa') args.push('--audit-log', 'database');
      return launch(server.name, args, /pdfsvc listening on (https?:\/\/\S+)/);
    });
    const [dashboard, ...serverUrls] = await Promise.all([dashboardStarted, ...serverStarted]);
    const servers = Object.fromEntries(
      SERVERS.map((server, i) => [server.name, { ...server, url: serverUrls[i], process: processes.find((p) => p.name === server.name) }]),
    );

    const port = await freePort();
    const upstreams = [servers['global-1'], servers['global-2']].map((s) => Number(new URL(s.url).port));
    const conf = join(dir, 'nginx.conf');
    writeFileSync(conf, globalNginxConf({ dir, port, upstreams, cert: tls.cert, key: tls.key }));
    const nginx = startProcess('nginx', NGINX, ['-p', `${dir}/`, '-c', conf], { env: process.env, logDir, timeoutMs }).proc;
    processes.push(nginx);
    const global = `https://127.0.0.1:${port}`;
    for (const until = Date.now() + 15_000; (await status(`${global}/healthz`)) !== 200; await sleep(50)) {
      if (!nginx.running || Date.now() > until) throw new Error(`nginx did not answer on ${global}:\n${nginx.stderr()}`);
    }
    return {
      dir,
      databaseUrl,
      /** With its own cluster, PostgreSQL's log (every statement and its parameters with logStatements); gone after stop(). */
      postgresLog: postgres?.log,
      /** The environment pdfsvc commands need to reach the same database (`pdfsvc usage`, `pdfsvc keys …`). */
      env,
      certificate: tls.cert,
      dashboard,
      /** Each region's base URL: global is nginx, the Global endpoint. */
      endpoints: { global, eu: servers.eu.url, 'us-hipaa': servers['us-hipaa'].url },
      servers,
      nginx,
      nginxAccessLog: join(dir, 'nginx-access.log'),
      processes,
      stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}

/** Runs `pdfsvc <args>` against the deployment's database; its standard output, trimmed. */
export function pdfsvc(deployment, args) {
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, env: deployment.env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`pdfsvc ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  return run.stdout.trim();
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(
      'Usage: node scripts/multi-region.mjs [--database-url postgres://…]\n\nStarts PostgreSQL (unless given), the dashboard, two global servers behind nginx, one eu and one us-hipaa server on loopback; Ctrl-C stops them all.\n',
    );
    return;
  }
  const at = args.indexOf('--database-url');
  const deployment = await startMultiRegion({ databaseUrl: at >= 0 ? args[at + 1] : undefined });
  const link = pdfsvc(deployment, ['accounts', 'create', 'demo', '--email', 'demo@example.com', '--plan', 'business', '--dashboard-url', deployment.dashboard]);
  const key = pdfsvc(deployment, ['keys', 'create', '--account', 'demo', '--name', 'demo']);
  const lines = [
    'pdfsvc multi-region deployment on loopback (certificates are self-signed: curl -k):',
    `  Global endpoint (nginx → global-1, global-2): ${deployment.endpoints.global}`,
    `  eu:                                           ${deployment.endpoints.eu}`,
    `  us-hipaa:                                     ${deployment.endpoints['us-hipaa']}`,
    `  dashboard:                                    ${deployment.dashboard}/`,
    `  PostgreSQL:                                   ${deployment.databaseUrl}`,
    `  logs:                                         ${join(deployment.dir, 'logs')}`,
    '',
    `Business account demo, key: ${key}`,
    `Its dashboard password: ${link}`,
    '',
    `Try: curl -k -H "X-API-Key: ${key}" -F file=@some.pdf -F angle=90 ${deployment.endpoints.eu}/v1/rotate_pages -o rotated.pdf`,
    `     PDFSVC_DATABASE_URL=${deployment.databaseUrl} node bin/pdfsvc.js usage`,
    'Ctrl-C stops everything and removes its files.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('stopping…\n');
    await deployment.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  for (const proc of deployment.processes) {
    void proc.exited.then(({ code, signal }) => {
      if (!stopping) process.stderr.write(`${proc.name} exited (${code ?? signal}); see ${join(deployment.dir, 'logs', `${proc.name}.log`)}\n`);
    });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}
