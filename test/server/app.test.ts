/**
 * The HTTP API, run twice like h3's own tests: in process through app.fetch,
 * and against a real `pdfsvc serve` process listening on loopback.
 */
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { actions } from '../../src/actions/index.js';
import { fixture, pageTexts, pdfinfo, qpdfCheck } from '../helpers/pdf-tools.js';
import { buildPdf, simpleDoc } from '../helpers/raw-pdf.js';
import type { AnyAction } from '../../src/core/action.js';
import { createApp } from '../../src/server/app.js';
import { hashKey, KeyStore, newKey } from '../../src/server/keys.js';
import { formRequest, inProcessApp, keys, problemOf } from './harness.js';

interface Target {
  base: string;
  key: string;
  send(request: Request): Promise<Response>;
}

const inProcess: Target = (() => {
  const app = inProcessApp('global');
  return { base: 'http://pdfsvc.test', key: keys.business, send: async (request: Request) => app.fetch(request) };
})();

const listening: Target & { start(): Promise<void>; stop(): Promise<void> } = (() => {
  let server: ResultPromise | undefined;
  let dir: string | undefined;
  const target = {
    base: '',
    key: '',
    send: (request: Request) => fetch(request),
    async start() {
      dir = mkdtempSync(join(tmpdir(), 'pdfsvc-keys-'));
      const keysFile = join(dir, 'keys.json');
      const created = await execa('node', ['bin/pdfsvc.js', 'keys', 'create', '--plan', 'business', '--name', 'tests', '--keys-file', keysFile]);
      target.key = created.stdout.trim();
      server = execa('node', ['bin/pdfsvc.js', 'serve', '--port', '0', '--keys-file', keysFile, '--workers', '2'], { reject: false });
      target.base = await new Promise<string>((resolve, reject) => {
        let seen = '';
        server!.stdout!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const url = /https?:\/\/\S+/.exec(seen)?.[0];
          if (url) resolve(url);
        });
        server!.once('exit', () => reject(new Error(`server exited: ${seen}`)));
      });
    },
    async stop() {
      server?.kill('SIGTERM');
      await server;
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
  return target;
})();

beforeAll(() => listening.start(), 30_000);
afterAll(() => listening.stop());

