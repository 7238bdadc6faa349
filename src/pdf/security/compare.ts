/**
 * Compares two secrets in time that depends on neither's content: every
 * code unit up to the longer length is compared, and the differences
 * accumulated without an early exit. Plain JavaScript (no node:crypto): the
 * action declarations that use it are also loaded by the HTTP client, in
 * browsers.
 */
export function sameSecret(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length);
  let difference = a.length ^ b.length;
  for (let i = 0; i < length; i++) difference |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return difference === 0;
}
