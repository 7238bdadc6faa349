/**
 * `pdfsvc serve` on the database, against the embedded store and a real
 * PostgreSQL: keys revoked, accounts suspended and keys limited to regions
 * take effect within 2 s through the command line while the server runs;
 * usage is counted exactly under concurrency and survives SIGTERM, as
 * `pdfsvc usage --format csv` prints it; two servers sharing PostgreSQL both
 * follow a revocation and their usage adds up; the README's first command
 * still prints a working development key.
 */
import { execa } from 'execa';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../src/server/accounts.js';
import type { RequestLogEntry } from '../../src/server/app.js';
import type { DatabaseConfig } from '../../src/store/database.js';
import type { Store } from '../../src/store/store.js';
import { fixture } from '../helpers/pdf-tools.js';
import { answersWithin, CLI, exitAfterMessage, multipart, send, serve, sleep, waitFor, type Served } from '../server/spawn.js';
import { BACKENDS, tempDir } from './backends.js';

function cleanEnv(): Record<string, string> {
  const home = tempDir();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('PDFSVC_')) env[name] = value;
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') };
}

const where = (config: DatabaseConfig) => (config.url ? ['--database-url', config.url] : ['--data-dir', config.dataDir!]);

/** Runs pdfsvc; fails the test on a non-zero exit. Returns standard output, trimmed. */
async function pdfsvc(config: DatabaseConfig, env: Record<string, string>, args: string[]): Promise<string> {
  const run = await execa('node', [CLI, ...args, ...where(config)], { reject: false, env, extendEnv: false });
  expect(run.exitCode, `pdfsvc ${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout.trim();
}

const PDF = fixture('pages-3.pdf');

async function rotate(base: string, key: string, angle = '90'): Promise<{ status: number; bytesIn: number; bytesOut: number }> {
  const { body, contentType } = await multipart({ file: PDF, angle });
  const reply = await send(`${base}/v1/rotate_pages`, { body, headers: { 'content-type': contentType, 'x-api-key': key } });
  return { status: reply.status, bytesIn: body.byteLength, bytesOut: reply.body.byteLength };
}

/** The problem detail of a refused request. */
async function detail(base: string, key: string): Promise<string> {
  const { body, contentType } = await multipart({ file: PDF, angle: '90' });
  const reply = await send(`${base}/v1/rotate_pages`, { body, headers: { 'content-type': contentType, 'x-api-key': key } });
  return (JSON.parse(reply.body.toString()) as { detail: string }).detail;
}

/** Waits until the key gets `status`: fails if a request sent more than 2 s after `since` (the change made) does not. */
function within2s(base: string, key: string, status: number, since: number, what: string): Promise<number> {
  return answersWithin(() => rotate(base, key), status, since, 2000, `${what} (${status}) within 2 s`);
}

function serveOn(config: DatabaseConfig, env: Record<string, string>, args: string[] = []): Promise<Served> {
  return serve({ keys: null, args: [...where(config), '--workers', '1', ...args], env, startTimeoutMs: 90_000 });
}

interface Sent {
  requests: number;
  ok: number;
  invalid: number;
  pages: number;
  bytesIn: number;
  bytesOut: number;
}

/** The CSV's rows for a key, summed over regions and days. */
function usageOf(csv: string, keyName: string): Sent {
  const [header, ...lines] = csv.split('\n');
  const columns = header.split(',');
  const sum: Sent = { requests: 0, ok: 0, invalid: 0, pages: 0, bytesIn: 0, bytesOut: 0 };
  for (const line of lines) {
    const row = Object.fromEntries(line.split(',').map((value, i) => [columns[i], value]));
    if (row.key !== keyName) continue;
    expect(Number(row.requests_5xx)).toBe(0);
    sum.requests += Number(row.requests);
    sum.ok += Number(row.requests_2xx);
    sum.invalid += Number(row.requests_4xx);
    sum.pages += Number(row.pages);
    sum.bytesIn += Number(row.bytes_in);
    sum.bytesOut += Number(row.bytes_out);
  }
  return sum;
}

function add(total: Sent, reply: { status: number; bytesIn: number; bytesOut: number }): void {
  total.requests++;
  if (reply.status === 200) {
    total.ok++;
    total.pages += 3;
  } else {
    expect(reply.status).toBe(400);
    total.invalid++;
  }
  total.bytesIn += reply.bytesIn;
  total.bytesOut += reply.bytesOut;
}

const month = () => new Date().toISOString().slice(0, 7);

describe.each(BACKENDS)('serve on $name', (backend) => {
  it('through the command line while serving: a new key, a region limit, a suspension, a revocation and an expiry take effect within 2 s', {
    timeout: 300_000,
  }, async () => {
    const config = await backend.fresh(true);
    const env = cleanEnv();
    await pdfsvc(config, env, ['accounts', 'create', 'acme', '--email', 'ops@acme.test', '--plan', 'business']);
    await pdfsvc(config, env, ['accounts', 'create', 'beta', '--email', 'ops@beta.test', '--plan', 'starter']);
    const acme = await pdfsvc(config, env, ['keys', 'create', '--account', 'acme', '--name', 'web']);
    const beta = await pdfsvc(config, env, ['keys', 'create', '--account', 'beta', '--name', 'app']);
    const served = await serveOn(config, env);
    try {
      expect(served.stdout()).not.toMatch(/X-API-Key/);
      expect((await rotate(served.base, acme)).status).toBe(200);
      expect((await rotate(served.base, beta)).status).toBe(200);

      // Made while the server runs (on the embedded store, through the server's socket).
      const eu = await pdfsvc(config, env, ['keys', 'create', '--account', 'acme', '--name', 'eu-only', '--regions', 'eu']);
      let since = Date.now();
      await within2s(served.base, eu, 403, since, 'a key limited to eu refused in the global region');
      expect(await detail(served.base, eu)).toMatch(/this key is limited to the eu region/);
      await pdfsvc(config, env, ['keys', 'set-regions', 'eu-only', 'global,eu', '--account', 'acme']);
      since = Date.now();
      await within2s(served.base, eu, 200, since, 'the key served once its regions include global');
      await pdfsvc(config, env, ['keys', 'set-regions', 'eu-only', 'eu', '--account', 'acme']);
      since = Date.now();
      await within2s(served.base, eu, 403, since, 'the key limited to eu again');

      await pdfsvc(config, env, ['accounts', 'suspend', 'beta']);
      since = Date.now();
      await within2s(served.base, beta, 403, since, "the suspended account's key refused");
      expect(await detail(served.base, beta)).toMatch(/the account beta is suspended/);
      await pdfsvc(config, env, ['accounts', 'resume', 'beta']);
      since = Date.now();
      await within2s(served.base, beta, 200, since, 'the resumed account served');

      await pdfsvc(config, env, ['keys', 'revoke', 'web', '--account', 'acme']);
      since = Date.now();
      await within2s(served.base, acme, 401, since, 'the revoked key refused');

      // Long enough to outlast the command itself (seconds at load 40: with 4 s the key could expire before it was
      // ever seen), and the key expires at most that long after the command's exit.
      const brief = await pdfsvc(config, env, ['keys', 'create', '--account', 'acme', '--name', 'brief', '--expires', '30s']);
      const briefMade = Date.now();
      await within2s(served.base, brief, 200, briefMade, 'the new key to work');
      await sleep(Math.max(0, briefMade + 30_000 - Date.now()));
      await within2s(served.base, brief, 401, briefMade + 30_000, 'the key expired');
      // The log names keys by id and name, never the key.
      for (const key of [acme, beta, eu, brief]) expect(served.stderr()).not.toContain(key);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  it('N concurrent requests from K keys are counted exactly, SIGTERM loses none, and `pdfsvc usage --format csv` says so', { timeout: 300_000 }, async () => {
    const config = await backend.fresh(true);
    const env = cleanEnv();
    await pdfsvc(config, env, ['accounts', 'create', 'acme', '--email', 'ops@acme.test', '--plan', 'business']);
    const keys = [
      { name: 'k1', key: await pdfsvc(config, env, ['keys', 'create', '--account', 'acme', '--name', 'k1']) },
      { name: 'k2', key: await pdfsvc(config, env, ['keys', 'create', '--account', 'acme', '--name', 'k2']) },
      { name: 'k3', key: await pdfsvc(config, env, ['keys', 'create', '--account', 'acme', '--name', 'k3']) },
    ];
    const served = await serveOn(config, env);
    const sent = new Map(keys.map((k) => [k.name, { requests: 0, ok: 0, invalid: 0, pages: 0, bytesIn: 0, bytesOut: 0 } as Sent]));
    try {
      // 8 requests per key at once, 2 of each 8 invalid (400): 24 in flight together.
      const replies = await Promise.all(
        keys.flatMap((k) => Array.from({ length: 8 }, (_, i) => rotate(served.base, k.key, i % 4 === 3 ? '45' : '90').then((reply) => ({ k, reply })))),
      );
      for (const { k, reply } of replies) add(sent.get(k.name)!, reply);
    } finally {
      // At once: the last counts are still in memory, and only the shutdown writes them.
      expect(await served.stop('SIGTERM')).toBe(0);
    }
    const csv = await pdfsvc(config, env, ['usage', '--month', month(), '--format', 'csv']);
    for (const k of keys) {
      expect(sent.get(k.name)).toMatchObject({ requests: 8, ok: 6, invalid: 2, pages: 18 });
      expect(usageOf(csv, k.name), k.name).toEqual(sent.get(k.name));
    }
  });

  if (backend.name === 'postgres') {
    it('two servers sharing PostgreSQL: a key revoked through the command line is refused by both within 2 s, and their usage adds up', {
      timeout: 300_000,
    }, async () => {
      const config = await backend.fresh();
      const env = cleanEnv();
      await pdfsvc(config, env, ['accounts', 'create', 'acme', '--email', 'ops@acme.test', '--plan', 'business']);
      const counted = await pdfsvc(config, env, ['keys', 'create', '--account', 'acme', '--name', 'counted']);
      const doomed = await pdfsvc(config, env, ['keys', 'create', '--account', 'acme', '--name', 'doomed']);
      const [one, two] = await Promise.all([serveOn(config, env), serveOn(config, env, ['--region', 'eu'])]);
      const total: Sent = { requests: 0, ok: 0, invalid: 0, pages: 0, bytesIn: 0, bytesOut: 0 };
      try {
        const replies = await Promise.all([
          ...Array.from({ length: 10 }, (_, i) => rotate(one.base, counted, i === 0 ? '45' : '90')),
          ...Array.from({ length: 7 }, () => rotate(two.base, counted)),
        ]);
        for (const reply of replies) add(total, reply);
        expect((await rotate(one.base, doomed)).status).toBe(200);
        expect((await rotate(two.base, doomed)).status).toBe(200);
        await pdfsvc(config, env, ['keys', 'revoke', 'doomed', '--account', 'acme']);
        const since = Date.now();
        await Promise.all([within2s(one.base, doomed, 401, since, 'server one refusing'), within2s(two.base, doomed, 401, since, 'server two refusing')]);
      } finally {
        expect(await one.stop()).toBe(0);
        expect(await two.stop()).toBe(0);
      }
      const csv = await pdfsvc(config, env, ['usage', '--month', month(), '--format', 'csv']);
      expect(total).toMatchObject({ requests: 17, ok: 16, invalid: 1, pages: 48 });
      expect(usageOf(csv, 'counted')).toEqual(total);
      // Each server counted under its own region.
      expect(csv).toMatch(/,counted,k_[0-9a-f]+,global,10,9,1,0,27,/);
      expect(csv).toMatch(/,counted,k_[0-9a-f]+,eu,7,7,0,0,21,/);
    });
  } else {
    it("the README's first command: a development key that works, a password link for the dev account, a new key at the next start", {
      timeout: 300_000,
    }, async () => {
      const env = cleanEnv();
      const first = await serve({ keys: null, env, args: ['--workers', '1'], startTimeoutMs: 90_000 });
      let firstKey: string;
      try {
        // The lines after the URL may come in a later chunk.
        await waitFor(() => /X-API-Key: .*\n[\s\S]*set-password\?token=\S+\n/.test(first.stdout()), 10_000, 'the development key and link');
        expect(first.stdout()).toMatch(/Accounts and keys: the embedded database in .*\/data\/pdfsvc\/db/);
        firstKey = /X-API-Key: (pdfsvc_\S+)/.exec(first.stdout())![1];
        // The link names this server's own dashboard (its port is only known once it listens).
        const link = /Dashboard of the account dev: set its password at (\S+)/.exec(first.stdout())![1];
        expect(link).toMatch(new RegExp(`^${first.base.replace(/[.]/g, '\\.')}/dashboard/set-password\\?token=[\\w-]{43}$`));
        expect((await fetch(link)).status).toBe(200);
        expect((await rotate(first.base, firstKey)).status).toBe(200);
      } finally {
        expect(await first.stop()).toBe(0);
      }
      const second = await serve({ keys: null, env, args: ['--workers', '1'], startTimeoutMs: 90_000 });
      try {
        await waitFor(() => /X-API-Key: \S+\n/.test(second.stdout()), 10_000, 'the development key');
        const secondKey = /X-API-Key: (pdfsvc_\S+)/.exec(second.stdout())![1];
        expect(secondKey).not.toBe(firstKey);
        expect((await rotate(second.base, secondKey)).status).toBe(200);
        expect((await rotate(second.base, firstKey)).status).toBe(401);
        // While serve holds the embedded database, the command line goes through it.
        const list = await execa('node', [CLI, 'accounts', 'list', '--json'], { env, extendEnv: false });
        expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'dev', plan: 'business', keys: 1 })]);
        // And asks the server where its dashboard is: the link points at this server's port, not the default 8080.
        const made = await execa('node', [CLI, 'accounts', 'create', 'acme', '--email', 'ops@acme.test', '--plan', 'free'], { env, extendEnv: false });
        expect(made.stdout.trim()).toMatch(new RegExp(`^${second.base.replace(/[.]/g, '\\.')}/dashboard/set-password\\?token=[\\w-]{43}$`));
        expect(made.stderr).not.toMatch(/guess/);
        expect((await fetch(made.stdout.trim())).status).toBe(200);
      } finally {
        expect(await second.stop()).toBe(0);
      }
    });
  }
});

describe('usage counting cost', () => {
  it('recording a request costs far under a millisecond at the median (no I/O on the request path)', async () => {
    const store = { addUsage: async () => {}, touchKeys: async () => {} } as unknown as Store;
    const meter = new UsageMeter(store, 'global', () => {});
    const key = { id: 'k_1', name: 'k', plan: 'business' as const, hash: '', created: '', accountId: 'a_1', accountName: 'a' };
    const entry: RequestLogEntry = {
      time: new Date().toISOString(),
      method: 'POST',
      path: '/v1/rotate_pages',
      status: 200,
      duration_ms: 1,
      bytes_in: 1000,
      bytes_out: 2000,
      region: 'global',
      pages: 3,
    };
    const times: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const started = performance.now();
      meter.record({ ...key, id: `k_${i % 50}` }, entry);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    expect(times[times.length / 2]).toBeLessThan(0.1);
    await meter.stop();
  });

  it('a flush that fails keeps its counts for the next one', async () => {
    const written: unknown[] = [];
    let fail = true;
    const store = {
      addUsage: async (deltas: unknown[]) => {
        if (fail) throw new Error('database down');
        written.push(...deltas);
      },
      touchKeys: async () => {},
    } as unknown as Store;
    const logged: string[] = [];
    const meter = new UsageMeter(store, 'eu', (event) => logged.push(event), 60_000);
    const key = { id: 'k_1', name: 'k', plan: 'business' as const, hash: '', created: '', accountId: 'a_1', accountName: 'a' };
    const entry = (status: number): RequestLogEntry => ({
      time: '2026-11-05T10:00:00.000Z',
      method: 'POST',
      path: '/v1/rotate_pages',
      status,
      duration_ms: 1,
      bytes_in: 10,
      bytes_out: 20,
      region: 'eu',
      pages: status === 200 ? 2 : undefined,
    });
    meter.record(key, entry(200));
    await meter.flush();
    meter.record(key, entry(400));
    meter.record(key, entry(503));
    meter.record(key, entry(499)); // nobody got that answer: not billed
    // Shutdown retries a database that does not answer, a second apart.
    setTimeout(() => (fail = false), 1500);
    await meter.stop();
    expect(logged).toEqual(['usage_flush_failed', 'usage_flush_recovered']);
    expect(written).toEqual([
      expect.objectContaining({
        keyId: 'k_1',
        accountId: 'a_1',
        region: 'eu',
        day: '2026-11-05',
        requests2xx: 1,
        requests4xx: 1,
        requests5xx: 1,
        pages: 2,
        bytesIn: 30,
        bytesOut: 60,
      }),
    ]);
  });

  it('counts a database never takes back are logged as lost at shutdown, with how many', async () => {
    const store = { addUsage: async () => Promise.reject(new Error('database down')), touchKeys: async () => {} } as unknown as Store;
    const logged: Array<[string, Record<string, unknown> | undefined]> = [];
    const meter = new UsageMeter(store, 'eu', (event, fields) => logged.push([event, fields]), 60_000);
    const key = { id: 'k_1', name: 'k', plan: 'business' as const, hash: '', created: '', accountId: 'a_1', accountName: 'a' };
    for (let i = 0; i < 3; i++)
      meter.record(key, {
        time: '2026-11-05T10:00:00.000Z',
        method: 'POST',
        path: '/v1/rotate_pages',
        status: 200,
        duration_ms: 1,
        bytes_in: 1,
        bytes_out: 1,
        region: 'eu',
        pages: 1,
      });
    await meter.stop(1);
    expect(logged.map(([event]) => event)).toEqual(['usage_flush_failed', 'usage_lost']);
    expect(logged[1][1]).toEqual({ rows: 1, requests: 3 });
  });
});

describe.each(BACKENDS)('start-up refusals on $name', (backend) => {
  /** A loopback port some other process holds for the test. */
  async function takenPort(): Promise<{ port: number; release: () => Promise<void> }> {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    return { port, release: () => new Promise((resolve) => holder.close(() => resolve())) };
  }

  // Before, the database (its pool, PGlite and timers) kept the refused process alive after the message.
  it.each([
    ['serve', (port: number) => ['serve', '--port', '0', '--workers', '1', '--metrics-port', String(port)], 'metrics-port'],
    ['dashboard', (port: number) => ['dashboard', '--port', String(port)], 'port'],
  ] as const)('%s refused after the database is open (a port taken) exits 2, naming the option', { timeout: 300_000 }, async (_, args, option) => {
    const config = await backend.fresh(true);
    const env = cleanEnv();
    const taken = await takenPort();
    try {
      const child = execa('node', [CLI, ...args(taken.port), ...where(config)], { reject: false, env, extendEnv: false });
      // The hang this guards against comes after the message (opening PGlite can take a minute at load 40).
      const { run, lingered } = await exitAfterMessage(child, 'taken', 30_000);
      expect(lingered, `still running 30 s after its message: ${run.stderr}`).toBe(false);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toContain(`pdfsvc: ${option}: port ${taken.port}`);
      expect(run.stderr).toContain('taken');
      expect(run.stdout).not.toContain('listening');
    } finally {
      await taken.release();
    }
  });
});
