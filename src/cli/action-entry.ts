/**
 * The entry of dist/cli-action.cjs: the command line when it runs one action
 * (`pdfsvc rotate …`, `pdfsvc rotate --help`), built by scripts/build.mjs as a
 * single CommonJS file that bin/pdfsvc.js loads with a V8 code cache, so that
 * a short run spends its time on the document rather than on resolving and
 * compiling modules (bench/README.md, "Start-up"). Every other command, the
 * actions whose code that file leaves out (the watermarks: pdf-lib's drawing
 * code and fonts) and remote mode (which loads no PDF code at all there) run
 * from dist/cli.js.
 */
import { actionNamedIn } from './main.js';

export { main } from './main.js';

/** The actions dist/cli-action.cjs leaves to dist/cli.js; scripts/build.mjs finds them from the bundle's imports. */
declare const __PDFSVC_FULL_CLI_ACTIONS__: readonly string[];

/** Whether this file's main() runs `argv`; if not, bin/pdfsvc.js runs dist/cli.js. */
export function runsHere(argv: string[]): boolean {
  const action = actionNamedIn(argv);
  if (action === undefined || __PDFSVC_FULL_CLI_ACTIONS__.includes(action.name)) return false;
  const remote = process.env.PDFSVC_SERVER || argv.some((arg) => arg === '--server' || arg.startsWith('--server='));
  return !remote;
}
