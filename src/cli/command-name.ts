/**
 * The command a command line names, found without commander: main() builds
 * only that action's command, and bin/pdfsvc.js picks the file that runs it
 * (dist/cli-route.cjs, built from cli-route.ts, holds this module alone).
 */

/** Global options that take a value, which may stand before the command's name. */
const GLOBAL_WITH_VALUE = new Set(['--server', '--api-key-file', '--cacert']);

/** The first word of `argv` (node, script, then arguments) that is not a global option, if it comes before any other option. */
export function commandNameIn(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i];
    if (GLOBAL_WITH_VALUE.has(arg)) i++;
    else if (GLOBAL_WITH_VALUE.has(arg.split('=')[0])) continue;
    else if (arg.startsWith('-')) return undefined;
    else return arg;
  }
  return undefined;
}
