/**
 * A throwaway PostgreSQL cluster from Debian's postgresql package
 * (/usr/lib/postgresql/<version>/bin), for tests (test/helpers/postgres.ts)
 * and scripts/multi-region.mjs: initdb in a new temporary directory, started
 * on a free loopback port with trust authentication (loopback only) and no
 * fsync (nothing in it outlives the run), as the postgres user when run as
 * root (PostgreSQL refuses root).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './check-list.mjs';

/** The newest installed PostgreSQL's bin directory; undefined when there is none. */
export function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

/**
 * Starts a cluster; `database`, when given, is created in it. With
 * `logStatements`, the server's log (`log`, read it before stop()) holds every
 * statement it receives, with its parameters: what was sent, not only what
 * was stored. Returns the URL of that database (else of `postgres`) and a
 * stop() that stops the cluster and deletes its directory.
 */
export async function startCluster({ database, logStatements = false } = {}) {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL: apt-get install postgresql');
  const asRoot = process.getuid?.() === 0;
  const run = (program, args) => {
    const command = asRoot ? ['runuser', '-u', 'postgres', '--', join(bin, program), ...args] : [join(bin, program), ...args];
    const result = spawnSync(command[0], command.slice(1), { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${program} failed: ${result.stderr || result.stdout}`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-pg-'));
  if (asRoot) {
    const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, id('-u'), id('-g'));
  }
  const data = join(dir, 'data');
  let started = false;
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    const port = await freePort();
    const logging = logStatements ? ' -c log_statement=all -c log_parameter_max_length=-1' : '';
    run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off${logging}`, 'start']);
    started = true;
    if (database) run('psql', ['-q', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-c', `create database ${database}`, 'postgres']);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/${database ?? 'postgres'}`,
      log: join(dir, 'log'),
      stop() {
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    if (started) {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Reported by the error below.
      }
    }
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
