/**
 * Vitest global setup: this run's own XDG_CONFIG_HOME and XDG_DATA_HOME, in a
 * temporary directory removed at the end. pdfsvc falls back to
 * $XDG_CONFIG_HOME/pdfsvc/keys.json and the embedded database in
 * $XDG_DATA_HOME/pdfsvc/db when no keys file or database is named; a test
 * that reached them would share them with the user's own and with a second
 * `npm test` running beside this one (the embedded database takes one
 * process at a time). Set here, before the test workers start, so every test
 * file and every child process it starts inherits them.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const home = mkdtempSync(join(tmpdir(), 'pdfsvc-test-run-'));
  for (const [name, dir] of [
    ['XDG_CONFIG_HOME', 'config'],
    ['XDG_DATA_HOME', 'data'],
  ] as const) {
    process.env[name] = join(home, dir);
    mkdirSync(process.env[name]!);
  }
  return () => rmSync(home, { recursive: true, force: true });
}
