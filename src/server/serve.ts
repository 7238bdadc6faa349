/**
 * `pdfsvc serve`: the h3 app behind listhen, with keys from the keys file
 * (or one ephemeral development key), a worker pool and structured logs.
 */
import { listen } from 'listhen';
import { isIP } from 'node:net';
import { readFile } from 'node:fs/promises';
import { toNodeHandler } from 'h3';
import { actions } from '../actions/index.js';
import type { AnyAction } from '../core/action.js';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { createApp } from './app.js';
import { KeyStore, REGIONS, defaultKeysFile, hashKey, newKey, readKeysFile, type Region } from './keys.js';
import { createPool } from './pool.js';

export interface ServeOptions {
  host: string;
  port: string;
  region: string;
  keysFile?: string;
  https?: boolean;
  cert?: string;
  key?: string;
  maxUploadBytes: string;
  workers?: string;
  requestTimeoutMs: string;
  errorTypeBase?: string;
}

declare const __PDFSVC_VERSION__: string | undefined;
const VERSION = typeof __PDFSVC_VERSION__ === 'string' ? __PDFSVC_VERSION__ : '0.0.0-dev';

function positiveInteger(name: string, text: string | undefined, allowZero = false): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || (!allowZero && n === 0)) throw ValidationError.field(name, `must be a whole number${allowZero ? '' : ' above 0'}; got ${JSON.stringify(text)}`);
  return n;
}

/** Loopback addresses and names: the only places plain HTTP may be served. */
function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

export async function serveFromCli(options: ServeOptions): Promise<void> {
  if (!REGIONS.includes(options.region as Region)) {
    throw ValidationError.field('region', `unknown region ${JSON.stringify(options.region)}; use one of ${REGIONS.join(', ')}`);
  }
  const region = options.region as Region;
  const port = positiveInteger('port', options.port, true)!;
  const maxUploadBytes = positiveInteger('max-upload-bytes', options.maxUploadBytes)!;
  const workers = positiveInteger('workers', options.workers);
  if (!options.https && !isLoopback(options.host)) {
    throw ValidationError.field(
      'host',
      `${options.host} is not a loopback address; plain HTTP would expose API keys and documents on the network. Use --https (with --cert/--key, or a self-signed certificate), or bind 127.0.0.1`,
    );
  }
  if (Boolean(options.cert) !== Boolean(options.key)) throw ValidationError.field(options.cert ? 'key' : 'cert', '--cert and --key go together');

  const keysPath = options.keysFile ?? defaultKeysFile();
  const stored = (await readKeysFile(keysPath).catch((err) => {
    throw new PdfsvcError(400, `cannot read the keys file ${keysPath}: ${(err as Error).message}`);
  })).keys;
  let ephemeral: string | undefined;
  if (stored.length === 0) {
    ephemeral = newKey();
    stored.push({ id: 'k_ephemeral', name: 'ephemeral', plan: 'business', hash: hashKey(ephemeral), created: new Date().toISOString() });
  }
  const pool = createPool({ workers });
  const app = createApp({
    actions: actions as readonly AnyAction[],
    region,
    keys: new KeyStore(stored),
    run: pool.run,
    maxUploadBytes,
    errorTypeBase: options.errorTypeBase,
    version: VERSION,
    log: (entry) => process.stderr.write(`${JSON.stringify(entry)}\n`),
  });
  const https = options.https
    ? options.cert
      ? { cert: await readFile(options.cert, 'utf8'), key: await readFile(options.key!, 'utf8') }
      : true
    : false;
  const listener = await listen(toNodeHandler(app) as never, {
    hostname: options.host,
    port,
    https,
    showURL: false,
    autoClose: false,
    qr: false,
    public: false,
    isTest: true,
  } as never);
  const address = listener.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const scheme = options.https ? 'https' : 'http';
  const host = isIP(options.host) === 6 ? `[${options.host}]` : options.host;
  process.stdout.write(`pdfsvc listening on ${scheme}://${host}:${actualPort} (region ${region})\n`);
  if (ephemeral) {
    process.stdout.write(`Development API key for this run only (no keys in ${keysPath}; create lasting ones with pdfsvc keys create):\n`);
    process.stdout.write(`X-API-Key: ${ephemeral}\n`);
  }
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write('pdfsvc: stopping: finishing requests in flight\n');
    await listener.close();
    await pool.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
