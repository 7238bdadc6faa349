/**
 * The one query layer over both databases: PGlite (PostgreSQL compiled to
 * WebAssembly, in process: the embedded default) and PostgreSQL through `pg`.
 * Both speak the same SQL with $1 parameters, so every query in store.ts is
 * written once. Each driver is imported only when a database is opened: a
 * plain CLI action (`pdfsvc rotate`) never loads either.
 *
 * Values come back the same from both: bigint and numeric as numbers (counters
 * stay far below 2^53), date as 'YYYY-MM-DD', timestamptz as Date, arrays
 * and jsonb as JavaScript values.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { PdfsvcError } from '../core/errors.js';

export type Row = Record<string, unknown>;

export interface Queryable {
  /** One statement with $1… parameters; its rows. */
  query<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  /** Where it is, for messages: the data directory, or the URL without its password. */
  readonly location: string;
  /** The embedded database held by another process, reached through its socket (share.ts). */
  readonly borrowed?: boolean;
  /** When borrowed: what the process that holds it says of itself (its dashboard). */
  holder?(): Promise<import('./share.js').HolderInfo>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseConfig {
  /** postgres://… : PostgreSQL. */
  url?: string;
  /** The embedded database's directory; 'memory://' keeps it in memory (tests). */
  dataDir?: string;
}

/** Type OIDs whose text form both drivers must read alike. */
const OID = { int8: 20, numeric: 1700, date: 1082 } as const;
const number = (text: string) => Number(text);
const same = (text: string) => text;
const PARSERS: Record<number, (text: string) => unknown> = { [OID.int8]: number, [OID.numeric]: number, [OID.date]: same };

export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.url) return openPostgres(config.url);
  if (!config.dataDir) throw new Error('openDatabase: give a PostgreSQL URL or a data directory');
  return openEmbedded(config.dataDir);
}

/** The URL with its password replaced, fit for messages and logs. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

async function openPostgres(url: string): Promise<Database> {
  const { default: pg } = await import('pg');
  const location = redactUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'pdfsvc',
    types: { getTypeParser: ((oid: number, format?: string) => PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as never },
  });
  // An idle connection that breaks (the server restarted) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const unreachable = (err: unknown) => new PdfsvcError(503, `cannot reach the PostgreSQL database ${location}: ${(err as Error).message}`);
  const client = await pool.connect().catch((err) => {
    void pool.end();
    throw unreachable(err);
  });
  client.release();
  const on = (runner: { query: (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }> }): Queryable => ({
    query: async <T>(text: string, params: readonly unknown[] = []) => (await runner.query(text, params as unknown[])).rows as T[],
    exec: async (text: string) => {
      await runner.query(text);
    },
  });
  const direct = on(pool);
  return {
    kind: 'postgres',
    location,
    query: direct.query,
    exec: direct.exec,
    async transaction(work) {
      const connection = await pool.connect();
      try {
        await connection.query('begin');
        const result = await work(on(connection));
        await connection.query('commit');
        return result;
      } catch (err) {
        await connection.query('rollback').catch(() => {});
        throw err;
      } finally {
        connection.release();
      }
    },
    close: () => pool.end(),
  };
}

/**
 * PGlite settings for a small database in a long-running process: its
 * default 128 MB of shared buffers would be a fixed cost of every server
 * (8 MB keeps its resident memory near 150 MB; the whole database is a few MB).
 */
const EMBEDDED_CONF = ['shared_buffers=8MB', 'work_mem=2MB', 'maintenance_work_mem=16MB'];

async function openEmbedded(dataDir: string): Promise<Database> {
  const memory = dataDir === 'memory://';
  let lock: { release(): Promise<void> } | undefined;
  if (!memory) {
    // Held by a running pdfsvc serve: use it through the socket it lends it on.
    const { borrowDatabase, socketPath } = await import('./share.js');
    const taken = await takeDirectoryLock(dataDir, 15_000, () => borrowDatabase(socketPath(dataDir), dataDir));
    if ('query' in taken) return taken;
    lock = taken;
  }
  const { PGlite } = await import('@electric-sql/pglite');
  let db: InstanceType<typeof PGlite>;
  try {
    if (!memory) {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
    }
    db = await PGlite.create({ dataDir: memory ? undefined : dataDir, postgresqlconf: EMBEDDED_CONF, parsers: PARSERS });
  } catch (err) {
    await lock?.release();
    throw new PdfsvcError(503, `cannot open the embedded database in ${dataDir}: ${(err as Error).message}`);
  }
  const on = (runner: Pick<InstanceType<typeof PGlite>, 'query' | 'exec'>): Queryable => ({
    query: async <T>(text: string, params: readonly unknown[] = []) => (await runner.query<T>(text, params as unknown[])).rows,
    exec: async (text: string) => {
      await runner.exec(text);
    },
  });
  // PGlite is one connection: its transaction() holds it, and other queries
  // wait their turn. A query on the database from inside a transaction's own
  // work would wait for that transaction forever: it is refused at once.
  const inTransaction = new AsyncLocalStorage<true>();
  const outside = on(db);
  const guard = () => {
    if (inTransaction.getStore())
      throw new Error("a query on the database inside one of its transactions would wait forever on the embedded database: use the transaction's own query()");
  };
  return {
    kind: 'embedded',
    location: dataDir,
    query: async (text, params) => (guard(), outside.query(text, params)),
    exec: async (text) => (guard(), outside.exec(text)),
    transaction: (work) => (guard(), db.transaction((tx) => inTransaction.run(true, () => work(on(tx))))),
    async close() {
      try {
        await db.close();
      } finally {
        await lock?.release();
      }
    },
  };
}

/**
 * The embedded database is one process's: PGlite has no locking of its own,
 * and two processes writing one data directory would corrupt it. A lock file
 * beside the directory (made with O_EXCL, holding the owner's pid) keeps a
 * second process out; one whose owner is gone is taken over. A second
 * process waits up to `waitMs` (another short CLI command finishing), then
 * fails saying who holds it.
 */
export async function takeDirectoryLock<T extends object = never>(
  dataDir: string,
  waitMs = 15_000,
  whileHeld?: () => Promise<T | undefined>,
): Promise<{ release(): Promise<void> } | T> {
  const { mkdir, readFile, rm, writeFile } = await import('node:fs/promises');
  const { dirname } = await import('node:path');
  const path = `${dataDir.replace(/\/+$/, '')}.lock`;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      await writeFile(path, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(await readFile(path, 'utf8').catch(() => ''));
      if (!processAlive(owner)) {
        // Gone (crashed, killed): nobody else can be writing the directory.
        await rm(path, { force: true });
        continue;
      }
      const instead = await whileHeld?.();
      if (instead) return instead;
      if (Date.now() > until) {
        throw new PdfsvcError(
          409,
          `the embedded database ${dataDir} is in use by process ${owner} (a running pdfsvc serve, or another command); stop it and try again, or share a PostgreSQL database between processes with --database-url`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    async release() {
      const owner = Number(await readFile(path, 'utf8').catch(() => ''));
      if (owner === process.pid) await rm(path, { force: true });
    },
  };
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
