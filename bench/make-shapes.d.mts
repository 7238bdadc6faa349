// Types of what the tests import from make-shapes.mjs (test/bench/incremental-shape.test.ts).

/** Writes `output`: `base` with `updates` incremental updates appended, each touching `perUpdate` pages (default 5 and 5). */
export function makeIncremental(base: string, output: string, options?: { updates?: number; perUpdate?: number }): void;
