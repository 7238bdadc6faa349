/**
 * A client generated from the served OpenAPI document, as a third party
 * would make one: openapi-typescript turns the document into types,
 * openapi-fetch calls the server with them. The program below is
 * type-checked with tsc (strict; `@ts-expect-error` lines prove that wrong
 * calls do not compile), then run against a real server, and its outputs are
 * judged with qpdf and pdfinfo.
 *
 * Generated at test time, not committed: what is checked is the document the
 * server serves now, so a change to an action's fields needs no regenerated
 * file, and a change that breaks generated clients fails here.
 *
 * openapi-typescript types `format: binary` as `string` by default (it cannot
 * know the platform); its documented `transform` option maps the request
 * body's to `Blob`, which is what FormData takes. README.md says so for users.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, typeCheck } from '../helpers/consumer.js';
import { fixture, pageCount, pdfinfo, qpdfCheck } from '../helpers/pdf-tools.js';
import { send, serve, type Served } from './spawn.js';

let served: Served;
beforeAll(async () => {
  served = await serve({ args: ['--workers', '2'] });
});
afterAll(() => served.stop());

/** What the program does: three actions (one document, a split as JSON, a merge of two Blobs) and one refusal. */
const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function run(baseUrl: string, apiKey: string, three: Uint8Array<ArrayBuffer>, ten: Uint8Array<ArrayBuffer>) {
  const client = createClient<paths>({
    baseUrl,
    headers: { 'X-API-Key': apiKey },
    // multipart/form-data: files as parts, a list as repeated parts, the rest as text.
    bodySerializer(body: unknown) {
      const form = new FormData();
      for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
        for (const item of Array.isArray(value) ? value : [value]) {
          if (item instanceof Blob) form.append(name, item, name + '.pdf');
          else if (item !== undefined) form.append(name, String(item));
        }
      }
      return form;
    },
  });
  const pdf = (bytes: Uint8Array<ArrayBuffer>): Blob => new Blob([bytes], { type: 'application/pdf' });

  // (A literal from a union, such as an angle, needs 'as const' for openapi-fetch to infer parseAs.)
  const rotated = await client.POST('/v1/rotate_pages', { body: { file: pdf(three), angle: 90 as const, pages: '2..' }, parseAs: 'arrayBuffer' });
  if (rotated.error !== undefined || rotated.data === undefined) throw new Error('rotate_pages: ' + rotated.response.status);

  const split = await client.POST('/v1/split_by_page_count', { params: { header: { Accept: 'application/json' } }, body: { file: pdf(ten), page_count: 4 } });
  if (split.data === undefined || typeof split.data === 'string') throw new Error('split_by_page_count: ' + split.response.status);
  const parts = split.data.documents.map((d) => ({ name: d.name, type: d.content_type, base64: d.content }));

  const merged = await client.POST('/v1/merge_documents', { body: { file: [pdf(three), pdf(ten)] }, parseAs: 'arrayBuffer' });
  if (merged.data === undefined) throw new Error('merge_documents: ' + merged.response.status);

  const refused = await client.POST('/v1/extract_pages', { body: { file: pdf(three), pages: '9' } });
  const problem = refused.error;

  return {
    rotated: new Uint8Array(rotated.data),
    parts,
    merged: new Uint8Array(merged.data),
    refused: { status: refused.response.status, type: problem?.type, pages: problem?.errors?.['pages'] },
  };
}

/** Calls the types refuse (never run): each line below must fail to compile. */
export function wrong(client: ReturnType<typeof createClient<paths>>, file: Blob) {
  // @ts-expect-error 45 is not one of the angles the document lists
  void client.POST('/v1/rotate_pages', { body: { file, angle: 45 } });
  // @ts-expect-error a field the action does not have (additionalProperties: false)
  void client.POST('/v1/rotate_pages', { body: { file, angle: 90, pgaes: '1' } });
  // @ts-expect-error file is binary: a Blob, not a string
  void client.POST('/v1/reverse_pages', { body: { file: 'in.pdf' } });
  // @ts-expect-error page_count is required
  void client.POST('/v1/split_by_page_count', { body: { file } });
  // @ts-expect-error split actions take only the three packagings as Accept
  void client.POST('/v1/split_by_size', { params: { header: { Accept: 'application/pdf' } }, body: { file, maximum_bytes: 1000 } });
}
`;

describe('a client generated with openapi-typescript + openapi-fetch from the served document', () => {
  it('type-checks (wrong calls do not compile), then rotates, splits and merges through the server', async () => {
    const document = JSON.parse((await send(`${served.base}/v1/openapi.json`)).body.toString('utf8')) as Record<string, unknown>;
    const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));
    const types = await openapiTS(document as never, {
      // openapi-typescript's documented way to type binary data as a Blob,
      // for what the client sends; answers stay as openapi-fetch reads them
      // (parseAs: 'arrayBuffer').
      transform: (schema, { path }) => (schema.format === 'binary' && path?.includes('/requestBody/') ? BLOB : undefined),
    });
    const schema = astToString(types);
    const dir = consumerProject(
      { 'schema.ts': schema, 'main.ts': PROGRAM },
      { 'openapi-fetch': 'node_modules/openapi-fetch', 'openapi-typescript-helpers': 'node_modules/openapi-typescript-helpers' },
    );

    // The binary fields are Blobs in the generated types.
    expect(schema).toMatch(/file: Blob;/);
    expect(schema).toMatch(/file\?: Blob\[\];/);
    const checked = await typeCheck(dir);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.exitCode).toBe(0);

    await build({ entryPoints: [join(dir, 'main.ts')], bundle: true, format: 'esm', platform: 'neutral', outfile: join(dir, 'main.mjs'), logLevel: 'error' });
    const program = (await import(pathToFileURL(join(dir, 'main.mjs')).href)) as { run: (...args: unknown[]) => Promise<Result> };
    interface Result {
      rotated: Uint8Array;
      parts: Array<{ name: string; type: string; base64: string }>;
      merged: Uint8Array;
      refused: { status: number; type?: string; pages?: string[] };
    }
    const result = await program.run(served.base, served.key, fixture('pages-3.pdf'), fixture('pages-10.pdf'));

    expect((await qpdfCheck(result.rotated)).exitCode).toBe(0);
    expect((await pdfinfo(result.rotated)).pages.map((p) => p.rotation)).toEqual([0, 90, 90]);
    expect(result.parts.map((p) => [p.name, p.type])).toEqual([
      ['00001.pdf', 'application/pdf'],
      ['00002.pdf', 'application/pdf'],
      ['00003.pdf', 'application/pdf'],
    ]);
    expect(await Promise.all(result.parts.map((p) => pageCount(Buffer.from(p.base64, 'base64'))))).toEqual([4, 4, 2]);
    expect((await qpdfCheck(result.merged)).exitCode).toBe(0);
    expect(await pageCount(result.merged)).toBe(13);
    expect(result.refused).toEqual({ status: 400, type: `${served.base}/v1/errors/400`, pages: [expect.stringMatching(/9.*3 pages/)] });
  });
});