describe.each([
  ['in process', inProcess],
  ['listening server', listening],
])('HTTP API (%s)', (_, target) => {
  const url = (path: string) => `${target.base}${path}`;
  const post = (path: string, fields: Parameters<typeof formRequest>[1], headers: Record<string, string> = {}) =>
    target.send(formRequest(url(path), fields, { 'X-API-Key': target.key, ...headers }));

  it('answers /healthz without a key, with X-Region', async () => {
    const response = await target.send(new Request(url('/healthz')));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-region')).toBe('global');
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });

  it('serves an OpenAPI 3.1 document with every action and its fields', async () => {
    const response = await target.send(new Request(url('/v1/openapi.json')));
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { properties: object; additionalProperties: unknown } }> } } }>;
    };
    expect(doc.openapi).toBe('3.1.0');
    for (const action of actions) {
      const operation = doc.paths[`/v1/${action.name}`]?.post;
      expect(operation, action.name).toBeDefined();
      const schema = operation.requestBody.content['multipart/form-data'].schema;
      // Its fields, merge's numbered alternatives file_1 … file_10, and nothing else (an unknown field is a 400).
      const numbered = action.name === 'merge_documents' ? Array.from({ length: 10 }, (_, i) => `file_${i + 1}`) : [];
      expect(Object.keys(schema.properties).sort()).toEqual([...Object.keys(action.fields), ...numbered].sort());
      expect(schema.additionalProperties).toBe(false);
    }
  });

  it('explains each error type at /v1/errors/<status>', async () => {
    for (const status of [400, 401, 403, 404, 405, 406, 413, 415, 500, 503]) {
      const response = await target.send(new Request(url(`/v1/errors/${status}`)));
      expect(response.status).toBe(200);
      expect(await response.text()).toContain(String(status));
    }
  });

  it('rotates a PDF: 200, application/pdf, Content-Length, pages rotated', async () => {
    const response = await post('/v1/rotate_pages', [
      ['file', fixture('pages-3.pdf')],
      ['angle', '90'],
      ['pages', '2..'],
    ]);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const body = new Uint8Array(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(body.byteLength);
    expect((await qpdfCheck(body)).exitCode).toBe(0);
    expect((await pdfinfo(body)).pages.map((p) => p.rotation)).toEqual([0, 90, 90]);
  });

  it('merges repeated file parts in request order, and file_1 … file_10 in numeric order (file_10 last)', async () => {
    // One-page documents that say which they are: the order is read back with pdftotext.
    const doc = (name: string) => buildPdf([{ objects: simpleDoc([`MERGE PART ${name}`]).objects }]).bytes;
    const texts = async (response: Response) => (await pageTexts(new Uint8Array(await response.arrayBuffer()))).map((t) => t.trim());

    const repeated = await post('/v1/merge_documents', [
      ['file', doc('A')],
      ['file', doc('B')],
      ['file', doc('A')],
    ]);
    expect(repeated.status).toBe(200);
    expect(await texts(repeated)).toEqual(['MERGE PART A', 'MERGE PART B', 'MERGE PART A']);

    // Sent scrambled; a lexical sort would put file_10 second.
    const order = [3, 10, 1, 7, 2, 9, 5, 4, 8, 6];
    const numbered = await post(
      '/v1/merge_documents',
      order.map((n): [string, Uint8Array] => [`file_${n}`, doc(String(n))]),
    );
    expect(numbered.status).toBe(200);
    expect(await texts(numbered)).toEqual(Array.from({ length: 10 }, (_, i) => `MERGE PART ${i + 1}`));

    // Only file_1 … file_10 as written: file_01 beside file_1 is no second first document.
    const padded = await post('/v1/merge_documents', [
      ['file_1', doc('1')],
      ['file_01', doc('01')],
    ]);
    expect(padded.status).toBe(400);
    expect(Object.keys((await problemOf(padded)).errors ?? {})).toEqual(['file_01']);
  });

  it('answers 400 naming every bad field, including unknown ones', async () => {
    const response = await post('/v1/rotate_pages', [
      ['file', fixture('pages-3.pdf')],
      ['angle', '45'],
      ['pgaes', '1'],
    ]);
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem.type).toBe(`${target.base}/v1/errors/400`);
    expect(problem.title).toMatch(/validation errors/);
    expect(problem.errors?.angle?.[0]).toMatch(/one of 0, 90, 180, 270/);
    expect(problem.errors?.pgaes?.[0]).toMatch(/unknown field/);
  });

  it('answers 400 errors.file for input that is not a PDF, and for an encrypted one', async () => {
    const broken = await problemOf(await post('/v1/reverse_pages', [['file', fixture('not-a-pdf.pdf')]]));
    expect(broken.errors?.file?.[0]).toMatch(/could not be parsed; it may be invalid or corrupt/);
    const encrypted = await problemOf(await post('/v1/reverse_pages', [['file', fixture('encrypted-user.pdf')]]));
    expect(encrypted.errors?.file?.[0]).toMatch(/remove_password/);
  });

  it('answers 400 errors.page_order naming the page and the page count', async () => {
    const problem = await problemOf(
      await post('/v1/reorder_pages', [
        ['file', fixture('pages-3.pdf')],
        ['page_order', '3,1,9'],
      ]),
    );
    expect(problem.status).toBe(400);
    expect(problem.errors?.page_order?.[0]).toMatch(/9.*3 pages/);
  });

  it('answers 401 for a missing, malformed or unknown key, before anything else about the request', async () => {
    for (const key of [undefined, 'nope', `pdfsvc_${'A'.repeat(43)}`]) {
      const headers: Record<string, string> = key ? { 'X-API-Key': key } : {};
      const response = await target.send(
        new Request(url('/v1/rotate_pages'), { method: 'POST', body: 'x', headers: { ...headers, 'content-type': 'text/plain' } }),
      );
      expect(response.status).toBe(401);
      const problem = await problemOf(response);
      expect(problem.type.endsWith('/401')).toBe(true);
      expect(problem.title).toMatch(/lacks a valid API key/);
    }
  });

  it('answers 404 for unknown paths and 405 with Allow: POST for other methods', async () => {
    expect((await target.send(new Request(url('/v1/no_such_action'), { method: 'POST' }))).status).toBe(404);
    const wrongMethod = await target.send(new Request(url('/v1/rotate_pages')));
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await problemOf(wrongMethod)).status).toBe(405);
  });

  it('answers 415 for a body that is not multipart/form-data', async () => {
    const response = await target.send(
      new Request(url('/v1/rotate_pages'), {
        method: 'POST',
        body: 'angle=90',
        headers: { 'X-API-Key': target.key, 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(response.status).toBe(415);
    expect((await problemOf(response)).status).toBe(415);
  });
});

describe('HTTP API, in process only', () => {
  it.each([
    ['free', 'global', 200],
    ['free', 'eu', 403],
    ['starter', 'eu', 200],
    ['starter', 'us', 200],
    ['starter', 'jp', 403],
    ['business', 'us-hipaa', 200],
    ['business', 'br', 200],
  ] as const)('a %s key on the %s region: %i', async (plan, region, status) => {
    const app = inProcessApp(region);
    const response = await app.fetch(formRequest('http://pdfsvc.test/v1/reverse_pages', [['file', fixture('pages-3.pdf')]], { 'X-API-Key': keys[plan] }));
    expect(response.status).toBe(status);
    expect(response.headers.get('x-region')).toBe(region);
    if (status === 403) expect((await problemOf(response)).detail).toMatch(new RegExp(plan));
  });

  it("a 403's title is true of each cause (a suspended account, the plan, the key's region limit); its detail says which", async () => {
    const suspended = newKey();
    const limited = newKey();
    const app = createApp({
      actions: actions as readonly AnyAction[],
      region: 'eu',
      keys: new KeyStore([
        { id: 'k_s', name: 'suspended', plan: 'business', hash: hashKey(suspended), created: '2026-01-01T00:00:00Z', accountName: 'lapsed', suspended: true },
        { id: 'k_l', name: 'limited', plan: 'business', hash: hashKey(limited), created: '2026-01-01T00:00:00Z', regions: ['us'] },
        { id: 'k_f', name: 'free', plan: 'free', hash: hashKey(keys.free), created: '2026-01-01T00:00:00Z' },
      ]),
      maxUploadBytes: 1_000_000,
      version: 'test',
    });
    const refusals = [];
    for (const key of [suspended, limited, keys.free]) {
      const response = await app.fetch(formRequest('http://pdfsvc.test/v1/reverse_pages', [['file', fixture('pages-3.pdf')]], { 'X-API-Key': key }));
      expect(response.status).toBe(403);
      refusals.push(await problemOf(response));
    }
    expect(refusals.map((refusal) => refusal.detail)).toEqual([
      expect.stringMatching(/the account lapsed is suspended/),
      expect.stringMatching(/this key is limited to the us region/),
      expect.stringMatching(/the free plan does not include the eu region/),
    ]);
    // One title for the status (RFC 9457 §3.1.3), and none of the causes' own words: a suspended account is no matter of plan.
    expect(new Set(refusals.map((refusal) => refusal.title)).size).toBe(1);
    expect(refusals[0].title).not.toMatch(/plan|region/i);
  });

  it('refuses a body over the limit with 413 when Content-Length announces it', async () => {
    const app = inProcessApp('global', { maxUploadBytes: 1000 });
    const response = await app.fetch(formRequest('http://pdfsvc.test/v1/reverse_pages', [['file', fixture('pages-10.pdf')]], { 'X-API-Key': keys.free }));
    expect(response.status).toBe(413);
    expect((await problemOf(response)).status).toBe(413);
  });

  it('refuses a chunked body (no Content-Length) with 413 once it passes the limit', async () => {
    const app = inProcessApp('global', { maxUploadBytes: 1000 });
    const chunk = new Uint8Array(600);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 100) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const request = new Request('http://pdfsvc.test/v1/reverse_pages', {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { 'X-API-Key': keys.free, 'content-type': 'multipart/form-data; boundary=x' },
    } as RequestInit);
    const response = await app.fetch(request);
    expect(response.status).toBe(413);
    // Stopped reading early: far fewer than the 100 chunks were pulled.
    expect(sent).toBeLessThan(10);
  });

  it('counts a request as an upload in flight until its body is in, then only as in flight (the metrics gauges)', async () => {
    const app = inProcessApp();
    const form = formRequest('http://pdfsvc.test/v1/reverse_pages', [['file', fixture('pages-3.pdf')]]);
    const bytes = new Uint8Array(await form.arrayBuffer());
    let finish!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 100));
        finish = () => {
          controller.enqueue(bytes.subarray(100));
          controller.close();
        };
      },
    });
    const answer = app.fetch(
      new Request('http://pdfsvc.test/v1/reverse_pages', {
        method: 'POST',
        body,
        duplex: 'half',
        headers: { 'X-API-Key': keys.free, 'content-type': form.headers.get('content-type')! },
      } as RequestInit),
    );
    await vi.waitFor(() => expect([app.inFlight, app.uploadsInFlight]).toEqual([1, 1]));
    finish();
    expect((await answer).status).toBe(200);
    expect([app.inFlight, app.uploadsInFlight]).toEqual([0, 0]);
  });

  it('builds problem types from the request origin, or from --error-type-base when given', async () => {
    const request = () => new Request('http://pdfsvc.test/v1/nothing', { method: 'POST' });
    expect((await problemOf(await inProcessApp().fetch(request()))).type).toBe('http://pdfsvc.test/v1/errors/404');
    const custom = inProcessApp('global', { errorTypeBase: 'https://errors.example/v1/errors' });
    expect((await problemOf(await custom.fetch(request()))).type).toBe('https://errors.example/v1/errors/404');
  });

  it('checks the key before the content type, and the method before the key', async () => {
    const app = inProcessApp();
    const noKey = await app.fetch(new Request('http://pdfsvc.test/v1/rotate_pages', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }));
    expect(noKey.status).toBe(401);
    const get = await app.fetch(new Request('http://pdfsvc.test/v1/rotate_pages'));
    expect(get.status).toBe(405);
  });

  it('checks in the order DECISIONS.md gives: path, method, key, region, Accept, content type, size, fields, document', async () => {
    // Each request fails every check from its own on; the answer names the first.
    const app = inProcessApp('eu', { maxUploadBytes: 3000 });
    const big = fixture('pages-10.pdf');
    expect(big.byteLength).toBeGreaterThan(3000);
    const notPdf = new TextEncoder().encode('not a PDF');
    const post = (headers: Record<string, string>) =>
      app.fetch(new Request('http://pdfsvc.test/v1/split_by_page_count', { method: 'POST', headers, body: big }));
    const form = (file: Uint8Array, pageCount: string) =>
      formRequest('http://pdfsvc.test/v1/split_by_page_count', [
        ['file', file],
        ['page_count', pageCount],
      ]);
    const split = async (key: string, accept: string, request: Request) => {
      const headers = new Headers(request.headers);
      headers.set('X-API-Key', key);
      headers.set('Accept', accept);
      return app.fetch(new Request(request, { headers }));
    };
    const plain = { 'content-type': 'text/plain', accept: '*/*' };
    const statuses = [
      (await app.fetch(new Request('http://pdfsvc.test/v1/no_such_action', { headers: plain }))).status,
      (await app.fetch(new Request('http://pdfsvc.test/v1/split_by_page_count', { headers: plain }))).status,
      (await post(plain)).status,
      (await post({ ...plain, 'X-API-Key': keys.free })).status,
      (await post({ ...plain, 'X-API-Key': keys.starter })).status,
      (await post({ ...plain, accept: 'application/zip', 'X-API-Key': keys.starter })).status,
      (await split(keys.starter, 'application/zip', form(big, '0'))).status,
    ];
    expect(statuses).toEqual([404, 405, 401, 403, 406, 415, 413]);
    const badField = await split(keys.starter, 'application/zip', form(notPdf, '0'));
    expect((await problemOf(badField)).errors).toEqual({ page_count: [expect.stringMatching(/1 or greater/)] });
    const badDocument = await split(keys.starter, 'application/zip', form(notPdf, '1'));
    expect(Object.keys((await problemOf(badDocument)).errors ?? {})).toEqual(['file']);
  });

  it("holds SERVICE.md's Limits table at each bound: the last value allowed passes, the next one is a 400 naming the field", async () => {
    const app = inProcessApp();
    const pages = (n: number) => '1,'.repeat(Math.floor((n - 1) / 2)) + (n % 2 ? '1' : ' 1'); // a page list of n characters
    const ascii = (n: number) => ' ~abcdefghijklmnopqrstuvwxyz0123456789'.repeat(2).slice(0, n);
    const rows: Array<[string, Array<[string, string]>, string, string, string]> = [
      // action, other fields, field, last value allowed, first value refused
      ['extract_pages', [], 'pages', pages(1000), pages(1001)],
      ['reorder_pages', [], 'page_order', pages(1000), pages(1001)],
      ['add_password', [], 'password', ascii(32), ascii(33)],
      ['add_password', [], 'password', ascii(4), ascii(3)],
      ['add_restrictions', [], 'owner_password', ascii(32), ascii(33)],
      ['add_restrictions', [], 'owner_password', ascii(4), ascii(3)],
      ['add_restrictions', [['owner_password', 'owner']], 'user_password', ascii(32), ascii(33)],
      ['add_restrictions', [['owner_password', 'owner']], 'user_password', ascii(4), ascii(3)],
      ['add_password', [], 'password', 'abc~', 'abc\u007f'],
      ['remove_password', [], 'password', 'p'.repeat(256), 'p'.repeat(257)],
      ['split_by_size', [], 'maximum_bytes', '1', '0'],
      ['split_by_page_count', [], 'page_count', '1', '0'],
    ];
    for (const [action, fields, field, allowed, refused] of rows) {
      const send = (value: string) =>
        app.fetch(formRequest(`http://pdfsvc.test/v1/${action}`, [['file', fixture('pages-3.pdf')], ...fields, [field, value]], { 'X-API-Key': keys.free }));
      expect((await send(allowed)).status, `${action} ${field} ${allowed.length} characters`).toBe(200);
      expect(Object.keys((await problemOf(await send(refused))).errors ?? {}), `${action} ${field} ${refused.length} characters`).toEqual([field]);
    }
    const merge = (name: string) =>
      app.fetch(formRequest('http://pdfsvc.test/v1/merge_documents', [[name, fixture('pages-3.pdf')]], { 'X-API-Key': keys.free }));
    expect((await merge('file_10')).status).toBe(200);
    expect(Object.keys((await problemOf(await merge('file_11'))).errors ?? {})).toEqual(['file_11']);
  });

  it('refuses a field sent twice', async () => {
    const response = await inProcessApp().fetch(
      formRequest(
        'http://pdfsvc.test/v1/rotate_pages',
        [
          ['file', fixture('pages-3.pdf')],
          ['angle', '90'],
          ['angle', '180'],
        ],
        { 'X-API-Key': keys.free },
      ),
    );
    expect((await problemOf(response)).errors?.angle?.[0]).toMatch(/sent 2 times/);
  });
});
