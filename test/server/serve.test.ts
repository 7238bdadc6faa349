/**
 * `pdfsvc serve` as a real process on loopback: start-up refusals, TLS (self-
 * signed and given), limits against large and slow clients on a real socket,
 * /healthz staying fast while the worker pool is busy, the JSON request log,
 * and a clean shutdown that loses no accepted request.
 */
import { selfSignedCertificate } from '../helpers/certificate.js';
import { execa } from 'execa';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, pageCount } from '../helpers/pdf-tools.js';
import { buildPdf, setStartxref, simpleDoc } from '../helpers/raw-pdf.js';
import { bigDocument } from './big-document.js';
import { CLI, keysFile, postAction, send, serve, sleep, tempDir, waitFor, type Served } from './spawn.js';

const LOADER = new URL('./post-load.mjs', import.meta.url).pathname;
const json = (body: Buffer) => JSON.parse(body.toString('utf8')) as Record<string, unknown>;
const hostPort = (base: string) => {
  const url = new URL(base);
  return { host: url.hostname, port: Number(url.port) };
};

describe('start-up refusals (exit status 2, the option named)', () => {
  it.each([
    [['--host', '0.0.0.0'], /host: 0\.0\.0\.0 is not a loopback address; plain HTTP would expose API keys.*--https/],
    [['--region', 'mars'], /region/],
    [['--cert', 'cert.pem'], /cert: --cert and --key need --https/],
    [['--https', '--cert', 'cert.pem'], /--cert and --key go together/],
    [['--max-upload-bytes', 'lots'], /max-upload-bytes: must be a whole number/],
  ])('serve %j', async (args, message) => {
    const { path } = await keysFile();
    const run = await execa('node', [CLI, 'serve', '--port', '0', '--keys-file', path, ...args], { reject: false, timeout: 20_000 });
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).not.toMatch(/listening/);
  });
});

describe('the port', () => {
  it('binds exactly the port given: a taken one is exit status 2 naming --port, never another port', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { path } = await keysFile();
      const run = await execa('node', [CLI, 'serve', '--port', String(port), '--keys-file', path], { reject: false, timeout: 20_000 });
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`port: port ${port} on 127\\.0\\.0\\.1 is taken.*--port`));
      expect(run.stdout).not.toMatch(/listening/);
    } finally {
      taken.close();
    }
  });

  it('serves on the free port it was given, and --port 0 picks one and prints it', async () => {
    const free = net.createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const given = await serve({ args: ['--port', String(port)] });
    try {
      expect(given.base).toBe(`http://127.0.0.1:${port}`);
      expect((await send(`${given.base}/healthz`)).status).toBe(200);
    } finally {
      await given.stop();
    }
    const picked = await serve();
    try {
      expect(hostPort(picked.base).port).toBeGreaterThan(0);
      expect((await send(`${picked.base}/healthz`)).status).toBe(200);
    } finally {
      await picked.stop();
    }
  });
});

