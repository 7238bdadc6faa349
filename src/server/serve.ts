/**
 * `pdfsvc serve`: the h3 app behind listhen, with keys from the keys file
 * (or one ephemeral development key), a worker pool, limits against slow
 * clients, structured logs and a clean shutdown.
 *
 * Shutdown (SIGTERM, SIGINT): stop accepting connections, let every request
 * already received finish (its answer says `Connection: close`), close idle
 * keep-alive connections, stop the workers, exit 0. listhen's own close()
 * (http-shutdown) is not used: on HTTPS it destroys the raw TCP socket under
 * a TLS connection whose request is still running, losing that request.
 */
import { listen } from 'listhen';
import { X509Certificate } from 'node:crypto';
import { type Stats, unwatchFile, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer, isIP, type Socket } from 'node:net';
import { isUnspecified, originOf, reachableOrigins, reachVia } from './reachable.js';
import { toNodeHandler } from 'h3/node';
import { actions } from '../actions/index.js';
import type { AnyAction } from '../core/action.js';
import { PdfsvcError, ValidationError, ValidationErrors } from '../core/errors.js';
import { problem } from '../core/problem.js';
import { createApp } from './app.js';
import { auditRecord, endpointOf, openAuditLog, refusedRecord } from './audit.js';
import { KeyStore, hashKey, newKey, readKeysFile, type Region, type StoredKey } from './keys.js';
import type { UsageMeter } from './accounts.js';
import { keySource } from '../store/location.js';
import { createPool, DEFAULT_WORKER_HEAP_MB } from './pool.js';
import { defaultMemoryBudget, MemoryBudget, parseSize } from './memory-budget.js';
import { parseRateLimits, RateLimiter } from './rate-limit.js';
import { Metrics } from './metrics.js';
import {
  currentRuntime,
  enforceTlsFloor,
  ephemeralKeyRefusal,
  HIPAA_REGION,
  HSTS,
  INSECURE_DEVELOPMENT_WARNING,
  MIN_TLS_VERSION,
  regionRefusals,
} from './us-hipaa.js';
import { VERSION } from '../core/version.js';
import { parseOptions, type OptionValues } from '../cli/options.js';
import { SERVE_OPTIONS } from './options.js';
import { printOut } from '../cli/stdout.js';

/** The options of `pdfsvc serve`, typed from their declarations (server/options.ts). */
export type ServeOptions = OptionValues<typeof SERVE_OPTIONS>;

/** Slow-client limits that are not options (README, "Running the server for real use"). */
const LIMITS = {
  /** Longest wait for a request's headers (also bounded by the request timeout). */
  headersTimeoutMs: 10_000,
  /** Longest a TLS handshake may take. */
  handshakeTimeoutMs: 10_000,
  /** Idle keep-alive connections close after this; above the 60 s that nginx and most load balancers keep theirs. */
  keepAliveTimeoutMs: 65_000,
  /** Open connections at most; more are closed at once. */
  maxConnections: 1000,
  /** How often Node checks the header and request deadlines (its default, 30 s, lets a slow client stay 30 s too long). */
  checkIntervalMs: 1000,
  /** After answering before the upload ended (413, 408), how long the rest of it is read and discarded before the connection closes. */
  lingerMs: 2000,
  /**
   * On shutdown, once every answer is handed to the kernel, how long clients
   * get to read the rest before the connections are cut: a large answer to a
   * slow (or busy) client needs more than a moment.
   */
  shutdownDrainMs: 10_000,
};

