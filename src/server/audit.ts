/**
 * The audit log (`--audit-log`; required in the us-hipaa region): one JSON
 * line per request saying who did what and with what outcome: time, key id,
 * account, action, status, bytes and pages. Never a file name, a field value,
 * a password or a document byte: a record is built only from the request log
 * entry's counters and the key, and the action is one of the server's own
 * names, never the path as the client wrote it.
 *
 * A destination is `kind` or `kind:argument`; the kinds are the keys of
 * DESTINATIONS: stderr, file:PATH, and database (the table request_audit of
 * the accounts database the server checks keys against, so that every
 * region's servers keep one audit trail beside the accounts it names).
 */
import { createWriteStream, openSync } from 'node:fs';
import { ValidationError } from '../core/errors.js';
import type { RequestLogEntry } from './app.js';
import type { Region } from './keys.js';
import type { Store } from '../store/store.js';

export interface AuditRecord {
  time: string;
  /** Tells audit lines from the request log when both go to standard error. */
  log: 'audit';
  region: Region;
  /** The key's id; null when the request named no valid key. */
  key_id: string | null;
  /** Whose key it was: the owning account, or for a keys file (which has no accounts) the key's name. */
  account: string | null;
  /** An action's name, or one of the server's fixed endpoints: see `endpointOf`. */
  action: string;
  method: string;
  status: number;
  bytes_in: number;
  bytes_out: number;
  /** Pages of the input documents processed; null when none were (refused, or not an action). */
  pages: number | null;
  duration_ms: number;
}

export interface AuditLog {
  /** What the operator named (for the start-up log line). */
  readonly destination: string;
  write(record: AuditRecord): void;
  /** Called once if a line cannot be written: the server then stops rather than serve unaudited. */
  onFailure(listener: (error: NodeJS.ErrnoException) => void): void;
  /** Resolves once every line is written (or the destination has failed). */
  close(): Promise<void>;
}

/** Sinks for a stream of lines: standard error, or a file opened for appending. */
function streamLog(destination: string, stream: NodeJS.WritableStream, owned: boolean): AuditLog {
  let failed: NodeJS.ErrnoException | undefined;
  const listeners: Array<(error: NodeJS.ErrnoException) => void> = [];
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = error;
    for (const listener of listeners) listener(error);
  });
  return {
    destination,
    write(record) {
      if (!failed) stream.write(`${JSON.stringify(record)}\n`);
    },
    onFailure(listener) {
      listeners.push(listener);
    },
    close() {
      if (!owned || failed) return Promise.resolve();
      return new Promise((resolve) => {
        stream.once('error', () => resolve());
        stream.end(() => resolve());
      });
    },
  };
}

/** How often records are written to the database: a crash loses at most this much of the trail. */
const AUDIT_FLUSH_MS = 200;
/** How long the database may refuse records before the log counts as failed (and the server stops). */
const AUDIT_RETRY_MS = 10_000;

/**
 * The database destination: records gather in memory and are written every
 * AUDIT_FLUSH_MS in one statement. A write that fails is kept and retried
 * (a database restarting, a connection dropped); one still failing after
 * AUDIT_RETRY_MS fails the log, as a full disk fails a file, and the server
 * stops rather than serve unaudited. What is kept meanwhile is bounded by
 * the requests of those seconds.
 */
