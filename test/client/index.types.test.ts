/**
 * What a user's TypeScript project sees: a consumer in a temporary folder
 * imports `pdfsvc/client` and `pdfsvc` through node_modules/pdfsvc (a
 * symlink to this package, so the exports map and dist/types are what is
 * checked) and is compiled with tsc --noEmit, with browser libs and no Node
 * types. A correct call compiles; a wrong one does not.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consumerProject, typeCheck } from '../helpers/consumer.js';

/** A project that imports pdfsvc (this package, through node_modules/pdfsvc) in main.ts. */
const consumer = (source: string) => consumerProject({ 'main.ts': source }, { pdfsvc: '.' });

const GOOD = `
import { createClient, PdfsvcHttpError, type NamedDocument } from 'pdfsvc/client';
import type { ValidationError } from 'pdfsvc';

const pdfsvc = createClient({ baseUrl: 'https://pdf.example.com', apiKey: 'k', retries: 2 });
const input = new Uint8Array();
const rotated: Uint8Array = await pdfsvc.rotatePages({ file: input, angle: 90, pages: '1..3' });
const merged: Uint8Array = await pdfsvc.mergeDocuments({ file: [input, new Blob([])] });
const parts: NamedDocument[] = await pdfsvc.splitByPageCount({ file: new Blob([]), page_count: 2 });
await pdfsvc.addRestrictions({ file: input, owner_password: 'owner', allow_print: false });
try {
  await pdfsvc.addPassword({ file: input, password: 'secret', encryption_algorithm: 'AES-256' });
} catch (err) {
  if (err instanceof PdfsvcHttpError) console.log(err.status, err.title, err.type, err.errors['password'], err.retryAfter);
}
export const used: Array<unknown> = [rotated, merged, parts.map((p) => p.name), null as unknown as ValidationError];
`;

describe('pdfsvc/client types in a consumer project', () => {
  it('a correct use compiles against the exports map and dist/types', async () => {
    const result = await typeCheck(consumer(GOOD));
    expect(result.stdout + result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it('a wrong angle, a missing file and an unknown action do not', async () => {
    const result = await typeCheck(
      consumer(`import { createClient } from 'pdfsvc/client';
const pdfsvc = createClient({ baseUrl: 'http://x' });
await pdfsvc.rotatePages({ file: new Uint8Array(), angle: 'x' });
await pdfsvc.reversePages({});
await pdfsvc.rotate({ file: new Uint8Array(), angle: 90 });
`),
    );
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toMatch(/main\.ts\(3,[0-9]+\): error TS2322: Type '"x"' is not assignable/);
    expect(result.stdout).toMatch(/main\.ts\(4,[0-9]+\): error TS/);
    expect(result.stdout).toMatch(/main\.ts\(5,[0-9]+\): error TS2339: Property 'rotate' does not exist/);
  });

  it('takes a single page as a number, and optional fields and options as undefined (exactOptionalPropertyTypes)', async () => {
    const dir = consumer(`import { createClient } from 'pdfsvc/client';
import { rotatePages, splitAtPage } from 'pdfsvc';

const key: string | undefined = undefined;
const pages: string | undefined = undefined;
const input = new Uint8Array();
const pdfsvc = createClient({ baseUrl: 'https://pdf.example.com', apiKey: key, retries: undefined });
export const parts = await pdfsvc.splitAtPage({ file: input, page: 2 }, { signal: undefined });
export const mine = await splitAtPage({ file: input, page: -1 });
export const rotated = await rotatePages({ file: input, angle: 90, pages }, { onWarning: undefined });
`);
    const tsconfig = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, exactOptionalPropertyTypes: true } }),
    );
    const result = await typeCheck(dir);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });
});