/** Loopback addresses and names: the only places plain HTTP may be served. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

/** One JSON line on standard error: the log. */
function logLine(entry: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify(entry)}\n`);
}

function logEvent(event: string, fields: Record<string, unknown> = {}): void {
  logLine({ time: new Date().toISOString(), event, ...fields });
}

/** `pdfsvc serve`: `raw` is what commander parsed; the declarations check it (a bad value is exit status 2, naming the option). */
export async function serveFromCli(raw: Record<string, unknown>): Promise<void> {
  const options = parseOptions(SERVE_OPTIONS, raw);
  const { region } = options;
  // The region's own rules (us-hipaa), all refusals at once: an operator fixes them in one go.
  const regionErrors = new ValidationErrors();
  for (const [option, why] of regionRefusals(region, options, currentRuntime())) regionErrors.add(option, why);
  regionErrors.throwIfAny();
  const hipaa = region === HIPAA_REGION;
  const maxMemory = options.maxMemory === undefined ? defaultMemoryBudget() : parseSize(options.maxMemory);
  if (maxMemory === undefined)
    throw ValidationError.field('max-memory', `${JSON.stringify(options.maxMemory)} is not a size; write it as 2GiB, 512MiB or a number of bytes`);
  const memoryBudget = new MemoryBudget(maxMemory);
  const rateLimiter = options.rateLimit ? new RateLimiter(parseRateLimits(options.rateLimit)) : undefined;
  if (!options.https && !isLoopback(options.host)) {
    throw ValidationError.field(
      'host',
      `${options.host} is not a loopback address; plain HTTP would expose API keys and documents on the network. Use --https (with --cert/--key, or a self-signed certificate), or bind 127.0.0.1`,
    );
  }
  if ((options.cert || options.key) && !options.https) throw ValidationError.field(options.cert ? 'cert' : 'key', '--cert and --key need --https');
  if (Boolean(options.cert) !== Boolean(options.key)) throw ValidationError.field(options.cert ? 'key' : 'cert', '--cert and --key go together');

  const keys = await openKeys(options, region, !hipaa || Boolean(options.insecureDevelopment));
  // What start-up has opened, closed in reverse order when a later step refuses to start: the database's
  // connections, PGlite, the workers and the listeners would otherwise keep the process from exiting.
  const opened: Array<() => unknown> = [() => keys.close()];
  try {
    return await startServing(options, { keys, memoryBudget, rateLimiter }, opened);
  } catch (err) {
    for (const close of opened.reverse()) await Promise.resolve(close()).catch(() => {});
    throw err;
  }
}

/** The rest of `serveFromCli` once the keys are open; every resource it opens goes into `opened`. */
async function startServing(
  options: ServeOptions,
  { keys, memoryBudget, rateLimiter }: { keys: ServedKeys; memoryBudget: MemoryBudget; rateLimiter: RateLimiter | undefined },
  opened: Array<() => unknown>,
): Promise<void> {
  const { region, port, maxUploadBytes, workers, workerHeapMb, maxQueue, requestTimeoutMs, metricsPort } = options;
  const hipaa = region === HIPAA_REGION;
  // Before listhen makes the server: its defaults are the only ones it uses.
  if (hipaa) enforceTlsFloor();
  const tls = options.https
    ? options.cert
      ? { cert: await readPem(options.cert, 'cert'), key: await readPem(options.key!, 'key') }
      : // listhen makes a self-signed certificate (node-forge); its default lives one day, too short for a server.
        { validityDays: 365, domains: [...new Set(['localhost', '127.0.0.1', '::1', options.host])] }
    : false;

  // The port asked for, or none: a load balancer pointed at it must not find another server there, or nothing.
  if (port !== 0) await ensurePortFree(options.host, port);

  const { metricsHost } = options;
  // Assigned once the pool and the app exist; requests before that cannot be answered anyway.
  let metrics: Metrics | undefined;
  const audit = options.auditLog ? await openAuditLog(options.auditLog, { database: keys.database }) : undefined;
  if (audit) opened.push(() => audit.close());
  const actionNames: ReadonlySet<string> = new Set((actions as readonly AnyAction[]).map((action) => action.name));
  const pool = createPool({ workers, maxQueue, workerHeapMb });
  opened.push(() => pool.close());
  const app = createApp({
    actions: actions as readonly AnyAction[],
    region,
    keys: keys.store,
    count: keys.meter ? (key, entry) => keys.meter!.record(key, entry) : undefined,
    run: (task, signal, clientGone) => pool.run(task, signal, clientGone),
    poolStatus: () => pool.status(),
    memoryBudget,
    rateLimiter,
    maxUploadBytes,
    requestTimeoutMs,
    errorTypeBase: options.errorTypeBase,
    version: VERSION,
    log: (entry) => {
      // us-hipaa: a path the server does not serve is not repeated (a client may have written anything there);
      // one it routed to an action (/v1/<action>/, percent-encoded letters) is logged in its plain form.
      const logged =
        hipaa && endpointOf(entry.path, actionNames) === 'unknown' ? { ...entry, path: entry.action ? `/v1/${entry.action}` : '(unknown)' } : entry;
      logLine(logged as unknown as Record<string, unknown>);
      metrics?.observe(logged);
      audit?.write(auditRecord(entry, actionNames));
    },
  });
  const handler = toNodeHandler(app);
  // With a database, the key dashboard at /dashboard (src/dashboard), unless --no-dashboard.
  const dashboard = keys.database && options.dashboard !== false ? await import('../dashboard/listen.js') : undefined;
  const dashboardHandler = dashboard?.dashboardFor(keys.database!, { https: Boolean(options.https), log: logLine });
  let metricsServer: import('node:http').Server | undefined;
  /** Where the metrics are, as the banner says it: the URL, and on 0.0.0.0 or :: where to scrape it instead. */
  let metricsAt: string | undefined;
  if (metricsPort !== undefined) {
    metrics = new Metrics({
      pool: () => pool.status(),
      inFlight: () => app.inFlight,
      uploadsInFlight: () => app.uploadsInFlight,
      memory: () => memoryBudget.status(),
      keyLabels: Boolean(options.metricsKeyLabels),
    });
    // us-hipaa: TLS on every listener (regionRefusals asks for --cert/--key with --https and metrics).
    const metricsTls = hipaa && tls && tls.cert ? { cert: tls.cert, key: tls.key, headers: { 'Strict-Transport-Security': HSTS } } : undefined;
    const listening = await metrics.listen(metricsHost, metricsPort, metricsTls).catch((err: NodeJS.ErrnoException) => {
      throw ValidationError.field(
        'metrics-port',
        err.code === 'EADDRINUSE'
          ? `port ${metricsPort} is taken; choose another, or 0 for any free one`
          : `cannot listen on ${metricsHost}:${metricsPort}: ${err.message}`,
      );
    });
    metricsServer = listening.server;
    opened.push(() => new Promise((resolve) => listening.server.close(resolve)));
    const metricsScheme = metricsTls ? 'https' : 'http';
    metricsAt = `${originOf(metricsScheme, metricsHost, listening.port)}/metrics${reachVia(metricsHost, reachableOrigins(metricsScheme, metricsHost, listening.port), '/metrics', 'scrape it')}`;
  }

  // Requests received and not yet answered: shutdown waits for these.
  const active = new Set<ServerResponse>();
  let stopping = false;
  let onIdle: (() => void) | undefined;
  // Problem `type` URIs for what is refused before the app sees a request: no
  // Host to take the origin from, so this server's own URL (set once listening).
  let refusals: Refusals | undefined;
  const node = (req: IncomingMessage, res: ServerResponse) => {
    active.add(res);
    if (hipaa) res.setHeader('Strict-Transport-Security', HSTS);
    if (stopping) res.shouldKeepAlive = false;
    lingerOnEarlyAnswer(req);
    res.once('close', () => {
      active.delete(res);
      if (active.size === 0) onIdle?.();
    });
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400. Node checks
    // it itself with an empty body (requireHostHeader, turned off in harden()).
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      return refusals!.answer(res, 400, 'an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)', 'missing Host', 'Host');
    }
    if (dashboardHandler && dashboard!.isDashboardPath(req.url)) return dashboardHandler(req, res);
    return handler(req, res);
  };

  const listener = await listen(
    node as never,
    {
      hostname: options.host,
      // listhen (through get-port-please) would move to another port when this one is taken: not allowed.
      port: port === 0 ? 0 : { port, random: false, alternativePortRange: [] },
      https: tls,
      showURL: false,
      autoClose: false,
      qr: false,
      public: false,
      isTest: true,
    } as never,
  );
  opened.push(() => listener.close());
  const server = listener.server as Server;
  const sockets = new Set<Socket>();
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const scheme = options.https ? 'https' : 'http';
  const url = originOf(scheme, options.host, actualPort);
  // The links the banner prints: on 0.0.0.0 or ::, localhost and the machine's addresses.
  const reachable = reachableOrigins(scheme, options.host, actualPort);
  refusals = new Refusals(options.errorTypeBase ?? `${url}/v1/errors`, region, hipaa ? { 'Strict-Transport-Security': HSTS } : {});
  harden(server, requestTimeoutMs, sockets, refusals, audit ? (status, code) => audit.write(refusedRecord(region, status, code)) : undefined, !hipaa);

  if (port !== 0 && actualPort !== port) {
    // Taken between the check and the bind, or a port get-port-please will not use.
    await ensurePortFree(options.host, port);
    throw ValidationError.field(
      'port',
      `port ${port} is one browsers block as unsafe, and listhen will not serve on it: choose another port with --port (0 picks a free one)`,
    );
  }
  if (options.insecureDevelopment) {
    printOut(`${INSECURE_DEVELOPMENT_WARNING}\n`);
    logEvent('insecure_development', {
      region,
      https: Boolean(options.https),
      development_key: keys.banner(url).some((line) => line.startsWith('X-API-Key:')),
    });
  }
  printOut(`pdfsvc listening on ${url} (region ${region})${reachVia(options.host, reachable, '', 'reach it')}\n`);
  if (metricsAt) printOut(`Prometheus metrics on ${metricsAt}\n`);
  const certificate = (listener as { https?: { cert?: string } | false }).https;
  if (options.https && certificate && certificate.cert) {
    const fingerprint = new X509Certificate(certificate.cert).fingerprint256;
    printOut(`TLS certificate${options.cert ? '' : ' (self-signed for this run)'} SHA-256 fingerprint: ${fingerprint}\n`);
  }
  for (const line of keys.banner(reachable.local)) printOut(`${line}\n`);
  if (dashboardHandler) {
    const others = reachable.network.map((origin) => `${origin}${dashboard!.DASHBOARD_BASE}/`);
    printOut(`Key dashboard: ${reachable.local}${dashboard!.DASHBOARD_BASE}/${others.length ? ` (from other machines: ${others.join(' or ')})` : ''}\n`);
  }
  // A link `pdfsvc accounts create` prints goes to a customer elsewhere: a network address, still a guess on 0.0.0.0.
  keys.listening?.(
    options.dashboardUrl
      ? { dashboardUrl: options.dashboardUrl }
      : dashboardHandler
        ? { dashboardUrl: `${reachable.network[0] ?? reachable.local}${dashboard!.DASHBOARD_BASE}`, guessed: isUnspecified(options.host) }
        : {},
  );
  logEvent('listening', {
    url,
    region,
    workers: pool.threads,
    worker_heap_mb: workerHeapMb ?? DEFAULT_WORKER_HEAP_MB,
    max_memory_bytes: memoryBudget.maxBytes,
    max_queue: pool.maxQueue,
    max_upload_bytes: maxUploadBytes,
    request_timeout_ms: requestTimeoutMs,
    version: VERSION,
    ...(audit ? { audit_log: audit.destination } : {}),
    ...(hipaa && options.https ? { tls_min_version: MIN_TLS_VERSION, hsts: HSTS } : {}),
  });

  // 1 once the audit log has failed.
  let exitStatus = 0;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logEvent('stop_forced', { signal, in_flight: active.size });
      process.exit(1);
    }
    stopping = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Logged once the listening socket is closed: whoever reads "stopping"
    // and connects gets a refusal, not a connection reset.
    logEvent('stopping', { signal, in_flight: active.size });
    // Every request has a deadline (the request timeout), so in-flight work
    // ends by then; this cap only guards against a bug keeping the process up.
    setTimeout(() => {
      logEvent('stop_timeout', { in_flight: active.size });
      process.exit(1);
    }, requestTimeoutMs + 15_000).unref();
    for (const res of active) {
      // Answers still to come close their connection, so clients do not
      // send more requests down it.
      res.shouldKeepAlive = false;
    }
    server.closeIdleConnections();
    if (active.size > 0) await new Promise<void>((resolve) => (onIdle = resolve));
    // Every answer is written; connections end as their last bytes leave.
    // Whatever is left after a moment (an idle keep-alive connection that
    // raced the close, a TLS handshake never finished) is cut.
    server.closeIdleConnections();
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, LIMITS.shutdownDrainMs).unref())]);
    for (const socket of sockets) socket.destroy();
    await pool.close();
    // Before the database closes: the database destination writes its last records there.
    await audit?.close();
    // The usage counted until the last answer is written before the exit.
    await keys.close();
    metricsServer?.close();
    logEvent('stopped', { signal });
    process.exit(exitStatus);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // A line that cannot be written (a full disk, a revoked file): the server
  // stops as on SIGTERM, finishing what it has, rather than serve requests it
  // cannot record, and exits 1.
  audit?.onFailure((error) => {
    exitStatus = 1;
    logEvent('audit_log_failed', { destination: audit.destination, error: error.code ?? 'unknown', in_flight: active.size });
    if (!stopping) process.kill(process.pid, 'SIGTERM');
  });
}

/**
 * An answer sent before the upload ended (413, 408) closes the connection.
 * Closing a socket with unread upload bytes makes the kernel reset it, and a
 * reset can reach the client before it has read the answer, which it then
 * never sees. So, as nginx does, the half-closed connection reads and discards
 * what still arrives for a moment (nothing is buffered), then closes.
 */
const currentRequest = new WeakMap<Socket, IncomingMessage>();

function lingerOnEarlyAnswer(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  // Keep-alive: later requests on the socket replace the first.
  const installed = currentRequest.has(socket);
  currentRequest.set(socket, req);
  const close = socket.destroySoon;
  if (installed || typeof close !== 'function') return;
  socket.destroySoon = function (this: Socket) {
    if (currentRequest.get(this)?.complete !== false) return close.call(this);
    this.end();
    this.on('data', () => {}).resume();
    const timer = setTimeout(() => this.destroy(), LIMITS.lingerMs);
    timer.unref();
    this.once('end', () => this.destroy()).once('close', () => clearTimeout(timer));
  };
}

interface ServedKeys {
  store: KeyStore;
  /** Usage counting, with a database. */
  meter?: UsageMeter;
  /** The database, when keys come from one (the dashboard uses it too). */
  database?: import('../store/store.js').Store;
  /** Lines for standard output once listening at `url`: where keys come from, a development key. */
  banner: (url: string) => string[];
  /** Once listening, with a database: what the server tells the command line that borrows its database (share.ts). */
  listening?: (info: import('../store/share.js').HolderInfo) => void;
  /** Stops following the keys, writes the last usage, lets the database go. */
  close(): Promise<void>;
}

/**
 * The keys this server checks requests against: from a keys file as before,
 * or from the database (src/store/location.ts decides which). A keys file
 * with no keys gives one ephemeral development key. The embedded database
 * with no accounts, or only the development account, gives the account
 * `dev` a new development key at each start (the old one stops) and, while
 * it has no password, a link to set one: the README's first command works
 * as before. PostgreSQL never gets one: a shared database is a real
 * deployment, where a key printed to a log would be a leak.
 */
/** `developmentKey`: whether a key may be made and printed when there is none (never in us-hipaa, unless --insecure-development). */
async function openKeys(options: ServeOptions, region: Region, developmentKey: boolean): Promise<ServedKeys> {
  const source = await keySource(options);
  if (source.kind === 'file') {
    const path = source.path;
    const stored = (
      await readKeysFile(path).catch((err) => {
        throw new PdfsvcError(400, `cannot read the keys file ${path}: ${(err as Error).message}`);
      })
    ).keys;
    const banner: string[] = [];
    let ephemeral: StoredKey[] | undefined;
    if (stored.length === 0 && !developmentKey) throw ValidationError.field(...ephemeralKeyRefusal());
    if (stored.length === 0) {
      const key = newKey();
      ephemeral = [{ id: 'k_ephemeral', name: 'ephemeral', plan: 'business', hash: hashKey(key), created: new Date().toISOString() }];
      banner.push(`Development API key for this run only (no keys in ${path}; create lasting ones with pdfsvc keys create):`, `X-API-Key: ${key}`);
    } else if (source.legacy) {
      banner.push(`Keys from ${path}; move them into the database, with accounts and usage, with pdfsvc keys import`);
    }
    const store = new KeyStore(ephemeral ?? stored);
    const stopWatching = watchKeysFile(path, store, ephemeral);
    return { store, banner: () => banner, close: async () => stopWatching() };
  }

  const [{ openStore }, { shareDatabase, socketPath }, { DatabaseKeys, UsageMeter }] = await Promise.all([
    import('../store/store.js'),
    import('../store/share.js'),
    import('./accounts.js'),
  ]);
  const database = await openStore(source.config);
  const where = `Accounts and keys: ${database.db.kind === 'embedded' ? 'the embedded database in ' : 'PostgreSQL at '}${database.db.location}`;
  let development: (url: string) => string[] = () => [];
  let unshare: (() => Promise<void>) | undefined;
  // Told once listening: the password links `pdfsvc accounts create` prints through the socket point here.
  let holder: import('../store/share.js').HolderInfo = {};
  try {
    if (database.db.borrowed) {
      throw new PdfsvcError(
        409,
        `the embedded database ${database.db.location} is held by another pdfsvc serve; one server at a time may hold it: give this one another --data-dir, or share a PostgreSQL database with --database-url`,
      );
    }
    const dataDir = source.config.dataDir;
    // The CLI reaches the database through this server while it holds it (share.ts).
    if (dataDir && dataDir !== 'memory://') unshare = await shareDatabase(database.db, socketPath(dataDir), () => holder);
    if (database.db.kind === 'embedded' && developmentKey) development = await developmentAccount(database, options.dashboardUrl);
  } catch (err) {
    await unshare?.();
    await database.close();
    throw err;
  }
  const watcher = await DatabaseKeys.start(database, logEvent);
  const meter = new UsageMeter(database, region, logEvent);
  const onHangup = () => void watcher.poll(true, 'SIGHUP');
  process.on('SIGHUP', onHangup);
  return {
    store: watcher.keys,
    meter,
    database,
    banner: (url) => [where, ...development(url)],
    listening: (info) => void (holder = info),
    async close() {
      process.off('SIGHUP', onHangup);
      await watcher.stop();
      await meter.stop();
      await unshare?.();
      await database.close();
    },
  };
}

/** The account the development key belongs to. */
const DEV_ACCOUNT = 'dev';

/** The development key and password link, as lines for the server at `url` (its dashboard, unless --dashboard-url says where). */
async function developmentAccount(database: import('../store/store.js').Store, dashboardUrl: string | undefined): Promise<(url: string) => string[]> {
  const accounts = await database.listAccounts();
  if (accounts.some((a) => a.name !== DEV_ACCOUNT)) return () => [];
  const { passwordLink } = await import('../store/cli.js');
  const by = { actor: 'pdfsvc serve (development key)' };
  const account = accounts[0] ?? (await database.createAccount({ name: DEV_ACCOUNT, email: 'dev@localhost', plan: 'business' }, by));
  for (const key of await database.listKeys({ account: account.id })) if (key.name === 'development') await database.revokeKey(key.id, {}, by);
  const { key } = await database.createKey({ account: account.id, name: 'development' }, by);
  const lines = [
    `Development API key of the account ${DEV_ACCOUNT} (a new one at each start while ${DEV_ACCOUNT} is the only account; create lasting ones with pdfsvc accounts create and pdfsvc keys create):`,
    `X-API-Key: ${key}`,
  ];
  const token = account.passwordHash === null ? (await database.createPasswordToken(account.id, undefined, by)).token : undefined;
  return (url) =>
    token ? [...lines, `Dashboard of the account ${DEV_ACCOUNT}: set its password at ${passwordLink(dashboardUrl ?? `${url}/dashboard`, token)}`] : lines;
}

async function readPem(path: string, option: 'cert' | 'key'): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw ValidationError.field(option, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * Limits against slow or idle clients, set on the server listhen made:
 * headers within 10 s, the whole request (upload included) within the
 * request timeout (the app answers 408/503 itself; Node's own check, a second
 * later, is the backstop), TLS handshakes within 10 s, a socket with no
 * traffic at all for longer than the request timeout is closed (a client
 * that stops reading its answer), and at most 1000 connections.
 */
function harden(
  server: Server,
  requestTimeoutMs: number,
  sockets: Set<Socket>,
  refusals: Refusals,
  onClientError?: (status: number, code: string | undefined) => void,
  /** Whether plain HTTP sent to a TLS port gets a 400 in plain HTTP (not in us-hipaa, where plain HTTP is never answered). */
  answerPlainHttp = true,
): void {
  server.headersTimeout = Math.min(LIMITS.headersTimeoutMs, requestTimeoutMs);
  server.requestTimeout = requestTimeoutMs + 1000;
  server.keepAliveTimeout = LIMITS.keepAliveTimeoutMs;
  server.timeout = requestTimeoutMs + 5000;
  server.maxConnections = LIMITS.maxConnections;
  // listhen creates the server and starts listening in one call, so Node's
  // deadline checker was armed with the default interval; arm it again.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = LIMITS.checkIntervalMs;
  const checker = symbolNamed(server, 'http.server.connectionsCheckingInterval');
  const setup = server.listeners('listening').find((f) => f.name === 'setupConnectionsTracking');
  if (checker && setup) {
    clearInterval((server as unknown as Record<symbol, NodeJS.Timeout>)[checker]);
    (setup as () => void).call(server);
  }
  const handshake = symbolNamed(server, 'handshake-timeout');
  if (handshake) (server as unknown as Record<symbol, number>)[handshake] = LIMITS.handshakeTimeoutMs;

  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // The missing-Host check is made in the request handler, with a problem object.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  // What Node answers by itself, before the app sees a request, replaced by
  // the same statuses with a problem object (every status is one: docs/contract.md,
  // "HTTP"): malformed requests (400), headers too large (431), chunk extensions
  // too large (413), headers not in within headersTimeout (408).
  const answered = new WeakSet<Socket>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // The parser stays in error and reports again as more bytes arrive: answer once.
    if (answered.has(socket)) return;
    answered.add(socket);
    const status = CLIENT_ERROR_STATUS[err.code ?? ''] ?? 400;
    const pending = (socket as Socket & { _httpMessage?: { _headerSent?: boolean } })._httpMessage;
    // Plain HTTP to an --https port: OpenSSL knows the request line, and Node would close the connection
    // without a word. The TCP socket under the failed TLS one still takes plain bytes: say to use https.
    const plain = err.code === 'ERR_SSL_HTTP_REQUEST' && answerPlainHttp ? (socket as Socket & { _parent?: Socket })._parent : undefined;
    if (plain?.writable) {
      plain.end(refusals.raw(400, 'this port speaks HTTPS only: send the request again with https://, not http://'));
      setTimeout(() => plain.destroy(), LIMITS.lingerMs).unref();
    } else if (socket.writable && (!pending || !pending._headerSent)) {
      const detail =
        status === 408
          ? `the request's headers did not arrive within ${server.headersTimeout} ms`
          : status === 431
            ? "the request's headers are larger than this server reads"
            : status === 413
              ? "the request's chunk extensions are larger than this server reads"
              : `the request is not well-formed HTTP/1.1 (${err.code ?? 'unknown'}); check its request line and headers`;
      // Sent with the FIN after it; the socket goes once the client has had a moment to read it.
      socket.end(refusals.raw(status, detail));
      setTimeout(() => socket.destroy(), LIMITS.lingerMs).unref();
    } else socket.destroy();
    if (err.code !== 'ECONNRESET') {
      logEvent('client_error', { status, code: err.code ?? 'unknown' });
      onClientError?.(status, err.code);
    }
  });
  // Any Expect but 100-continue: Node would answer 417 with an empty body.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    refusals.answer(
      res,
      417,
      `this server meets no expectation but 100-continue; send the request without "Expect: ${String(req.headers.expect).slice(0, 60)}"`,
      'Expect',
    );
  });
}

