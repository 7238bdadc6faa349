/**
 * Puts the dashboard app on a port: `pdfsvc dashboard` (a process of its
 * own) and `pdfsvc serve --dashboard-port` (beside the API, sharing its
 * database handle: the embedded database can be opened by one process only).
 * As for the API, plain HTTP only on a loopback address: a password and a
 * session cookie must not cross a network in clear.
 */
import { listen } from 'listhen';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { reachableOrigins } from '../server/reachable.js';
import { toNodeHandler } from 'h3/node';
import { ValidationError } from '../core/errors.js';
import { PLAN_REGIONS } from '../server/keys.js';
import { ensurePortFree, isLoopback } from '../server/serve.js';
import { createDashboardApp, DASHBOARD_BASE } from './app.js';
import type { Store } from '../store/store.js';
import { sqlDashboardStore } from './sql-store.js';
import type { DashboardStore } from './store.js';

export const DEFAULT_DASHBOARD_PORT = 8090;

export interface DashboardListenOptions {
  store: DashboardStore;
  host: string;
  port: number;
  https?: boolean;
  cert?: string;
  key?: string;
  /** The URL people open (behind a proxy); its origin is the only one forms may come from. */
  publicUrl?: string;
  trustProxy?: boolean;
  log: (entry: Record<string, unknown>) => void;
}

export interface ListeningDashboard {
  url: string;
  /** Where other machines reach it, when it listens on every interface without a public URL. */
  otherUrls: string[];
  server: Server;
  close(): Promise<void>;
}

export function checkDashboardAddress(host: string, https: boolean, publicUrl: string | undefined, option = 'host'): void {
  if (publicUrl !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(publicUrl);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol))
      throw ValidationError.field(
        'public-url',
        `${JSON.stringify(publicUrl)} is not an http(s) URL; give the address people open, such as https://dashboard.example.com`,
      );
  }
  // Behind a TLS proxy (public URL https), the dashboard itself may listen in clear on loopback only.
  if (!https && !isLoopback(host)) {
    throw ValidationError.field(
      option,
      `${host} is not a loopback address; plain HTTP would expose passwords and session cookies on the network. Use --https, or bind 127.0.0.1 behind a TLS proxy (with --public-url https://…)`,
    );
  }
}

/**
 * The dashboard as a Node request handler, for a server of its own or beside
 * the API in `pdfsvc serve` (which sends it every path under /dashboard).
 */
export function dashboardHandler(options: {
  store: DashboardStore;
  https: boolean;
  publicUrl?: string;
  trustProxy?: boolean;
  log: (entry: Record<string, unknown>) => void;
}) {
  const publicUrl = options.publicUrl ? new URL(options.publicUrl) : undefined;
  // Secure cookies whenever the browser reaches the dashboard over HTTPS, directly or through a proxy.
  const secure = options.https || publicUrl?.protocol === 'https:';
  const app = createDashboardApp({
    store: options.store,
    secure,
    planRegions: PLAN_REGIONS,
    publicOrigin: publicUrl?.origin,
    trustProxy: options.trustProxy,
    log: options.log,
  });
  return toNodeHandler(app);
}

/** The dashboard over the accounts store, as a Node request handler (`pdfsvc serve` mounts it at /dashboard). */
export function dashboardFor(
  store: Store,
  options: { https: boolean; publicUrl?: string; trustProxy?: boolean; log: (entry: Record<string, unknown>) => void },
) {
  prunePeriodically(store, options.log);
  return dashboardHandler({ ...options, store: sqlDashboardStore(store) });
}

/** Ended sessions, used links and sign-in attempts are kept this long (for the throttle and for inquiries), then deleted. */
const PRUNE_AFTER_MS = 30 * 86_400_000;

/** Deletes them now and every hour, for as long as the process runs (the timer does not keep it running). */
export function prunePeriodically(store: Store, log: (entry: Record<string, unknown>) => void): void {
  const prune = () => store.prune(PRUNE_AFTER_MS).catch((err: Error) => log({ event: 'dashboard_prune_failed', error: err.name }));
  void prune();
  setInterval(prune, 3_600_000).unref();
}

export { DASHBOARD_BASE };

/** True for the paths the dashboard answers. */
export function isDashboardPath(url: string | undefined): boolean {
  return url !== undefined && (url === DASHBOARD_BASE || url.startsWith(`${DASHBOARD_BASE}/`) || url.startsWith(`${DASHBOARD_BASE}?`));
}

export async function listenDashboard(options: DashboardListenOptions): Promise<ListeningDashboard> {
  checkDashboardAddress(options.host, Boolean(options.https), options.publicUrl);
  const publicUrl = options.publicUrl ? new URL(options.publicUrl) : undefined;
  const dashboard = dashboardHandler({ ...options, https: Boolean(options.https) });
  const { readFile } = await import('node:fs/promises');
  const tls = options.https
    ? options.cert && options.key
      ? { cert: await readFile(options.cert, 'utf8'), key: await readFile(options.key, 'utf8') }
      : { validityDays: 365, domains: [...new Set(['localhost', '127.0.0.1', '::1', options.host])] }
    : false;
  // Its own server: the root leads to the dashboard.
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (isDashboardPath(req.url)) return dashboard(req, res);
    res.writeHead(req.url === '/' ? 303 : 404, { location: `${DASHBOARD_BASE}/`, 'content-type': 'text/plain; charset=utf-8' });
    res.end(req.url === '/' ? '' : `the dashboard is at ${DASHBOARD_BASE}/\n`);
  };
  // listhen would otherwise fail with an error of its own (no option named) when the port is taken.
  if (options.port !== 0) await ensurePortFree(options.host, options.port);
  const listener = await listen(
    handler as never,
    {
      hostname: options.host,
      port: options.port === 0 ? 0 : { port: options.port, random: false, alternativePortRange: [] },
      https: tls,
      showURL: false,
      autoClose: false,
      qr: false,
      public: false,
      isTest: true,
    } as never,
  );
  const server = listener.server as Server;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  if (options.port !== 0 && port !== options.port) {
    await listener.close();
    throw ValidationError.field('port', `cannot listen on port ${options.port}; choose another (0 picks a free one)`);
  }
  // On 0.0.0.0 or ::, localhost and the machine's addresses: no browser opens 0.0.0.0.
  const reachable = reachableOrigins(options.https ? 'https' : 'http', options.host, port);
  return {
    url: `${publicUrl ? publicUrl.origin : reachable.local}${DASHBOARD_BASE}`,
    otherUrls: publicUrl ? [] : reachable.network.map((origin) => `${origin}${DASHBOARD_BASE}`),
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