describe('TLS', () => {
  const peerCertificate = (base: string) =>
    new Promise<tls.PeerCertificate>((resolve, reject) => {
      const socket = tls.connect({ ...hostPort(base), rejectUnauthorized: false }, () => {
        resolve(socket.getPeerCertificate());
        socket.end();
      });
      socket.on('error', reject);
    });

  it('--https without a certificate serves TLS with a self-signed one, and prints its fingerprint', async () => {
    const served = await serve({ args: ['--https'] });
    try {
      expect(served.base).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const health = await send(`${served.base}/healthz`);
      expect(health.status).toBe(200);
      const peer = await peerCertificate(served.base);
      expect(peer.subject.CN).toBe(peer.issuer.CN);
      expect(peer.subjectaltname).toMatch(/IP Address:127\.0\.0\.1/);
      expect(served.stdout()).toContain(`SHA-256 fingerprint: ${peer.fingerprint256}`);
      // Plain HTTP to the TLS port: a 400 in plain HTTP saying to use https (Node alone would close the connection unanswered).
      const plain = await send(`${served.base.replace('https:', 'http:')}/healthz`, { timeoutMs: 5000 });
      expect(plain.status).toBe(400);
      expect(plain.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(plain.body.toString())).toMatchObject({ status: 400, detail: expect.stringContaining('HTTPS only') });
      expect((await send(`${served.base}/healthz`)).status).toBe(200);
      const rotated = await postAction(served, 'rotate_pages', { file: fixture('pages-3.pdf'), angle: '90' });
      expect(rotated.status).toBe(200);
      expect(await pageCount(rotated.body)).toBe(3);
    } finally {
      await served.stop();
    }
  });

  it("on 0.0.0.0, the banner links to localhost and the machine's addresses, which answer, never to 0.0.0.0", async () => {
    // Nothing configured: the embedded database, its development key and password link.
    const home = tempDir();
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('PDFSVC_')) env[name] = value;
    Object.assign(env, { HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') });
    const served = await serve({
      keys: null,
      env,
      args: ['--https', '--host', '0.0.0.0', '--workers', '1', '--metrics-port', '0', '--metrics-host', '0.0.0.0'],
      // Harness waits: opening the embedded database and making a certificate took over 90 s at load 40 on 2 cores.
      startTimeoutMs: 240_000,
    });
    try {
      await waitFor(() => /Key dashboard: .*\n/.test(served.stdout()), 60_000, 'the dashboard line');
      const port = new URL(served.base).port;
      const [listening, metrics, ...rest] = served.stdout().split('\n');
      // The first URL stays the address bound (DECISIONS 4); the same line says where to reach it.
      expect(listening).toMatch(
        new RegExp(`^pdfsvc listening on https://0\\.0\\.0\\.0:${port} \\(region global\\); reach it at https://localhost:${port} on this machine`),
      );
      // The metrics listener likewise, and Prometheus scrapes it at the address given.
      const scrape = /^Prometheus metrics on http:\/\/0\.0\.0\.0:(\d+)\/metrics; scrape it at (http:\/\/localhost:\1\/metrics) on this machine/.exec(metrics!);
      expect(scrape, metrics).not.toBeNull();
      const scraped = await send(scrape![2]!);
      expect(scraped.status).toBe(200);
      expect(scraped.body.toString('utf8')).toContain('pdfsvc_requests_total');
      expect(rest.join('\n')).not.toContain('0.0.0.0');
      const link = /Dashboard of the account dev: set its password at (\S+)/.exec(served.stdout())![1];
      expect(link).toMatch(new RegExp(`^https://localhost:${port}/dashboard/set-password\\?token=[\\w-]{43}$`));
      expect((await send(link)).status).toBe(200);
      const dashboards = /^Key dashboard: (\S+)(?: \(from other machines: (.*)\))?$/m.exec(served.stdout())!;
      expect(dashboards[1]).toBe(`https://localhost:${port}/dashboard/`);
      // Each address opens the same page (the link is good until used).
      const token = new URL(link).search;
      for (const url of [dashboards[1], ...(dashboards[2]?.split(' or ') ?? [])]) expect((await send(`${url}set-password${token}`)).status, url).toBe(200);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  it('--https --cert --key serves the given certificate, which a client that trusts it verifies', async () => {
    const dir = tempDir();
    const { cert, key } = await selfSignedCertificate(dir);
    const served = await serve({ args: ['--https', '--cert', cert, '--key', key] });
    try {
      const expected = new X509Certificate(readFileSync(cert)).fingerprint256;
      expect((await peerCertificate(served.base)).fingerprint256).toBe(expected);
      const status = await new Promise<number>((resolve, reject) => {
        https
          .get(`${served.base}/healthz`, { ca: readFileSync(cert), rejectUnauthorized: true, agent: false }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
          .on('error', reject);
      });
      expect(status).toBe(200);
    } finally {
      await served.stop();
    }
  });

  it('a missing certificate file is a start-up error naming --cert', async () => {
    const { path } = await keysFile();
    const run = await execa(
      'node',
      [CLI, 'serve', '--port', '0', '--keys-file', path, '--https', '--cert', '/nonexistent/cert.pem', '--key', '/nonexistent/key.pem'],
      { reject: false, timeout: 20_000 },
    );
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/cert: cannot read \/nonexistent\/cert\.pem: ENOENT/);
  });
});

describe('limits on a real socket', () => {
  let served: Served;
  beforeAll(async () => {
    // A short deadline, so that the slow-client tests are quick; long enough that a small document's work
    // is done within it at the workers' lower priority on a machine that is running two test suites and
    // more (1500 ms and 5000 ms were not).
    served = await serve({ args: ['--max-upload-bytes', '200000', '--request-timeout-ms', '15000'] });
  });
  afterAll(() => served.stop());

  /** Raw bytes out, everything the server says until it closes (or the time is up). */
  const raw = (chunks: string[], waitMs: number) =>
    new Promise<{ text: string; closedAfterMs: number | undefined }>((resolve, reject) => {
      const started = performance.now();
      const socket = net.connect(hostPort(served.base));
      let text = '';
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ text, closedAfterMs: undefined });
      }, waitMs);
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ text, closedAfterMs: performance.now() - started });
      });
      socket.on('error', reject);
      socket.write(chunks.join(''));
    });

  const head = (length: number | 'chunked') =>
    [
      'POST /v1/rotate_pages HTTP/1.1',
      'Host: 127.0.0.1',
      `X-API-Key: ${served.key}`,
      'Content-Type: multipart/form-data; boundary=xyz',
      length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`,
      '',
      '',
    ].join('\r\n');

  it('answers 413 to an announced oversize body at once, without waiting for it', async () => {
    const { text, closedAfterMs } = await raw([head(50_000_000)], 5000);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/content-type: application\/problem\+json/i);
    expect(text).toMatch(/larger than this server accepts \(200000 bytes\)/);
    expect(closedAfterMs).toBeLessThan(2000);
  });

  it('answers 413 to a chunked body once it passes the limit, long before the client is done sending', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    let sent = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${served.base}/v1/rotate_pages`, {
        method: 'POST',
        agent: false,
        headers: { 'x-api-key': served.key, 'content-type': 'multipart/form-data; boundary=xyz', 'transfer-encoding': 'chunked' },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      // Writing on after the answer fails once the server closes; the answer is what counts.
      request.on('error', (err) => (sent > 0 ? undefined : reject(err)));
      const pump = () => {
        // Up to 20 MB, unless the answer comes first.
        if (sent >= 20_000_000 || request.destroyed) return;
        sent += chunk.byteLength;
        request.write(chunk, () => setImmediate(pump));
      };
      pump();
    });
    expect(status).toBe(413);
    expect(sent).toBeLessThan(20_000_000);
  });

  it('closes a connection whose headers never finish', async () => {
    const { closedAfterMs } = await raw(['POST /v1/rotate_pages HTTP/1.1\r\nHost: 127.0.0.1\r\n'], 20_000);
    expect(closedAfterMs).toBeDefined();
    // The 10 s header deadline (LIMITS.headersTimeoutMs), Node's check every second, and some room.
    expect(closedAfterMs!).toBeLessThan(13_500);
  });

  it('answers 408 with a problem object to a body that stops arriving, and closes', async () => {
    const { text, closedAfterMs } = await raw([head(100_000), '--xyz\r\nContent-Disposition: form-data; name="angle"\r\n\r\n90\r\n'], 25_000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toMatch(/did not arrive within 15000 ms/);
    expect(closedAfterMs).toBeDefined();
  });

  it('still serves normal requests', async () => {
    const reply = await postAction(served, 'reverse_pages', { file: fixture('pages-3.pdf') });
    expect(reply.status).toBe(200);
    expect(await pageCount(reply.body)).toBe(3);
  });
});

