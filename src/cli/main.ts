/**
 * The `pdfsvc` command line. Only the action declarations are loaded up
 * front; a plain run of one action (`pdfsvc rotate --angle 90 in.pdf -o
 * out.pdf`) is read without commander (action-options.ts), anything else by
 * commander (program.ts); the PDF library, the server and key management are
 * imported when a command needs them, so `--help` stays fast.
 */
import { findAction } from '../actions/index.js';
import type { AnyAction } from '../core/action.js';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { plainActionLine } from './action-options.js';
import { runActionCommand } from './action-run.js';
import { commandNameIn } from './command-name.js';
import { EXIT_OK, exitStatusOf, problemOf } from './failure.js';
import { limitHeapGrowth } from '../core/heap-growth.js';
import { CLI_WORDS } from './words.js';

/** The action `argv` runs (by its command name or an alias), if that is what it does. */
export function actionNamedIn(argv: string[]): AnyAction | undefined {
  const name = commandNameIn(argv);
  return name === undefined ? undefined : findAction(name);
}

export async function main(argv: string[]): Promise<void> {
  // The command line's own process: its heap may grow to twice what is live (core/heap-growth.ts says why).
  limitHeapGrowth(100);
  const action = actionNamedIn(argv);
  // Commander's module, its command and its parse were ~1.5 ms of a 10-page rotate (bench/README.md, argv).
  const plain = action && plainActionLine(action, argv);
  const wantsJson = argv.includes('--json');
  let program: typeof import('./program.js') | undefined;
  try {
    if (plain) {
      await runActionCommand(action, plain.positional, plain.options, undefined, plain.formatGiven);
    } else {
      program = await import('./program.js');
      await program.parseCommandLine(argv, action);
    }
    process.exitCode ??= EXIT_OK;
  } catch (err) {
    process.exitCode = report(err, wantsJson);
    // A server that refuses to start closes what it opened, but a step may still leave a timer, a
    // socket or a database handle behind: the refusal must end the process, not leave it hanging.
    if (program?.startedServer()) process.exit();
  }
}

/** Prints a failure the way a user can act on it; returns the exit status. */
function report(err: unknown, json: boolean): number {
  if (json) {
    process.stderr.write(`${JSON.stringify(problemOf(err))}\n`);
  } else if (err instanceof ValidationError) {
    for (const [field, messages] of Object.entries(err.errorsIn(CLI_WORDS))) {
      for (const message of messages) process.stderr.write(`pdfsvc: ${field}: ${message}\n`);
    }
  } else if (err instanceof PdfsvcError) {
    process.stderr.write(`pdfsvc: ${err.message}\n`);
  } else {
    const detail = process.env.PDFSVC_DEBUG ? (err as Error)?.stack : (err as Error)?.message;
    process.stderr.write(`pdfsvc: internal error: ${detail ?? String(err)}\n(set PDFSVC_DEBUG=1 for details; please report this with the input if you can)\n`);
  }
  return exitStatusOf(err);
}
