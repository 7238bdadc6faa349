/**
 * `pdfsvc serve --region us-hipaa` as a real process: TLS 1.2 at the least
 * (even when NODE_OPTIONS lowers Node's own floor), plain HTTP refused,
 * Strict-Transport-Security on every answer, errors included, an audit line
 * for every request with nothing of the documents in it, the start-up
 * refusals, a failing audit log stopping the server, and
 * --insecure-development announced.
 */
import { selfSignedCertificate } from '../helpers/certificate.js';
import { execa } from 'execa';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/pdf-tools.js';
import { buildPdf, simpleDoc } from '../helpers/raw-pdf.js';
import { CLI, keysFile, postAction, send, serve, tempDir, waitFor, type Reply, type Served } from './spawn.js';

const HSTS = 'max-age=31536000';
const HIPAA = ['--region', 'us-hipaa'];
/** Node's own floor and ciphers lowered, as an operator's NODE_OPTIONS could: the region must not follow. */
const WEAK_TLS = { ...process.env, NODE_OPTIONS: '--tls-min-v1.0 --tls-cipher-list=DEFAULT@SECLEVEL=0' } as Record<string, string>;

let certDir: string;
let cert: string;
let key: string;
beforeAll(async () => {
  certDir = tempDir();
  ({ cert, key } = await selfSignedCertificate(certDir));
});

const hostPort = (base: string) => ({ host: new URL(base).hostname, port: Number(new URL(base).port) });

/** Whether a TLS handshake at exactly `version` succeeds (the client itself allows old versions). */
function handshake(base: string, version: tls.SecureVersion): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect(
      { ...hostPort(base), rejectUnauthorized: false, minVersion: version, maxVersion: version, ciphers: 'DEFAULT@SECLEVEL=0' },
      () => {
        resolve(`accepted ${socket.getProtocol()}`);
        socket.destroy();
      },
    );
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(`refused ${error.code}`));
  });
}

/** Raw bytes over TLS, for what no HTTP client sends: the answer's text. */
function rawTls(base: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = tls.connect({ ...hostPort(base), rejectUnauthorized: false }, () => socket.write(bytes));
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.once('close', () => resolve(text));
    socket.once('error', reject);
  });
}

const auditLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.log === 'audit');

describe('start-up refusals in us-hipaa (exit status 2, every reason named)', () => {
  it.each([
    [
      'plain HTTP, even on loopback',
      [...HIPAA, '--audit-log', 'stderr'],
      {},
      [/https: the us-hipaa region serves TLS only, on every address including loopback/],
    ],
    [
      'no audit log',
      [...HIPAA, '--https'],
      {},
      [/audit-log: the us-hipaa region keeps an audit log of every request.*--audit-log stderr or --audit-log file:PATH/],
    ],
    [
      'key labels in metrics, and metrics without a certificate',
      [...HIPAA, '--https', '--audit-log', 'stderr', '--metrics-port', '0', '--metrics-key-labels'],
      {},
      [/metrics-key-labels: would copy key names/, /metrics-port: .*serves TLS too/],
    ],
    ['NODE_DEBUG', [...HIPAA, '--https', '--audit-log', 'stderr'], { NODE_DEBUG: 'http' }, [/NODE_DEBUG: NODE_DEBUG=http prints debugging output/]],
    ['PDFSVC_DEBUG', [...HIPAA, '--https', '--audit-log', 'stderr'], { PDFSVC_DEBUG: '1' }, [/PDFSVC_DEBUG: PDFSVC_DEBUG=1 prints debugging output/]],
    [
      'a heap snapshot signal',
      [...HIPAA, '--https', '--audit-log', 'stderr'],
      { NODE_OPTIONS: '--heapsnapshot-signal=SIGUSR2' },
      [/--heapsnapshot-signal: .*heap snapshots are written to disk/],
    ],
    [
      'a debugger',
      [...HIPAA, '--https', '--audit-log', 'stderr'],
      { NODE_OPTIONS: '--inspect=127.0.0.1:0' },
      [/--inspect: .*a debugger can read every document/],
    ],
    ['an unknown audit destination', [...HIPAA, '--https', '--audit-log', 'syslog'], {}, [/audit-log: unknown destination "syslog"/]],
    [
      'an audit file that cannot be opened',
      [...HIPAA, '--https', '--audit-log', 'file:/nonexistent-dir/audit.jsonl'],
      {},
      [/audit-log: cannot open \/nonexistent-dir\/audit\.jsonl for appending \(ENOENT\)/],
    ],
    ['--insecure-development outside us-hipaa', ['--insecure-development'], {}, [/insecure-development: only relaxes --region us-hipaa/]],
  ])('%s', async (_, args, env, messages) => {
    const { path } = await keysFile();
    const run = await execa('node', [CLI, 'serve', '--port', '0', '--keys-file', path, ...(args as string[])], {
      reject: false,
      timeout: 30_000,
      env: env as Record<string, string>,
    });
    expect(run.exitCode, run.stderr).toBe(2);
    for (const message of messages) expect(run.stderr).toMatch(message);
    expect(run.stdout).not.toMatch(/listening/);
  });

  it('a keys file with no keys: no development key is made (it would be printed)', async () => {
    const run = await execa('node', [CLI, 'serve', '--port', '0', '--keys-file', join(tempDir(), 'none.json'), ...HIPAA, '--https', '--audit-log', 'stderr'], {
      reject: false,
      timeout: 30_000,
    });
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/keys-file: the keys file has no keys, and the us-hipaa region does not make a development key/);
    expect(run.stdout).not.toMatch(/X-API-Key|listening/);
  });
});

