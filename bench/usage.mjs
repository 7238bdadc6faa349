// What usage counting costs: rotate_pages of the 10-page document through
// `pdfsvc serve` at concurrency 8, keys and counting in the embedded
// database and (with --database-url) in PostgreSQL, against a keys file
// (no counting), as today. The rounds interleave the servers (file,
// embedded, postgres, file, …) so that the shared machine's load falls on
// all alike; the result is each one's median requests per second, as a ratio
// to the keys file. The bound: at most 5 % fewer.
//
//   node bench/usage.mjs                                   # 3 rounds of 10 s per server
//   node bench/usage.mjs --database-url postgres://…/db    # PostgreSQL too (an empty database)
//   node bench/usage.mjs --rounds 5 --duration 20 --workers 2
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDocuments } from './make-documents.mjs';

const CLI = fileURLToPath(new URL('../bin/pdfsvc.js', import.meta.url));
// As in serve.mjs: autocannon's response-body strings would take the load generator's CPU from the servers.
const Queue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js');
if (typeof Queue?.prototype?.addBody === 'function') Queue.prototype.addBody = function addBody() {};

const options = { rounds: 3, duration: 10, workers: 2, databaseUrl: undefined };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const name = args[i].replace(/^--/, '').replace(/-(.)/g, (_, c) => c.toUpperCase());
  if (!(name in options)) throw new Error(`unknown option ${args[i]}`);
  options[name] = name === 'databaseUrl' ? args[++i] : Number(args[++i]);
}

const work = mkdtempSync(join(tmpdir(), 'pdfsvc-bench-usage-'));
const env = { ...process.env, HOME: work, XDG_CONFIG_HOME: join(work, 'config'), XDG_DATA_HOME: join(work, 'data') };
for (const name of Object.keys(env)) if (name.startsWith('PDFSVC_')) delete env[name];
const pdfsvc = (argv) => execFileSync(process.execPath, [CLI, ...argv], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

/** Each server: the options that name where its keys are, and a key made there. */
function setUp(name, where) {
  if (name === 'keys file') return { name, where, key: pdfsvc(['keys', 'create', '--plan', 'business', '--name', 'bench', ...where]) };
  pdfsvc(['accounts', 'create', 'bench', '--email', 'bench@localhost', '--plan', 'business', ...where]);
  return { name, where, key: pdfsvc(['keys', 'create', '--account', 'bench', '--name', 'bench', ...where]) };
}

function start(server) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--workers', String(options.workers), ...server.where], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /https?:\/\/\S+/.exec(out)?.[0];
      if (url) resolve({ ...server, url, child });
    });
    child.once('exit', (code) => reject(new Error(`${server.name}: serve exited (${code}) before listening`)));
  });
}

async function stop(running) {
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGTERM');
  await exited;
}

function cannon(running, request, duration = options.duration) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${running.url}/v1/rotate_pages`,
        method: 'POST',
        headers: { 'content-type': request.contentType, 'x-api-key': running.key },
        body: request.body,
        connections: 8,
        duration,
        timeout: 30,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    instance.on('error', () => {});
  });
}

const [doc10] = await ensureDocuments({ names: ['doc-10p'] });
const form = new FormData();
form.append('file', new Blob([readFileSync(doc10.path)], { type: 'application/pdf' }), 'doc.pdf');
form.append('angle', '90');
const encoded = new Response(form);
const request = { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') };

const servers = [setUp('keys file', ['--keys-file', join(work, 'keys.json')]), setUp('embedded', ['--data-dir', join(work, 'db')])];
if (options.databaseUrl) servers.push(setUp('postgres', ['--database-url', options.databaseUrl]));
const rates = new Map(servers.map((s) => [s.name, []]));
try {
  for (let round = 1; round <= options.rounds; round++) {
    for (const server of servers) {
      const running = await start(server);
      try {
        await cannon(running, request, 2); // warm-up (workers, caches), not counted
        const result = await cannon(running, request);
        const ok = Object.entries(result.statusCodeStats ?? {})
          .filter(([code]) => code.startsWith('2'))
          .reduce((sum, [, { count }]) => sum + count, 0);
        if (result.non2xx || result.errors) throw new Error(`${server.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
        rates.get(server.name).push(ok / result.duration);
        process.stderr.write(`round ${round} ${server.name}: ${(ok / result.duration).toFixed(2)} req/s\n`);
      } finally {
        await stop(running);
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(rates.get('keys file'));
process.stdout.write(
  `rotate_pages 90, doc-10p, concurrency 8, --workers ${options.workers}, ${options.rounds} rounds of ${options.duration} s (median req/s)\n`,
);
for (const [name, values] of rates) {
  const rate = median(values);
  process.stdout.write(
    `${name.padEnd(10)} ${rate.toFixed(2).padStart(8)} req/s  ${((rate / base) * 100).toFixed(1).padStart(6)} % of the keys file  (${values.map((v) => v.toFixed(1)).join(', ')})\n`,
  );
}
