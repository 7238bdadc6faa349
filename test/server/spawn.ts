/**
 * Real `pdfsvc serve` processes for tests: started on a free loopback port
 * with a keys file of their own, read back through their stdout (base URL)
 * and stderr (JSON log lines), and always stopped (afterAll kills any a test
 * left running). Also a plain HTTP(S) client over node:http, for what fetch
 * cannot do: exact bytes, no body, self-signed certificates, keep-alive
 * agents under control.
 */
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const CLI = join(ROOT, 'bin/pdfsvc.js');

const running = new Set<ResultPromise>();
const scratch: string[] = [];
afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await Promise.allSettled([...running]);
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A loopback port free right now, for programs that cannot be told to pick one (nginx, Prometheus). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function tempDir(prefix = 'pdfsvc-server-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** A keys file with one Business key; returns its path and the key. */
export async function keysFile(dir = tempDir()): Promise<{ path: string; key: string }> {
  const path = join(dir, 'keys.json');
  const created = await execa('node', [CLI, 'keys', 'create', '--plan', 'business', '--name', 'tests', '--keys-file', path]);
  return { path, key: created.stdout.trim() };
}

export interface Served {
  base: string;
  key: string;
  /** The keys file the server reads. */
  keysPath: string;
  child: ResultPromise;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** The JSON lines on stderr so far. */
  log(): Array<Record<string, unknown>>;
  /** Sends the signal and waits for the exit; returns the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | undefined>;
  exited: Promise<number | undefined>;
}

export interface ServeOptions {
  /** Extra `serve` arguments. */
  args?: string[];
  /** A keys file (default: a new one with one Business key); null: none (keys from the database `args` name). */
  keys?: { path: string; key: string } | null;
  env?: Record<string, string>;
  cwd?: string;
  /** The CLI to serve with (default: this checkout's bin/pdfsvc.js). */
  cli?: string;
  /** A command the server runs under (`strace -f …`, `setpriv …`). */
  wrapper?: string[];
  startTimeoutMs?: number;
}

/** A pdfsvc process that printed the URL it listens on. */
export interface Started {
  child: ResultPromise;
  /** The first URL the process printed. */
  base: string;
  stdout(): string;
  stderr(): string;
  /** Sends the signal (default SIGTERM) and waits for the exit; returns the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | undefined>;
  exited: Promise<number | undefined>;
}

/**
 * Starts `command` in this checkout and waits until it prints a URL (`urlPattern`), for
 * serve() here and the dashboard's processes (test/dashboard/harness.ts). afterAll kills it if a test
 * left it running.
 */
export async function start(
  command: string[],
  options: { cwd?: string; env?: Record<string, string>; extendEnv?: boolean; what: string; urlPattern: RegExp; timeoutMs: number },
): Promise<Started> {
  const child = execa(command[0], command.slice(1), {
    reject: false,
    cwd: options.cwd ?? ROOT,
    env: options.env,
    extendEnv: options.extendEnv ?? true,
    stdin: 'ignore',
    // stop() waits for the server's own graceful exit, however long its
    // answers take on a busy machine; execa would otherwise SIGKILL it 5 s
    // after the SIGTERM, cutting the answers a shutdown test checks. (A server
    // a test left running is killed by afterAll above.)
    forceKillAfterDelay: false,
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = child.then((result) => {
    running.delete(child);
    return result.exitCode;
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.what} did not start in time: ${out}\n${err}`)), options.timeoutMs);
    const check = () => {
      const url = options.urlPattern.exec(out)?.[0];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.what} exited (${code}) before listening:\n${out}\n${err}`));
    });
  });
  return {
    child,
    base,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    exited,
  };
}

