/**
 * The dashboard's test stack: real pdfsvc processes on a database of their
 * own (the embedded default, or PostgreSQL), accounts made with the real
 * `pdfsvc accounts create`, and an HTTP client with a cookie jar for the
 * requests a browser would never make (crafted forms, a stolen cookie).
 */
import { execa } from 'execa';
import { join } from 'node:path';
import { CLI, ROOT, send, start, tempDir, type Reply, type Started } from '../server/spawn.js';

/** A pdfsvc process (dashboard or serve) listening. */
export type Running = Pick<Started, 'base' | 'stdout' | 'stderr'> & { stop(): Promise<number | undefined> };

/** Starts `pdfsvc <args>` and waits for the URL it prints when it listens (its origin: the dashboard adds /dashboard). */
export async function startPdfsvc(args: string[], env: Record<string, string> = {}): Promise<Running> {
  return start([process.execPath, CLI, ...args], {
    env: { ...env, PDFSVC_KEYS_FILE: '' },
    what: `pdfsvc ${args[0]}`,
    urlPattern: /https?:\/\/[^\s/]+/,
    timeoutMs: 60_000,
  });
}

/** `pdfsvc accounts create`; returns the token of the one-time password link it printed. */
export async function createAccount(database: string[], name: string, email: string, plan: string, extra: string[] = []): Promise<string> {
  const result = await execa(process.execPath, [CLI, 'accounts', 'create', name, '--email', email, '--plan', plan, ...database, ...extra], {
    cwd: ROOT,
    env: { PDFSVC_KEYS_FILE: '' },
  });
  const link = new URL(result.stdout.trim());
  expectPath(link.pathname, '/dashboard/set-password');
  return link.searchParams.get('token')!;
}

function expectPath(actual: string, expected: string): void {
  if (actual !== expected) throw new Error(`the password link's path is ${actual}, not ${expected}`);
}

/** A fresh embedded database directory. */
export function embeddedDatabase(): string[] {
  return ['--data-dir', join(tempDir('pdfsvc-dashboard-'), 'db')];
}

/** The value of a hidden input named `name` in a page. */
export function hiddenField(html: string, name: string): string | undefined {
  return new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

/**
 * A client that keeps cookies, as a browser would, but sends exactly what it
 * is told: the way to make the requests an attacker would.
 */
export class HttpClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly origin: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(reply: Reply): Reply {
    const set = reply.headers['set-cookie'] ?? [];
    for (const line of set) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair.split('=');
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value.join('='));
    }
    return reply;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Reply> {
    return this.keep(await send(`${this.origin}${path}`, { headers: { cookie: this.cookieHeader, ...headers } }));
  }

  /** A form POST; by default as a same-origin browser form would send it (Origin, Sec-Fetch-Site). */
  async post(path: string, fields: Record<string, string | string[]>, headers: Record<string, string | undefined> = {}): Promise<Reply> {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const item of Array.isArray(v) ? v : [v]) form.append(k, item);
    const defaults: Record<string, string | undefined> = { origin: this.origin, 'sec-fetch-site': 'same-origin', ...headers };
    const sent = Object.fromEntries(Object.entries(defaults).filter((e): e is [string, string] => e[1] !== undefined));
    return this.keep(
      await send(`${this.origin}${path}`, {
        method: 'POST',
        body: Buffer.from(form.toString()),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader, ...sent },
      }),
    );
  }

  /** The CSRF token of the forms on a page (GET). */
  async csrf(path: string): Promise<string> {
    const page = await this.get(path);
    const token = hiddenField(page.body.toString(), 'csrf');
    if (!token) throw new Error(`no CSRF token on ${path} (${page.status})`);
    return token;
  }

  async setPassword(token: string, password: string): Promise<Reply> {
    const page = await this.get(`/dashboard/set-password?token=${token}`);
    const csrf = hiddenField(page.body.toString(), 'csrf')!;
    return this.post('/dashboard/set-password', { csrf, token, password, confirm: password });
  }

  async signIn(email: string, password: string, headers: Record<string, string> = {}): Promise<Reply> {
    const csrf = await this.csrf('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { csrf, email, password }, headers);
  }
}
