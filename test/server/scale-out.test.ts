/**
 * Scale-out: deploy/nginx.conf itself, with its ports, paths and certificate
 * swapped for a temporary directory's (scripts/local-nginx.mjs), in front of two real `pdfsvc serve`
 * processes sharing one keys file. 200 requests through nginx all succeed,
 * and both processes take a share of them (least_conn, no sticky sessions).
 *
 * Needs nginx (/usr/sbin/nginx): see test/helpers/tools.ts for when its
 * absence skips and when it fails.
 */
import { execa, type ResultPromise } from 'execa';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localNginxConf, rewrite } from '../../scripts/local-nginx.mjs';
import { selfSignedCertificate } from '../helpers/certificate.js';
import { fixture, pageCount, pdfinfo, qpdfCheck } from '../helpers/pdf-tools.js';
import { haveTool } from '../helpers/tools.js';
import { freePort, keysFile, multipart, postAction, send, serve, tempDir, waitFor, type Reply, type Served } from './spawn.js';

const NGINX = '/usr/sbin/nginx';
const SKIP = !haveTool(NGINX, 'the scale-out tests', 'apt-get install -y nginx');

const REQUESTS = 200;
const CONCURRENCY = 8;

/** deploy/nginx.conf made runnable in `dir` (scripts/local-nginx.mjs), with a lower per-key rate. */
function testConfig(dir: string, port: number, upstreams: number[], cert: string, key: string): string {
  const file = 'deploy/nginx.conf';
  // The per-key rate at 10 a second instead of 100 (the burst of 200 kept): a client on a busy machine (a
  // second npm test beside this one) sent its flood at about 50 a second, which 100 a second let through.
  return rewrite(file, localNginxConf(file, { dir, port, upstreams, cert, key }), /rate=100r\/s;/g, 1, 'a per-key rate of 100r/s', () => 'rate=10r/s;');
}

