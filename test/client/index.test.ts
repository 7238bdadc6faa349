/**
 * pdfsvc/client against a real `pdfsvc serve`: every action, its output
 * judged by qpdf and poppler (not by pdf-lib, which wrote it), and the
 * failures: a 400 as PdfsvcHttpError with errors.<field>, a 401, and 503
 * retried after Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, PdfsvcHttpError, type NamedDocument, type PdfsvcClient } from '../../src/client/index.js';
import { actions } from '../../src/actions/index.js';
import { camelName } from '../../src/core/action.js';
import { fixture, pageCount, pageMarkers, pageTexts, pdfinfo, qpdfCheck, qpdfJson } from '../helpers/pdf-tools.js';
import { makePng } from '../helpers/render.js';
import { serve, type Served } from '../server/spawn.js';
import { startProxy } from './proxy.js';

let server: Served;
let client: PdfsvcClient;
beforeAll(async () => {
  server = await serve({ args: ['--workers', '1'] });
  client = createClient({ baseUrl: server.base, apiKey: server.key });
});
afterAll(() => server?.stop());

async function checked(bytes: Uint8Array, password?: string): Promise<Uint8Array> {
  expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
  expect((await qpdfCheck(bytes, password)).exitCode).toBe(0);
  return bytes;
}

async function partMarkers(parts: NamedDocument[]): Promise<number[][]> {
  const markers: number[][] = [];
  for (const part of parts) markers.push(await pageMarkers(await checked(part.bytes)));
  return markers;
}

const names = (count: number) => Array.from({ length: count }, (_, i) => `${String(i + 1).padStart(5, '0')}.pdf`);

describe('pdfsvc/client against pdfsvc serve', () => {
  it('has one function per action, named as the library names them', () => {
    for (const action of actions) expect(typeof (client as unknown as Record<string, unknown>)[camelName(action.name)], action.name).toBe('function');
  });

  it('add_password: the output opens with the password, and only with it', async () => {
    const out = await checked(await client.addPassword({ file: fixture('pages-3.pdf'), password: 'open-sesame' }), 'open-sesame');
    expect(await pageCount(out, 'open-sesame')).toBe(3);
    expect((await qpdfCheck(out, 'wrong-one')).exitCode).not.toBe(0);
  });

  it('add_restrictions: encrypted, printing off, the rest on', async () => {
    const out = await checked(await client.addRestrictions({ file: fixture('pages-3.pdf'), owner_password: 'owner-pw', allow_print: false }));
    const json = await qpdfJson(out);
    expect(json.encrypt.encrypted).toBe(true);
    expect(json.encrypt.capabilities.printlow).toBe(false);
    expect(json.encrypt.capabilities.extract).toBe(true);
  });

  it('remove_password and remove_restrictions: no encryption left', async () => {
    const open = await checked(await client.removePassword({ file: fixture('encrypted-user.pdf'), password: 'secret-user' }));
    expect((await qpdfJson(open)).encrypt.encrypted).toBe(false);
    expect(await pageCount(open)).toBe(2);
    const free = await checked(await client.removeRestrictions({ file: new Blob([fixture('restricted.pdf')]) }));
    expect((await qpdfJson(free)).encrypt.encrypted).toBe(false);
  });

  it('remove_signatures: no signed field left', async () => {
    const out = await checked(await client.removeSignatures({ file: fixture('signed.pdf') }));
    expect(await pageCount(out)).toBe(2);
    const json = await qpdfJson(out);
    expect(json.acroform.fields.filter((f) => f.fieldtype === '/Sig' && f.value !== null && f.value !== undefined)).toEqual([]);
  });

  it('page operations: reorder, extract, rotate, reverse, remove, merge', async () => {
    expect(await pageMarkers(await checked(await client.reorderPages({ file: fixture('pages-3.pdf'), page_order: '3,1,2' })))).toEqual([3, 1, 2]);
    expect(await pageMarkers(await checked(await client.extractPages({ file: fixture('pages-10.pdf'), pages: '2..3' })))).toEqual([2, 3]);
    const rotated = await checked(await client.rotatePages({ file: fixture('pages-3.pdf'), angle: 90, pages: '1,3' }));
    expect((await pdfinfo(rotated)).pages.map((p) => p.rotation)).toEqual([90, 0, 90]);
    expect(await pageMarkers(await checked(await client.reversePages({ file: fixture('pages-3.pdf') })))).toEqual([3, 2, 1]);
    expect(await pageMarkers(await checked(await client.removePages({ file: fixture('pages-3.pdf'), pages: '1' })))).toEqual([2, 3]);
    const merged = await checked(await client.mergeDocuments({ file: [fixture('pages-3.pdf'), new Blob([fixture('pages-1.pdf')])] }));
    expect(await pageCount(merged)).toBe(4);
  });

  it('splits come back as named parts, read from multipart/mixed', async () => {
    const byCount = await client.splitByPageCount({ file: fixture('pages-10.pdf'), page_count: 3 });
    expect(byCount.map((p) => p.name)).toEqual(names(4));
    expect(await partMarkers(byCount)).toEqual([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]]);
    const atPage = await client.splitAtPage({ file: fixture('pages-3.pdf'), page: '2' });
    expect((await partMarkers(atPage)).flat()).toEqual([1, 2, 3]);
    expect(atPage).toHaveLength(2);
    const groups = await client.splitByGroups({ file: fixture('pages-3.pdf'), groups: '3;1..2' });
    expect(await partMarkers(groups)).toEqual([[3], [1, 2]]);
    const bySize = await client.splitBySize({ file: fixture('sized.pdf'), maximum_bytes: 100_000 });
    expect(bySize.length).toBeGreaterThan(1);
    expect(bySize.map((p) => p.name)).toEqual(names(bySize.length));
    let pages = 0;
    for (const part of bySize) pages += await pageCount(await checked(part.bytes));
    expect(pages).toBe(12);
  });

  it('watermarks: the text is on every page; the image leaves the pages readable', async () => {
    const text = await checked(await client.addTextWatermark({ file: fixture('pages-3.pdf'), line_1: 'CONFIDENTIAL' }));
    for (const page of await pageTexts(text)) expect(page).toContain('CONFIDENTIAL');
    const png = makePng(30, 10, () => [255, 0, 0, 255]);
    const image = await checked(await client.addImageWatermark({ file: fixture('pages-3.pdf'), image: new Blob([png], { type: 'image/png' }) }));
    expect(await pageMarkers(image)).toEqual([1, 2, 3]);
    expect(image.byteLength).toBeGreaterThan(fixture('pages-3.pdf').byteLength);
  });

  it('a 400 is a PdfsvcHttpError with errors.<field>', async () => {
    const err = await client.rotatePages({ file: fixture('pages-3.pdf'), angle: 45 as never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PdfsvcHttpError);
    const problem = err as PdfsvcHttpError;
    expect(problem.status).toBe(400);
    expect(problem.title).toMatch(/validation/);
    expect(problem.type).toMatch(/\/v1\/errors\/400$/);
    expect(problem.errors.angle[0]).toMatch(/must be one of 0, 90/);
    const damaged = (await client.rotatePages({ file: fixture('not-a-pdf.pdf'), angle: 90 }).catch((e: unknown) => e)) as PdfsvcHttpError;
    expect(damaged.errors.file[0]).toMatch(/could not be parsed/);
  });

  it('a 401 when the key is unknown or missing', async () => {
    for (const apiKey of ['pdfsvc_not-a-key', undefined]) {
      const err = (await createClient({ baseUrl: server.base, apiKey })
        .reversePages({ file: fixture('pages-1.pdf') })
        .catch((e: unknown) => e)) as PdfsvcHttpError;
      expect(err).toBeInstanceOf(PdfsvcHttpError);
      expect(err.status).toBe(401);
      expect(err.errors).toEqual({});
    }
  });

  it('a 503 is retried after its Retry-After, then succeeds', async () => {
    const proxy = await startProxy({ target: server.base, busyFirst: 1, retryAfter: '1' });
    const out = await createClient({ baseUrl: proxy.url, apiKey: server.key }).reversePages({ file: fixture('pages-3.pdf') });
    expect(await pageMarkers(await checked(out))).toEqual([3, 2, 1]);
    expect(proxy.arrivals).toHaveLength(2);
    expect(proxy.arrivals[1] - proxy.arrivals[0]).toBeGreaterThanOrEqual(950);
    await proxy.close();
  });

  it('gives up after `retries` retries with the last 503, retryAfter included; other failures are not retried', async () => {
    const proxy = await startProxy({ target: server.base, busyFirst: 10, retryAfter: '0' });
    const err = (await createClient({ baseUrl: proxy.url, apiKey: server.key, retries: 2 })
      .reversePages({ file: fixture('pages-3.pdf') })
      .catch((e: unknown) => e)) as PdfsvcHttpError;
    expect(err.status).toBe(503);
    expect(err.retryAfter).toBe(0);
    expect(proxy.arrivals).toHaveLength(3);
    await proxy.close();
    const direct = await startProxy({ target: server.base });
    await createClient({ baseUrl: direct.url, apiKey: 'pdfsvc_wrong' })
      .reversePages({ file: fixture('pages-3.pdf') })
      .catch(() => {});
    expect(direct.arrivals).toHaveLength(1);
    await direct.close();
  });
});
