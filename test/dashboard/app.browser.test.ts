/**
 * The key dashboard as its users meet it: real pdfsvc processes on a real
 * database (the embedded default: one `pdfsvc serve` with the dashboard at
 * /dashboard; PostgreSQL: two `serve` processes and a `pdfsvc dashboard`),
 * accounts made with `pdfsvc accounts create`, and headless Chromium
 * (Debian's /usr/bin/chromium, playwright-core) signing in through the
 * one-time link, creating, reading once, rotating and revoking a key that
 * the API then accepts or refuses, and seeing the usage of those requests.
 * Then what an attacker would try: another account's keys, forged forms, a
 * stolen cookie after sign-out, guessed passwords.
 */
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, pdfinfo, tempFile } from '../helpers/pdf-tools.js';
import { haveTool } from '../helpers/tools.js';
import { havePostgres, freshPostgresDatabase } from '../helpers/postgres.js';
import { execa } from 'execa';
import { answersWithin, CLI, postAction, ROOT, sleep, waitFor } from '../server/spawn.js';
import { createAccount, embeddedDatabase, hiddenField, HttpClient, startPdfsvc, type Running } from './harness.js';

const CHROMIUM = process.env.PDFSVC_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = haveTool(CHROMIUM, 'the dashboard browser tests', 'apt-get install -y chromium, or set PDFSVC_CHROMIUM');
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const PASSWORD = 'a long enough passphrase';

interface Stack {
  /** The API servers (every region's), sharing the database. */
  apis: Running[];
  /** Origin of the dashboard (its pages are under /dashboard). */
  dashboard: string;
  database: string[];
  processes: Running[];
}

const BACKENDS: Array<{ name: string; available: boolean; start: (tokens: (database: string[]) => Promise<void>) => Promise<Stack> }> = [
  {
    name: 'the embedded database (one serve with its /dashboard)',
    available: true,
    async start(accounts) {
      const database = embeddedDatabase();
      // The embedded database is one process's: accounts first, then the server.
      await accounts(database);
      if (process.env.DASH_ONLY) {
        const dashboard = await startPdfsvc(['dashboard', '--port', '0', ...database]);
        return { apis: [], dashboard: dashboard.base, database, processes: [dashboard] };
      }
      const serve = await startPdfsvc(['serve', '--port', '0', '--workers', '1', ...database]);
      return { apis: [serve], dashboard: serve.base, database, processes: [serve] };
    },
  },
  {
    name: 'PostgreSQL (two serve processes and pdfsvc dashboard)',
    available: havePostgres(),
    async start(accounts) {
      const database = ['--database-url', await freshPostgresDatabase()];
      await accounts(database);
      const [eu, us, dashboard] = await Promise.all([
        startPdfsvc(['serve', '--port', '0', '--workers', '1', '--region', 'eu', ...database]),
        startPdfsvc(['serve', '--port', '0', '--workers', '1', '--region', 'us', ...database]),
        startPdfsvc(['dashboard', '--port', '0', ...database]),
      ]);
      return { apis: [eu, us], dashboard: dashboard.base, database, processes: [eu, us, dashboard] };
    },
  },
];

/** Every API answer the tests got, for the usage check. */
const replies: number[] = [];
async function rotate(base: string, key: string) {
  const reply = await postAction({ base, key }, 'rotate_pages', { file: fixture('pages-3.pdf'), angle: '90' });
  replies.push(reply.status);
  return reply;
}

