/**
 * Dashboard passwords, hashed with scrypt (node:crypto). Stored as
 * `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64url), so the cost can be
 * raised later without breaking the passwords already stored.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** N = 2^15, r = 8, p = 1: OWASP's scrypt minimum; about 32 MiB and 50-100 ms per hash. */
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;

export const PASSWORD_MIN_LENGTH = 12;
/** Longer ones are refused before hashing: a megabyte "password" would only cost CPU. */
export const PASSWORD_MAX_LENGTH = 256;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** True when `password` is the one `stored` was made from. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  // No password set yet (or an unknown account): hash anyway, so that the
  // answer takes as long as for a real account and does not tell them apart.
  const parts = (stored ?? DUMMY).split('$');
  const [scheme, logN, r, p, salt, hash] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt' || password.length > PASSWORD_MAX_LENGTH) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(logN), Number(r), Number(p));
  return stored !== null && stored !== undefined && expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A well-formed hash of no one's password: what an unknown account is checked against. */
const DUMMY = `scrypt$${LOG_N}$${R}$${P}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEY_BYTES).toString('base64url')}`;

/** Why a new password is not acceptable, or undefined when it is. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `use at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `use at most ${PASSWORD_MAX_LENGTH} characters`;
  if (/^(.)\1*$/.test(password)) return 'use more than one character repeated';
  return undefined;
}
