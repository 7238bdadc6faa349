/**
 * The multi-region deployment (issue 20), for real on loopback, as
 * scripts/multi-region.mjs starts it (deploy/compose.yaml's services as
 * processes): one PostgreSQL, the dashboard, two global servers behind nginx
 * (the Global endpoint), one eu and one us-hipaa server (TLS, audit log in
 * the database). Checked as a customer and an operator would:
 *
 * - each plan reaches exactly the regions the contract gives it (docs/contract.md, "HTTP") (Free: Global;
 *   Starter: Global, US, Europe; Business: every region), else 403;
 * - one key's usage in global-1, global-2 and eu adds up, in `pdfsvc usage`
 *   and on the dashboard's key page;
 * - a key revoked in the dashboard, and a suspended account, are refused by
 *   every server within 2 s;
 * - the us-hipaa server's audit records are in the database, one per request;
 * - a global server killed with a request in flight through nginx: the client
 *   still gets its 200 (nginx sends it to the other), and so does every
 *   request of a stream running meanwhile;
 * - after all of it, no table holds a document byte, a file name, a field
 *   value, a password or a key.
 *
 * Needs Debian's postgresql (a cluster of its own, logging every statement it
 * receives) and nginx: test/helpers/tools.ts says when their absence skips
 * and when it fails.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX, startMultiRegion, type Deployment } from '../../scripts/multi-region.mjs';
import {
  ALLOWED,
  DOCUMENT_TEXT,
  DOCUMENT_TRACES,
  formBody as multipart,
  patientRecord,
  planRefusal,
  REGIONS,
  WATERMARK,
} from '../../scripts/region-checks.mjs';
import { openStore } from '../../src/store/store.js';
import { pageCount, qpdfCheck } from '../helpers/pdf-tools.js';
import { postgresBin } from '../../scripts/postgres-cluster.mjs';
import { haveTool } from '../helpers/tools.js';
import { HttpClient } from '../dashboard/harness.js';
import { answersWithin, CLI, exitAfterMessage, ROOT, send, sleep, waitFor, type Reply } from '../server/spawn.js';

// PostgreSQL's own programs, not only a server somewhere: the test starts a cluster that logs every statement.
const SKIP =
  !haveTool(postgresBin() ?? '/usr/lib/postgresql/<version>/bin', 'the multi-region tests', 'apt-get install -y postgresql') ||
  !haveTool(NGINX, 'the multi-region tests', 'apt-get install -y nginx');

/** Values that must never reach the database, besides DOCUMENT_TRACES: each is sent in requests below. */
const DOCUMENT_PASSWORD = 'Zq9-pw-never-stored';
const DASHBOARD_PASSWORD = 'correct horse battery staple 42';
let input: Uint8Array;

/** Requests sent per base URL (the audit check counts those to us-hipaa). */
const sent = new Map<string, number>();

const formBody = (fields: Record<string, string>, file = input) => multipart(fields, file);

/** POSTs an action; counts it in `sent`. */
async function post(base: string, key: string, action: string, fields: Record<string, string> = {}, file = input, agent?: https.Agent): Promise<Reply> {
  const { body, contentType } = await formBody(fields, file);
  sent.set(base, (sent.get(base) ?? 0) + 1);
  return send(`${base}/v1/${action}`, { body, agent, headers: { 'content-type': contentType, 'x-api-key': key } });
}

const rotate = (base: string, key: string) => post(base, key, 'rotate_pages', { angle: '90' });

/** The answer is a valid PDF of `pages` pages (qpdf and pdfinfo, not pdf-lib). */
async function expectPdf(reply: Reply, pages: number, password?: string): Promise<void> {
  expect(reply.headers['content-type']).toBe('application/pdf');
  const check = await qpdfCheck(reply.body, password);
  expect(check.exitCode, check.output).toBe(0);
  expect(await pageCount(reply.body, password)).toBe(pages);
}

