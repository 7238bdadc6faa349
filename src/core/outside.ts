/**
 * Work that outlives the action it starts in: loading a module on first use
 * (a transform, fontkit) and promises kept for every later action (the
 * watermark's font list). Promises made while an action runs carry its
 * AsyncLocalStorage stores (core/warnings.ts, core/pages-read.ts), and a
 * module's loading promises live as long as the process: each one kept the
 * first request's warning handler, and through it that request's upload,
 * for good (a server worker held 7 MB per action it had run, 100 MB after a
 * round of the 17). Run here, they carry none.
 *
 * The resource is made when this module loads, at start-up, outside any
 * action (core/run.ts imports it statically).
 */
import { AsyncResource } from 'node:async_hooks';

const root = new AsyncResource('pdfsvc:outside-actions');

/** Runs `start` outside any action's async context. */
export function outsideActions<T>(start: () => T): T {
  return root.runInAsyncScope(start);
}
