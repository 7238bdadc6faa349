/**
 * The entry of dist/cli-route.cjs, which bin/pdfsvc.js loads first: whether
 * the command line runs from dist/cli-action.cjs (one action, local) or from
 * dist/cli.js (everything else), decided before loading either.
 */
import { commandNameIn } from './command-name.js';

/** The command names and aliases of the actions in dist/cli-action.cjs (scripts/build.mjs lists them). */
declare const __PDFSVC_ACTION_CLI_COMMANDS__: readonly string[];

/** Whether dist/cli-action.cjs runs `argv`: an action it holds, on local files (remote mode runs from dist/cli.js). */
export function runsInActionCli(argv: string[]): boolean {
  const name = commandNameIn(argv);
  if (name === undefined || !__PDFSVC_ACTION_CLI_COMMANDS__.includes(name)) return false;
  return !(process.env.PDFSVC_SERVER || argv.some((arg) => arg === '--server' || arg.startsWith('--server=')));
}
