/**
 * The entry of dist/cli-action.cjs: the command line when it runs one action
 * (`pdfsvc rotate …`, `pdfsvc rotate --help`), built by scripts/build.mjs as a
 * single CommonJS file that bin/pdfsvc.js loads with a V8 code cache, so that
 * a short run spends its time on the document rather than on resolving and
 * compiling modules (bench/README.md, "Start-up"). dist/cli-route.cjs
 * (cli-route.ts) decides which command lines come here; every other command,
 * any action whose code this file leaves out (none today: the build lists
 * them) and remote mode run from dist/cli.js.
 */
import type { AnyAction } from '../core/action.js';
import { actions, namesOf } from '../actions/index.js';

export { main } from './main.js';

/** The actions this file leaves to dist/cli.js; scripts/build.mjs finds them from the bundle's imports. */
declare const __PDFSVC_FULL_CLI_ACTIONS__: readonly string[];

/** For the build: the names and aliases a command line may call this file's actions by (findAction's). */
export function commandNames(): string[] {
  return (actions as readonly AnyAction[]).filter((action) => !__PDFSVC_FULL_CLI_ACTIONS__.includes(action.name)).flatMap(namesOf);
}
