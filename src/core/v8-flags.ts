/**
 * V8 flags of the command line's short runs, in one place: bin/pdfsvc.js
 * sets the one-file CLIs' before it compiles them (it reads them from
 * dist/cli-route.cjs, which it loads anyway, so start-up loads no more code),
 * and src/core/heap-growth.ts sets merge's. One import, of a few lines
 * (core/node-binding.ts): dist/cli-route.cjs stays a few KB.
 */
import { nodeBinding } from './node-binding.js';

/** What sets V8's flags: Node's binding, else node:v8 (setV8Flags says why). */
let flagSetter: { setFlagsFromString(flags: string): void } | undefined;

/**
 * Sets V8 flags for the whole process, as node:v8's setFlagsFromString does,
 * without loading node:v8 where Node's binding is at hand: that module loads
 * Node's streams with it (internal/heap_utils), 3.7 ms of CPU and 2.3 MiB of
 * RSS in a fresh process (`node -e "require('v8')"` against `node -e 0`,
 * medians of 15), on every one-action run, which needs neither. A Node
 * without the binding, or without the function in it, gets node:v8.
 */
export function setV8Flags(flags: string): void {
  setFlags(flags);
  for (const flag of flags.split(' ')) if (flag !== '') flagsSet.set(flagName(flag), flag);
}

/**
 * `interrupt-budget` for `--interrupt-budget=…`, `turbo-inlining` for `--no-turbo-inlining`. No regular expression: V8
 * compiles one on its first use, and no code cache holds it (two here were ~0.05 ms of every one-action run).
 */
function flagName(flag: string): string {
  const name = flag.slice(2).split('=')[0];
  return name.startsWith('no-') ? name.slice(3) : name;
}

function setFlags(flags: string): void {
  flagSetter ??= v8Binding() ?? (process.getBuiltinModule('node:v8') as typeof import('node:v8'));
  flagSetter.setFlagsFromString(flags);
}

/** What setV8Flags has set in this module's bundle (flags are separated by single spaces, as this program writes them), each flag's last setting by its name: what underFlags sets again afterwards. */
const flagsSet = new Map<string, string>();

/**
 * Runs `work` under `flags`, then sets again what setV8Flags had set: V8 takes or makes a code cache only under the flags it was made with
 * (bin/pdfsvc.js's, for the one-file CLIs), and a run may have changed some
 * for itself by then (core/heap-growth.ts). `flags` are expected to be those
 * in force before this bundle's first setV8Flags.
 */
export function underFlags<T>(flags: string, work: () => T): T {
  setFlags(flags);
  try {
    return work();
  } finally {
    for (const flag of flagsSet.values()) setFlags(flag);
  }
}

function v8Binding(): { setFlagsFromString(flags: string): void } | undefined {
  const binding = nodeBinding('v8');
  return typeof binding?.setFlagsFromString === 'function' ? (binding as { setFlagsFromString(flags: string): void }) : undefined;
}

/** V8's own interrupt budget (Node 20's V8 11.3: `node --v8-options`): bytecode a function runs before it is weighed for TurboFan. */
const V8_INTERRUPT_BUDGET = 66 * 1024;

/** One action: four times V8's budget (bench/README.md, "Start-up"). */
const ACTION_INTERRUPT_BUDGET = 4 * V8_INTERRUPT_BUDGET;

/** A merge of small files, or any action on a tiny input: sixteen times V8's budget (core/heap-growth.ts, optimizeLater and optimizeLaterWhenTiny, say why). */
export const LATE_INTERRUPT_BUDGET = 16 * V8_INTERRUPT_BUDGET;

/**
 * What bin/pdfsvc.js sets before compiling a one-file CLI; its code cache is
 * made and taken under these. `--turbo-inlining` is V8's default, named so
 * that the bin sets it back before it writes the cache after a run that
 * turned it off (core/heap-growth.ts, inlineLess).
 */
export const ONE_FILE_CLI_V8_FLAGS = `--heap-growing-percent=100 --semi-space-growth-factor=1 --interrupt-budget=${ACTION_INTERRUPT_BUDGET} --turbo-inlining`;