describe('us-hipaa over TLS', () => {
  let hipaa: Served;
  let control: Served;
  let auditPath: string;
  beforeAll(async () => {
    auditPath = join(tempDir(), 'audit.jsonl');
    [hipaa, control] = await Promise.all([
      serve({
        args: [...HIPAA, '--https', '--cert', cert, '--key', key, '--audit-log', `file:${auditPath}`, '--max-upload-bytes', '300000', '--metrics-port', '0'],
        env: WEAK_TLS,
      }),
      serve({ args: ['--https', '--cert', cert, '--key', key], env: WEAK_TLS }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([hipaa?.stop(), control?.stop()]);
  });

  it('refuses TLS 1.0 and 1.1 and accepts 1.2 and 1.3, though NODE_OPTIONS lowers Node’s own floor', async () => {
    // The control proves the client can speak TLS 1.1 and that those NODE_OPTIONS let a server accept it.
    expect(await handshake(control.base, 'TLSv1.1')).toBe('accepted TLSv1.1');
    expect(await handshake(hipaa.base, 'TLSv1')).toMatch(/^refused /);
    expect(await handshake(hipaa.base, 'TLSv1.1')).toMatch(/^refused /);
    expect(await handshake(hipaa.base, 'TLSv1.2')).toBe('accepted TLSv1.2');
    expect(await handshake(hipaa.base, 'TLSv1.3')).toBe('accepted TLSv1.3');
    expect(hipaa.log().find((line) => line.event === 'listening')).toMatchObject({ tls_min_version: 'TLSv1.2', hsts: HSTS, audit_log: `file:${auditPath}` });
  });

  it('plain HTTP to its port gets no HTTP answer', async () => {
    const plain = hipaa.base.replace('https:', 'http:');
    const outcome = await new Promise<string>((resolve) => {
      http
        .get(`${plain}/healthz`, { agent: false, timeout: 10_000 }, (res) => resolve(`answered ${res.statusCode}`))
        .on('error', (error: NodeJS.ErrnoException) => resolve(`failed ${error.code ?? error.message}`));
    });
    expect(outcome).toMatch(/^failed /);
  });

  it('the metrics listener serves TLS 1.2 at the least with HSTS, and no plain HTTP', async () => {
    const url = /Prometheus metrics on (\S+)/.exec(hipaa.stdout())![1];
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const scraped = await send(url);
    expect(scraped.status).toBe(200);
    expect(scraped.body.toString()).toContain('pdfsvc_requests_total');
    expect(scraped.headers['strict-transport-security']).toBe(HSTS);
    expect(await handshake(url, 'TLSv1.1')).toMatch(/^refused /);
    await expect(send(url.replace('https:', 'http:'), { timeoutMs: 10_000 })).rejects.toThrow();
  });

  it('every answer carries Strict-Transport-Security, errors included, and the audit log has one line for each request, with nothing of the documents', async () => {
    const secret = {
      fileName: 'Jane-Doe-MRN-4417-labs.pdf',
      password: 'S3cret-PHI-passphrase',
      watermark: 'CONFIDENTIAL JANE DOE DOB 1970-01-01',
      documentText: 'PATIENT JANE DOE HIV NEGATIVE',
      path: '/v1/jane-doe-mrn-4417',
    };
    const pdf = buildPdf([{ objects: simpleDoc([secret.documentText, 'PAGE TWO OF THE RECORD']).objects }]).bytes;
    const k = hipaa.key;
    const multipart = (fields: Record<string, string | Uint8Array>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) {
        if (typeof value === 'string') form.append(name, value);
        else form.append(name, new Blob([value], { type: 'application/pdf' }), secret.fileName);
      }
      return new Response(form);
    };
    const post = async (path: string, fields: Record<string, string | Uint8Array>, headers: Record<string, string> = { 'x-api-key': k }) => {
      const encoded = multipart(fields);
      return send(`${hipaa.base}${path}`, {
        body: Buffer.from(await encoded.arrayBuffer()),
        headers: { 'content-type': encoded.headers.get('content-type')!, ...headers },
      });
    };

    // [what, the answer, the audit line expected for it]
    const requests: Array<[string, () => Promise<Reply>, Record<string, unknown>]> = [
      ['/healthz', () => send(`${hipaa.base}/healthz`), { action: 'healthz', status: 200, key_id: null }],
      ['the OpenAPI document', () => send(`${hipaa.base}/v1/openapi.json`), { action: 'openapi', status: 200 }],
      ['/docs', () => send(`${hipaa.base}/docs`), { action: 'docs', status: 200 }],
      ['an error page', () => send(`${hipaa.base}/v1/errors/404`), { action: 'error_page', status: 200 }],
      ['a path that names a patient', () => send(`${hipaa.base}${secret.path}`), { action: 'unknown', status: 404 }],
      ['GET on an action', () => send(`${hipaa.base}/v1/add_password`), { action: 'add_password', status: 405 }],
      [
        'no key',
        () => post('/v1/add_password', { file: pdf, password: secret.password }, {}),
        { action: 'add_password', status: 401, key_id: null, account: null },
      ],
      [
        'not multipart',
        () => send(`${hipaa.base}/v1/add_password`, { body: Buffer.from(secret.password), headers: { 'x-api-key': k, 'content-type': 'text/plain' } }),
        { action: 'add_password', status: 415 },
      ],
      [
        'too large',
        () => post('/v1/add_password', { file: new Uint8Array(400_000), password: secret.password }),
        { action: 'add_password', status: 413, bytes_in: 0 },
      ],
      [
        'an invalid field',
        () => post('/v1/add_password', { file: pdf, password: secret.password, encryption: secret.watermark }),
        { action: 'add_password', status: 400 },
      ],
      ['add_password', () => post('/v1/add_password', { file: pdf, password: secret.password }), { action: 'add_password', status: 200, pages: 2 }],
      [
        'add_text_watermark',
        () => post('/v1/add_text_watermark', { file: pdf, line_1: secret.watermark }),
        { action: 'add_text_watermark', status: 200, pages: 2 },
      ],
    ];
    for (const [what, request, expected] of requests) {
      const answer = await request();
      expect(answer.headers['strict-transport-security'], what).toBe(HSTS);
      expect(answer.status, what).toBe(expected.status);
    }
    // A request Node refuses before the app sees it (a header line with no colon) gets its own raw answer.
    const malformed = await rawTls(hipaa.base, `GET ${secret.path} HTTP/1.1\r\nHost: x\r\n${secret.fileName}\r\n\r\n`);
    expect(malformed).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(malformed).toContain(`Strict-Transport-Security: ${HSTS}\r\n`);
    const all: Array<Record<string, unknown>> = [...requests.map(([, , expected]) => expected), { action: 'malformed', status: 400 }];

    const lines = await waitFor(
      () => {
        const found = auditLines(readFileSync(auditPath, 'utf8'));
        return found.at(-1)?.action === 'malformed' && found;
      },
      10_000,
      'an audit line for every request',
    );
    // Before them: the earlier tests' refused handshakes (TLS 1.0, 1.1) and plain HTTP attempt, as tls_error.
    const probes = lines.slice(0, lines.length - all.length);
    expect(probes.map((line) => `${line.action} ${line.status}`)).toEqual(['tls_error 400', 'tls_error 400', 'tls_error 400']);
    const mine = lines.slice(-all.length);
    for (const [i, expected] of all.entries()) {
      expect(mine[i], `audit line ${i}: ${JSON.stringify(mine[i])}`).toMatchObject(expected);
      expect(Object.keys(mine[i]).sort()).toEqual([
        'account',
        'action',
        'bytes_in',
        'bytes_out',
        'duration_ms',
        'key_id',
        'log',
        'method',
        'pages',
        'region',
        'status',
        'time',
      ]);
      expect(Number.isNaN(Date.parse(String(mine[i].time)))).toBe(false);
    }
    const keyId = JSON.parse(readFileSync(hipaa.keysPath, 'utf8')).keys[0].id;
    expect(mine.find((line) => line.status === 200 && line.action === 'add_password')).toMatchObject({
      key_id: keyId,
      account: 'tests',
      region: 'us-hipaa',
      method: 'POST',
    });
    expect((mine.find((line) => line.action === 'add_password' && line.status === 200)!.bytes_in as number) > pdf.byteLength).toBe(true);
    expect(statSync(auditPath).mode & 0o777).toBe(0o600);

    // Nothing of the documents, in the audit log or in anything else the server wrote.
    const written = { audit: readFileSync(auditPath, 'utf8'), stderr: hipaa.stderr(), stdout: hipaa.stdout() };
    const documentBytes = Buffer.from(pdf).toString('latin1');
    for (const [where, text] of Object.entries(written)) {
      for (const [what, value] of Object.entries(secret)) expect(text, `${what} in ${where}`).not.toContain(value);
      expect(text, `the key in ${where}`).not.toContain(k);
      expect(text, `document bytes in ${where}`).not.toContain('%PDF-');
      // Any 24-byte run of the document (its objects, its text) would show here.
      for (let at = 0; at + 24 <= documentBytes.length; at += 24)
        expect(text.includes(documentBytes.slice(at, at + 24)), `document bytes at ${at} in ${where}`).toBe(false);
    }
    // The request log keeps its own lines, with the unknown path replaced.
    expect(hipaa.log().some((line) => line.path === '(unknown)' && line.status === 404)).toBe(true);
  });
});

describe('us-hipaa operation', () => {
  it('an audit log that cannot be written stops the server: it logs why and exits 1', async () => {
    const served = await serve({ args: [...HIPAA, '--https', '--cert', cert, '--key', key, '--audit-log', 'file:/dev/full'] });
    const answer = await send(`${served.base}/healthz`);
    expect(answer.status).toBe(200);
    expect(await served.exited).toBe(1);
    const events = served
      .log()
      .map((line) => line.event)
      .filter(Boolean);
    expect(events).toEqual(['listening', 'audit_log_failed', 'stopping', 'stopped']);
    expect(served.log().find((line) => line.event === 'audit_log_failed')).toMatchObject({ destination: 'file:/dev/full', error: 'ENOSPC' });
  });

  it('--audit-log stderr: audit lines beside the request log, told apart by "log": "audit"', async () => {
    const served = await serve({ args: [...HIPAA, '--https', '--cert', cert, '--key', key, '--audit-log', 'stderr'] });
    try {
      const answer = await postAction(served, 'rotate_pages', { file: fixture('pages-3.pdf'), angle: '90' });
      expect(answer.status).toBe(200);
      const audit = await waitFor(() => auditLines(served.stderr()).find((line) => line.action === 'rotate_pages'), 10_000, 'the audit line');
      expect(audit).toMatchObject({ status: 200, pages: 3, account: 'tests' });
      expect(served.log().some((line) => line.path === '/v1/rotate_pages' && line.log === undefined)).toBe(true);
    } finally {
      await served.stop();
    }
  });

  it('--insecure-development: plain HTTP on loopback and a development key, announced loudly, HSTS and the audit log kept', async () => {
    const empty = join(tempDir(), 'keys.json');
    writeFileSync(empty, JSON.stringify({ version: 1, keys: [] }));
    const served = await serve({ args: [...HIPAA, '--insecure-development', '--audit-log', 'stderr'], keys: { path: empty, key: '' } });
    try {
      expect(served.base).toMatch(/^http:\/\/127\.0\.0\.1:/);
      expect(served.stdout()).toMatch(
        /^WARNING: --insecure-development: this us-hipaa server does not keep the region's promises.*Never send protected health information to it\./m,
      );
      const announced = await waitFor(() => served.log().find((line) => line.event === 'insecure_development'), 10_000, 'the insecure_development event');
      expect(announced).toMatchObject({ https: false, development_key: true });
      // The key is printed after the warning; standard output may not have all of it yet when the log line is in.
      const [, devKey] = await waitFor(() => /X-API-Key: (\S+)/.exec(served.stdout()), 10_000, 'the development key on standard output');
      const answer = await postAction({ base: served.base, key: devKey }, 'rotate_pages', { file: fixture('pages-3.pdf'), angle: '90' });
      expect(answer.status).toBe(200);
      expect(answer.headers['strict-transport-security']).toBe(HSTS);
      await waitFor(
        () => auditLines(served.stderr()).some((line) => line.action === 'rotate_pages' && line.key_id === 'k_ephemeral'),
        10_000,
        'the audit line',
      );
    } finally {
      await served.stop();
    }
    // Not on another address, even then.
    const run = await execa(
      'node',
      [CLI, 'serve', '--port', '0', '--keys-file', empty, '--host', '0.0.0.0', ...HIPAA, '--insecure-development', '--audit-log', 'stderr'],
      { reject: false, timeout: 30_000 },
    );
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/host: 0\.0\.0\.0 is not a loopback address/);
  });
});