describe.skipIf(SKIP)(`scale-out: deploy/nginx.conf (least_conn) in front of two pdfsvc processes${SKIP ? ` (skipped: no ${NGINX})` : ''}`, () => {
  let servers: Served[] = [];
  let nginx: ResultPromise | undefined;
  let nginxExit: Promise<{ exitCode?: number; stderr: unknown }> | undefined;
  let dir: string;
  let base: string;
  let key: string;
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

  beforeAll(async () => {
    dir = tempDir('pdfsvc-scale-out-');
    const keys = await keysFile(dir);
    key = keys.key;
    // One worker thread each: two processes on a small machine.
    servers = await Promise.all([0, 1].map(() => serve({ keys, args: ['--workers', '1'] })));
    const { cert, key: tlsKey } = await selfSignedCertificate(dir, { keyType: 'ec', prefix: 'nginx-', commonName: 'pdfsvc-scale-out-test' });
    const port = await freePort();
    const conf = join(dir, 'nginx.conf');
    writeFileSync(
      conf,
      testConfig(
        dir,
        port,
        servers.map((s) => Number(new URL(s.base).port)),
        cert,
        tlsKey,
      ),
    );
    const child = execa(NGINX, ['-p', `${dir}/`, '-c', conf], { reject: false, stdin: 'ignore' });
    nginx = child;
    let exited = false;
    nginxExit = child.then((result) => {
      exited = true;
      return result;
    });
    base = `https://127.0.0.1:${port}`;
    const errorLog = () => (existsSync(join(dir, 'nginx-error.log')) ? readFileSync(join(dir, 'nginx-error.log'), 'utf8') : '');
    await waitFor(
      async () => {
        if (exited) {
          const result = await nginxExit!;
          throw new Error(`nginx exited (${result.exitCode}) at start-up:\n${String(result.stderr)}\n${errorLog()}`);
        }
        const health = await send(`${base}/healthz`, { agent: false, timeoutMs: 2000 }).catch(() => undefined);
        return health?.status === 200;
      },
      10_000,
      `nginx on ${base} to answer /healthz`,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; nginx's error.log:\n${errorLog()}`);
    });
  });

  afterAll(async () => {
    agent.destroy();
    if (nginx && nginx.exitCode === null && nginx.signalCode === null) {
      nginx.kill('SIGTERM');
      const timer = setTimeout(() => nginx!.kill('SIGKILL'), 5000);
      await nginxExit;
      clearTimeout(timer);
    }
    await Promise.all(servers.map((s) => s.stop()));
  });

  const actionLines = (served: Served) => served.log().filter((line) => line.path === '/v1/rotate_pages');

  // The time-out is the harness's (30 s was too short beside a second npm test).
  it(`${REQUESTS} rotations through nginx, ${CONCURRENCY} at a time, all answered, by both processes`, { timeout: 300_000 }, async () => {
    const input = fixture('pages-3.pdf');
    const replies: Reply[] = new Array(REQUESTS);
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS) {
          const i = next++;
          replies[i] = await postAction({ base, key }, 'rotate_pages', { file: input, angle: '90' }, { agent });
        }
      }),
    );

    const statuses = new Map<number, number>();
    for (const reply of replies) statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    expect(Object.fromEntries(statuses), replies.find((r) => r.status !== 200)?.body.toString('utf8')).toEqual({ 200: REQUESTS });
    for (const reply of replies) {
      expect(reply.headers['content-type']).toBe('application/pdf');
      expect(reply.headers['x-region']).toBe('global');
      expect(Number(reply.headers['content-length'])).toBe(reply.body.byteLength);
      expect(reply.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }

    // Independent readers (qpdf, poppler) on every distinct output when the
    // outputs repeat, else on an evenly spread sample.
    const distinct = [...new Map(replies.map((r) => [createHash('sha256').update(r.body).digest('hex'), r.body])).values()];
    const sample = distinct.length <= 8 ? distinct : Array.from({ length: 8 }, (_, i) => distinct[Math.floor((i * distinct.length) / 8)]);
    for (const body of sample) {
      expect((await qpdfCheck(body)).exitCode).toBe(0);
      expect(await pageCount(body)).toBe(3);
      expect((await pdfinfo(body)).pages.map((p) => p.rotation)).toEqual([90, 90, 90]);
    }

    // Each process's JSON request log: both served some, together all of them,
    // each with the shared key (X-API-Key went through nginx).
    const counts = (await waitFor(
      () => {
        const lines = servers.map(actionLines);
        return lines.reduce((sum, l) => sum + l.length, 0) >= REQUESTS ? lines : undefined;
      },
      5000,
      'every request in the servers’ logs',
    ))!;
    const served = counts.map((lines) => lines.length);
    expect(served.reduce((a, b) => a + b, 0)).toBe(REQUESTS);
    // least_conn with equal servers: neither gets (almost) nothing.
    for (const n of served) expect(n, `requests per process: ${served.join(', ')}`).toBeGreaterThanOrEqual(REQUESTS / 10);
    for (const line of counts.flat()) {
      expect(line).toMatchObject({ method: 'POST', status: 200, region: 'global', key_name: 'tests' });
    }
  });

  it("a key past the per-key rate gets nginx's 429 as problem+json with Retry-After; other keys go on", async () => {
    // A well-formed key the processes do not know: each request is a quick 401 from a process, until nginx steps in.
    // The test's nginx allows 10 a second with a burst of 200 (testConfig); 1000 at once pass that, as long
    // as the client itself keeps up: one body encoded once, over 64 connections.
    const flood = `pdfsvc_${'f'.repeat(43)}`;
    const { body, contentType } = await multipart({ file: fixture('pages-1.pdf'), angle: '90' });
    const flooding = new https.Agent({ keepAlive: true, maxSockets: 64 });
    const replies = await Promise.all(
      Array.from({ length: 1000 }, () =>
        send(`${base}/v1/rotate_pages`, { body, headers: { 'content-type': contentType, 'x-api-key': flood }, agent: flooding }),
      ),
    ).finally(() => flooding.destroy());
    const limited = replies.filter((r) => r.status === 429);
    expect(limited.length, `statuses: ${[...new Set(replies.map((r) => r.status))].join(', ')}`).toBeGreaterThan(0);
    expect(replies.every((r) => r.status === 429 || r.status === 401)).toBe(true);
    expect(limited[0].headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited[0].headers['retry-after']).toBe('1');
    expect(JSON.parse(limited[0].body.toString('utf8'))).toMatchObject({ status: 429, title: 'Too many requests.', type: `${base}/v1/errors/429` });
    // The real key has its own budget.
    expect((await postAction({ base, key }, 'rotate_pages', { file: fixture('pages-1.pdf'), angle: '90' }, { agent })).status).toBe(200);
  });

  it('refusals pass through unchanged: an empty key is 401 problem+json with X-Region, from a process', async () => {
    const reply = await postAction(
      { base, key: '' },
      'rotate_pages',
      { file: fixture('pages-1.pdf'), angle: '90' },
      { agent: false, headers: { 'x-api-key': '' } },
    );
    expect(reply.status).toBe(401);
    expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(reply.headers['x-region']).toBe('global');
    // nginx forwards the client's Host, so the problem type names nginx's address, not a process's.
    expect(new URL(String(JSON.parse(reply.body.toString('utf8')).type)).host).toBe(new URL(base).host);
  });
});
