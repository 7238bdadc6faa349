/**
 * HTTP as clients that nobody on this project wrote speak it, each point
 * with the RFC that says so, against a real `pdfsvc serve` on a socket: HEAD
 * wherever GET is answered, 405 with Allow, a problem object for every
 * status (also those Node answers before the app sees a request), multipart
 * bodies with a preamble, an epilogue, or a file part without a filename,
 * and a missing boundary named as such.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, pageCount, pdfinfo } from '../helpers/pdf-tools.js';
import { showEncryption } from '../helpers/security.js';
import { multipart, postAction, send, serve, type Reply, type Served } from './spawn.js';

let served: Served;
beforeAll(async () => {
  served = await serve({ args: ['--workers', '1'] });
});
afterAll(() => served.stop());

const json = (reply: Reply) =>
  JSON.parse(reply.body.toString('utf8')) as { type: string; title: string; status: number; detail?: string; errors?: Record<string, string[]> };

/** Writes raw bytes, returns all the server says until it closes (or `waitMs`). */
function raw(bytes: string | Buffer, waitMs = 8000, base = served.base): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
    socket.write(bytes);
  });
}

/** The status line, headers (lower-case names) and body of a raw answer. */
function parseRaw(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]), headers, body: rest.join('\r\n\r\n') };
}

/** A raw answer that must be a whole problem object with this status. */
function expectProblem(text: string, status: number): { detail?: string; errors?: Record<string, string[]> } {
  const answer = parseRaw(text);
  expect(answer.status, text.slice(0, 200)).toBe(status);
  expect(answer.headers['content-type']).toBe('application/problem+json');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const problem = JSON.parse(answer.body) as { type: string; status: number; title: string; detail?: string; errors?: Record<string, string[]> };
  expect(problem.status).toBe(status);
  expect(problem.type).toMatch(new RegExp(`/v1/errors/${status}$`));
  expect(problem.title.length).toBeGreaterThan(0);
  return problem;
}

const GET_PATHS = ['/healthz', '/v1/openapi.json', '/docs', '/v1/errors/400', '/v1/errors/431'];

describe('methods (RFC 9110 §9)', () => {
  it.each(GET_PATHS)('HEAD %s answers what GET answers, headers included, without a body (RFC 9110 §9.3.2)', async (path) => {
    const get = await send(`${served.base}${path}`);
    const head = await send(`${served.base}${path}`, { method: 'HEAD' });
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
    for (const name of ['content-type', 'x-region', 'content-security-policy']) expect(head.headers[name], name).toBe(get.headers[name]);
    // /healthz counts requests in flight: its length may change by a digit between the two.
    if (path !== '/healthz') expect(head.headers['content-length']).toBe(String(get.body.byteLength));
    else expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
  });

  it('HEAD on an unknown path is the 404 of GET, without its body', async () => {
    const head = await send(`${served.base}/nothing-here`, { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(head.headers['content-type']).toBe('application/problem+json');
    expect(head.body.byteLength).toBe(0);
  });

  it.each(GET_PATHS)('POST, PUT and DELETE on %s are 405 with Allow: GET, HEAD and a problem object (RFC 9110 §15.5.6)', async (path) => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const reply = await send(`${served.base}${path}`, { method, body: method === 'DELETE' ? undefined : Buffer.from('x') });
      expect(reply.status, `${method} ${path}`).toBe(405);
      expect(reply.headers.allow).toBe('GET, HEAD');
      expect(reply.headers['content-type']).toBe('application/problem+json');
      expect(json(reply)).toMatchObject({ status: 405, detail: `${path} answers GET and HEAD only` });
    }
  });

  it('an action answers GET and HEAD with 405 and Allow: POST (the method is checked before the key)', async () => {
    for (const method of ['GET', 'HEAD']) {
      const reply = await send(`${served.base}/v1/rotate_pages`, { method });
      expect(reply.status).toBe(405);
      expect(reply.headers.allow).toBe('POST');
    }
  });

  it('an error page for a status this server never answers is 404 whatever the method (the path is checked first)', async () => {
    expect((await send(`${served.base}/v1/errors/418`)).status).toBe(404);
    expect((await send(`${served.base}/v1/errors/418`, { method: 'POST', body: Buffer.from('x') })).status).toBe(404);
  });
});

