/**
 * The dashboard's building blocks alone: password hashing, session cookies,
 * CSRF and origin checks, the chart and the escaping of every page.
 */
import { describe, expect, it } from 'vitest';
import { usageChart } from '../../src/dashboard/chart.js';
import { daysInMonth, formatBytes, parseMonth } from '../../src/dashboard/html.js';
import { keysPage, usagePage } from '../../src/dashboard/pages.js';
import { isKeyName } from '../../src/core/key-name.js';
import { checkPassword, hashPassword, passwordProblem } from '../../src/dashboard/password.js';
import { crossSiteProblem, csrfToken, csrfTokenMatches, newSessionId, sessionCookie, sessionIdOf } from '../../src/dashboard/session.js';

describe('passwords', () => {
  it('are stored as salted scrypt, never in clear, and verified only by the same password', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(stored).not.toContain('correct');
    expect(await hashPassword('correct horse battery')).not.toBe(stored);
    expect(await checkPassword('correct horse battery', stored)).toBe(true);
    expect(await checkPassword('correct horse batterY', stored)).toBe(false);
    expect(await checkPassword('', stored)).toBe(false);
  });

  it('refuses when no password is set, without skipping the work', async () => {
    const stored = await hashPassword('anything at all');
    await checkPassword('anything at all', null);
    const timed = async (work: () => Promise<boolean>) => {
      const started = performance.now();
      expect(await work()).toBe(false);
      return performance.now() - started;
    };
    // The dummy hash costs a real scrypt, so an unknown account answers about as slowly as a known one.
    const unknown = await timed(() => checkPassword('anything at all', null));
    const known = await timed(() => checkPassword('something else', stored));
    expect(unknown).toBeGreaterThan(known / 3);
  });

  it('must be long enough and not one character repeated', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/);
    expect(passwordProblem('aaaaaaaaaaaaaaa')).toMatch(/repeated/);
    expect(passwordProblem('x'.repeat(300))).toMatch(/at most/);
    expect(passwordProblem('a fine long passphrase')).toBeUndefined();
  });
});

describe('session cookies and CSRF', () => {
  it('are HttpOnly, SameSite=Strict and expire; Secure with a __Host-/__Secure- prefix over HTTPS', () => {
    const id = newSessionId();
    const root = { secure: true, path: '/' };
    expect(sessionCookie(id, root)).toBe(`__Host-pdfsvc_session=${id}; Path=/; Max-Age=28800; HttpOnly; SameSite=Strict; Secure`);
    expect(sessionCookie(id, { secure: true, path: '/dashboard' })).toBe(
      `__Secure-pdfsvc_session=${id}; Path=/dashboard; Max-Age=28800; HttpOnly; SameSite=Strict; Secure`,
    );
    expect(sessionCookie(id, { secure: false, path: '/dashboard' })).toBe(`pdfsvc_session=${id}; Path=/dashboard; Max-Age=28800; HttpOnly; SameSite=Strict`);
    const request = new Request('http://x/', { headers: { cookie: `other=1; __Host-pdfsvc_session=${id}` } });
    expect(sessionIdOf(request, root)).toBe(id);
    expect(sessionIdOf(request, { secure: false, path: '/' })).toBeUndefined();
    expect(sessionIdOf(new Request('http://x/', { headers: { cookie: 'pdfsvc_session=short' } }), { secure: false, path: '/' })).toBeUndefined();
  });

  it('a CSRF token belongs to one session', () => {
    const a = newSessionId();
    const b = newSessionId();
    expect(csrfTokenMatches(a, csrfToken(a))).toBe(true);
    expect(csrfTokenMatches(a, csrfToken(b))).toBe(false);
    expect(csrfTokenMatches(a, undefined)).toBe(false);
    expect(csrfTokenMatches(a, '')).toBe(false);
  });

  it('state-changing requests must come from the same origin', () => {
    const post = (headers: Record<string, string>) => new Request('https://dash.example/keys', { method: 'POST', headers });
    expect(crossSiteProblem(post({ origin: 'https://dash.example', 'sec-fetch-site': 'same-origin' }), 'https://dash.example')).toBeUndefined();
    expect(crossSiteProblem(post({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }), 'https://dash.example')).toMatch(/another site/);
    expect(crossSiteProblem(post({ origin: 'https://evil.example' }), 'https://dash.example')).toMatch(/another origin/);
    expect(crossSiteProblem(post({ 'sec-fetch-site': 'same-site' }), 'https://dash.example')).toMatch(/another site/);
    expect(crossSiteProblem(post({}), 'https://dash.example')).toMatch(/no Origin/);
  });
});