export async function serve(options: ServeOptions = {}): Promise<Served> {
  const keys = options.keys === null ? { path: '', key: '' } : (options.keys ?? (await keysFile()));
  const command = [
    ...(options.wrapper ?? []),
    process.execPath,
    options.cli ?? CLI,
    'serve',
    '--port',
    '0',
    ...(keys.path ? ['--keys-file', keys.path] : []),
    ...(options.args ?? []),
  ];
  const started = await start(command, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: !options.env,
    what: 'server',
    urlPattern: /https?:\/\/\S+/,
    timeoutMs: options.startTimeoutMs ?? 30_000,
  });
  const { child, base, exited } = started;
  return {
    base,
    key: keys.key,
    keysPath: keys.path,
    child,
    pid: child.pid!,
    stdout: started.stdout,
    stderr: started.stderr,
    log: () =>
      started
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    stop: started.stop,
    exited,
  };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface SendOptions {
  method?: string;
  headers?: Record<string, string | number>;
  body?: Uint8Array;
  agent?: http.Agent | https.Agent | false;
  timeoutMs?: number;
}

/** One request with node:http(s); a self-signed certificate is accepted (tests check it separately). */
export function send(url: string, options: SendOptions = {}): Promise<Reply> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: options.method ?? (options.body ? 'POST' : 'GET'),
        headers: { ...(options.body ? { 'content-length': options.body.byteLength } : {}), ...options.headers },
        agent: options.agent,
        rejectUnauthorized: false,
        timeout: options.timeoutMs ?? 60_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer from ${url} in time`)));
    request.on('error', reject);
    request.end(options.body);
  });
}

export type FormPart = string | Uint8Array | Uint8Array[];

/** A multipart/form-data body as bytes (arrays become repeated parts), encoded by Node's FormData, with its Content-Type. */
export async function multipart(fields: Record<string, FormPart | undefined>): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of value === undefined ? [] : Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string') form.append(name, item);
      else form.append(name, new Blob([item], { type: 'application/pdf' }), `${name}.pdf`);
    }
  }
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

/** POSTs an action with a multipart body. */
export async function postAction(
  served: { base: string; key: string },
  action: string,
  fields: Record<string, FormPart | undefined>,
  options: SendOptions = {},
): Promise<Reply> {
  const { body, contentType } = await multipart(fields);
  return send(`${served.base}/v1/${action}`, {
    ...options,
    body,
    headers: { 'content-type': contentType, 'x-api-key': served.key, ...options.headers },
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What `check` gives while the condition does not hold yet. */
type Falsy = false | 0 | '' | null | undefined;

/** Polls until the check passes (returns truthy) or the time is up. */
export async function waitFor<T>(check: () => Promise<T | Falsy> | T | Falsy, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as T;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * Sends `request` until it answers `status`, for a change servers must apply within a bound: fails once a request
 * sent more than `withinMs` after `since` (when the change was made) is still answered otherwise. Judged by when
 * each request was sent, not by when its answer came back: on a busy machine a request still accepted (a whole
 * rotation) can take seconds to answer, and was sent in time. Returns when the first request so answered was sent,
 * in ms after `since`.
 */
export async function answersWithin(
  request: () => Promise<{ status: number }>,
  status: number,
  since: number,
  withinMs: number,
  what: string,
): Promise<number> {
  for (;;) {
    const sentAt = Date.now();
    const reply = await request();
    if (reply.status === status) return sentAt - since;
    if (sentAt - since > withinMs) throw new Error(`${what}: a request sent ${sentAt - since} ms after the change was answered ${reply.status}`);
    await sleep(25);
  }
}

/**
 * Waits for a refused process, judging a hang from its message, not its start: a slow start on a busy machine
 * (opening PGlite, connecting to PostgreSQL) is not a hang, staying alive `graceMs` after saying `marker` is.
 * `lingered`: it was killed for that.
 */
export async function exitAfterMessage<R extends { stderr?: unknown }>(
  child: ResultPromise & PromiseLike<R>,
  marker: string,
  graceMs: number,
): Promise<{ run: R; lingered: boolean }> {
  let lingered = false;
  let timer: NodeJS.Timeout | undefined;
  child.stderr?.on('data', (chunk: Buffer) => {
    if (timer === undefined && chunk.toString().includes(marker)) {
      timer = setTimeout(() => {
        lingered = true;
        child.kill();
      }, graceMs);
    }
  });
  try {
    return { run: await child, lingered };
  } finally {
    clearTimeout(timer);
  }
}
