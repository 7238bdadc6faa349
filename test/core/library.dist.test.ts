/**
 * The library as a user's program runs it: a consumer project imports
 * `pdfsvc` through node_modules (a symlink to this package), so the exports
 * map and the built dist/ are what is run, not src/. The build renames
 * classes (esbuild made `_ValidationError`, what console.log printed), which
 * only shows here. CommonJS programs require() it (Node 20.19 loads ES modules
 * so), which the exports map must allow.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actions } from '../../src/actions/index.js';
import { camelName } from '../../src/core/action.js';
import { sayText } from '../../src/core/words.js';
import { consumerProject } from '../helpers/consumer.js';
import { ROOT } from '../server/spawn.js';
import { fixturePath, pageMarkers, pdfinfo } from '../helpers/pdf-tools.js';

const MAIN = `
import { readFileSync, writeFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { rotatePages, extractPages, PdfsvcError, ValidationError } from 'pdfsvc';

const input = readFileSync(process.argv[2]);
writeFileSync('rotated.pdf', await rotatePages({ file: input, angle: 90, pages: '2' }));
try {
  await extractPages({ file: input, pages: '9' });
} catch (err) {
  console.log(JSON.stringify({
    name: err.name,
    text: String(err),
    logged: inspect(err),
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
    const refused = JSON.parse(stdout) as {
      name: string;
      text: string;
      logged: string;
      validation: boolean;
      pdfsvc: boolean;
      errors: Record<string, string[]>;
    };
    expect(refused.name).toBe('ValidationError');
    expect(refused.text).toMatch(/^ValidationError: pages: page "9" does not exist/);
    // What console.log(err) prints: the class as the README names it, and the code it has.
    expect(refused.logged).toMatch(/^ValidationError: pages: page "9" does not exist/);
    expect(refused.logged).toContain("code: 'page_out_of_range'");
    expect(refused.validation && refused.pdfsvc).toBe(true);
    expect(Object.keys(refused.errors)).toEqual(['pages']);

    const rotated = new Uint8Array(readFileSync(join(dir, 'rotated.pdf')));
    expect((await pdfinfo(rotated)).pages.map((p) => p.rotation)).toEqual([0, 90, 0]);
    expect(await pageMarkers(rotated)).toEqual([1, 2, 3]);
  });

  it('is required by a CommonJS program, the library and the client, and a refusal without a code carries none', async () => {
    const main = `
const { readFileSync } = require('node:fs');
const { inspect } = require('node:util');
const { rotatePages } = require('pdfsvc');
const { createClient } = require('pdfsvc/client');
rotatePages({ file: readFileSync(process.argv[2]), angle: 270 }).then(async (rotated) => {
  let logged;
  await rotatePages({ file: rotated, angle: 45 }).catch((err) => (logged = inspect(err)));
  process.stdout.write(JSON.stringify({ rotated: [...rotated], client: typeof createClient, logged }));
});
`;
    const dir = consumerProject({ 'main.cjs': main }, { pdfsvc: '.' });
    // Not stderr: some Node versions print an ExperimentalWarning for require() of an ES module.
    const { stdout } = await execa(process.execPath, ['main.cjs', fixturePath('pages-3.pdf')], { cwd: dir });
    const out = JSON.parse(stdout) as { rotated: number[]; client: string; logged: string };
    expect(out.client).toBe('function');
    const rotated = new Uint8Array(out.rotated);
    expect((await pdfinfo(rotated)).pages.map((p) => p.rotation)).toEqual([270, 270, 270]);
    expect(out.logged).toMatch(/^ValidationError: angle: must be one of/);
    expect(out.logged).not.toContain('code:');
  });

  it("declares each function with its action's summary, which an editor shows on hover", () => {
    const declarations = readFileSync(join(ROOT, 'dist/types/index.d.ts'), 'utf8');
    for (const action of actions) {
      const declared = declarations.indexOf(`export declare const ${camelName(action.name)}:`);
      expect(declared, action.name).toBeGreaterThan(0);
      const comment = declarations.slice(declarations.lastIndexOf('/**', declared), declared);
      expect(comment, action.name).toContain(sayText(action.summary));
    }
  });
});
