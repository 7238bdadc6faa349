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
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { afterAll } from 'vitest';

const INSTALL = 'apt-get install postgresql, or set PDFSVC_TEST_DATABASE_URL to a server where the user may create databases';

/** The directory of pg_ctl and initdb, newest version first; undefined when PostgreSQL is not installed. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A cluster of this test file's own, stopped and deleted when the file ends. */
async function throwawayCluster(): Promise<string> {
  const bin = postgresBin()!;
  const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-pg-'));
  const asRoot = process.getuid?.() === 0;
  const run = (program: string, args: string[]) => {
    const command = asRoot ? ['runuser', '-u', 'postgres', '--', join(bin, program), ...args] : [join(bin, program), ...args];
    const result = spawnSync(command[0], command.slice(1), { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${program} failed: ${result.stderr || result.stdout}`);
  };
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })));
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
  cleanups.push(() => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
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