/** Node's codes for requests it cannot read, and the status each is answered with (as Node's own answers would be). */
const CLIENT_ERROR_STATUS: Record<string, number> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};

/** Problem answers for requests refused before they reach the app: written to the response, or as raw bytes to a socket. */
class Refusals {
  constructor(
    private readonly typeBase: string,
    private readonly region: string,
    /** Headers every answer carries (HSTS in us-hipaa). */
    private readonly always: Record<string, string> = {},
  ) {}

  /**
   * A 400 names what was wrong under `errors` too (SERVICE.md: every 400 maps the offending field to
   * messages): `Host`, or `request` for a request line or headers the parser refused.
   */
  private body(status: number, detail: string, field = 'request'): Buffer {
    return Buffer.from(JSON.stringify(problem(status, this.typeBase, status === 400 ? { detail, errors: { [field]: [detail] } } : { detail })));
  }

  private headers(body: Buffer): Record<string, string> {
    return {
      'Content-Type': 'application/problem+json',
      'Content-Length': String(body.byteLength),
      'X-Region': this.region,
      ...this.always,
      Connection: 'close',
    };
  }

  answer(res: ServerResponse, status: number, detail: string, code: string, field?: string): void {
    const body = this.body(status, detail, field);
    res.shouldKeepAlive = false;
    res.writeHead(status, this.headers(body)).end(body);
    logEvent('client_error', { status, code });
  }