describe('every status is a problem object, also those Node answers before the app (RFC 9457 §3)', () => {
  it('headers over the limit: 431 (RFC 6585 §5)', async () => {
    const { text } = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(expectProblem(text, 431).detail).toMatch(/headers are larger than this server reads/);
  });

  it("a request the HTTP parser refuses: 400 naming the parser's reason (RFC 9112 §2.2)", async () => {
    const refused = expectProblem((await raw('NOT HTTP AT ALL\r\n\r\n')).text, 400);
    expect(refused.detail).toMatch(/not well-formed HTTP\/1\.1 \(HPE_INVALID_METHOD\)/);
    // SERVICE.md: a 400's errors name what was wrong; here the request itself.
    expect(refused.errors).toEqual({ request: [refused.detail] });
    // Both framings at once (RFC 9112 §6.3: a request smuggling vector, refused).
    const both = await raw('POST /v1/rotate_pages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n');
    expect(expectProblem(both.text, 400).detail).toMatch(/not well-formed/);
  });

  it('an HTTP/1.1 request without Host: 400 (RFC 9112 §3.2)', async () => {
    const noHost = expectProblem((await raw('GET /healthz HTTP/1.1\r\n\r\n')).text, 400);
    expect(noHost.errors?.Host?.[0]).toMatch(/needs a Host header/);
    // HTTP/1.0 has no such rule.
    expect(parseRaw((await raw('GET /healthz HTTP/1.0\r\n\r\n')).text).status).toBe(200);
  });

  it('an expectation other than 100-continue: 417 (RFC 9110 §10.1.1); 100-continue is met', async () => {
    expect(expectProblem((await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n')).text, 417).detail).toMatch(/100-continue/);
    const continued = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
    expect(continued.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });

  it('chunk extensions over the limit: 413 (RFC 9112 §7.1.1 lets a server limit them)', async () => {
    const head = `POST /v1/rotate_pages HTTP/1.1\r\nHost: x\r\nX-API-Key: ${served.key}\r\nContent-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const { text } = await raw(`${head}1;ext=${'e'.repeat(20_000)}\r\nx\r\n0\r\n\r\n`);
    expect(expectProblem(text, 413).detail).toMatch(/chunk extensions/);
  });

  it('every status line has its reason phrase, as the contract names the statuses (200 OK, 401 Unauthorized, 406 Not Acceptable)', async () => {
    const statusLine = async (request: string, body: Buffer = Buffer.alloc(0)) => {
      const head = Buffer.from(`${request}Host: x\r\nConnection: close\r\nContent-Length: ${body.byteLength}\r\n\r\n`);
      return (await raw(Buffer.concat([head, body]))).text.split('\r\n')[0];
    };
    const action = async (action: string, fields: Record<string, string | Uint8Array>, headers = '') => {
      const form = await multipart({ file: fixture('pages-3.pdf'), ...fields });
      return statusLine(`POST /v1/${action} HTTP/1.1\r\nX-API-Key: ${served.key}\r\nContent-Type: ${form.contentType}\r\n${headers}`, form.body);
    };
    expect(await statusLine('GET /healthz HTTP/1.1\r\n')).toBe('HTTP/1.1 200 OK');
    expect(await action('reverse_pages', {})).toBe('HTTP/1.1 200 OK');
    expect(await action('split_by_page_count', { page_count: '1' }, 'Accept: application/zip\r\n')).toBe('HTTP/1.1 200 OK');
    expect(await action('split_by_page_count', { page_count: '1' }, 'Accept: */*\r\n')).toBe('HTTP/1.1 406 Not Acceptable');
    expect(await action('rotate_pages', { angle: '45' })).toBe('HTTP/1.1 400 Bad Request');
    expect(await statusLine('POST /v1/reverse_pages HTTP/1.1\r\n')).toBe('HTTP/1.1 401 Unauthorized');
    expect(await statusLine('GET /nothing HTTP/1.1\r\n')).toBe('HTTP/1.1 404 Not Found');
    expect(await statusLine('GET /v1/reverse_pages HTTP/1.1\r\n')).toBe('HTTP/1.1 405 Method Not Allowed');
  });

  it('a path that is not valid percent-encoding: 400, not a 500 (RFC 3986 §2.1)', async () => {
    const reply = await send(`${served.base}/v1/%zz`);
    expect(reply.status).toBe(400);
    expect(json(reply).errors?.path?.[0]).toMatch(/not valid percent-encoding .* write each % as %25/);
  });

  it('headers that never finish: 408 (RFC 9110 §15.5.9), then the connection closes', async () => {
    const slow = await serve({ args: ['--workers', '1', '--request-timeout-ms', '1500'] });
    try {
      const { text, closed } = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\n', 10_000, slow.base);
      expect(expectProblem(text, 408).detail).toMatch(/headers did not arrive within 1500 ms/);
      expect(closed).toBe(true);
    } finally {
      await slow.stop();
    }
  });
});

/** A multipart/form-data body written by hand: exact bytes, so that preambles and part headers are what the test says. */
function body(boundary: string, parts: Array<{ disposition: string; type?: string; content: string | Uint8Array }>, preamble = '', epilogue = ''): Buffer {
  const chunks: Buffer[] = [Buffer.from(preamble ? `${preamble}\r\n` : '')];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${part.disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--${epilogue ? `\r\n${epilogue}` : ''}`));
  return Buffer.concat(chunks);
}

const post = (action: string, bytes: Buffer, contentType: string) =>
  send(`${served.base}/v1/${action}`, { body: bytes, headers: { 'content-type': contentType, 'x-api-key': served.key } });

describe('multipart/form-data (RFC 7578, RFC 2046 §5.1)', () => {
  it('a body with a preamble and an epilogue is read, and the action runs (RFC 2046 §5.1.1)', async () => {
    const bytes = body(
      'xYz',
      [
        { disposition: 'form-data; name="file"; filename="in.pdf"', type: 'application/pdf', content: fixture('pages-3.pdf') },
        { disposition: 'form-data; name="angle"', content: '90' },
      ],
      'This is the preamble. It is to be ignored.',
      'This is the epilogue. It is also to be ignored.\r\n',
    );
    const reply = await post('rotate_pages', bytes, 'multipart/form-data; boundary=xYz');
    expect(reply.status, reply.body.toString()).toBe(200);
    expect((await pdfinfo(reply.body)).pages.map((p) => p.rotation)).toEqual([90, 90, 90]);
  });

  it('a quoted boundary and transport padding after a delimiter are read (RFC 2046 §5.1.1)', async () => {
    const bytes = Buffer.from(
      body('a b', [{ disposition: 'form-data; name="file"; filename="in.pdf"', content: fixture('pages-3.pdf') }])
        .toString('latin1')
        .replace('--a b\r\n', '--a b  \t\r\n'),
      'latin1',
    );
    const reply = await post('reverse_pages', bytes, 'multipart/form-data; boundary="a b"');
    expect(reply.status, reply.body.toString()).toBe(200);
    expect(await pageCount(reply.body)).toBe(3);
  });

  it('file parts without a filename are files (RFC 7578 §4.2: a filename SHOULD be sent, it need not)', async () => {
    const bytes = body('B', [
      { disposition: 'form-data; name="file"', type: 'application/pdf', content: fixture('pages-3.pdf') },
      { disposition: 'form-data; name="file"', content: fixture('pages-10.pdf') },
    ]);
    const merged = await post('merge_documents', bytes, 'multipart/form-data; boundary=B');
    expect(merged.status, merged.body.toString()).toBe(200);
    expect(await pageCount(merged.body)).toBe(13);
    const numbered = body('B', [
      { disposition: 'form-data; name="file_2"', content: fixture('pages-10.pdf') },
      { disposition: 'form-data; name="file_1"', content: fixture('pages-1.pdf') },
    ]);
    const reply = await post('merge_documents', numbered, 'multipart/form-data; boundary=B');
    expect(reply.status, reply.body.toString()).toBe(200);
    expect(await pageCount(reply.body)).toBe(11);
  });

  it('multipart/form-data without a boundary is a 400 naming the boundary, not a 415 (RFC 7578 §4.1; RFC 9110 §15.5.16 is for types not supported)', async () => {
    for (const contentType of ['multipart/form-data', 'multipart/form-data;', 'Multipart/Form-Data; charset=utf-8', 'multipart/form-data; boundary=']) {
      const reply = await post('rotate_pages', Buffer.from('--x\r\n'), contentType);
      expect(reply.status, contentType).toBe(400);
      expect(json(reply).errors?.['Content-Type']?.[0], contentType).toMatch(/^multipart\/form-data needs its boundary parameter/);
    }
    const other = await post('rotate_pages', Buffer.from('angle=90'), 'application/x-www-form-urlencoded');
    expect(other.status).toBe(415);
    expect(json(other).detail).toBe('send the fields as multipart/form-data (got "application/x-www-form-urlencoded")');
  });

  it('a body that is not multipart at all says why, under body', async () => {
    const reply = await post('rotate_pages', Buffer.from('no delimiter here'), 'multipart/form-data; boundary=B');
    expect(reply.status).toBe(400);
    expect(json(reply).errors?.body?.[0]).toMatch(/could not be read: multipart body has no opening boundary/);
  });

  it('a part encoded with Content-Transfer-Encoding is refused by name (RFC 7578 §4.7 deprecates it)', async () => {
    const bytes = Buffer.from(
      `--B\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(fixture('pages-1.pdf')).toString('base64')}\r\n--B--\r\n`,
    );
    const reply = await post('reverse_pages', bytes, 'multipart/form-data; boundary=B');
    expect(reply.status).toBe(400);
    expect(json(reply).errors?.file?.[0]).toMatch(/Content-Transfer-Encoding: base64/);
  });
});

describe('field values as a form sends them (docs/contract.md, "Fields")', () => {
  it('an empty boolean is a 400 naming it: allow_print= does not leave printing allowed', async () => {
    const reply = await postAction(served, 'add_restrictions', { file: fixture('pages-3.pdf'), owner_password: 'owner-pw', allow_print: '' });
    expect(reply.status).toBe(400);
    expect(json(reply).errors).toEqual({ allow_print: ['is empty; send true or false, or leave the field out for the default (true)'] });
    // What the caller meant: false, and qpdf reads printing as not allowed.
    const restricted = await postAction(served, 'add_restrictions', { file: fixture('pages-3.pdf'), owner_password: 'owner-pw', allow_print: 'false' });
    expect(restricted.status).toBe(200);
    expect((await showEncryption(restricted.body)).capabilities['print low resolution']).toBe(false);
  });

  it('an integer above 2^53 is "too large", with the maximum (RFC 8259 §6: beyond 2^53 numbers lose precision)', async () => {
    const reply = await postAction(served, 'split_by_size', { file: fixture('pages-3.pdf'), maximum_bytes: '9007199254740993' });
    expect(reply.status).toBe(400);
    expect(json(reply).errors?.maximum_bytes).toEqual(['is too large: the largest accepted is 9007199254740991 (2^53 - 1); got 9007199254740993']);
  });
});
