// The benches' command lines: `--name value` or `--name=value`, `--help`
// prints bench/README.md. Each bench says what its options do.
import { readFileSync } from 'node:fs';

/**
 * Calls `take(name, value)` for each option; `value()` reads the option's
 * value. `take` returns false for an option it does not know, and `fail`
 * reports that (pointing at `readme`, the README section to read).
 */
export function readArguments(argv, take, fail, readme) {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(readFileSync(new URL('./README.md', import.meta.url), 'utf8'));
      process.exit(0);
    }
    const value = () => {
      const inline = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (inline === undefined) fail(`${arg} needs a value`);
      return inline;
    };
    if (!take(arg.split('=')[0], value)) fail(`unknown option ${arg} (see ${readme})`);
  }
}
