import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in time that depends on neither (both are hashed to a fixed length first). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}
