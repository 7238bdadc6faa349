/**
 * A real PostgreSQL for the store tests: the server PDFSVC_TEST_DATABASE_URL
 * names (.ci/run starts one), else a throwaway cluster started here from
 * Debian's postgresql package (/usr/lib/postgresql/<version>/bin), as the
 * postgres user when run as root (PostgreSQL refuses to run as root). Each
 * test file gets a database of its own, dropped when the file ends.
 *
 * Without either, PostgreSQL tests are skipped with a warning, except in CI
 * (CI set), where that is a failure: .ci/run installs and starts PostgreSQL,
 * and a skip there would hide a broken install.
 */
import { afterAll } from 'vitest';
import { postgresBin, startCluster } from '../../scripts/postgres-cluster.mjs';

const INSTALL = 'apt-get install postgresql, or set PDFSVC_TEST_DATABASE_URL to a server where the user may create databases';

/** True when the PostgreSQL tests can run; else warns and returns false, or throws in CI. */
export function havePostgres(): boolean {
  if (process.env.PDFSVC_TEST_DATABASE_URL || postgresBin()) return true;
  const message = `no PostgreSQL: the PostgreSQL store tests need one (${INSTALL})`;
  if (process.env.CI) throw new Error(`${message}; in CI this is a failure, not a skip`);
  console.warn(`${message}; skipping them (in CI, with CI set, this fails)`);
  return false;
}

let server: Promise<string> | undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups.length = 0;
});

/** A cluster of this test file's own (scripts/postgres-cluster.mjs), stopped and deleted when the file ends. */
async function throwawayCluster(): Promise<string> {
  const cluster = await startCluster();
  cleanups.push(() => cluster.stop());
  return cluster.url;
}

/** A new, empty database for this test file; its URL. */
export async function freshPostgresDatabase(): Promise<string> {
  server ??= process.env.PDFSVC_TEST_DATABASE_URL ? Promise.resolve(process.env.PDFSVC_TEST_DATABASE_URL) : throwawayCluster();
  const url = await server;
  const { default: pg } = await import('pg');
  const name = `pdfsvc_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`drop database if exists ${name} with (force)`);
    } finally {
      await client.end();
    }
  });
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}
