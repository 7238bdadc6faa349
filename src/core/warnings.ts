/**
 * Warnings: damage a document was read through (a rebuilt cross-reference
 * table, a repaired page tree, objects carried as their bytes). The output
 * is made; the user should still know. The library never prints them: whoever
 * runs an action decides, through `onWarning` (the CLI prints them on
 * standard error, the server writes them into its request log).
 *
 * The handler travels in the run's context (core/run.ts, TransformContext),
 * so two actions running at once each get their own. A document takes it
 * when it is opened: it reads lazily, and may meet damage long after.
 */

export interface Warning {
  /** The input field the document came from (`file`, `image`). */
  field: string;
  message: string;
}

export type WarningHandler = (warning: Warning) => void;