  raw(status: number, detail: string): Buffer {
    const body = this.body(status, detail);
    const head = Object.entries(this.headers(body))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    return Buffer.concat([Buffer.from(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n`, 'latin1'), body]);
  }
}

/** How often the keys file is looked at: a change takes effect within about this long. */
const KEYS_POLL_MS = 1000;

/**
 * Keeps `store` in step with the keys file: polled (fs.watchFile works on
 * shared volumes and on the symlink swaps of a Kubernetes Secret, where inotify
 * does not) and read again on SIGHUP. A file that cannot be read or parsed
 * keeps the last good set and says why in the log: a half-written or broken
 * file never locks everyone out, nor lets anyone in. `ephemeral`: the
 * development key in use while the file has no keys.
 */
function watchKeysFile(path: string, store: KeyStore, ephemeral: StoredKey[] | undefined): () => void {
  let reading = Promise.resolve();
  const reload = (reason: string) => {
    reading = reading.then(async () => {
      try {
        const { keys } = await readKeysFile(path);
        store.replace(keys.length === 0 && ephemeral ? ephemeral : keys);
        logEvent('keys_reloaded', { reason, keys: keys.length });
      } catch (err) {
        // The kind of failure only: a parser's message would quote the file.
        const code = (err as NodeJS.ErrnoException).code;
        logEvent('keys_reload_failed', { reason, kept: store.size, error: code ?? (err instanceof SyntaxError ? 'not valid JSON' : 'not a pdfsvc keys file') });
      }
    });
  };
  const onChange = (current: Stats, previous: Stats) => {
    if (current.mtimeMs !== previous.mtimeMs || current.ino !== previous.ino || current.size !== previous.size) reload('file changed');
  };
  const onHangup = () => reload('SIGHUP');
  watchFile(path, { interval: KEYS_POLL_MS, persistent: false }, onChange);
  process.on('SIGHUP', onHangup);
  return () => {
    unwatchFile(path, onChange);
    process.off('SIGHUP', onHangup);
  };
}

/** Binds `host:port` for a moment: fails with a 'port' error naming what to do when it is taken or not allowed. */
export async function ensurePortFree(host: string, port: number): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EACCES')
        reject(ValidationError.field('port', `port ${port} needs privileges on this machine: choose one above 1023, or 0 for any free one`));
      else reject(err.code === 'EADDRINUSE' ? portTaken(host, port) : err);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

function portTaken(host: string, port: number): ValidationError {
  return ValidationError.field(
    'port',
    `port ${port} on ${host} is taken (another process listens on it): stop that process, or choose another port with --port (0 picks a free one)`,
  );
}

function symbolNamed(target: object, description: string): symbol | undefined {
  return Object.getOwnPropertySymbols(target).find((s) => s.description === description);
}
