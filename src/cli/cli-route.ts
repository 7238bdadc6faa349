/**
 * The entry of dist/cli-route.cjs, which bin/pdfsvc.js loads first: which
 * one-file CLI runs the command line (dist/cli-action.cjs or
 * dist/cli-watermark.cjs: one action, local), if any, decided before loading
 * either; otherwise dist/cli.js runs it.
 */
import { commandNameIn } from './command-name.js';

export { ONE_FILE_CLI_V8_FLAGS } from '../core/v8-flags.js';
export { codeCacheStep, compileWithCache, runCommonJs } from './code-cache.js';

/** Each command name and alias of the one-file CLIs' actions: the file in dist/ that runs it and its action's code cache group (scripts/build.mjs lists them). */
declare const __PDFSVC_ONE_FILE_COMMANDS__: Readonly<Record<string, readonly [file: string, group: string]>>;

/**
 * The file in dist/ that runs `argv` on its own: one that holds its action, on local files (remote mode runs
 * from dist/cli.js); and the code cache beside it that the build made by running that action and those like it,
 * so that V8 deserializes what this action runs and not what the others do (bench/README.md, startup2).
 */
export function oneFileCliFor(argv: string[]): { file: string; cache: string } | undefined {
  const name = commandNameIn(argv);
  if (name === undefined || !Object.hasOwn(__PDFSVC_ONE_FILE_COMMANDS__, name)) return undefined;
  if (process.env.PDFSVC_SERVER || argv.some((arg) => arg === '--server' || arg.startsWith('--server='))) return undefined;
  const [file, group] = __PDFSVC_ONE_FILE_COMMANDS__[name];
  return { file, cache: `${file}.${group}.cache` };
}

/**
 * The security actions: every run derives keys and runs ciphers with node:crypto (its 36 modules, streams
 * among them). Node's built-ins come with a code cache that V8 takes only under the flags the process
 * started with; loaded after setV8Flags, node:crypto compiled from source: ~5 ms more (bench/README.md, ltenc2).
 */
const CRYPTO_ACTIONS = new Set(['add_password', 'add_restrictions', 'remove_password', 'remove_restrictions']);

/** The Node built-ins that `argv`'s run will load, for bin/pdfsvc.js to load before it sets the V8 flags. */
export function builtinsToLoadFirst(argv: string[]): string[] {
  const name = commandNameIn(argv);
  return name !== undefined && CRYPTO_ACTIONS.has(name.replaceAll('-', '_')) ? ['node:crypto'] : [];
}
