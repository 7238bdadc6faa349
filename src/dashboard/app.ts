/**
 * The key dashboard as an h3 app of its own (`pdfsvc dashboard` serves it):
 * sign-in, keys, usage, audit log and the operator's view of every account.
 * The API (`pdfsvc serve`) knows nothing of it; both read the same database.
 *
 * Every page is server-rendered (pages.ts). Every POST must come from this
 * origin (Sec-Fetch-Site, Origin) and carry the CSRF token of the session it
 * is made in; before sign-in, that is a pre-session cookie of its own (so
 * even the sign-in form cannot be posted from elsewhere). Whatever concerns
 * keys takes the signed-in account's id: another account's key is "not found".
 */
import { isKeyName, KEY_NAME_RULE } from '../core/key-name.js';
import { getRequestIP, H3 } from 'h3';
import { randomBytes } from 'node:crypto';
import { checkPassword, hashPassword, passwordProblem, PASSWORD_MIN_LENGTH } from './password.js';
import { monthOf, parseMonth } from './html.js';
import {
  auditPage,
  contentSecurityPolicy,
  keyPage,
  keysPage,
  messagePage,
  METRIC_NAMES,
  operatorPage,
  revokeConfirmPage,
  setPasswordPage,
  signInPage,
  usagePage,
  type Frame,
  type KeyView,
  type MetricName,
} from './pages.js';
import {
  clearedSessionCookie,
  cookieName,
  crossSiteProblem,
  csrfToken,
  csrfTokenMatches,
  newSessionId,
  sessionCookie,
  sessionIdOf,
  SESSION_LIFETIME_MS,
} from './session.js';
import type { Actor, DashboardAccount, DashboardStore } from './store.js';
import { PdfsvcError, ValidationError } from '../core/errors.js';

/** Where the dashboard lives beside the API (`pdfsvc serve`), and in `pdfsvc dashboard` alike, so links work in both. */
export const DASHBOARD_BASE = '/dashboard';

/** Failed sign-ins allowed in the window before further attempts are refused (429), per account and per address. */
const THROTTLE = { windowMs: 15 * 60_000, perAccount: 5, perAddress: 20 };

/** Largest form body read: the dashboard's forms are a few hundred bytes. */
const MAX_FORM_BYTES = 16 * 1024;