/**
 * A bare Node HTTP server in a process of its own, doing nothing but answer:
 * the control for a latency measured on a machine that other work (other
 * test files, a second `npm test`) keeps busy. Its answers wait for the CPU
 * as long as the server's main thread would with no work of its own.
 */
async function controlServer(): Promise<{ base: string; stop: () => void }> {
  const script = `const s = require('node:http').createServer((q, r) => r.end('{}')).listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child = execa(process.execPath, ['-e', script], { reject: false });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
  return { base: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];

describe('work off the event loop', () => {
  // Retried: other test files share the 2 cores, and a p99 just over its bound has been seen under that load.
  // Work on the event loop would fail every try (its p99 is seconds). The time-out is the harness's: six
  // 30 MB rotations took over the default minute beside a second npm test.
  it('answers /healthz within 50 ms at the 99th percentile while every worker is busy with large documents (beyond what the machine makes a bare server wait)', {
    retry: 2,
    timeout: 300_000,
  }, async () => {
    const big = await bigDocument(300, 100_000); // ~30 MB
    const bigPath = join(tempDir(), 'big.pdf');
    writeFileSync(bigPath, big);
    const served = await serve({ args: ['--workers', '2'] });
    const control = await controlServer();
    try {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const controlAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      await send(`${served.base}/healthz`, { agent });
      await send(control.base, { agent: controlAgent });
      let busy = true;
      const load = execa('node', [LOADER, `${served.base}/v1/rotate_pages`, served.key, bigPath, '6', 'angle=90']).finally(() => (busy = false));
      // Sample from when both workers are at work (the uploads have arrived)
      // until the last answer is out.
      const busyWorkers = async () => (json((await send(`${served.base}/healthz`, { agent })).body) as { workers: { busy: number } }).workers.busy;
      await waitFor(async () => (await busyWorkers()) === 2, 30_000, 'both workers busy');
      // Each /healthz is paired with a request to the control at the same moment,
      // and the bound is 50 ms beyond the control's longest wait: on an idle
      // machine that is about a millisecond, and the bound the 50 ms of the
      // README; on a busy one (two npm test runs and more: a bare server's p99
      // was 240 to 440 ms) the wait for the CPU is the machine's, not pdfsvc's.
      // Work on the event loop would still show: a health check waits for a
      // 30 MB document's work, seconds, more than 1% of the time.
      const latencies: number[] = [];
      const controlLatencies: number[] = [];
      const timed = async (url: string, options: Parameters<typeof send>[1], into: number[]) => {
        const started = performance.now();
        const reply = await send(url, options);
        into.push(performance.now() - started);
        return reply;
      };
      while (busy) {
        const [reply] = await Promise.all([
          timed(`${served.base}/healthz`, { agent }, latencies),
          timed(control.base, { agent: controlAgent }, controlLatencies),
        ]);
        expect(reply.status).toBe(200);
        await sleep(10);
      }
      const replies = JSON.parse((await load).stdout) as Array<{ status: number; bytes: number }>;
      agent.destroy();
      controlAgent.destroy();
      expect(replies.map((r) => r.status)).toEqual(Array(6).fill(200));
      expect(replies.every((r) => r.bytes > big.byteLength * 0.9)).toBe(true);
      latencies.sort((a, b) => a - b);
      controlLatencies.sort((a, b) => a - b);
      const p99 = percentile(latencies, 0.99);
      const controlP99 = percentile(controlLatencies, 0.99);
      const controlMax = controlLatencies.at(-1)!;
      expect(latencies.length, 'health checks sampled while busy').toBeGreaterThanOrEqual(20);
      console.info(
        `/healthz while both workers were busy: ${latencies.length} checks, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; ` +
          `a bare server beside it: p50 ${percentile(controlLatencies, 0.5).toFixed(1)} ms, p99 ${controlP99.toFixed(1)} ms, longest ${controlMax.toFixed(1)} ms`,
      );
      expect(
        p99,
        `p99 of ${latencies.length} health checks (ms), beside a bare server's longest wait of ${controlMax.toFixed(1)} ms; all: ${latencies.map((l) => l.toFixed(1)).join(' ')}`,
      ).toBeLessThan(50 + controlMax);
    } finally {
      control.stop();
      await served.stop();
    }
  });
});

