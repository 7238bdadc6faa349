/**
 * Every declared action reaches every surface: a CLI subcommand with its
 * aliases, an HTTP route, an OpenAPI operation, a library function, help and
 * an example for each field, and tests of its own. Adding an action without
 * one of them fails here. The catalog is the folders of src/actions/
 * (test/system/readme.test.ts checks that src/actions/catalog.ts lists them all).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as library from '../../src/index.js';
import { actions } from '../../src/actions/index.js';
import { camelName, kebabName } from '../../src/core/action.js';
import type { Field } from '../../src/core/fields.js';
import { buildProgram } from '../../src/cli/program.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { referencesIn } from '../../src/core/words.js';
import { runAction, validateInput } from '../../src/core/run.js';
import { examplePassword, exampleRequest } from '../helpers/examples.js';
import { fixture, qpdfCheck } from '../helpers/pdf-tools.js';
import { inProcessApp } from '../server/harness.js';

const ACTIONS = new URL('../../src/actions/', import.meta.url);
const folders = readdirSync(ACTIONS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** An action's tests: `<action>.test.ts` in its own folder (test/README.md). */
const testsOf = (name: string): string => {
  const file = new URL(`${name}/${name}.test.ts`, ACTIONS);
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

describe('action registry', () => {
  it('is the folders of src/actions/: one action each, named as its folder, listed once', () => {
    const names = actions.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...folders].sort());
  });

  describe.each(actions.map((a) => [a.name, a] as const))('%s', (name, action) => {
    it('has a summary, and help and rules for every field', () => {
      expect(action.summary.length).toBeGreaterThan(10);
      for (const [fieldName, field] of Object.entries(action.fields as Record<string, Field>)) {
        expect(field.help, fieldName).toMatch(/\w/);
        expect(/^[a-z][a-z0-9_]*$/.test(fieldName), fieldName).toBe(true);
      }
    });

    it('refers in its texts only to fields and actions that exist, by their API names, which the OpenAPI document says', () => {
      const texts = [action.summary, action.description ?? '', ...Object.values(action.fields as Record<string, Field>).map((field) => field.help)];
      const known = new Set([...actions.map((a) => a.name), ...actions.flatMap((a) => Object.keys(a.fields))]);
      // The command line's input file is an argument, not an option: its texts say "the input".
      const positional = Object.entries(action.fields as Record<string, Field>).find(([, field]) => field.kind === 'file' && field.accepts === 'pdf')?.[0];
      for (const reference of texts.flatMap(referencesIn)) {
        expect(known.has(reference) && reference !== positional, reference).toBe(true);
      }
      const operation = (openApiDocument(actions, 'test') as { paths: Record<string, { post: { description: string } }> }).paths[`/v1/${name}`]!.post;
      expect(operation.description).not.toMatch(/[{}]/);
    });

    it("has an example for every field that passes the field's own rules", () => {
      const fields = action.fields as Record<string, Field>;
      const raw = Object.fromEntries(
        Object.entries(fields).map(([fieldName, field]) => {
          if (field.kind !== 'file') return [fieldName, String(field.example)];
          const files = [field.example].flat().map((example) => fixture(example));
          return [fieldName, field.multiple ? files : files[0]];
        }),
      );
      expect(Object.keys(validateInput(action, raw))).toEqual(Object.keys(fields));
    });

    it.each([false, true])('runs on its example request (every field: %s), and qpdf reads every output', async (every) => {
      const request = exampleRequest(action, undefined, every);
      const result = await runAction(action, request);
      const outputs = result.output === 'document' ? [result.bytes] : result.documents.map((d) => d.bytes);
      expect(outputs.length).toBeGreaterThan(0);
      for (const output of outputs) expect((await qpdfCheck(output, examplePassword(request))).exitCode, name).toBe(0);
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

    it('has tests of its own, in its folder', () => {
      expect(testsOf(name)).toContain(name);
    });

    it('loads its transform', async () => {
      expect(typeof (await action.transform()).default).toBe('function');
    });
  });
});
