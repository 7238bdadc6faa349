/**
 * The embedded database is one process's (PGlite has no locking between
 * processes), yet an operator must be able to run `pdfsvc keys revoke` while
 * `pdfsvc serve` holds it. So the holder lends it: it answers queries on a
 * Unix socket beside the data directory (`db.sock`, mode 0600: the same user
 * only, like the directory), and a command that finds the directory held
 * sends its queries there (openDatabase in database.ts). The queries are
 * the same SQL; the holder runs them on its own connection, a transaction
 * at a time.
 *
 * The protocol is one JSON message a line each way: a request
 * `{op: 'query'|'exec'|'begin'|'commit'|'rollback'|'holder', sql?, params?}`
 * and its answer `{rows}` or `{error}`, in order. Dates travel as {"$date": ISO}.
 * `holder` answers one row about the holder itself (HolderInfo): where its
 * dashboard is, for the password links the command line prints.
 * A connection that closes (or stays idle 30 s) inside a transaction rolls
 * it back.
 */
import { chmod, rm } from 'node:fs/promises';
import net from 'node:net';
import { PdfsvcError } from '../core/errors.js';
import type { Database, Queryable, Row } from './database.js';

/** The socket a holder of `dataDir` answers on. */
export function socketPath(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, '')}.sock`;
}

const IDLE_IN_TRANSACTION_MS = 30_000;

/** What the holder says of itself. */
export interface HolderInfo {
  /** Its dashboard (its own --dashboard-url, else its address and /dashboard); absent while it has none. */
  dashboardUrl?: string;
  /** The address is not one a customer can reach for sure: the server listens on every interface (0.0.0.0, ::). */
  guessed?: boolean;
}

interface Request {
  op: 'query' | 'exec' | 'begin' | 'commit' | 'rollback' | 'holder';
  sql?: string;
  params?: unknown[];
}

function encode(message: unknown): string {
  return `${JSON.stringify(message, function (this: Record<string, unknown>, key, value) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.toISOString() } : value;
  })}\n`;
}

function decode(line: string): unknown {
  return JSON.parse(line, (_key, value) =>
    value && typeof value === 'object' && typeof value.$date === 'string' && Object.keys(value).length === 1 ? new Date(value.$date) : value,
  );
}

/** Reads a socket as lines of JSON. */
function onLines(socket: net.Socket, handle: (message: unknown) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line) handle(decode(line));
    }
  });
}

function errorMessage(err: unknown): Record<string, unknown> {
  const e = err as { message?: string; code?: string; constraint?: string; status?: number };
  return { message: e?.message ?? String(err), code: e?.code, constraint: e?.constraint, status: err instanceof PdfsvcError ? e.status : undefined };
}

/** Lends `db` on a Unix socket at `path`, `holder` saying what the lender is; returns a function that stops. */
export async function shareDatabase(db: Database, path: string, holder: () => HolderInfo = () => ({})): Promise<() => Promise<void>> {
  await rm(path, { force: true });
  const connections = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections.add(socket);
    let transaction: { tx: Queryable; finish: (commit: boolean) => void; done: Promise<unknown> } | undefined;
    let idle: NodeJS.Timeout | undefined;
    const end = (commit: boolean) => {
      clearTimeout(idle);
      const open = transaction;
      transaction = undefined;
      open?.finish(commit);
      return open?.done;
    };
    // One request at a time, in order: a chain of promises.
    let chain = Promise.resolve();
    const answer = async (request: Request): Promise<unknown> => {
      switch (request.op) {
        case 'query':
          return { rows: await (transaction?.tx ?? db).query<Row>(request.sql!, request.params ?? []) };
        case 'exec':
          await (transaction?.tx ?? db).exec(request.sql!);
          return { rows: [] };
        case 'begin': {
          if (transaction) throw new Error('a transaction is already open on this connection');
          let finish!: (commit: boolean) => void;
          const decided = new Promise<boolean>((resolve) => (finish = resolve));
          let ready!: (tx: Queryable) => void;
          const started = new Promise<Queryable>((resolve) => (ready = resolve));
          const done = db
            .transaction(async (tx) => {
              ready(tx);
              if (!(await decided)) throw new RolledBack();
            })
            .catch((err) => {
              if (!(err instanceof RolledBack)) throw err;
            });
          // A transaction that fails to start (the database closing) must not wait forever.
          const tx = await Promise.race([started, done.then(() => Promise.reject(new Error('the transaction ended before it began')))]);
          transaction = { tx, finish, done };
          idle = setTimeout(() => void end(false), IDLE_IN_TRANSACTION_MS);
          return { rows: [] };
        }
        case 'commit':
          await end(true);
          return { rows: [] };
        case 'rollback':
          await end(false)?.catch(() => {});
          return { rows: [] };
        case 'holder':
          return { rows: [holder()] };
        default:
          throw new Error(`unknown request ${JSON.stringify((request as Request).op)}`);
      }
    };
    onLines(socket, (message) => {
      chain = chain.then(async () => {
        const reply = await answer(message as Request).catch((err) => ({ error: errorMessage(err) }));
        if (!socket.destroyed) socket.write(encode(reply));
      });
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      connections.delete(socket);
      void chain.then(() => end(false)?.catch(() => {}));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  return async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of connections) socket.destroy();
    });
    await rm(path, { force: true });
  };
}

class RolledBack extends Error {}

/** The database lent on the socket at `path`, or undefined when nobody answers there. */
export async function borrowDatabase(path: string, location: string): Promise<Database | undefined> {
  const socket = await new Promise<net.Socket | undefined>((resolve) => {
    const s = net.createConnection(path);
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(undefined));
  });
  if (!socket) return undefined;
  const waiting: Array<{ resolve: (rows: Row[]) => void; reject: (err: Error) => void }> = [];
  let closed: Error | undefined;
  onLines(socket, (message) => {
    const reply = message as { rows?: Row[]; error?: Record<string, unknown> };
    const next = waiting.shift();
    if (!next) return;
    if (reply.error) next.reject(rebuild(reply.error));
    else next.resolve(reply.rows ?? []);
  });
  const fail = (err: Error) => {
    closed = err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  socket.on('error', (err) => fail(new PdfsvcError(503, `the pdfsvc process that holds the embedded database ${location} stopped answering: ${err.message}`)));
  socket.on('close', () => fail(new PdfsvcError(503, `the pdfsvc process that holds the embedded database ${location} closed the connection`)));
  const send = (request: Request): Promise<Row[]> => {
    if (closed) return Promise.reject(closed);
    return new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      socket.write(encode(request));
    });
  };
  const on: Queryable = {
    query: async <T>(sql: string, params: readonly unknown[] = []) => (await send({ op: 'query', sql, params: [...params] })) as T[],
    exec: async (sql: string) => {
      await send({ op: 'exec', sql });
    },
  };
  // One connection, one transaction at a time: others wait for it.
  let turn = Promise.resolve();
  return {
    kind: 'embedded',
    location,
    borrowed: true,
    query: on.query,
    exec: on.exec,
    // A holder from before `holder` answers with an error: then it says nothing.
    holder: async () => ((await send({ op: 'holder' }).catch(() => []))[0] ?? {}) as HolderInfo,
    transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      const run = turn.then(async () => {
        await send({ op: 'begin' });
        try {
          const result = await work(on);
          await send({ op: 'commit' });
          return result;
        } catch (err) {
          await send({ op: 'rollback' }).catch(() => {});
          throw err;
        }
      });
      turn = run.then(
        () => {},
        () => {},
      );
      return run;
    },
    async close() {
      socket.end();
    },
  };
}

/** The error the holder met, with what callers look at (status, SQL state, constraint). */
function rebuild(error: Record<string, unknown>): Error {
  const message = String(error.message);
  const err: Error & { code?: unknown; constraint?: unknown } = error.status ? new PdfsvcError(Number(error.status), message) : new Error(message);
  err.code = error.code;
  err.constraint = error.constraint;
  return err;
}
