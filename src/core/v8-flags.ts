/**
 * V8 flags of the command line's short runs, in one place: bin/pdfsvc.js
 * sets the one-file CLIs' before it compiles them (it reads them from
 * dist/cli-route.cjs, which it loads anyway, so start-up loads no more code),
 * and src/core/heap-growth.ts sets merge's. No imports: dist/cli-route.cjs
 * stays a few KB.
 */

/** V8's own interrupt budget (Node 20's V8 11.3: `node --v8-options`): bytecode a function runs before it is weighed for TurboFan. */
const V8_INTERRUPT_BUDGET = 66 * 1024;

/** One action: four times V8's budget (bench/README.md, "Start-up"). */
const ACTION_INTERRUPT_BUDGET = 4 * V8_INTERRUPT_BUDGET;

/** A merge: sixteen times V8's budget (core/heap-growth.ts, optimizeLater, says why). */
export const MERGE_INTERRUPT_BUDGET = 16 * V8_INTERRUPT_BUDGET;

/**
 * What bin/pdfsvc.js sets before compiling a one-file CLI; its code cache is
 * made and taken under these. `--turbo-inlining` is V8's default, named so
 * that the bin sets it back before it writes the cache after a run that
 * turned it off (core/heap-growth.ts, inlineLess).
 */
export const ONE_FILE_CLI_V8_FLAGS = `--heap-growing-percent=100 --semi-space-growth-factor=1 --interrupt-budget=${ACTION_INTERRUPT_BUDGET} --turbo-inlining`;
