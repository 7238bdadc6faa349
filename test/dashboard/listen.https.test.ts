/**
 * `pdfsvc dashboard` on its own over HTTPS: the session cookie is Secure with
 * the __Secure- prefix, HSTS is sent; and plain HTTP off loopback is refused.
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../server/spawn.js';
import { createAccount, embeddedDatabase, HttpClient, startPdfsvc, type Running } from './harness.js';

describe('pdfsvc dashboard --https', { timeout: 120_000 }, () => {
  let dashboard: Running;
  let token: string;
  const database = embeddedDatabase();

  beforeAll(async () => {
    token = await createAccount(database, 'tls', 'tls@example.com', 'starter');
    dashboard = await startPdfsvc(['dashboard', '--port', '0', '--https', ...database]);
  }, 120_000);

  afterAll(async () => {
    expect(await dashboard?.stop()).toBe(0);
  });

  it('serves over HTTPS with Secure, prefixed, path-scoped cookies and HSTS', async () => {
    expect(dashboard.base).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const client = new HttpClient(dashboard.base);
    const page = await client.get(`/dashboard/set-password?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(page.headers['set-cookie']![0]).toMatch(/^__Secure-pdfsvc_session_pre=[\w-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict; Secure$/);
    const signedIn = await client.setPassword(token, 'a long enough passphrase');
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers['set-cookie']![0]).toMatch(
      /^__Secure-pdfsvc_session=[\w-]{43}; Path=\/dashboard; Max-Age=28800; HttpOnly; SameSite=Strict; Secure$/,
    );
    expect((await client.get('/dashboard/keys')).body.toString()).toContain('tls@example.com');
  });

  it("on 0.0.0.0, says where a browser opens it: localhost and the machine's addresses, never 0.0.0.0", async () => {
    // A database of its own: the embedded one is held by one server at a time.
    const own = embeddedDatabase();
    const ownToken = await createAccount(own, 'anywhere', 'anywhere@example.com', 'free');
    const everywhere = await startPdfsvc(['dashboard', '--host', '0.0.0.0', '--port', '0', '--https', ...own]);
    try {
      const port = new URL(everywhere.base).port;
      expect(everywhere.base).toBe(`https://localhost:${port}`);
      expect(everywhere.stdout()).not.toContain('0.0.0.0');
      const others = /from other machines: (.*)\n/.exec(everywhere.stdout())?.[1].split(' or ') ?? [];
      for (const url of [`${everywhere.base}/dashboard/`, ...others]) {
        expect(url).toMatch(new RegExp(`^https://[^/]+:${port}/dashboard/$`));
        expect((await new HttpClient(new URL(url).origin).get(`/dashboard/set-password?token=${ownToken}`)).status, url).toBe(200);
      }
    } finally {
      expect(await everywhere.stop()).toBe(0);
    }
  });

  it('refuses plain HTTP on a non-loopback address (exit 2, naming what to do)', async () => {
    const other = embeddedDatabase();
    const dataDir = other[1];
    const run = await execa(process.execPath, [CLI, 'dashboard', '--host', '0.0.0.0', '--port', '0', ...other], {
      cwd: ROOT,
      reject: false,
      env: { PDFSVC_KEYS_FILE: '' },
    });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/host: 0\.0\.0\.0 is not a loopback address.*--https/);
    // Refused before anything was made: no database directory.
    expect(existsSync(dataDir)).toBe(false);
  });
});
