/**
 * What a user's TypeScript project sees: a consumer in a temporary folder
 * imports `pdfsvc/client` and `pdfsvc` through node_modules/pdfsvc (a
 * symlink to this package, so the exports map and dist/types are what is
 * checked) and is compiled with tsc --noEmit, with browser libs and no Node
 * types. A correct call compiles; a wrong one does not.
 */
import { execa } from 'execa';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../server/spawn.js';

function consumer(source: string): string {
  const dir = tempDir('pdfsvc-consumer-');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'pdfsvc'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      include: ['main.ts'],
    }),
  );
  writeFileSync(join(dir, 'main.ts'), source);
  return dir;
}

const tsc = (dir: string) => execa(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { reject: false });

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
    const result = await tsc(consumer(GOOD));
    expect(result.stdout + result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it('a wrong angle, a missing file and an unknown action do not', async () => {
    const result = await tsc(
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
});
