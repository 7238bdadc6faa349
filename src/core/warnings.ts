/**
 * Warnings: damage a document was read through (a rebuilt cross-reference
 * table, a repaired page tree, objects carried as their bytes). The output
 * is made; the user should still know. The library never prints them: whoever
 * runs an action decides, through `onWarning` (the CLI prints them on
 * standard error, the server writes them into its request log).
 *
 * The handler travels with the running action in AsyncLocalStorage, so two
 * actions running at once each get their own, and no transform has to pass
 * it along. A document takes the handler when it is opened: it reads lazily,
 * and may meet damage long after.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Warning {
  /** The input field the document came from (`file`, `image`). */
  field: string;
  message: string;
}

export type WarningHandler = (warning: Warning) => void;

const handlers = new AsyncLocalStorage<WarningHandler>();

/** Runs an action with `onWarning` receiving its warnings. */
export function runWithWarnings<T>(onWarning: WarningHandler | undefined, run: () => Promise<T>): Promise<T> {
  return onWarning ? handlers.run(onWarning, run) : run();
}

/** The handler of the action running now, if its caller gave one. */
export function currentWarningHandler(): WarningHandler | undefined {
  return handlers.getStore();
}
