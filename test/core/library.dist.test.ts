/**
 * The library as a user's program runs it: a consumer project imports
 * `pdfsvc` through node_modules (a symlink to this package), so the exports
 * map and the built dist/ are what is run, not src/. The build renames
 * classes (esbuild made `_ValidationError`), which only shows here.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consumerProject } from '../helpers/consumer.js';
import { fixturePath, pageMarkers, pdfinfo } from '../helpers/pdf-tools.js';

const MAIN = `
import { readFileSync, writeFileSync } from 'node:fs';
import { rotatePages, extractPages, PdfsvcError, ValidationError } from 'pdfsvc';

const input = readFileSync(process.argv[2]);
writeFileSync('rotated.pdf', await rotatePages({ file: input, angle: 90, pages: '2' }));
try {
  await extractPages({ file: input, pages: '9' });
} catch (err) {
  console.log(JSON.stringify({
    name: err.name,
    text: String(err),
    validation: err instanceof ValidationError,
    pdfsvc: err instanceof PdfsvcError,
    errors: err.errors,
  }));
}
`;

describe('the built library in a consumer project', () => {
  it('runs an action and throws errors named as the README names them', async () => {
    const dir = consumerProject({ 'main.mjs': MAIN }, { pdfsvc: '.' });
    const { stdout } = await execa(process.execPath, ['main.mjs', fixturePath('pages-3.pdf')], { cwd: dir });
    const refused = JSON.parse(stdout) as { name: string; text: string; validation: boolean; pdfsvc: boolean; errors: Record<string, string[]> };
    expect(refused.name).toBe('ValidationError');
    expect(refused.text).toMatch(/^ValidationError: pages: page "9" does not exist/);
    expect(refused.validation && refused.pdfsvc).toBe(true);
    expect(Object.keys(refused.errors)).toEqual(['pages']);

    const rotated = new Uint8Array(readFileSync(join(dir, 'rotated.pdf')));
    expect((await pdfinfo(rotated)).pages.map((p) => p.rotation)).toEqual([0, 90, 0]);
    expect(await pageMarkers(rotated)).toEqual([1, 2, 3]);
  });
});