describe('the request log (standard error, one JSON line per request)', () => {
  it('has time, method, path, status, duration, bytes, region and the key id and name, never the key', async () => {
    const served = await serve({ args: ['--region', 'eu'] });
    try {
      const input = fixture('pages-3.pdf');
      expect((await postAction(served, 'rotate_pages', { file: input, angle: '90' })).status).toBe(200);
      expect((await postAction({ ...served, key: `${served.key}x` }, 'rotate_pages', { file: input, angle: '90' })).status).toBe(401);
      expect((await send(`${served.base}/healthz`)).status).toBe(200);
      const lines = await waitFor(() => {
        const found = served.log().filter((line) => 'status' in line);
        return found.length >= 3 && found;
      });
      const [ok, unauthorized, health] = lines;
      expect(ok).toMatchObject({
        method: 'POST',
        path: '/v1/rotate_pages',
        status: 200,
        region: 'eu',
        key_id: expect.stringMatching(/^k_/),
        key_name: 'tests',
      });
      expect(typeof ok.time === 'string' && !Number.isNaN(Date.parse(ok.time))).toBe(true);
      expect(ok.duration_ms).toBeGreaterThan(0);
      expect(ok.bytes_in).toBeGreaterThan(input.byteLength);
      expect(ok.bytes_out).toBeGreaterThan(1000);
      expect(unauthorized).toMatchObject({ status: 401, path: '/v1/rotate_pages' });
      expect(unauthorized.key_id).toBeUndefined();
      expect(health).toMatchObject({ method: 'GET', path: '/healthz', status: 200 });
      expect(served.stderr()).not.toContain(served.key);
      expect(served.stdout()).not.toContain(served.key);
      // The document's text never reaches the log.
      expect(served.stderr()).not.toMatch(/PDFSVC PAGE/);
    } finally {
      await served.stop();
    }
  });

  it('carries the warnings of damage an input was read through (from the worker thread), and the answer is 200', async () => {
    const served = await serve();
    try {
      const broken = setStartxref(buildPdf([{ objects: simpleDoc(['LOGGED WARNING PAGE']).objects }]), 99999999);
      expect((await postAction(served, 'rotate_pages', { file: broken, angle: '90' })).status).toBe(200);
      const [line] = await waitFor(() => {
        const found = served.log().filter((entry) => entry.path === '/v1/rotate_pages');
        return found.length >= 1 && found;
      });
      expect(line.warnings).toEqual([expect.stringMatching(/^file: its cross-reference table .* rebuilt/)]);
      expect(served.stderr()).not.toMatch(/LOGGED WARNING PAGE/);
    } finally {
      await served.stop();
    }
  });
});

