// The live-server side of the fuzz tier (scripts/fuzz.mjs --server): a real
// `pdfsvc serve` started for the run, each mutant sent to it as a multipart
// request, and the server watched as a whole: its RSS (worker threads share
// the process) sampled every 100 ms, and its death noticed and answered with a
// new server. A case fails on a 5xx (a 503 included: a worker killed at its
// heap cap is a failure for a small input), no answer within the deadline, a
// reset, the server passing its RSS limit while the case was in flight, or the
// server dying under it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AdmZip from 'adm-zip';

/**
 * Starts `pdfsvc serve` from `root` with `workers` worker threads on a free
 * loopback port. Returns { base, key, pid, cases (in flight), rssKb(),
 * died (a promise of the exit), stop() }.
 */
export async function startFuzzServer({ root, workers, rssLimitKb, requestTimeoutMs }) {
  const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-fuzz-server-'));
  const cli = join(root, 'bin', 'pdfsvc.js');
  const keysFile = join(dir, 'keys.json');
  const key = execFileSync(process.execPath, [cli, 'keys', 'create', '--plan', 'business', '--name', 'fuzz', '--keys-file', keysFile], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--port', '0', '--workers', String(workers), '--keys-file', keysFile, '--request-timeout-ms', String(requestTimeoutMs)],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      // As deployed (deploy/Dockerfile): two malloc arenas keep the workers' freed memory reusable,
      // and large buffers are given back when freed.
      env: { ...process.env, MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
    },
  );
  // However the run ends (a crash of this script included), the server goes with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  // Keep only the tail of the request log: enough to say why a server died.
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const died = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      process.off('exit', killOnExit);
      resolve(signal ? `signal ${signal}` : `exit status ${code}`);
    }),
  );
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fuzz: the server did not start: ${stdout}${stderr}`)), 30_000);
    child.stdout.on('data', () => {
      const url = /https?:\/\/\S+/.exec(stdout)?.[0];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    died.then((how) => reject(new Error(`fuzz: the server stopped before listening (${how}): ${stderr}`)));
  });
  const server = {
    base,
    key,
    pid: child.pid,
    /** Cases in flight; each gets a `rss` failure when the server passes the limit while it runs. */
    cases: new Set(),
    peakRssKb: 0,
    died,
    stderr: () => stderr,
    rssKb: () => statusKb(child.pid, 'VmRSS'),
    async stop() {
      clearInterval(sampler);
      child.kill('SIGKILL');
      await died;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const sampler = setInterval(() => {
    const rss = server.rssKb();
    server.peakRssKb = Math.max(server.peakRssKb, rss);
    if (rss > rssLimitKb) for (const test of server.cases) test.rss ??= `the server's RSS reached ${Math.round(rss / 1024)} MiB while it ran`;
  }, 100);
  died.then(() => clearInterval(sampler));
  return server;
}

/** A field of /proc/<pid>/status in kB (0 once the process is gone). */
function statusKb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The action's values as a multipart form: bytes become files (repeated for arrays), the rest text. */
function formOf(values) {
  const form = new FormData();
  for (const [name, value] of Object.entries(values)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string') form.append(name, item);
      else form.append(name, new Blob([item]), `${name}.bin`);
    }
  }
  return form;
}

/**
 * Sends one case to `server`; the result has the shape of a library run:
 * outcome 'ok' (with `outputs`: the document, or a split's parts), 'refused' (a 400) or
 * 'error' (with a message), and `ms`.
 */
export async function postCase(server, test, values, deadlineMs) {
  const started = performance.now();
  const record = { rss: undefined };
  server.cases.add(record);
  const finish = (result) => {
    server.cases.delete(record);
    const ms = Math.round(performance.now() - started);
    if (record.rss && result.outcome !== 'error') return { outcome: 'error', message: record.rss, ms };
    return { ...result, ms };
  };
  const request = fetch(`${server.base}/v1/${test.action}`, {
    method: 'POST',
    body: formOf(values),
    // Split actions answer with a ZIP (fetch would say */*, which they refuse with 406).
    headers: { 'x-api-key': server.key, accept: 'application/zip' },
    signal: AbortSignal.timeout(deadlineMs),
  }).then(async (response) => ({ response, body: new Uint8Array(await response.arrayBuffer()) }));
  // A server that dies under the request fails it at once, whatever the socket does.
  const answer = await Promise.race([request, server.died.then((how) => ({ died: how }))]).catch((err) => ({ err }));
  if (answer.died) return finish({ outcome: 'error', message: `the server died (${answer.died}); its log ends:\n${server.stderr().slice(-1500)}` });
  if (answer.err) {
    const timeout = answer.err.name === 'TimeoutError' || answer.err.name === 'AbortError';
    return finish({ outcome: 'error', message: timeout ? `no answer within ${deadlineMs} ms` : `no answer: ${answer.err.cause?.code ?? answer.err.message}` });
  }
  const { response, body } = answer;
  if (response.status >= 500) {
    return finish({
      outcome: 'error',
      message: `status ${response.status}${response.headers.get('retry-after') ? ' with Retry-After' : ''}: ${Buffer.from(body).toString('utf8').slice(0, 500)}`,
    });
  }
  if (response.status === 400) return finish({ outcome: 'refused', message: Buffer.from(body).toString('utf8').slice(0, 500) });
  // Any other status is a request this harness got wrong or an answer the server should not give.
  if (response.status !== 200) return finish({ outcome: 'error', message: `status ${response.status}: ${Buffer.from(body).toString('utf8').slice(0, 500)}` });
  const single = response.headers.get('content-type')?.startsWith('application/pdf');
  // A split's parts are judged one by one, as a client unzips them.
  const outputs = single ? [body] : new AdmZip(Buffer.from(body)).getEntries().map((entry) => new Uint8Array(entry.getData()));
  return finish({ outcome: 'ok', outputs });
}
