/**
 * `pdfsvc dashboard`: the key dashboard as a process of its own, on the
 * database the API servers share (PostgreSQL: one dashboard for every
 * region). With the embedded database, `pdfsvc serve` serves it at
 * /dashboard instead: that database can be opened by one process only.
 */
import { ValidationError } from '../core/errors.js';
import { databaseConfig, type StoreOptions } from '../store/location.js';
import { openStore } from '../store/store.js';
import { checkDashboardAddress, listenDashboard, prunePeriodically, type ListeningDashboard } from './listen.js';
import { setOperator, sqlDashboardStore } from './sql-store.js';
import { withStore } from '../store/cli.js';
import { printOut } from '../cli/stdout.js';

export interface DashboardCliOptions extends StoreOptions {
  host: string;
  port: string;
  https?: boolean;
  cert?: string;
  key?: string;
  publicUrl?: string;
  trustProxy?: boolean;
}

function logLine(entry: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
}

export async function dashboardFromCli(options: DashboardCliOptions): Promise<void> {
  if (!/^\d+$/.test(options.port)) throw ValidationError.field('port', `must be a whole number; got ${JSON.stringify(options.port)}`);
  if ((options.cert || options.key) && !options.https) throw ValidationError.field(options.cert ? 'cert' : 'key', '--cert and --key need --https');
  // Refused before the database is opened (or, embedded, made).
  checkDashboardAddress(options.host, Boolean(options.https), options.publicUrl, 'host');
  const store = await openStore(databaseConfig(options));
  let listening: ListeningDashboard;
  try {
    listening = await listenDashboard({
      store: sqlDashboardStore(store),
      host: options.host,
      port: Number(options.port),
      https: options.https,
      cert: options.cert,
      key: options.key,
      publicUrl: options.publicUrl,
      trustProxy: options.trustProxy,
      log: logLine,
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  const others = listening.otherUrls.map((url) => `${url}/`);
  printOut(`pdfsvc dashboard on ${listening.url}/ (database ${store.db.location})${others.length ? `; from other machines: ${others.join(' or ')}` : ''}\n`);
  logLine({ event: 'dashboard_listening', url: listening.url, database: store.db.kind });
  prunePeriodically(store, logLine);
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    await listening.close();
    await store.close();
    logLine({ event: 'dashboard_stopped', signal });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

export async function accountsOperator(name: string, options: StoreOptions & { off?: boolean }): Promise<void> {
  await withStore(options, async (store) => {
    const account = await setOperator(store, name, !options.off);
    process.stderr.write(`${account.name} ${options.off ? 'no longer sees' : 'now sees'} every account's usage in the dashboard (All accounts)\n`);
  });
}