describe('clean shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: stops accepting, finishes every accepted request, exits 0', async (signal) => {
    const big = await bigDocument(100, 100_000); // ~10 MB: each request takes a while on one worker
    const served = await serve({ args: ['--workers', '1'] });
    const inFlight = Array.from({ length: 3 }, () => postAction(served, 'rotate_pages', { file: big, angle: '180' }, { agent: false, timeoutMs: 120_000 }));
    await waitFor(
      async () => (json((await send(`${served.base}/healthz`, { agent: false })).body).in_flight as number) === 3,
      30_000,
      'three requests in flight',
    );
    const exited = served.stop(signal);
    await waitFor(() => served.log().some((line) => line.event === 'stopping'), 10_000, 'the stopping event');
    // A new connection is refused at once while the accepted ones go on.
    await expect(send(`${served.base}/healthz`, { agent: false, timeoutMs: 5000 })).rejects.toThrow(/ECONNREFUSED/);
    const replies = await Promise.all(inFlight);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const reply of replies) expect(await pageCount(reply.body)).toBe(100);
    expect(await exited).toBe(0);
    const events = served.log().flatMap((line) => (line.event ? [line.event] : []));
    expect(events).toEqual(['listening', 'stopping', 'stopped']);
    expect(
      served
        .log()
        .filter((line) => line.path === '/v1/rotate_pages')
        .map((line) => line.status),
    ).toEqual([200, 200, 200]);
  });
});

