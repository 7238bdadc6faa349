/**
 * Every declared action reaches every surface: a CLI subcommand with its
 * aliases, an HTTP route, an OpenAPI operation, a library function, help for
 * each field, and tests of its own. Adding an action without one of them
 * fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as library from '../src/index.js';
import { actions } from '../src/actions/index.js';
import { camelName, kebabName } from '../src/core/action.js';
import type { Field } from '../src/core/fields.js';
import { buildProgram } from '../src/cli/main.js';
import { openApiDocument } from '../src/server/openapi.js';
import { inProcessApp } from './server/harness.js';

/** The 17 actions (docs/contract.md, "Actions"). */
const CATALOG = [
  'add_password', 'add_restrictions', 'remove_password', 'remove_restrictions', 'remove_signatures',
  'reorder_pages', 'extract_pages', 'rotate_pages', 'reverse_pages', 'remove_pages', 'merge_documents',
  'split_by_size', 'split_by_page_count', 'split_at_page', 'split_by_groups',
  'add_text_watermark', 'add_image_watermark',
];

const testSources = readdirSync(new URL('./actions/', import.meta.url))
  .map((name) => readFileSync(new URL(`./actions/${name}`, import.meta.url), 'utf8'))
  .join('\n');

describe('action registry', () => {
  it('declares only actions of the catalog, each once', () => {
    const names = actions.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(CATALOG).toContain(name);
  });

  describe.each(actions.map((a) => [a.name, a] as const))('%s', (name, action) => {
    it('has a summary, and help and rules for every field', () => {
      expect(action.summary.length).toBeGreaterThan(10);
      for (const [fieldName, field] of Object.entries(action.fields as Record<string, Field>)) {
        expect(field.help, fieldName).toMatch(/\w/);
        expect(/^[a-z][a-z0-9_]*$/.test(fieldName), fieldName).toBe(true);
      }
    });

    it('is a CLI subcommand under its kebab-case name with the API name as an alias', () => {
      const command = buildProgram().commands.find((c) => c.name() === kebabName(name));
      expect(command).toBeDefined();
      expect(command!.aliases()).toContain(name);
    });

    it('is an HTTP route (POST without a key is 401, not 404)', async () => {
      const response = await inProcessApp().fetch(new Request(`http://pdfsvc.test/v1/${name}`, { method: 'POST' }));
      expect(response.status).toBe(401);
    });

    it('is an OpenAPI operation', () => {
      const doc = openApiDocument(actions, 'test') as { paths: Record<string, { post?: { operationId: string } }> };
      expect(doc.paths[`/v1/${name}`]?.post?.operationId).toBe(name);
    });

    it('is a library function', () => {
      expect(typeof (library as Record<string, unknown>)[camelName(name)]).toBe('function');
    });

    it('has tests of its own under test/actions', () => {
      expect(testSources).toContain(name);
    });

    it('loads its transform', async () => {
      expect(typeof (await action.transform()).default).toBe('function');
    });
  });
});