describe.skipIf(SKIP)('multi-region deployment on loopback (scripts/multi-region.mjs)', () => {
  let deployment: Deployment;
  /** Every base URL a request can reach: the three regions' endpoints and each global server directly. */
  let everyServer: Array<[string, string]>;
  const keys: Record<string, string> = {};
  const keyIds: Record<string, string> = {};
  /** Each account's one-time password token (the link `pdfsvc accounts create` prints). */
  const tokens: Record<string, string> = {};

  /** `pdfsvc …` on the deployment's database; standard output. */
  async function cli(args: string[]): Promise<string> {
    const run = await execa(process.execPath, [CLI, ...args], { cwd: ROOT, env: deployment.env, extendEnv: false, reject: false });
    expect(run.exitCode, `pdfsvc ${args.join(' ')}: ${run.stderr}`).toBe(0);
    return run.stdout.trim();
  }

  /** SQL on the shared database (what an operator's psql shows). */
  async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: deployment.databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    input = await patientRecord();
    // A cluster of its own that logs every statement it receives: the last test reads what was sent, not only what was kept.
    deployment = await startMultiRegion({ logStatements: true, startTimeoutMs: 240_000 });
    everyServer = [
      ['the Global endpoint (nginx)', deployment.endpoints.global],
      ['global-1', deployment.servers['global-1'].url],
      ['global-2', deployment.servers['global-2'].url],
      ['eu', deployment.endpoints.eu],
      ['us-hipaa', deployment.endpoints['us-hipaa']],
    ];
    // Accounts and keys made in the database directly (pdfsvc accounts/keys create do the same, a process each: slow on a busy machine).
    const store = await openStore({ url: deployment.databaseUrl });
    try {
      for (const [name, plan] of [
        ['clinic', 'business'],
        ['startup', 'starter'],
        ['hobby', 'free'],
        ['lapsed', 'business'],
      ]) {
        const account = await store.createAccount({ name, email: `${name}@example.com`, plan });
        tokens[name] = (await store.createPasswordToken(account.id)).token;
      }
      // `probe` last: once a server knows it, it knows every key made before.
      for (const [account, name] of [
        ['clinic', 'plans'],
        ['clinic', 'usage'],
        ['clinic', 'revoked'],
        ['clinic', 'stream'],
        ['startup', 'plans'],
        ['hobby', 'plans'],
        ['lapsed', 'plans'],
        ['clinic', 'probe'],
      ]) {
        const { key, record } = await store.createKey({ account, name });
        keys[`${account}/${name}`] = key;
        keyIds[`${account}/${name}`] = record.id;
      }
    } finally {
      await store.close();
    }
    // Every server follows the database (within 2 s): a request with the key and no form is 415 once the key is known, 401 before.
    const probe = async (base: string) => {
      sent.set(base, (sent.get(base) ?? 0) + 1);
      return (await send(`${base}/v1/rotate_pages`, { body: Buffer.from('x'), headers: { 'content-type': 'text/plain', 'x-api-key': keys['clinic/probe'] } }))
        .status;
    };
    // A harness wait, not the 2 s bound (tested below, timed from the change): at load 40 a probe alone can take seconds.
    await Promise.all(everyServer.map(([name, base]) => waitFor(async () => (await probe(base)) === 415, 120_000, `the new keys known to ${name}`)));
  }, 300_000);

  afterAll(async () => {
    await deployment?.stop();
  }, 120_000);

  it('each plan reaches exactly its regions; others answer 403 naming the plan', { timeout: 300_000 }, async () => {
    for (const [account, plan] of [
      ['clinic', 'business'],
      ['startup', 'starter'],
      ['hobby', 'free'],
    ]) {
      for (const region of REGIONS) {
        const reply = await rotate(deployment.endpoints[region], keys[`${account}/plans`]);
        if (ALLOWED[plan as keyof typeof ALLOWED].includes(region)) {
          expect(reply.status, `${plan} key on ${region}: ${reply.body.toString().slice(0, 300)}`).toBe(200);
          expect(reply.headers['x-region']).toBe(region);
          await expectPdf(reply, 3);
        } else {
          expect(reply.status, `${plan} key on ${region}`).toBe(403);
          expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(JSON.parse(reply.body.toString()).detail).toContain(planRefusal(plan, region));
        }
      }
    }
  });

  it('one key used in global-1, global-2 and eu: the usage adds up in pdfsvc usage and on the dashboard', { timeout: 300_000 }, async () => {
    const key = keys['clinic/usage'];
    const plan: Array<[string, string, number]> = [
      ['global-1', deployment.servers['global-1'].url, 2],
      ['global-2', deployment.servers['global-2'].url, 3],
      ['eu', deployment.endpoints.eu, 4],
    ];
    for (const [name, base, count] of plan) {
      for (let i = 0; i < count; i++) expect((await rotate(base, key)).status, name).toBe(200);
    }
    const bodyBytes = (await formBody({ angle: '90' })).body.byteLength;
    type Row = { key: string; region: string; requests: number; requests_2xx: number; pages: number; bytes_in: number };
    // Each server writes its counts every second; each look is a `pdfsvc usage` process (seconds at load).
    const rows = await waitFor(
      async () => {
        const report = JSON.parse(await cli(['usage', '--format', 'json', '--account', 'clinic'])) as { rows: Row[] };
        const mine = report.rows.filter((r) => r.key === 'usage');
        const sum = (region: string) => mine.filter((r) => r.region === region).reduce((n, r) => n + r.requests, 0);
        return sum('global') === 5 && sum('eu') === 4 ? mine : undefined;
      },
      120_000,
      'the usage of global-1, global-2 and eu in pdfsvc usage',
    );
    const total = (field: keyof Row) => rows.reduce((n, r) => n + Number(r[field]), 0);
    expect(total('requests_2xx')).toBe(9);
    expect(total('pages')).toBe(27);
    // Multipart boundaries differ in length by a few bytes between requests.
    expect(Math.abs(total('bytes_in') - 9 * bodyBytes)).toBeLessThan(9 * 8);

    // The account's owner sees the same count on the key's page.
    const owner = new HttpClient(new URL(deployment.dashboard).origin);
    expect((await owner.setPassword(tokens.clinic, DASHBOARD_PASSWORD)).status).toBeLessThan(400);
    const page = (await owner.get(`/dashboard/keys/${keyIds['clinic/usage']}`)).body.toString();
    expect(/<dt>Requests this month<\/dt><dd>(\d+)<\/dd>/.exec(page)?.[1], 'the key page of the dashboard').toBe('9');
  });

  it('a key revoked in the dashboard, and a suspended account, are refused by every server within 2 s', { timeout: 300_000 }, async () => {
    const key = keys['clinic/revoked'];
    for (const [name, base] of everyServer) expect((await rotate(base, key)).status, `before revoking, on ${name}`).toBe(200);
    const owner = new HttpClient(new URL(deployment.dashboard).origin);
    expect((await owner.signIn('clinic@example.com', DASHBOARD_PASSWORD)).status).toBeLessThan(400);
    const id = keyIds['clinic/revoked'];
    const csrf = await owner.csrf(`/dashboard/keys/${id}/revoke`);
    const revoked = await owner.post(`/dashboard/keys/${id}/revoke`, { csrf, confirm: 'yes' });
    expect(revoked.status, revoked.body.toString().slice(0, 300)).toBeLessThan(400);
    // The revocation is in the database once the dashboard has answered: the 2 s run from here.
    const revokedAt = Date.now();
    await Promise.all(
      everyServer.map(([name, base]) => answersWithin(() => rotate(base, key), 401, revokedAt, 2000, `the revoked key refused (401) by ${name} within 2 s`)),
    );

    const lapsed = keys['lapsed/plans'];
    for (const [name, base] of everyServer) expect((await rotate(base, lapsed)).status, `before suspending, on ${name}`).toBe(200);
    await cli(['accounts', 'suspend', 'lapsed']);
    // Likewise from the command's exit (its start, a Node process opening the database, can take seconds at load).
    const suspendedAt = Date.now();
    await Promise.all(
      everyServer.map(([name, base]) =>
        answersWithin(() => rotate(base, lapsed), 403, suspendedAt, 2000, `the suspended account refused (403) by ${name} within 2 s`),
      ),
    );
    const refused = await rotate(deployment.endpoints.eu, lapsed);
    expect(JSON.parse(refused.body.toString()).detail).toMatch(/the account lapsed is suspended/);
  });

  it('us-hipaa: an audit record in PostgreSQL for every request it answered, with counters only', { timeout: 300_000 }, async () => {
    const hipaa = deployment.endpoints['us-hipaa'];
    const key = keys['clinic/plans'];
    const encrypted = await post(hipaa, key, 'add_password', { password: DOCUMENT_PASSWORD });
    expect(encrypted.status).toBe(200);
    await expectPdf(encrypted, 3, DOCUMENT_PASSWORD);
    const marked = await post(hipaa, key, 'add_text_watermark', { line_1: WATERMARK });
    expect(marked.status).toBe(200);
    await expectPdf(marked, 3);

    type AuditRow = {
      region: string;
      key_id: string | null;
      account: string | null;
      action: string;
      method: string;
      status: number;
      bytes_in: string;
      bytes_out: string;
      pages: number | null;
    };
    // Written every 200 ms.
    const rows = await waitFor(
      async () => {
        const found = await sql<AuditRow>('select region, key_id, account, action, method, status, bytes_in, bytes_out, pages from request_audit order by id');
        return found.length >= sent.get(hipaa)! ? found : undefined;
      },
      60_000,
      `${sent.get(hipaa)} audit records in request_audit`,
    );
    // One record per request sent to us-hipaa, and none from another region.
    expect(rows).toHaveLength(sent.get(hipaa)!);
    expect(new Set(rows.map((r) => r.region))).toEqual(new Set(['us-hipaa']));
    const byKey = (name: string) => rows.filter((r) => r.key_id === keyIds[name]);
    // The plans test: the Business key's rotation (200) and the Starter and Free keys' refusals (403, no pages).
    expect(byKey('clinic/plans').map((r) => [r.action, r.status, r.pages, r.account])).toEqual([
      ['rotate_pages', 200, 3, 'clinic'],
      ['add_password', 200, 3, 'clinic'],
      ['add_text_watermark', 200, 3, 'clinic'],
    ]);
    for (const name of ['startup/plans', 'hobby/plans']) expect(byKey(name).map((r) => [r.action, r.status, r.pages])).toEqual([['rotate_pages', 403, null]]);
    const encryptedRow = byKey('clinic/plans')[1];
    expect(Number(encryptedRow.bytes_out)).toBe(encrypted.body.byteLength);
    // The revoked key: 200 until the server saw the revocation (within 2 s), then 401 as a key no longer known: no key id, no account.
    expect(byKey('clinic/revoked').length).toBeGreaterThan(0);
    expect(byKey('clinic/revoked').every((r) => r.status === 200)).toBe(true);
    // The suspended account's key is still known: its 403s name it.
    expect(byKey('lapsed/plans').some((r) => r.status === 403 && r.account === 'lapsed')).toBe(true);
    expect(rows.filter((r) => r.key_id === null).every((r) => r.status === 401 && r.account === null)).toBe(true);
    expect(rows.every((r) => r.method === 'POST')).toBe(true);
  });

  it('a us-hipaa server whose audit destination cannot be opened exits 2 saying why, its database connections let go', { timeout: 300_000 }, async () => {
    const child = execa(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--region', 'us-hipaa', '--https', '--no-dashboard', '--audit-log', 'file:/nonexistent-dir/audit.jsonl'],
      { cwd: ROOT, env: deployment.env, extendEnv: false, reject: false },
    );
    // The hang this guards against (the database connections keeping the process alive) comes after the message.
    const { run, lingered } = await exitAfterMessage(child, 'cannot open', 20_000);
    expect(lingered, `the server hung after refusing to start: ${run.stderr}`).toBe(false);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/audit-log: cannot open \/nonexistent-dir\/audit\.jsonl for appending/);
  });

  it('a global server killed with a request in flight: nginx sends it to the other, and no request of a stream fails', { timeout: 300_000 }, async () => {
    const key = keys['clinic/stream'];
    const global = deployment.endpoints.global;
    const servers = [deployment.servers['global-1'], deployment.servers['global-2']];
    // Each server's actions in flight (its /healthz counts them).
    const inFlight = async (url: string) => {
      const health = await send(`${url}/healthz`, { timeoutMs: 30_000 }).catch(() => undefined);
      return health?.status === 200 ? (JSON.parse(health.body.toString()) as { in_flight: number }).in_flight : 0;
    };
    // Seconds of work even on a fast, idle machine: the kill lands while it runs.
    const PAGES = 2000;
    const heavyInput = await patientRecord(PAGES);
    const heavy = post(global, key, 'add_text_watermark', { line_1: WATERMARK }, heavyInput);
    // Nothing else is in flight now: the server with a request at work has the heavy one.
    const busy = await waitFor(
      async () => {
        for (const server of servers) if ((await inFlight(server.url)) > 0) return server;
        return undefined;
      },
      120_000,
      'the heavy request at work on a global server',
    );
    // A stream of small requests through nginx meanwhile, two at a time, until a second after the kill.
    const agent = new https.Agent({ keepAlive: true, maxSockets: 2 });
    const stream: Reply[] = [];
    let streaming = true;
    const failed = (err: Error) => ({ status: 0, headers: {}, body: Buffer.from(err.message) }) as Reply;
    const streamDone = Promise.all(
      Array.from({ length: 2 }, async () => {
        while (streaming) stream.push(await post(global, key, 'rotate_pages', { angle: '90' }, input, agent).catch(failed));
      }),
    );
    await sleep(100);
    expect(await inFlight(busy.url), 'the heavy request still at work when the server is killed').toBeGreaterThan(0);
    await busy.process.stop('SIGKILL');
    const heavyReply = await heavy.catch(failed);
    await sleep(1000);
    streaming = false;
    await streamDone;
    agent.destroy();

    expect(heavyReply.status, heavyReply.body.toString().slice(0, 300)).toBe(200);
    await expectPdf(heavyReply, PAGES);
    expect(stream.length).toBeGreaterThan(2);
    expect(stream.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body.toString().slice(0, 200)}`)).toEqual([]);
    // nginx's access log: the heavy request went to the killed server, failed there, and was answered 200 by the other.
    const killedPort = new URL(busy.url).port;
    const retried = readFileSync(deployment.nginxAccessLog, 'utf8')
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('POST /v1/add_text_watermark 200 ') &&
          new RegExp(`upstream=127\\.0\\.0\\.1:${killedPort}, 127\\.0\\.0\\.1:\\d+ upstream_status=502, 200`).test(line),
      );
    expect(retried, readFileSync(deployment.nginxAccessLog, 'utf8').split('\n').slice(-20).join('\n')).toHaveLength(1);
  });

  it('afterwards, no table holds, and no statement sent to PostgreSQL carried, a document byte, a file name, a field value, a password or a key', {
    timeout: 120_000,
  }, async () => {
    const tables = (
      await sql<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'")
    ).map((t) => t.table_name);
    expect(tables).toEqual(expect.arrayContaining(['accounts', 'api_keys', 'usage_daily', 'request_audit', 'audit_events']));
    let everything = '';
    for (const table of tables) {
      const rows = await sql<{ row: string }>(`select t::text as row from "${table}" t`);
      everything += rows.map((r) => r.row).join('\n');
    }
    // Something was stored: the check would pass on an empty database.
    expect(everything).toContain('rotate_pages');
    expect(everything).toContain('clinic@example.com');
    const forbidden = [...DOCUMENT_TRACES, DOCUMENT_PASSWORD, DASHBOARD_PASSWORD, ...Object.values(keys)];
    for (const text of forbidden) expect(everything.toLowerCase().includes(text.toLowerCase()), `the database holds ${JSON.stringify(text)}`).toBe(false);
    // Every statement the servers, the dashboard and the commands sent, with its parameters.
    const statements = readFileSync(deployment.postgresLog!, 'utf8');
    expect(statements).toMatch(/insert into request_audit/);
    expect(statements).toMatch(/parameters: \$1 = /);
    for (const text of forbidden)
      expect(statements.toLowerCase().includes(text.toLowerCase()), `a statement sent to PostgreSQL carried ${JSON.stringify(text)}`).toBe(false);
    // And the input really carried them: the check looks for what was sent.
    const { stdout } = await execa('pdftotext', ['-', '-'], { input: Buffer.from(input) });
    expect(stdout).toContain(DOCUMENT_TEXT);
  });
});