describe('keys take effect at once', () => {
  const status = async (served: Served, key: string) =>
    (await postAction({ base: served.base, key }, 'rotate_pages', { file: fixture('pages-1.pdf'), angle: '90' })).status;
  /**
   * Whether the server knows the key, by a request it refuses before any work:
   * a known key gets past the key check to a 415 (no form), an unknown one a 401.
   * What is timed is the server taking up the keys file, not an action's work,
   * which on a busy machine took seconds by itself; `status` then checks the
   * key does the work.
   */
  const known = async (served: Served, key: string) => {
    const reply = await send(`${served.base}/v1/rotate_pages`, {
      method: 'POST',
      body: new Uint8Array(0),
      headers: { 'x-api-key': key, 'content-type': 'text/plain' },
    });
    if (reply.status !== 415 && reply.status !== 401) throw new Error(`expected 415 or 401, got ${reply.status}: ${reply.body.toString('utf8')}`);
    return reply.status === 415;
  };

  it('a key created or revoked with `pdfsvc keys` works or stops working within 2 s, without a restart; a broken file keeps the last good set', async () => {
    const served = await serve();
    try {
      const keysPath = served.keysPath;
      expect(await status(served, served.key)).toBe(200);
      const created = await execa('node', [CLI, 'keys', 'create', '--plan', 'business', '--name', 'second', '--keys-file', keysPath]);
      const second = created.stdout.trim();
      const started = performance.now();
      await waitFor(() => known(served, second), 5000, 'the new key to be known');
      expect(performance.now() - started).toBeLessThan(2500);
      expect(await status(served, second)).toBe(200);

      await execa('node', [CLI, 'keys', 'revoke', 'tests', '--keys-file', keysPath]);
      await waitFor(async () => !(await known(served, served.key)), 5000, 'the revoked key to stop working');
      expect(await status(served, served.key)).toBe(401);
      expect(await status(served, second)).toBe(200);

      // A broken file: the last good set stays (the second key works, the revoked one does not), and the log says why.
      const good = readFileSync(keysPath, 'utf8');
      writeFileSync(keysPath, '{ "version": 1, "keys": [ this is not JSON');
      await waitFor(() => served.log().some((line) => line.event === 'keys_reload_failed'), 5000, 'the failed reload to be logged');
      expect(await status(served, second)).toBe(200);
      expect(await status(served, served.key)).toBe(401);
      const failed = served.log().find((line) => line.event === 'keys_reload_failed')!;
      expect(failed).toMatchObject({ error: 'not valid JSON', kept: 1 });

      // SIGHUP reads the file again too.
      writeFileSync(keysPath, good);
      process.kill(served.pid, 'SIGHUP');
      await waitFor(() => served.log().some((line) => line.event === 'keys_reloaded' && line.reason === 'SIGHUP'), 5000, 'the SIGHUP reload');
      expect(await status(served, second)).toBe(200);
      expect(served.stderr()).not.toContain(second);
    } finally {
      await served.stop();
    }
  });

  it('two processes sharing one keys file (a Secret mount, a shared volume) both follow a create and a revoke', async () => {
    const keys = await keysFile();
    const servers = await Promise.all([serve({ keys }), serve({ keys })]);
    try {
      const created = await execa('node', [CLI, 'keys', 'create', '--plan', 'starter', '--name', 'shared', '--keys-file', keys.path]);
      const shared = created.stdout.trim();
      const started = performance.now();
      await Promise.all(servers.map((served) => waitFor(() => known(served, shared), 5000, 'the new key to be known on both')));
      expect(performance.now() - started).toBeLessThan(2500);
      for (const served of servers) expect(await status(served, shared)).toBe(200);
      await execa('node', [CLI, 'keys', 'revoke', 'shared', '--keys-file', keys.path]);
      await Promise.all(servers.map((served) => waitFor(async () => !(await known(served, shared)), 5000, 'the revoked key to stop on both')));
      for (const served of servers) expect(await status(served, shared)).toBe(401);
      // The other key of the file was never affected.
      for (const served of servers) expect(await status(served, keys.key)).toBe(200);
    } finally {
      await Promise.all(servers.map((served) => served.stop()));
    }
  });
});

describe('Prometheus metrics (--metrics-port)', () => {
  it('counts requests by action, status and region on a listener of its own, with latency, bytes, pool and memory; no key', async () => {
    const served = await serve({ args: ['--metrics-port', '0'] });
    try {
      // The line after "listening", which serve() waits for: it may arrive a moment later.
      const url = await waitFor(() => /Prometheus metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(served.stdout())?.[1], 5000, 'the metrics URL');
      for (let i = 0; i < 2; i++) expect((await postAction(served, 'rotate_pages', { file: fixture('pages-1.pdf'), angle: '90' })).status).toBe(200);
      expect((await postAction(served, 'rotate_pages', { file: fixture('pages-1.pdf'), angle: '45' })).status).toBe(400);
      const text = (await send(url!)).body.toString('utf8');
      expect(text).toContain('pdfsvc_requests_total{action="rotate_pages",status="200",region="global"} 2');
      expect(text).toContain('pdfsvc_requests_total{action="rotate_pages",status="400",region="global"} 1');
      expect(text).toMatch(/pdfsvc_request_duration_seconds_count\{action="rotate_pages"\} 3/);
      expect(text).toMatch(/pdfsvc_bytes_in_total\{action="rotate_pages"\} [1-9]\d*/);
      expect(text).toMatch(/pdfsvc_bytes_out_total\{action="rotate_pages"\} [1-9]\d*/);
      // One page each time the rotation was done; the refused request read none.
      expect(text).toContain('pdfsvc_pages_processed_total{action="rotate_pages"} 2');
      for (const name of [
        'pdfsvc_workers_busy',
        'pdfsvc_queue_length',
        'pdfsvc_requests_in_flight',
        'pdfsvc_uploads_in_flight',
        'pdfsvc_memory_budget_in_use_bytes',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(text).toMatch(new RegExp(`^${name} `, 'm'));
      }
      expect(text).not.toContain(served.key);
      expect(text).not.toContain('key_name');
      // Not on the API's port.
      expect((await send(`${served.base}/metrics`)).status).toBe(404);
    } finally {
      await served.stop();
    }
  });
});
