/**
 * Where accounts and keys live, decided without loading any database code:
 * a keys file (as before accounts existed), PostgreSQL, or the embedded
 * database in a data directory. `serve` and the `keys` commands decide alike:
 *
 * 1. `--keys-file` or PDFSVC_KEYS_FILE: that keys file, no database.
 * 2. `--database-url` or PDFSVC_DATABASE_URL: PostgreSQL.
 * 3. `--data-dir` or PDFSVC_DATA_DIR: the embedded database there.
 * 4. The default keys file holds keys and the default embedded database does
 *    not exist yet: that keys file, as before (an install from before
 *    accounts keeps working untouched; `pdfsvc keys import` moves it over,
 *    and from then on rule 5 applies).
 * 5. The embedded database in $XDG_DATA_HOME/pdfsvc/db (~/.local/share/pdfsvc/db).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultKeysFile, readKeysFile } from '../server/keys.js';
import type { DatabaseConfig } from './database.js';

export interface StoreOptions {
  databaseUrl?: string;
  dataDir?: string;
  keysFile?: string;
}

export type KeySource = { kind: 'file'; path: string /** chosen by rule 4, not asked for */; legacy: boolean } | { kind: 'database'; config: DatabaseConfig };

/** $XDG_DATA_HOME/pdfsvc/db, else ~/.local/share/pdfsvc/db. */
function defaultDataDir(): string {
  const data = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(data, 'pdfsvc', 'db');
}

/** The database asked for (rules 2, 3, 5), whatever a keys file says. */
export function databaseConfig(options: StoreOptions): DatabaseConfig {
  const url = options.databaseUrl ?? process.env.PDFSVC_DATABASE_URL;
  if (url) return { url };
  return { dataDir: options.dataDir ?? process.env.PDFSVC_DATA_DIR ?? defaultDataDir() };
}

/** True when an embedded database has been made in `dir` (PostgreSQL's own marker file). */
function embeddedExists(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'));
}

export async function keySource(options: StoreOptions): Promise<KeySource> {
  const explicitFile = options.keysFile ?? process.env.PDFSVC_KEYS_FILE;
  if (explicitFile) return { kind: 'file', path: explicitFile, legacy: false };
  const explicitDatabase = options.databaseUrl ?? process.env.PDFSVC_DATABASE_URL ?? options.dataDir ?? process.env.PDFSVC_DATA_DIR;
  if (!explicitDatabase && !embeddedExists(defaultDataDir())) {
    const path = defaultKeysFile();
    // A file that cannot be read is still the one meant: serve then says why, as before.
    const keys = await readKeysFile(path).then(
      (file) => file.keys.length,
      () => (existsSync(path) ? 1 : 0),
    );
    if (keys > 0) return { kind: 'file', path, legacy: true };
  }
  return { kind: 'database', config: databaseConfig(options) };
}