describe.skipIf(!haveChromium).each(BACKENDS.filter((b) => b.available))('the dashboard on $name', { timeout: 180_000 }, (backend) => {
  let stack: Stack;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  const tokens: Record<string, string> = {};
  /** Everything the page did that it should not: checked at the end. */
  const problems: string[] = [];
  const requests: string[] = [];
  /** Keys as the page showed them, by name. */
  const shown: Record<string, string> = {};

  beforeAll(async () => {
    replies.length = 0;
    stack = await backend.start(async (database) => {
      tokens.alice = await createAccount(database, 'alice', 'alice@example.com', 'business');
      tokens.bob = await createAccount(database, 'bob', 'bob@example.com', 'business');
      tokens.carol = await createAccount(database, 'carol', 'carol@example.com', 'starter');
      tokens.dave = await createAccount(database, 'dave', 'dave@example.com', 'starter');
      tokens.ops = await createAccount(database, 'ops', 'ops@example.com', 'free');
      await execa(process.execPath, [CLI, 'accounts', 'operator', 'ops', ...database], { cwd: ROOT, env: { PDFSVC_KEYS_FILE: '' } });
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: 60_000 });
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.dashboard });
    context.on('request', (request) => requests.push(request.url()));
    page = await context.newPage();
    page.on('console', (message) => {
      // A refusal the test asks for on purpose shows as a failed resource load; anything else is a problem.
      if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of (401|403|404|409|410|429)\b/.test(message.text()))
        problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.addInitScript(() => {
      globalThis.addEventListener('securitypolicyviolation', (event) =>
        console.error(`CSP: ${(event as unknown as { violatedDirective: string }).violatedDirective}`),
      );
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(stack?.processes.map((p) => p.stop()) ?? []);
  });

  const url = (path: string) => `${stack.dashboard}/dashboard${path}`;

  it('signs in through the one-time link, which then no longer works', async () => {
    await page.goto(url(`/set-password?token=${tokens.alice}`));
    expect(await page.locator('h1').textContent()).toBe('Choose your password');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set the password and sign in' }).click();
    await page.waitForURL(url('/keys'));
    expect(await page.locator('h1').textContent()).toBe('API keys');
    expect(await page.locator('header').textContent()).toContain('alice@example.com');

    const cookies = await context.cookies(url('/keys'));
    const session = cookies.find((c) => c.name === 'pdfsvc_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
    // It expires (8 hours), rather than living as long as the browser.
    expect(session.expires * 1000 - Date.now()).toBeGreaterThan(7.9 * 3_600_000);
    expect(session.expires * 1000 - Date.now()).toBeLessThan(8.1 * 3_600_000);

    const again = await new HttpClient(stack.dashboard).get(`/dashboard/set-password?token=${tokens.alice}`);
    expect(again.status).toBe(410);
  });

  it('creates a key, shows it whole once with a copy button, and never again', async () => {
    await page.getByLabel(/^Name/).fill('ci-bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    const field = page.locator('#new-key');
    const key = await field.inputValue();
    expect(key).toMatch(/^pdfsvc_[A-Za-z0-9_-]{43}$/);
    shown['ci-bot'] = key;
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    const row = page.locator('tbody tr', { hasText: 'ci-bot' });
    expect(await row.locator('td').first().textContent()).toBe(`${key.slice(0, 13)}…`);
    expect(await row.locator('td').nth(2).textContent()).toBe('never');
    // Reloading the answer sends the form again: no second key, no key shown, the list and why.
    const resent = await page.reload();
    expect(resent?.status()).toBe(409);
    expect(await page.locator('p.notice').textContent()).toContain('Key “ci-bot” was already created by this form (was it sent twice?)');
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key.slice(13));
    expect(await page.locator('tbody tr', { hasText: 'ci-bot' }).count()).toBe(1);
    // Reloaded: listed by its prefix, the key itself is nowhere.
    await page.goto(url('/keys'));
    expect(await page.content()).not.toContain(key.slice(13));
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.locator('tbody tr', { hasText: 'ci-bot' }).count()).toBe(1);
  });

  it('the key works against the API of every region', async () => {
    for (const api of stack.apis) {
      // A new key reaches every server's key cache within about a second.
      const reply = await waitFor(
        async () => {
          const r = await rotate(api.base, shown['ci-bot']);
          return r.status === 200 && r;
        },
        2_000,
        `the new key accepted by ${api.base}`,
      );
      expect((await pdfinfo(new Uint8Array(reply.body))).pages.map((p) => p.rotation)).toEqual([90, 90, 90]);
    }
  });

  it('renames the key, limits it to a region and gives it an expiry date', async () => {
    await page.getByRole('link', { name: 'ci-bot' }).click();
    await page.getByLabel('New name').fill('build-server');
    await page.getByRole('button', { name: 'Rename' }).click();
    expect(await page.locator('h1').textContent()).toBe('Key “build-server”');
    expect(await page.getByRole('status').first().textContent()).toContain('Renamed to “build-server”');

    // EU only: the eu server takes it, every other region refuses it (403).
    await page.getByRole('checkbox', { name: 'eu', exact: true }).check();
    await page.getByRole('button', { name: 'Save limits' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('Limits saved');
    // Timed from the page saying so, by when each request was sent (answers take seconds on a busy machine).
    const limitedAt = Date.now();
    for (const api of stack.apis) {
      const region = /\(region (\S+)\)/.exec(api.stdout())![1];
      const expected = region === 'eu' ? 200 : 403;
      await answersWithin(() => rotate(api.base, shown['ci-bot']), expected, limitedAt, 5_000, `${expected} from the ${region} server`);
    }
    // Every region again, and an expiry date a year from now.
    const nextYear = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    await page.getByRole('checkbox', { name: 'eu', exact: true }).uncheck();
    await page.getByLabel(/^Expires on/).fill(nextYear);
    await page.getByRole('button', { name: 'Save limits' }).click();
    const details = await page.locator('dl').innerText();
    expect(details).toContain(`${nextYear} 23:59 UTC`);
    expect(details).toMatch(/Regions\s+all of the plan/);
    const unlimitedAt = Date.now();
    for (const api of stack.apis) await answersWithin(() => rotate(api.base, shown['ci-bot']), 200, unlimitedAt, 5_000, `200 from ${api.base}`);
  });

  it('rotates the key: a new one shown once, the old one still working for the grace period', async () => {
    await page.getByLabel('Grace period').selectOption('1h');
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const key = await page.locator('#new-key').inputValue();
    const rotatedAt = Date.now();
    expect(key).toMatch(/^pdfsvc_/);
    expect(key).not.toBe(shown['ci-bot']);
    shown['build-server'] = key;
    expect(await page.locator('h1').textContent()).toBe('Key “build-server”');
    // Reloading the answer sends the form again, for the key now rotated out: refused, not a second new key.
    const resent = await page.reload();
    expect(resent?.status()).toBe(409);
    expect(await page.getByRole('alert').textContent()).toContain('Not rotated');
    expect(await page.locator('#new-key').count()).toBe(0);
    await page.goto(url('/keys'));
    const old = page.locator('tbody tr', { hasText: 'build-server-old-' });
    expect(await old.count()).toBe(1);
    expect(await page.locator('tbody tr', { hasText: 'build-server' }).count()).toBe(2);
    // The old key expires in an hour (within a minute of it).
    const expires = Date.parse(`${(await old.locator('td').nth(3).textContent())!.replace(' UTC', ':00Z').replace(' ', 'T')}`);
    expect(Math.abs(expires - (Date.now() + 3_600_000))).toBeLessThan(120_000);
    for (const api of stack.apis) {
      expect((await rotate(api.base, shown['ci-bot'])).status).toBe(200);
      // A new key reaches every server's key cache within about a second.
      await answersWithin(() => rotate(api.base, key), 200, rotatedAt, 2_000, `the new key accepted by ${api.base}`);
    }
  });

  it('revokes the key after asking to confirm; every server refuses it within 2 s', async () => {
    await page.getByRole('link', { name: 'build-server', exact: true }).click();
    await page.getByRole('link', { name: 'Revoke this key…' }).click();
    expect(await page.locator('h1').textContent()).toBe('Revoke “build-server”?');
    await page.getByRole('button', { name: 'Yes, revoke it' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('Revoked “build-server”');
    // From the moment the page says it is revoked, every server refuses the key within 2 s (a request sent later and
    // still accepted fails the test).
    const revokedAt = Date.now();
    await Promise.all(
      stack.apis.map((api) =>
        answersWithin(() => rotate(api.base, shown['build-server']), 401, revokedAt, 2_000, `the revoked key refused by ${api.base} within 2 s`),
      ),
    );
    // Gone from the list; the rotated-out build-server-old-… stays until its grace ends.
    expect(await page.locator('tbody th', { hasText: /^build-server$/ }).count()).toBe(0);
    expect(await page.locator('tbody th', { hasText: /^build-server-old-/ }).count()).toBe(1);
  });

  it('shows the usage of those requests, per key and day, as a table and a chart', async () => {
    // Counts reach the database within about a second.
    await sleep(1_500);
    await page.getByRole('link', { name: 'Usage' }).click();
    // Counted: every request that passed the key checks (not a revoked key's 401, not a region's 403); pages: 3 per rotated document.
    const requests = replies.filter((status) => status !== 401 && status !== 403).length;
    const pages = 3 * replies.filter((status) => status === 200).length;
    const total = page.locator('table').first().locator('tfoot tr');
    await waitFor(
      async () => {
        await page.reload();
        return (await total.locator('td').first().textContent()) === String(requests);
      },
      // A harness wait (each look reloads the page: seconds at load 40); the servers write their counts every second.
      60_000,
      `${requests} requests in the usage table`,
    ).catch(async (err) => {
      throw new Error(`${(err as Error).message}; the table says ${await total.innerText()}`);
    });
    expect(await total.locator('td').nth(1).textContent()).toBe(String(pages));
    expect(await total.locator('td').nth(2).getAttribute('title')).toMatch(/^[1-9]\d* bytes$/);
    const svg = page.locator('svg#usage-chart');
    expect(await svg.getAttribute('role')).toBe('img');
    expect(await svg.locator('rect').count()).toBeGreaterThan(0);
    expect(await svg.locator('title').first().textContent()).toMatch(/^Requests per day, \d{4}-\d{2}$/);
  });

  it('the audit list has the key events with who and from where, and no secret', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    const text = await page.locator('main').innerText();
    for (const kind of ['signed in', 'key created', 'key renamed', 'key rotated', 'key revoked', 'password set']) expect(text).toContain(kind);
    expect(text).toContain('alice@example.com');
    expect(text).toContain('127.0.0.1');
    for (const key of Object.values(shown)) expect(text).not.toContain(key.slice(13));
  });

  it("an operator account sees every account's totals for the month", async () => {
    const ops = new HttpClient(stack.dashboard);
    expect((await ops.setPassword(tokens.ops, PASSWORD)).status).toBe(303);
    const html = (await ops.get('/dashboard/operator')).body.toString();
    const requests = replies.filter((status) => status !== 401 && status !== 403).length;
    expect(html).toMatch(
      new RegExp(
        `<th scope="row">alice</th><td>alice@example.com</td><td>business</td><td>active</td><td class="num">\\d+</td><td class="num">${requests}</td><td class="num">${3 * replies.filter((s) => s === 200).length}</td>`,
      ),
    );
    expect(html).toContain('<th scope="row">bob</th>');
    // Not for alice, who is no operator.
    expect((await page.goto(url('/operator')))?.status()).toBe(403);
  });

  it("says where a region-limited key still works once its account's plan no longer has all its regions", async () => {
    // The plan changes while the servers run: a database that several processes share.
    if (backend !== BACKENDS[1]) return;
    const own = await browser!.newContext();
    try {
      const davePage = await own.newPage();
      await davePage.goto(url(`/set-password?token=${tokens.dave}`));
      await davePage.getByLabel('New password').fill(PASSWORD);
      await davePage.getByLabel('The same password again').fill(PASSWORD);
      await davePage.getByRole('button', { name: 'Set the password and sign in' }).click();
      await davePage.waitForURL(url('/keys'));
      await davePage.getByLabel(/^Name/).fill('eu-and-global');
      await davePage.getByRole('button', { name: 'Create key' }).click();
      const key = await davePage.locator('#new-key').inputValue();
      await davePage.getByRole('link', { name: 'eu-and-global' }).click();
      for (const region of ['eu', 'global']) await davePage.getByRole('checkbox', { name: region, exact: true }).check();
      await davePage.getByRole('button', { name: 'Save limits' }).click();
      expect(await davePage.getByRole('status').first().textContent()).toContain('Limits saved');
      expect(await davePage.locator('dl').innerText()).toMatch(/Regions\s+global, eu\n/);

      // Starter to free: only global is left of the key's eu and global.
      await execa(process.execPath, [CLI, 'accounts', 'set-plan', 'dave', 'free', ...stack.database], { cwd: ROOT, env: { PDFSVC_KEYS_FILE: '' } });
      const downgradedAt = Date.now();
      await davePage.goto(url('/keys'));
      const row = davePage.locator('tbody tr', { hasText: 'eu-and-global' });
      expect(await row.locator('td').nth(4).textContent()).toBe('global, eu: only global in your plan');
      // And so the eu and us servers refuse it, as the page says.
      for (const api of stack.apis) {
        const region = /\(region (\S+)\)/.exec(api.stdout())![1];
        await answersWithin(
          () => postAction({ base: api.base, key }, 'rotate_pages', { file: fixture('pages-3.pdf'), angle: '90' }),
          403,
          downgradedAt,
          5_000,
          `403 from the ${region} server`,
        );
      }
    } finally {
      await own.close();
    }
  });

  it('works with the keyboard alone, with the focus always visible', async () => {
    await page.goto(url('/keys'));
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the content');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none');
    // Tab to the name field, type, Enter: a key made without the mouse.
    for (let i = 0; i < 40 && (await page.evaluate(() => document.activeElement?.id)) !== 'key-name'; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key-name');
    await page.keyboard.type('keyboard');
    await page.keyboard.press('Enter');
    shown.keyboard = await page.locator('#new-key').inputValue();
    expect(shown.keyboard).toMatch(/^pdfsvc_/);
    // Every control has a label.
    const unlabelled = await page.evaluate(
      () =>
        [...document.querySelectorAll('input:not([type=hidden]), select, button')].filter(
          (el) => !(el as HTMLInputElement).labels?.length && !el.textContent?.trim() && !el.getAttribute('aria-label'),
        ).length,
    );
    expect(unlabelled).toBe(0);
  });

  it('fits a narrow screen', async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    for (const path of ['/keys', '/usage', '/audit']) {
      await page.goto(url(path));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  it('made no request anywhere but the dashboard, and no CSP violation or script error', async () => {
    expect(requests.filter((r) => new URL(r).origin !== stack.dashboard)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('takes a screenshot for the README (saved there with PDFSVC_WRITE_README=1)', async () => {
    if (backend !== BACKENDS[0]) return;
    await page.goto(url('/usage'));
    // A test run changes no tracked file: another run of this checkout may be beside it, and git status stays clean.
    const path = process.env.PDFSVC_WRITE_README === '1' ? `${ROOT}docs/dashboard.png` : tempFile(new Uint8Array(0), '.png');
    await page.screenshot({ path, fullPage: true });
    expect(readFileSync(path).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  describe('another account', () => {
    let bob: HttpClient;
    let aliceKeyId: string;

    beforeAll(async () => {
      bob = new HttpClient(stack.dashboard);
      expect((await bob.setPassword(tokens.bob, PASSWORD)).status).toBe(303);
      await page.goto(url('/keys'));
      const href = (await page.locator('tbody tr', { hasText: 'keyboard' }).getByRole('link').getAttribute('href'))!;
      aliceKeyId = href.split('/').pop()!;
    });

    it("sees none of the first account's keys", async () => {
      const keys = (await bob.get('/dashboard/keys')).body.toString();
      expect(keys).toContain('bob@example.com');
      expect(keys).not.toContain('keyboard');
      expect(keys).not.toContain(aliceKeyId);
      for (const path of [`/keys/${aliceKeyId}`, `/keys/${aliceKeyId}/revoke`]) expect((await bob.get(`/dashboard${path}`)).status, path).toBe(404);
      const audit = (await bob.get('/dashboard/audit')).body.toString();
      expect(audit).not.toContain('alice');
      expect((await bob.get('/dashboard/operator')).status).toBe(403);
    });

    it('cannot rename, rotate or revoke them with crafted requests', async () => {
      const csrf = await bob.csrf('/dashboard/keys');
      for (const [action, fields] of [
        ['rename', { name: 'stolen' }],
        ['rotate', { grace: '0s' }],
        ['limits', { regions: 'eu' }],
        ['revoke', { confirm: 'yes' }],
      ] as const) {
        expect((await bob.post(`/dashboard/keys/${aliceKeyId}/${action}`, { csrf, ...fields })).status, action).toBe(404);
      }
      // Still alice's and still working on every server (made a few tests ago: each server learns a new key at its next poll, as above).
      for (const api of stack.apis) await waitFor(async () => (await rotate(api.base, shown.keyboard)).status === 200, 5_000, `200 from ${api.base}`);
      await page.goto(url('/keys'));
      expect(await page.locator('tbody tr', { hasText: 'keyboard' }).count()).toBe(1);
    });
  });

  describe('forged requests', () => {
    let alice: HttpClient;
    let csrf: string;
    const keyCount = async () => ((await alice.get('/dashboard/keys')).body.toString().match(/<tr><th scope="row">/g) ?? []).length;

    beforeAll(async () => {
      alice = new HttpClient(stack.dashboard);
      expect((await alice.signIn('alice@example.com', PASSWORD)).status).toBe(303);
      csrf = await alice.csrf('/dashboard/keys');
    });

    it("a form without the CSRF token, with another session's, or from another origin is refused", async () => {
      const before = await keyCount();
      const bob = new HttpClient(stack.dashboard);
      await bob.signIn('bob@example.com', PASSWORD);
      const bobs = await bob.csrf('/dashboard/keys');
      expect((await alice.post('/dashboard/keys', { name: 'forged-1' })).status).toBe(403);
      expect((await alice.post('/dashboard/keys', { name: 'forged-2', csrf: bobs })).status).toBe(403);
      expect((await alice.post('/dashboard/keys', { name: 'forged-3', csrf }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(
        403,
      );
      expect((await alice.post('/dashboard/keys', { name: 'forged-4', csrf }, { origin: 'https://evil.example', 'sec-fetch-site': undefined })).status).toBe(
        403,
      );
      expect((await alice.post('/dashboard/keys', { name: 'forged-5', csrf }, { origin: undefined, 'sec-fetch-site': 'same-site' })).status).toBe(403);
      expect(await keyCount()).toBe(before);
      // The same form, as the page sends it, works.
      expect((await alice.post('/dashboard/keys', { name: 'genuine', csrf })).status).toBe(200);
      expect(await keyCount()).toBe(before + 1);
    });

    it('a real cross-site form in the browser changes nothing', async () => {
      // A page on another origin (same host, another port: same-site, so even a
      // SameSite cookie goes along) that posts a form to the dashboard.
      const attacker = await import('node:http').then(
        ({ createServer }) =>
          new Promise<{ url: string; close: () => void }>((resolve) => {
            const server = createServer((_, res) => {
              res.writeHead(200, { 'content-type': 'text/html' });
              res.end(
                `<form id="f" method="post" action="${url('/keys')}"><input name="name" value="attack"><input name="csrf" value="${csrf}"></form><script>document.getElementById('f').submit()</script>`,
              );
            });
            server.listen(0, '127.0.0.1', () =>
              resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, close: () => server.close() }),
            );
          }),
      );
      try {
        const before = await keyCount();
        const attackPage = await context.newPage();
        const answer = attackPage.waitForResponse((r) => r.url() === url('/keys') && r.request().method() === 'POST');
        await attackPage.goto(attacker.url);
        expect((await answer).status()).toBe(403);
        await attackPage.close();
        expect(await keyCount()).toBe(before);
      } finally {
        attacker.close();
        requests.length = 0;
      }
    });

    it('a session cookie kept after signing out is refused', async () => {
      const stolen = alice.cookieHeader;
      expect((await alice.get('/dashboard/keys')).status).toBe(200);
      expect((await alice.post('/dashboard/sign-out', { csrf })).status).toBe(303);
      const replay = new HttpClient(stack.dashboard);
      const reply = await replay.get('/dashboard/keys', { cookie: stolen });
      expect(reply.status).toBe(303);
      expect(reply.headers.location).toBe('/dashboard/sign-in');
      const post = await replay.post('/dashboard/keys', { name: 'after-sign-out', csrf }, { cookie: stolen });
      expect(post.status).toBe(303);
      expect(post.headers.location).toBe('/dashboard/sign-in');
      const bob = new HttpClient(stack.dashboard);
      await bob.signIn('alice@example.com', PASSWORD);
      expect((await bob.get('/dashboard/keys')).body.toString()).not.toContain('after-sign-out');
    });
  });

  describe('wrong passwords', () => {
    it('are refused, and after 5 for one account even the right one waits', async () => {
      const carol = new HttpClient(stack.dashboard);
      expect((await carol.setPassword(tokens.carol, PASSWORD)).status).toBe(303);
      const guesser = new HttpClient(stack.dashboard);
      for (let i = 0; i < 5; i++) expect((await guesser.signIn('carol@example.com', `wrong password ${i}`)).status).toBe(401);
      const locked = await guesser.signIn('carol@example.com', PASSWORD);
      expect(locked.status).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBe(900);
      expect(locked.body.toString()).toContain('Too many failed sign-ins');
      // Another account from the same address still signs in.
      expect((await new HttpClient(stack.dashboard).signIn('bob@example.com', PASSWORD)).status).toBe(303);
    });

    it('after 20 from one address, that address waits whatever the account', async () => {
      const guesser = new HttpClient(stack.dashboard);
      // 5 failures so far from carol's test; 15 more over unknown accounts.
      for (let i = 0; i < 15; i++) expect((await guesser.signIn(`nobody${i}@example.com`, 'wrong password')).status).toBe(401);
      expect((await guesser.signIn('bob@example.com', PASSWORD)).status).toBe(429);
      const logs = stack.processes.map((p) => p.stderr()).join('\n');
      expect(logs).not.toContain(PASSWORD);
      expect(logs).not.toContain('wrong password');
      for (const key of Object.values(shown)) expect(logs).not.toContain(key);
    });
  });
});

// Kept out of the loop above so that an unused import is an error, not a silent skip.
void hiddenField;
