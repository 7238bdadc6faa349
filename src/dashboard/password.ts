/**
 * Dashboard passwords: what a new one must be, and the sign-in check. The
 * hashing itself (scrypt) is the store's (src/store/secrets.ts).
 */
import { hashPassword, verifyPassword } from '../store/secrets.js';

export { hashPassword };

export const PASSWORD_MIN_LENGTH = 12;
/** Longer ones are refused before hashing: a megabyte "password" would only cost CPU. */
const PASSWORD_MAX_LENGTH = 256;

/** A hash of no one's password, made once: what an unknown account (or one with no password yet) is checked against. */
let dummy: Promise<string> | undefined;

/**
 * True when `password` is the one `stored` was made from. Without a stored
 * hash it still runs scrypt once, so that the answer takes as long as for a
 * real account and does not tell who has one.
 */
export async function checkPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (password.length > PASSWORD_MAX_LENGTH) return false;
  if (!stored) {
    dummy ??= hashPassword('no one has this password');
    await verifyPassword(password, await dummy);
    return false;
  }
  return verifyPassword(password, stored);
}

/** Why a new password is not acceptable, or undefined when it is. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `use at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `use at most ${PASSWORD_MAX_LENGTH} characters`;
  if (/^(.)\1*$/.test(password)) return 'use more than one character repeated';
  return undefined;
}
