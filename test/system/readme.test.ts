/**
 * What `npm run readme` generates from the declarations: the README's action
 * reference (as the OpenAPI document is), the catalog (src/actions/catalog.ts,
 * from the folders of src/actions/) and the library functions of
 * src/index.ts. This fails when one of them disagrees with the declarations
 * (a new action folder included); `npm run readme` rewrites them.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { actions } from '../../src/actions/index.js';
import type { AnyAction } from '../../src/core/action.js';
import {
  actionsReference,
  catalogModule,
  catalogOrder,
  LIBRARY_END,
  LIBRARY_START,
  libraryExports,
  REFERENCE_END,
  REFERENCE_START,
} from '../../src/core/reference.js';

const README = new URL('../../README.md', import.meta.url);
const CATALOG = new URL('../../src/actions/catalog.ts', import.meta.url);
const LIBRARY = new URL('../../src/index.ts', import.meta.url);
const ACTIONS = new URL('../../src/actions/', import.meta.url);
const write = process.env.PDFSVC_WRITE_README === '1';

/** Every folder of src/actions/ with a declaration, as the catalog lists them (listed ones in their order). */
async function declaredActions(): Promise<AnyAction[]> {
  const folders = readdirSync(ACTIONS, { withFileTypes: true }).filter(
    (entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/action.ts`, ACTIONS)),
  );
  const found = await Promise.all(
    folders.map(async ({ name }) => ((await import(new URL(`${name}/action.ts`, ACTIONS).href)) as { default: AnyAction }).default),
  );
  return catalogOrder(actions as readonly AnyAction[], found);
}

/** Compares (or with PDFSVC_WRITE_README=1, rewrites) the part of `file` between `start` and `end`, markers included. */
function checkPart(file: URL, generated: string, start?: string, end?: string): string {
  const text = readFileSync(file, 'utf8');
  const from = start === undefined ? 0 : text.indexOf(start);
  const to = end === undefined ? text.length : text.indexOf(end) + end.length;
  expect(from, `${file.pathname} has the generated part`).toBeGreaterThanOrEqual(0);
  const current = text.slice(from, to);
  if (write && current !== generated) writeFileSync(file, text.slice(0, from) + generated + text.slice(to));
  else expect(current, 'run `npm run readme` to regenerate it from the declarations').toBe(generated);
  return generated;
}

describe('generated from the declarations', () => {
  it('the catalog lists every folder of src/actions/', async () => {
    checkPart(CATALOG, catalogModule(await declaredActions()));
  });

  it('src/index.ts has a library function for every action', async () => {
    checkPart(LIBRARY, libraryExports(await declaredActions()), LIBRARY_START, LIBRARY_END);
  });

  it('the README documents every action and every field as declared', async () => {
    const declared = await declaredActions();
    const current = checkPart(README, actionsReference(declared), REFERENCE_START, REFERENCE_END);
    // Every action and every field name appears (a generator that dropped some would also pass the line above).
    for (const action of declared) {
      expect(current).toContain(`#### \`${action.name}\``);
      for (const name of Object.keys(action.fields)) expect(current).toContain(`| \`${name}\` |`);
    }
  });
});
