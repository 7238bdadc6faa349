/**
 * The entry of dist/cli-action.cjs and dist/cli-watermark.cjs: the command
 * line when it runs one action (`pdfsvc rotate …`, `pdfsvc rotate --help`),
 * built by scripts/build.mjs as single CommonJS files that bin/pdfsvc.js
 * loads with a V8 code cache, so that a short run spends its time on the
 * document rather than on resolving and compiling modules (bench/README.md,
 * "Start-up"). Each file holds the transforms of some actions (the
 * watermarks: cli-watermark.cjs; the others: cli-action.cjs); the others'
 * are stubs. dist/cli-route.cjs (cli-route.ts) decides which command lines go
 * to which file; every other command, any action whose code these files
 * leave out (none today: the build lists them) and remote mode run from
 * dist/cli.js.
 */
import type { AnyAction } from '../core/action.js';
import { actions, namesOf } from '../actions/index.js';

export { main } from './main.js';

/** The actions whose transforms this file holds; scripts/build.mjs lists them. */
declare const __PDFSVC_ACTIONS_HERE__: readonly string[];

/** For the build: the names and aliases a command line may call this file's actions by (findAction's), each with its action's name. */
export function commandNames(): Array<[name: string, action: string]> {
  return (actions as readonly AnyAction[])
    .filter((action) => __PDFSVC_ACTIONS_HERE__.includes(action.name))
    .flatMap((action) => namesOf(action).map((name): [string, string] => [name, action.name]));
}
