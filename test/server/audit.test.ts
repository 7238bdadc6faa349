/**
 * The audit log's pieces on their own: destinations as the operator writes
 * them, the action named in the server's own words, the record's fields, and
 * the us-hipaa region's start-up rules against a given runtime. The real
 * server is tested in us-hipaa.test.ts.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actions } from '../../src/actions/index.js';
import type { RequestLogEntry } from '../../src/server/app.js';
import { auditRecord, databaseLog, endpointOf, openAuditLog, refusedRecord, type AuditRecord } from '../../src/server/audit.js';
import { openStore } from '../../src/store/store.js';
import { regionRefusals, type Runtime } from '../../src/server/us-hipaa.js';
import { fixture } from '../helpers/pdf-tools.js';
import { formRequest, inProcessApp, keys } from './harness.js';
import { tempDir } from './spawn.js';

const NAMES = new Set(actions.map((action) => action.name));
const entry = (fields: Partial<RequestLogEntry>): RequestLogEntry => ({
  time: '2026-01-01T00:00:00.000Z',
  method: 'POST',
  path: '/v1/rotate_pages',
  status: 200,
  duration_ms: 12.5,
  bytes_in: 1000,
  bytes_out: 900,
  region: 'us-hipaa',
  ...fields,
});

describe('--audit-log destinations', () => {
  it.each([
    ['syslog', /unknown destination "syslog"; use stderr or file:/],
    ['stderr:x', /stderr takes nothing after it/],
    ['file', /file needs a path after the colon/],
    ['file:', /file needs a path after the colon/],
    ['file:/nonexistent-dir/audit.jsonl', /cannot open \/nonexistent-dir\/audit\.jsonl for appending \(ENOENT\)/],
    // Without a context: a server whose keys come from a keys file has no database to write to.
    ['database', /database writes to the accounts database, and this server reads its keys from a keys file/],
    ['database:postgres://elsewhere', /database takes nothing after it/],
  ])('%s is refused, saying why', async (spec, message) => {
    const refused = await openAuditLog(spec).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(message);
    expect(Object.keys((refused as unknown as { errors: object }).errors)).toEqual(['audit-log']);
  });

  it('file:PATH appends one JSON line per record, to a file only its owner can read', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const first = await openAuditLog(`file:${path}`);
    expect(first.destination).toBe(`file:${path}`);
    first.write(auditRecord(entry({}), NAMES));
    await first.close();
    const second = await openAuditLog(`file:${path}`);
    second.write(auditRecord(entry({ status: 401 }), NAMES));
    await second.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.status)).toEqual([200, 401]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('a destination that fails calls its failure listener once, with the error', async () => {
    const log = await openAuditLog('file:/dev/full');
    const failures: string[] = [];
    log.onFailure((error) => failures.push(error.code ?? '?'));
    log.write(auditRecord(entry({}), NAMES));
    log.write(auditRecord(entry({}), NAMES));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(failures).toEqual(['ENOSPC']);
    await log.close();
  });

  it('database writes the records to the table request_audit of the accounts database, as they were', async () => {
    const store = await openStore({ dataDir: 'memory://' });
    try {
      const log = await openAuditLog('database', { database: store });
      expect(log.destination).toBe('database');
      const records = [
        auditRecord(entry({ key_id: 'k_1', account: 'clinic', pages: 3 }), NAMES),
        auditRecord(entry({ status: 401, path: '/v1/jane-doe.pdf' }), NAMES),
        refusedRecord('us-hipaa', 400, 'ERR_SSL_WRONG_VERSION_NUMBER'),
      ];
      for (const record of records) log.write(record);
      await log.close();
      const rows = await store.db.query<Record<string, unknown>>('select * from request_audit order by id');
      expect(rows.map(({ id: _id, time, ...rest }) => ({ ...rest, time: (time as Date).toISOString(), log: 'audit' }))).toEqual(records);
    } finally {
      await store.close();
    }
  });

  it('database keeps records the database refuses and writes them once it answers again; refused too long, the log fails', async () => {
    const written: AuditRecord[] = [];
    let refusals = 2;
    const flaky = databaseLog(
      {
        appendRequestAudit: async (batch) =>
          refusals-- > 0 ? Promise.reject(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })) : void written.push(...batch),
      },
      10,
      5000,
    );
    const failures: string[] = [];
    flaky.onFailure((error) => failures.push(error.code ?? '?'));
    flaky.write(auditRecord(entry({}), NAMES));
    flaky.write(auditRecord(entry({ status: 403 }), NAMES));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await flaky.close();
    expect(written.map((r) => r.status)).toEqual([200, 403]);
    expect(failures).toEqual([]);

    const down = databaseLog({ appendRequestAudit: () => Promise.reject(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })) }, 10, 50);
    down.onFailure((error) => failures.push(error.code ?? '?'));
    down.write(auditRecord(entry({}), NAMES));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await down.close();
    expect(failures).toEqual(['ECONNREFUSED']);
  });
});

describe('the audit record', () => {
  it("names the action in the server's own words, never a path the client made up", () => {
    expect(endpointOf('/v1/rotate_pages', NAMES)).toBe('rotate_pages');
    expect(endpointOf('/healthz', NAMES)).toBe('healthz');
    expect(endpointOf('/v1/openapi.json', NAMES)).toBe('openapi');
    expect(endpointOf('/docs', NAMES)).toBe('docs');
    expect(endpointOf('/v1/errors/404', NAMES)).toBe('error_page');
    expect(endpointOf('/v1/jane_doe_hiv_results', NAMES)).toBe('unknown');
    expect(endpointOf('/v1/Jane-Doe.pdf', NAMES)).toBe('unknown');
    expect(endpointOf('/', NAMES)).toBe('unknown');
  });

  it('names the action a request was routed to, also through the forms of its path the router takes', async () => {
    const logged: RequestLogEntry[] = [];
    const app = inProcessApp('us-hipaa', { log: (line) => logged.push(line) });
    for (const path of ['/v1/rotate_pages', '/v1/rotate_pages/', '/v1/rotate%5Fpages']) {
      const answer = await app.fetch(
        formRequest(
          `http://pdfsvc.test${path}`,
          [
            ['file', fixture('pages-3.pdf')],
            ['angle', '90'],
          ],
          { 'X-API-Key': keys.business },
        ),
      );
      expect(answer.status, path).toBe(200);
    }
    expect(logged.map((line) => auditRecord(line, NAMES)).map((record) => `${record.action} ${record.status} ${record.pages}`)).toEqual([
      'rotate_pages 200 3',
      'rotate_pages 200 3',
      'rotate_pages 200 3',
    ]);
  });

  it('holds time, key id, account, action, status, bytes and pages, and nothing else', () => {
    const record = auditRecord(entry({ key_id: 'k_1', key_name: 'clinic', pages: 3, warnings: ['file: a warning'], fault: 'TypeError at x.ts:1' }), NAMES);
    expect(record).toEqual({
      time: '2026-01-01T00:00:00.000Z',
      log: 'audit',
      region: 'us-hipaa',
      key_id: 'k_1',
      account: 'clinic',
      action: 'rotate_pages',
      method: 'POST',
      status: 200,
      bytes_in: 1000,
      bytes_out: 900,
      pages: 3,
      duration_ms: 12.5,
    });
    const anonymous = auditRecord(entry({ path: '/v1/patient.pdf', status: 404 }), NAMES);
    expect(anonymous).toMatchObject({ key_id: null, account: null, action: 'unknown', pages: null });
    expect(JSON.stringify(anonymous)).not.toContain('patient');
  });

  it('a connection refused before the app names the kind of failure only', () => {
    expect(refusedRecord('us-hipaa', 400, 'ERR_SSL_UNSUPPORTED_PROTOCOL')).toMatchObject({ action: 'tls_error', status: 400, key_id: null });
    expect(refusedRecord('us-hipaa', 431, 'HPE_HEADER_OVERFLOW')).toMatchObject({ action: 'malformed', status: 431 });
  });
});

describe('us-hipaa start-up rules', () => {
  const clean: Runtime = { env: {}, execArgv: [], inspectorActive: false };
  const ok = { https: true, auditLog: 'stderr' };

  it('a TLS server with an audit log and nothing that stores more passes', () => {
    expect(regionRefusals('us-hipaa', ok, clean)).toEqual([]);
    expect(regionRefusals('us-hipaa', { ...ok, cert: 'c.pem', metricsPort: 0 }, clean)).toEqual([]);
  });

  it('other regions are not held to them, and --insecure-development is refused there', () => {
    expect(regionRefusals('global', { metricsKeyLabels: true }, { ...clean, env: { NODE_DEBUG: 'http' } })).toEqual([]);
    expect(regionRefusals('eu', { insecureDevelopment: true }, clean).map(([option]) => option)).toEqual(['insecure-development']);
  });

  it.each([
    [{ auditLog: 'stderr' }, clean, 'https'],
    [{ https: true }, clean, 'audit-log'],
    [{ ...ok, metricsKeyLabels: true }, clean, 'metrics-key-labels'],
    [{ ...ok, metricsPort: 0 }, clean, 'metrics-port'],
    [ok, { ...clean, env: { NODE_DEBUG: 'http,tls' } }, 'NODE_DEBUG'],
    [ok, { ...clean, env: { NODE_DEBUG_NATIVE: 'x' } }, 'NODE_DEBUG_NATIVE'],
    [ok, { ...clean, env: { PDFSVC_DEBUG: '1' } }, 'PDFSVC_DEBUG'],
    [ok, { ...clean, execArgv: ['--inspect-brk=9229'] }, '--inspect-brk'],
    [ok, { ...clean, inspectorActive: true }, '--inspect'],
    [ok, { ...clean, env: { NODE_OPTIONS: '--max-old-space-size=512 --tls-keylog=/tmp/keys.log' } }, '--tls-keylog'],
    [ok, { ...clean, env: { NODE_OPTIONS: '--heapsnapshot-near-heap-limit=1' } }, '--heapsnapshot-near-heap-limit'],
    [ok, { ...clean, execArgv: ['--heap-prof'] }, '--heap-prof'],
    [ok, { ...clean, execArgv: ['--report-on-signal'] }, '--report-on-signal'],
  ])('%j with %j is refused for %s', (options, runtime, option) => {
    const refusals = regionRefusals('us-hipaa', options, runtime);
    expect(refusals.map(([name]) => name)).toEqual([option]);
    expect(refusals[0][1].length).toBeGreaterThan(40);
  });

  it('--insecure-development relaxes TLS only: the audit log and the rest still hold', () => {
    expect(regionRefusals('us-hipaa', { auditLog: 'stderr', insecureDevelopment: true }, clean)).toEqual([]);
    expect(
      regionRefusals('us-hipaa', { insecureDevelopment: true, metricsKeyLabels: true }, { ...clean, env: { NODE_DEBUG: 'http' } }).map(([name]) => name),
    ).toEqual(['audit-log', 'metrics-key-labels', 'NODE_DEBUG']);
  });

  it('Node flags that only tune the process are not refused', () => {
    expect(
      regionRefusals('us-hipaa', ok, { ...clean, execArgv: ['--max-old-space-size=2048'], env: { NODE_OPTIONS: '--tls-min-v1.0 --enable-source-maps' } }),
    ).toEqual([]);
  });
});