export function databaseLog(store: Pick<Store, 'appendRequestAudit'>, flushMs = AUDIT_FLUSH_MS, retryMs = AUDIT_RETRY_MS): AuditLog {
  const pending: AuditRecord[] = [];
  const listeners: Array<(error: NodeJS.ErrnoException) => void> = [];
  let failed: NodeJS.ErrnoException | undefined;
  let failingSince: number | undefined;
  let writing = Promise.resolve();
  const fail = (error: NodeJS.ErrnoException) => {
    failed = error;
    for (const listener of listeners) listener(error);
  };
  const flush = () => {
    writing = writing.then(async () => {
      if (failed || pending.length === 0) return;
      const batch = pending.splice(0);
      try {
        await store.appendRequestAudit(batch);
        failingSince = undefined;
      } catch (error) {
        pending.unshift(...batch);
        failingSince ??= Date.now();
        if (Date.now() - failingSince >= retryMs) fail(error as NodeJS.ErrnoException);
      }
    });
    return writing;
  };
  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();
  return {
    destination: 'database',
    write(record) {
      if (!failed) pending.push(record);
    },
    onFailure(listener) {
      listeners.push(listener);
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

/** What a destination may need from the server: its accounts database, when keys come from one. */
export interface AuditContext {
  database?: Store;
}

/** The kinds of destination; `open` may connect somewhere first (a database), so it may be async. */
const DESTINATIONS: Record<
  string,
  { argument: 'none' | 'required'; example: string; open: (argument: string, context: AuditContext) => AuditLog | Promise<AuditLog> }
> = {
  stderr: { argument: 'none', example: 'stderr', open: () => streamLog('stderr', process.stderr, false) },
  file: {
    argument: 'required',
    example: 'file:/var/log/pdfsvc/audit.jsonl',
    open(path) {
      let fd: number;
      try {
        // Opened now, so that a path that cannot be written is a start-up error; created readable by its owner only.
        fd = openSync(path, 'a', 0o600);
      } catch (error) {
        throw ValidationError.field(
          'audit-log',
          `cannot open ${path} for appending (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); name a file the server's user can write, in a directory that exists`,
        );
      }
      return streamLog(`file:${path}`, createWriteStream(path, { fd, flags: 'a' }), true);
    },
  },
  database: {
    argument: 'none',
    example: 'database',
    open(_argument, context) {
      if (!context.database) {
        throw ValidationError.field(
          'audit-log',
          'database writes to the accounts database, and this server reads its keys from a keys file: serve from a database (--database-url, or --data-dir), or name stderr or file:PATH',
        );
      }
      return databaseLog(context.database);
    },
  },
};

/** Opens the destination `--audit-log` names; a ValidationError (exit status 2) says what is wrong with it. */
export async function openAuditLog(spec: string, context: AuditContext = {}): Promise<AuditLog> {
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const argument = colon < 0 ? undefined : spec.slice(colon + 1);
  const known = DESTINATIONS[kind];
  const choices = Object.values(DESTINATIONS)
    .map((d) => d.example)
    .join(' or ');
  if (!known) throw ValidationError.field('audit-log', `unknown destination ${JSON.stringify(spec)}; use ${choices}`);
  if (known.argument === 'none' && argument !== undefined) throw ValidationError.field('audit-log', `${kind} takes nothing after it; use ${known.example}`);
  if (known.argument === 'required' && !argument) throw ValidationError.field('audit-log', `${kind} needs a path after the colon, such as ${known.example}`);
  return known.open(argument ?? '', context);
}

/**
 * What a request asked for, in the server's own words: an action's name, one
 * of the fixed endpoints, or `unknown`. A path the server does not serve is
 * never repeated: a client can write anything there, a patient's name or a
 * file name included.
 */
export function endpointOf(path: string, actionNames: ReadonlySet<string>): string {
  if (path === '/healthz') return 'healthz';
  if (path === '/docs') return 'docs';
  if (path === '/v1/openapi.json') return 'openapi';
  if (/^\/v1\/errors\/\d{3}$/.test(path)) return 'error_page';
  const action = /^\/v1\/([a-z_]+)$/.exec(path)?.[1];
  return action && actionNames.has(action) ? action : 'unknown';
}

/** The audit record of one answered request. */
export function auditRecord(entry: RequestLogEntry, actionNames: ReadonlySet<string>): AuditRecord {
  return {
    time: entry.time,
    log: 'audit',
    region: entry.region,
    key_id: entry.key_id ?? null,
    account: entry.account ?? entry.key_name ?? null,
    action: entry.action ?? endpointOf(entry.path, actionNames),
    method: entry.method,
    status: entry.status,
    bytes_in: entry.bytes_in,
    bytes_out: entry.bytes_out,
    pages: entry.pages ?? null,
    duration_ms: entry.duration_ms,
  };
}

/**
 * The audit record of a connection Node refused before a request reached the
 * app: `tls_error` for a failed TLS handshake (an old TLS version, plain HTTP
 * to the TLS port), else `malformed` (bad syntax, headers too large or too
 * slow). `code` is Node's error code, never text from the client.
 */
export function refusedRecord(region: Region, status: number, code: string | undefined): AuditRecord {
  const action = code?.startsWith('ERR_SSL_') ? 'tls_error' : 'malformed';
  return {
    time: new Date().toISOString(),
    log: 'audit',
    region,
    key_id: null,
    account: null,
    action,
    method: '',
    status,
    bytes_in: 0,
    bytes_out: 0,
    pages: null,
    duration_ms: 0,
  };
}