const GRACE = { '0s': 0, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;

export interface DashboardOptions {
  store: DashboardStore;
  /** Served over HTTPS: cookies are Secure with the __Host- prefix, and HSTS is sent. */
  secure: boolean;
  /** Regions of each plan (docs/contract.md, "HTTP"), offered as per-key limits. */
  planRegions: Record<string, readonly string[]>;
  /** The path it is served under: '/dashboard' (the default) beside the API, or '' at the root. */
  base?: string;
  /** The origin people reach the dashboard at (behind a proxy); default: the request's own. */
  publicOrigin?: string;
  /** Take the client's address from X-Forwarded-For (behind a proxy that sets it). */
  trustProxy?: boolean;
  /** One line per event that may be logged: never a password, key, token or session id. */
  log?: (entry: Record<string, unknown>) => void;
  now?: () => Date;
}

interface Signed {
  account: DashboardAccount;
  /** What the session's CSRF token is derived from. */
  csrfSecret: string;
  frame: Frame;
}

/** An answer decided early (a refusal), thrown from helpers and turned into its response. */
class Answer extends Error {
  constructor(readonly response: Response) {
    super('answer');
  }
}

export function createDashboardApp(options: DashboardOptions): H3 {
  const { store, secure } = options;
  const base = options.base ?? DASHBOARD_BASE;
  const cookie = { secure, path: base || '/' };
  const now = options.now ?? (() => new Date());
  const log = options.log ?? (() => {});
  const preCookie = `${cookieName(cookie)}_pre`;

  const app = new H3({
    silent: true,
    onError: (error) => {
      const cause = (error.cause ?? error) as unknown;
      if (cause instanceof Answer) return cause.response;
      // The store's refusals (a key gone meanwhile): the page says what it said.
      if (cause instanceof PdfsvcError && cause.status < 500)
        return page(cause.status, 'Not done', cause.message, { href: `${base}/keys`, label: 'Back to the keys' });
      log({ event: 'dashboard_error', error: (cause as Error)?.name ?? 'error' });
      return page(500, 'Something went wrong', 'The dashboard could not answer this request. Try again; if it keeps happening, tell your operator.');
    },
  });

  const address = (event: Parameters<typeof getRequestIP>[0]) => getRequestIP(event, { xForwardedFor: Boolean(options.trustProxy) }) ?? null;
  const originOf = (request: Request) => options.publicOrigin ?? new URL(request.url).origin;

  function htmlResponse(html: string, nonce: string, status = 200, headers: Record<string, string> = {}): Response {
    return new Response(html, {
      status,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': contentSecurityPolicy(nonce),
        'cache-control': 'no-store',
        // same-origin, not no-referrer: with no-referrer Chromium sends "Origin: null" on form posts, which the CSRF check refuses.
        'referrer-policy': 'same-origin',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'cross-origin-opener-policy': 'same-origin',
        ...(secure ? { 'strict-transport-security': 'max-age=31536000' } : {}),
        ...headers,
      },
    });
  }

  const newNonce = () => randomBytes(16).toString('base64');

  function page(status: number, title: string, text: string, link?: { href: string; label: string }, frame?: Frame): Response {
    const nonce = frame?.nonce ?? newNonce();
    return htmlResponse(messagePage({ base, ...frame, nonce }, title, text, link), nonce, status);
  }

  const redirect = (location: string, headers: Record<string, string> = {}) =>
    new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...headers } });

  /** The signed-in account, or undefined. */
  async function session(request: Request): Promise<Signed | undefined> {
    const id = sessionIdOf(request, cookie);
    if (!id) return undefined;
    const found = await store.sessionAccount(id);
    if (!found || found.account.status !== 'active') return undefined;
    const { account, csrfSecret } = found;
    return {
      account,
      csrfSecret,
      frame: {
        nonce: newNonce(),
        base,
        account: { name: account.name, email: account.email, plan: account.plan, operator: account.operator },
        csrf: csrfToken(csrfSecret),
      },
    };
  }

  async function requireSession(request: Request): Promise<Signed> {
    const signed = await session(request);
    if (!signed) throw new Answer(redirect(`${base}/sign-in`));
    return signed;
  }

  /** The form of a POST made from this dashboard's own page in this session (or pre-session); else a 403. */
  async function checkedForm(request: Request, csrfSecret: string | undefined): Promise<URLSearchParams> {
    const crossSite = crossSiteProblem(request, originOf(request));
    if (crossSite) {
      log({ event: 'dashboard_csrf_refused', reason: crossSite });
      throw new Answer(
        page(403, 'Refused', `This form was not sent from the dashboard: ${crossSite}. Open the dashboard and try again.`, {
          href: `${base}/`,
          label: 'Open the dashboard',
        }),
      );
    }
    const form = await readForm(request);
    if (!csrfSecret || !csrfTokenMatches(csrfSecret, form.get('csrf'))) {
      log({ event: 'dashboard_csrf_refused', reason: 'token' });
      throw new Answer(
        page(403, 'Refused', 'This form has expired or was not sent from the dashboard. Reload the page and try again.', {
          href: `${base}/`,
          label: 'Open the dashboard',
        }),
      );
    }
    return form;
  }

  /** The pre-session id for forms shown before sign-in: the cookie's, or a new one to set. */
  function preSession(request: Request): { id: string; setCookie?: string } {
    for (const part of (request.headers.get('cookie') ?? '').split(';')) {
      const [key, value] = part.trim().split('=');
      if (key === preCookie && /^[A-Za-z0-9_-]{43}$/.test(value ?? '')) return { id: value };
    }
    const id = newSessionId();
    return { id, setCookie: `${preCookie}=${id}; Path=${cookie.path}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}` };
  }
  const preSessionId = (request: Request) => {
    const found = preSession(request);
    return found.setCookie ? undefined : found.id;
  };

  const currentMonth = () => monthOf(now());

  async function keyOr404(signed: Signed, keyId: string | undefined): Promise<KeyView> {
    const key = keyId ? await store.getKey(signed.account.id, keyId, currentMonth()) : undefined;
    if (!key)
      throw new Answer(
        page(
          404,
          'No such key',
          'This account has no key with that id (it may have been revoked).',
          { href: `${base}/keys`, label: 'Back to the keys' },
          signed.frame,
        ),
      );
    return key;
  }

  const by = (signed: { account: DashboardAccount }, ip: string | null): Actor => ({ actor: signed.account.email, address: ip });

  const home = async (event: { req: unknown }) => redirect((await session(event.req as Request)) ? `${base}/keys` : `${base}/sign-in`);
  app.get(`${base}/`, home);
  if (base) app.get(base, home);

  app.get(`${base}/sign-in`, async (event) => {
    const request = event.req as Request;
    if (await session(request)) return redirect(`${base}/keys`);
    const pre = preSession(request);
    const nonce = newNonce();
    const query = new URL(request.url).searchParams;
    const notice = query.has('signed-out') ? 'You are signed out.' : undefined;
    return htmlResponse(signInPage({ nonce, base, csrf: csrfToken(pre.id) }, { notice }), nonce, 200, pre.setCookie ? { 'set-cookie': pre.setCookie } : {});
  });

  app.post(`${base}/sign-in`, async (event) => {
    const request = event.req as Request;
    const form = await checkedForm(request, preSessionId(request));
    const email = (form.get('email') ?? '').trim().toLowerCase().slice(0, 320);
    const password = form.get('password') ?? '';
    const ip = address(event);
    const nonce = newNonce();
    const frame: Frame = { nonce, base, csrf: form.get('csrf')! };
    const account = email ? await store.accountByEmail(email) : undefined;
    const failures = await store.failedSignIns(account?.id ?? null, ip ?? 'unknown', THROTTLE.windowMs);
    if (failures.account >= THROTTLE.perAccount || failures.address >= THROTTLE.perAddress) {
      log({ event: 'dashboard_sign_in_throttled', by: failures.account >= THROTTLE.perAccount ? 'account' : 'address' });
      const minutes = THROTTLE.windowMs / 60_000;
      return htmlResponse(signInPage(frame, { email, error: `Too many failed sign-ins. Wait ${minutes} minutes, then try again.` }), nonce, 429, {
        'retry-after': String(THROTTLE.windowMs / 1000),
      });
    }
    const ok = (await checkPassword(password, account?.passwordHash)) && account !== undefined;
    await store.recordSignIn({ accountId: account?.id ?? null, address: ip ?? 'unknown', ok: ok && account.status === 'active' });
    if (!ok) {
      log({ event: 'dashboard_sign_in_failed' });
      return htmlResponse(signInPage(frame, { email, error: 'That e-mail address and password do not match an account.' }), nonce, 401);
    }
    if (account.status !== 'active') {
      return htmlResponse(signInPage(frame, { email, error: 'This account is suspended; ask your operator.' }), nonce, 403);
    }
    return startSession(account, ip, 'signed in');
  });

  /** A fresh session (never one the browser brought: no fixation) and the way to the keys. */
  async function startSession(account: DashboardAccount, ip: string | null, what: string): Promise<Response> {
    const { token } = await store.createSession(account.id, SESSION_LIFETIME_MS, ip);
    await store.audit({ accountId: account.id, kind: 'signed_in', actor: account.email, address: ip, detail: { how: what } });
    log({ event: 'dashboard_signed_in', account: account.name });
    return redirect(`${base}/keys`, { 'set-cookie': sessionCookie(token, cookie) });
  }

  app.post(`${base}/sign-out`, async (event) => {
    const request = event.req as Request;
    const signed = await session(request);
    await checkedForm(request, signed?.csrfSecret);
    await store.endSession(sessionIdOf(request, cookie)!);
    await store.audit({ accountId: signed!.account.id, kind: 'signed_out', ...by(signed!, address(event)), detail: {} });
    return redirect(`${base}/sign-in?signed-out`, { 'set-cookie': clearedSessionCookie(cookie) });
  });

  app.get(`${base}/set-password`, async (event) => {
    const request = event.req as Request;
    const token = new URL(request.url).searchParams.get('token') ?? '';
    const account = /^[A-Za-z0-9_-]{16,128}$/.test(token) ? await store.passwordTokenAccount(token) : undefined;
    if (!account) return expiredLink();
    const pre = preSession(request);
    const nonce = newNonce();
    return htmlResponse(
      setPasswordPage({ nonce, base, csrf: csrfToken(pre.id) }, { token, email: account.email, minLength: PASSWORD_MIN_LENGTH }),
      nonce,
      200,
      pre.setCookie ? { 'set-cookie': pre.setCookie } : {},
    );
  });

  const expiredLink = () =>
    page(
      410,
      'This link no longer works',
      'Password links work once and for a limited time. Ask your operator for a new one (pdfsvc accounts reset-password), or sign in if you have set your password.',
      { href: `${base}/sign-in`, label: 'Sign in' },
    );

  app.post(`${base}/set-password`, async (event) => {
    const request = event.req as Request;
    const form = await checkedForm(request, preSessionId(request));
    const token = form.get('token') ?? '';
    const password = form.get('password') ?? '';
    const account = /^[A-Za-z0-9_-]{16,128}$/.test(token) ? await store.passwordTokenAccount(token) : undefined;
    if (!account) return expiredLink();
    const problem = password !== (form.get('confirm') ?? '') ? 'the two passwords differ' : passwordProblem(password);
    if (problem) {
      const nonce = newNonce();
      return htmlResponse(
        setPasswordPage(
          { nonce, base, csrf: form.get('csrf')! },
          { token, email: account.email, minLength: PASSWORD_MIN_LENGTH, error: `Not set: ${problem}.` },
        ),
        nonce,
        400,
      );
    }
    // Also ends every session made with the old password.
    const used = await store.usePasswordToken(token, await hashPassword(password), address(event));
    if (!used) return expiredLink();
    return startSession(used, address(event), 'signed in after setting the password');
  });

  /** The keys page of the signed-in account, as it is now. */
  const keysPageWith = async (
    signed: Signed,
    status: number,
    extra: { error?: string; notice?: string; revealed?: { name: string; key: string; note: string } },
  ) => {
    const month = currentMonth();
    const keys = await store.listKeys(signed.account.id, month);
    return htmlResponse(
      keysPage(signed.frame, { keys, month, planRegions: options.planRegions[signed.account.plan] ?? [], ...extra }),
      signed.frame.nonce,
      status,
    );
  };

  app.get(`${base}/keys`, async (event) => keysPageWith(await requireSession(event.req as Request), 200, {}));

  app.post(`${base}/keys`, async (event) => {
    const request = event.req as Request;
    const signed = await requireSession(request);
    const form = await checkedForm(request, signed.csrfSecret);
    const name = (form.get('name') ?? '').trim();
    if (!isKeyName(name)) return keysPageWith(signed, 400, { error: `Not created: ${KEY_NAME_RULE}.` });
    const existing = (await store.listKeys(signed.account.id, currentMonth())).find((k) => k.name === name);
    // A key of that name the form's page did not list was made since that page was shown: the same
    // form sent again (a reloaded answer, a second click). Its key was shown once, in the first answer.
    if (existing && !(form.get('listed') ?? '').split(' ').includes(existing.id))
      return keysPageWith(signed, 409, {
        notice: `Key “${name}” was already created by this form (was it sent twice?). Its key was shown once, in the answer to the first sending, and cannot be shown again: if it was not copied, rotate or revoke the key.`,
      });
    if (existing) return keysPageWith(signed, 400, { error: `Not created: this account already has a key named “${name}”.` });
    const created = await refusal(store.createKey(signed.account.id, name, by(signed, address(event))));
    if (typeof created === 'string') return keysPageWith(signed, 400, { error: `Not created: ${created}` });
    return keysPageWith(signed, 200, { revealed: { name, key: created.key, note: 'Your new key is ready.' } });
  });

  app.get(`${base}/keys/:id`, async (event) => {
    const signed = await requireSession(event.req as Request);
    const key = await keyOr404(signed, event.context.params?.id);
    return htmlResponse(
      keyPage(signed.frame, { key, planRegions: options.planRegions[signed.account.plan] ?? [], today: now().toISOString().slice(0, 10) }),
      signed.frame.nonce,
    );
  });

  app.get(`${base}/keys/:id/revoke`, async (event) => {
    const signed = await requireSession(event.req as Request);
    const key = await keyOr404(signed, event.context.params?.id);
    return htmlResponse(revokeConfirmPage(signed.frame, key), signed.frame.nonce);
  });

  /** The key pages' POSTs: checked, applied to the signed-in account's key only, audited. */
  const keyAction = (name: string, act: (signed: Signed, key: KeyView, form: URLSearchParams, ip: string | null) => Promise<Response>) =>
    app.post(`${base}/keys/:id/${name}`, async (event) => {
      const request = event.req as Request;
      const signed = await requireSession(request);
      const form = await checkedForm(request, signed.csrfSecret);
      const key = await keyOr404(signed, event.context.params?.id);
      return act(signed, key, form, address(event));
    });

  const keyPageWith = async (
    signed: Signed,
    keyId: string,
    status: number,
    extra: { error?: string; notice?: string; revealed?: { name: string; key: string; note: string } },
  ) => {
    const key = await keyOr404(signed, keyId);
    return htmlResponse(
      keyPage(signed.frame, { key, planRegions: options.planRegions[signed.account.plan] ?? [], today: now().toISOString().slice(0, 10), ...extra }),
      signed.frame.nonce,
      status,
    );
  };

  keyAction('rename', async (signed, key, form, ip) => {
    const name = (form.get('name') ?? '').trim();
    if (!isKeyName(name)) return keyPageWith(signed, key.id, 400, { error: `Not renamed: ${KEY_NAME_RULE}.` });
    if (name !== key.name && (await store.listKeys(signed.account.id, currentMonth())).some((k) => k.name === name)) {
      return keyPageWith(signed, key.id, 400, { error: `Not renamed: this account already has a key named “${name}”.` });
    }
    const failed = await refusal(store.renameKey(signed.account.id, key.id, name, by(signed, ip)));
    if (typeof failed === 'string') return keyPageWith(signed, key.id, 400, { error: `Not renamed: ${failed}` });
    return keyPageWith(signed, key.id, 200, { notice: `Renamed to “${name}”.` });
  });

  keyAction('limits', async (signed, key, form, ip) => {
    const planRegions = options.planRegions[signed.account.plan] ?? [];
    const regions = form.getAll('regions');
    const outside = regions.filter((r) => !planRegions.includes(r));
    if (outside.length)
      return keyPageWith(signed, key.id, 400, { error: `Not saved: the ${signed.account.plan} plan does not include ${outside.join(', ')}.` });
    const expiresText = (form.get('expires') ?? '').trim();
    let expires: string | null = null;
    if (expiresText) {
      const end = /^\d{4}-\d{2}-\d{2}$/.test(expiresText) ? new Date(`${expiresText}T23:59:59.999Z`) : undefined;
      if (!end || Number.isNaN(end.getTime()) || end.toISOString().slice(0, 10) !== expiresText)
        return keyPageWith(signed, key.id, 400, { error: 'Not saved: the expiry is a date such as 2027-01-31.' });
      if (end.getTime() <= now().getTime())
        return keyPageWith(signed, key.id, 400, { error: 'Not saved: the expiry date is in the past; to stop the key now, revoke it.' });
      expires = end.toISOString();
    }
    const limits = { regions: regions.length ? [...new Set(regions)] : null, expires };
    const failed = await refusal(store.setKeyLimits(signed.account.id, key.id, limits, by(signed, ip)));
    if (typeof failed === 'string') return keyPageWith(signed, key.id, 400, { error: `Not saved: ${failed}` });
    return keyPageWith(signed, key.id, 200, { notice: 'Limits saved; every server applies them within 2 seconds.' });
  });

  keyAction('rotate', async (signed, key, form, ip) => {
    const grace = form.get('grace') ?? '';
    if (!(grace in GRACE)) return keyPageWith(signed, key.id, 400, { error: 'Not rotated: choose a grace period from the list.' });
    // Rotating renames the old key: a form sent again (a reloaded answer, a second click) would rotate
    // the rotated-out key too, making a second new key, with no expiry, that nobody asked for.
    if (form.get('shown_name') !== key.name)
      return keyPageWith(signed, key.id, 409, {
        error:
          'Not rotated: this key was rotated or renamed after its page was shown (was the form sent twice?). A replacement made then is listed under API keys with the name this key had.',
      });
    const graceMs = GRACE[grace as keyof typeof GRACE];
    const rotated = await store.rotateKey(signed.account.id, key.id, graceMs, by(signed, ip));
    const note = graceMs ? `The old key keeps working for ${grace}, then stops.` : 'The old key has stopped working.';
    return keyPageWith(signed, rotated.id, 200, { revealed: { name: key.name, key: rotated.key, note: `Rotated. ${note}` } });
  });

  keyAction('revoke', async (signed, key, form, ip) => {
    if (form.get('confirm') !== 'yes') return redirect(`${base}/keys/${key.id}/revoke`);
    await store.revokeKey(signed.account.id, key.id, by(signed, ip));
    return keysPageWith(signed, 200, { notice: `Revoked “${key.name}”: it stops working everywhere within 2 seconds.` });
  });

  app.get(`${base}/usage`, async (event) => {
    const request = event.req as Request;
    const signed = await requireSession(request);
    const query = new URL(request.url).searchParams;
    const month = parseMonth(query.get('month')) ?? currentMonth();
    const metric = (METRIC_NAMES as readonly string[]).includes(query.get('metric') ?? '') ? (query.get('metric') as MetricName) : 'requests';
    return htmlResponse(usagePage(signed.frame, { month, metric, rows: await store.usage(signed.account.id, month) }), signed.frame.nonce);
  });

  app.get(`${base}/audit`, async (event) => {
    const signed = await requireSession(event.req as Request);
    return htmlResponse(auditPage(signed.frame, await store.auditList(signed.account.id, 200)), signed.frame.nonce);
  });

  app.get(`${base}/operator`, async (event) => {
    const request = event.req as Request;
    const signed = await requireSession(request);
    if (!signed.account.operator)
      return page(
        403,
        'Operators only',
        'This page shows every account; it is for accounts with the operator flag (pdfsvc accounts create --operator).',
        { href: `${base}/keys`, label: 'Back to your keys' },
        signed.frame,
      );
    const month = parseMonth(new URL(request.url).searchParams.get('month')) ?? currentMonth();
    return htmlResponse(operatorPage(signed.frame, { month, rows: await store.operatorTotals(month) }), signed.frame.nonce);
  });

  app.get(`${base}/healthz`, () => new Response('{"status":"ok"}', { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } }));

  app.all(`${base}/**`, () => page(404, 'Not found', 'There is no such page in the dashboard.', { href: `${base}/`, label: 'Open the dashboard' }));
  return app;
}

/** What the store refused (a name taken, a region outside the plan) as text for the page; undefined when it worked. */
async function refusal<T>(work: Promise<T>): Promise<T | string> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ValidationError) return Object.values(err.errors).flat().join('; ');
    throw err;
  }
}

/** A urlencoded form body of at most MAX_FORM_BYTES; anything else is refused. */
async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    throw new Answer(new Response('send the form as application/x-www-form-urlencoded', { status: 415, headers: { 'content-type': 'text/plain' } }));
  const tooLarge = new Answer(new Response('form too large', { status: 413, headers: { 'content-type': 'text/plain' } }));
  if (Number(request.headers.get('content-length') ?? 0) > MAX_FORM_BYTES) throw tooLarge;
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (request.body) {
    for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > MAX_FORM_BYTES) throw tooLarge;
      chunks.push(chunk);
    }
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
