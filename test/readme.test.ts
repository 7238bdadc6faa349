/**
 * The README's action reference is generated from the declarations (as the
 * OpenAPI document is): this fails when they disagree. `npm run readme`
 * rewrites the section from the declarations.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { actions } from '../src/actions/index.js';
import type { AnyAction } from '../src/core/action.js';
import { actionsReference, REFERENCE_END, REFERENCE_START } from '../src/core/reference.js';

const README = new URL('../README.md', import.meta.url);

describe('README', () => {
  it('documents every action and every field as declared', () => {
    const text = readFileSync(README, 'utf8');
    const start = text.indexOf(REFERENCE_START);
    const end = text.indexOf(REFERENCE_END);
    expect(start, 'the README has the generated actions section').toBeGreaterThanOrEqual(0);
    const generated = actionsReference(actions as readonly AnyAction[]);
    const current = text.slice(start, end + REFERENCE_END.length);
    if (process.env.PDFSVC_WRITE_README === '1' && current !== generated) {
      writeFileSync(README, text.slice(0, start) + generated + text.slice(end + REFERENCE_END.length));
      return;
    }
    expect(current, 'run `npm run readme` to regenerate the README from the declarations').toBe(generated);
    // Every action and every field name appears (a generator that dropped some would also pass the line above).
    for (const action of actions as readonly AnyAction[]) {
      expect(current).toContain(`#### \`${action.name}\``);
      for (const name of Object.keys(action.fields)) expect(current).toContain(`| \`${name}\` |`);
    }
  });
});
