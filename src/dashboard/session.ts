/**
 * Dashboard sessions and their protection against cross-site requests.
 *
 * The cookie carries a random session id (256 bits); the database keeps only
 * its SHA-256, so a copy of the database signs nobody in. The cookie is
 * HttpOnly, SameSite=Strict, Path=/, has a Max-Age equal to the session's
 * life, and over HTTPS is Secure with the `__Host-` prefix (no Domain, so no
 * sibling host can set or read it).
 *
 * CSRF: every form carries a synchronizer token tied to the session (an HMAC
 * of the session id, so nothing more is stored), and every state-changing
 * request must also come from this origin (Sec-Fetch-Site, Origin).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A session ends this long after sign-in, however active it is. */
export const SESSION_LIFETIME_MS = 8 * 3_600_000;

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** Where the cookie goes: over HTTPS or not, and the dashboard's path (the cookie is sent for that path only). */
export interface CookieScope {
  secure: boolean;
  path: string;
}

/**
 * Over HTTPS the name has a prefix the browser enforces: `__Host-` at the
 * root (Secure, no Domain, Path=/), `__Secure-` under a path.
 */
export function cookieName(scope: CookieScope): string {
  return `${scope.secure ? (scope.path === '/' ? '__Host-' : '__Secure-') : ''}pdfsvc_session`;
}

export function sessionCookie(id: string, scope: CookieScope, maxAgeMs = SESSION_LIFETIME_MS): string {
  return `${cookieName(scope)}=${id}; Path=${scope.path}; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; SameSite=Strict${scope.secure ? '; Secure' : ''}`;
}

/** A cookie that replaces the session cookie with nothing, at once. */
export function clearedSessionCookie(scope: CookieScope): string {
  return `${cookieName(scope)}=; Path=${scope.path}; Max-Age=0; HttpOnly; SameSite=Strict${scope.secure ? '; Secure' : ''}`;
}

/** The session id the request presents, if it has the shape of one. */
export function sessionIdOf(request: Request, scope: CookieScope): string | undefined {
  const name = cookieName(scope);
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    const value = rest.join('=');
    if (key === name && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return undefined;
}

/** The CSRF token of a session: forms carry it; only someone with the session cookie can know it. */
export function csrfToken(sessionId: string): string {
  return createHmac('sha256', sessionId).update('pdfsvc dashboard csrf token').digest('base64url');
}

export function csrfTokenMatches(sessionId: string, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(csrfToken(sessionId));
  const actual = Buffer.from(presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Why a state-changing request does not come from the dashboard's own pages,
 * or undefined when it does. Browsers send Sec-Fetch-Site and Origin with
 * every POST; a request that has neither is no form of ours either.
 */
export function crossSiteProblem(request: Request, origin: string): string | undefined {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin') return `the request came from another site (Sec-Fetch-Site: ${site})`;
  const from = request.headers.get('origin');
  if (from === null) return site === null ? 'the request has no Origin header' : undefined;
  if (from !== origin) return 'the request came from another origin';
  return undefined;
}