describe('the usage chart and pages', () => {
  it('draws one stacked bar per day with a readable title and description', () => {
    const values = new Array(30).fill(0);
    values[2] = 3;
    values[9] = 7;
    const svg = usageChart(
      'c',
      'Requests per day',
      [
        { label: 'ci <bot>', values },
        { label: 'web', values: values.map((v) => v * 2) },
      ],
      30,
      String,
    );
    expect(svg.match(/<rect x=/g)).toHaveLength(4);
    expect(svg).toContain('Total 30; busiest day 10 with 21.');
    expect(svg).toContain('ci &lt;bot&gt;');
    expect(svg).not.toContain('<bot>');
  });

  it('escapes what users typed and shows a revealed key in a read-only field', () => {
    const html = keysPage(
      { nonce: 'n0nce', base: '/dashboard', csrf: 'tok', account: { name: 'a"b', email: 'x@y', plan: 'free', operator: false } },
      {
        month: '2026-11',
        keys: [
          {
            id: 'k_1',
            name: '<script>alert(1)</script>',
            prefix: 'pdfsvc_abcd',
            created: '2026-11-01T00:00:00Z',
            lastUsed: null,
            expires: null,
            regions: null,
            requestsThisMonth: 1234,
          },
        ],
        revealed: { name: 'x', key: 'pdfsvc_SECRET', note: '' },
        planRegions: ['global'],
      },
    );
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<input id="new-key" readonly value="pdfsvc_SECRET"');
    expect(html).toContain('1,234');
    expect(html).toContain('<a href="/dashboard/keys/k_1">');
    expect(html).toContain('<form method="post" action="/dashboard/keys"');
    expect(html.match(/<(script|style)\b[^>]*>/g)!.every((tag) => tag.includes('nonce="n0nce"'))).toBe(true);
  });

  it('marks a key limited to regions its plan no longer has as working nowhere, or only where it still works', () => {
    const key = { prefix: 'pdfsvc_abcd', created: '2026-11-01T00:00:00Z', lastUsed: null, expires: null, requestsThisMonth: 0 };
    const html = keysPage(
      { nonce: 'n', base: '/dashboard', csrf: 't', account: { name: 'a', email: 'x@y', plan: 'free', operator: false } },
      {
        month: '2026-11',
        planRegions: ['global'],
        keys: [
          { ...key, id: 'k_1', name: 'eu-only', regions: ['eu'] },
          { ...key, id: 'k_2', name: 'anywhere', regions: null },
          { ...key, id: 'k_3', name: 'global-only', regions: ['global'] },
          { ...key, id: 'k_4', name: 'partly', regions: ['eu', 'global'] },
        ],
      },
    );
    const cells = [...html.matchAll(/<tr><th scope="row"><a [^>]*>([^<]*)<\/a><\/th>(?:<td>[\s\S]*?<\/td>){4}<td>([^<]*)<\/td>/g)].map((m) => [m[1], m[2]]);
    expect(cells).toEqual([
      ['eu-only', 'eu: not in your plan, so this key works nowhere'],
      ['anywhere', 'all of the plan'],
      ['global-only', 'global'],
      // Its eu is gone with the plan, as pdfsvc keys list says (`eu,global (on free only global)`).
      ['partly', 'eu, global: only global in your plan'],
    ]);
    // The create form lists the keys the page showed: a form sent again is told from a name taken before.
    expect(html).toContain('<input type="hidden" name="listed" value="k_1 k_2 k_3 k_4">');
  });

  it('adds the month up per key and for the account', () => {
    const row = (day: string, keyId: string, requests: number) => ({
      day,
      keyId,
      keyName: keyId,
      requests,
      pages: requests * 2,
      bytesIn: 1024 * requests,
      bytesOut: 0,
    });
    const html = usagePage(
      { nonce: 'n', base: '' },
      { month: '2026-02', metric: 'pages', rows: [row('2026-02-01', 'a', 1), row('2026-02-28', 'a', 2), row('2026-02-28', 'b', 4)] },
    );
    expect(html).toMatch(/Account total<\/th><td class="num">7<\/td><td class="num">14<\/td><td class="num" title="7168 bytes">7\.0 KiB/);
    expect(html).toContain('Pages processed per day, 2026-02');
    expect(daysInMonth('2026-02')).toBe(28);
    expect(parseMonth('2026-13')).toBeUndefined();
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });
});

describe('the key-name rule in the forms', () => {
  // Read as a browser reads it: anchored, with the v flag, HTML entities decoded.
  const browserPattern = (html: string, id: string) => {
    const input = html.match(new RegExp(`<input id="${id}"[^>]*>`))![0];
    const attribute = (name: string) =>
      input
        .match(new RegExp(` ${name}="([^"]*)"`))?.[1]
        .replaceAll('&quot;', '"')
        .replaceAll('&amp;', '&');
    return { pattern: new RegExp(`^(?:${attribute('pattern')})$`, 'v'), maxLength: Number(attribute('maxlength')), title: attribute('title') };
  };
  const names = ['ci', 'Build server 2', 'v1.2_eu-batch', `a${'b'.repeat(63)}`, `a${'b'.repeat(64)}`, '', ' x', '-x', 'a/b', 'émoji', 'a"b'];

  it('the create form lets the browser accept exactly the names the server accepts, and says the same rule', () => {
    const html = keysPage(
      { nonce: 'n', base: '/dashboard', csrf: 't', account: { name: 'a', email: 'x@y', plan: 'free', operator: false } },
      { month: '2026-11', keys: [], planRegions: ['global'] },
    );
    const input = browserPattern(html, 'key-name');
    for (const name of names) expect(input.pattern.test(name) && name.length <= input.maxLength, JSON.stringify(name)).toBe(isKeyName(name));
    expect(input.title).toBe('a key name is 1 to 64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit');
    expect(isKeyName(`a${'b'.repeat(63)}`)).toBe(true);
    expect(isKeyName(`a${'b'.repeat(64)}`)).toBe(false);
  });
});
