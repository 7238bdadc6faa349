/**
 * The catalog: every action, in the order listings show them. Adding an
 * action means adding its folder and running `npm run readme`, which writes
 * catalog.ts from the folders; the CLI, the routes, the OpenAPI document and
 * the library functions follow.
 */
import type { AnyAction } from '../core/action.js';
import { actions } from './catalog.js';

export * from './catalog.js';

/** The names a command line or a request may call an action by: its API name, kebab-case name and aliases. */
export function namesOf(action: AnyAction): string[] {
  return [action.name, action.name.replaceAll('_', '-'), ...(action.aliases ?? [])];
}

const byName = new Map<string, AnyAction>();
for (const action of actions as readonly AnyAction[]) {
  for (const name of namesOf(action)) byName.set(name, action);
}

/** Finds an action by API name, kebab-case name or alias. */
export function findAction(name: string): AnyAction | undefined {
  return byName.get(name);
}
