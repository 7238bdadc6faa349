/**
 * The databases every store test runs against: the embedded default (PGlite,
 * in memory or in a directory) and a real PostgreSQL (test/helpers/postgres.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { DatabaseConfig } from '../../src/store/database.js';
import { freshPostgresDatabase, havePostgres } from '../helpers/postgres.js';

export interface Backend {
  name: 'embedded' | 'postgres';
  /** A new, empty database of this kind. `onDisk`: the embedded one in a directory rather than in memory. */
  fresh(onDisk?: boolean): Promise<DatabaseConfig>;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-store-test-'));
  dirs.push(dir);
  return dir;
}

const embedded: Backend = {
  name: 'embedded',
  fresh: async (onDisk) => ({ dataDir: onDisk ? join(tempDir(), 'db') : 'memory://' }),
};

const postgres: Backend = {
  name: 'postgres',
  fresh: async () => ({ url: await freshPostgresDatabase() }),
};

/** The embedded store always; PostgreSQL when there is one (in CI there must be). */
export const BACKENDS: Backend[] = [embedded, ...(havePostgres() ? [postgres] : [])];
