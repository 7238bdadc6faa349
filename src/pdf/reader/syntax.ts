/**
 * PDF's lexical rules (ISO 32000-2, 7.2): white space, delimiters, comments
 * and the few tokens the reader looks for by position. Shared by the object
 * parser, the skimmer and the cross-reference reader.
 */

/** 1: white space, 2: delimiter, 0: regular character. */
export const CHAR_CLASS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CHAR_CLASS[c] = 1;
for (const c of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) CHAR_CLASS[c] = 2;

export const isWhite = (c: number): boolean => CHAR_CLASS[c] === 1;
export const isRegular = (c: number): boolean => CHAR_CLASS[c] === 0;
export const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** Skips white space and comments from `pos`; returns the first position of something else. */
export function skipWhite(bytes: Uint8Array, pos: number, end = bytes.length): number {
  while (pos < end) {
    const c = bytes[pos];
    if (CHAR_CLASS[c] === 1) pos++;
    else if (c === 0x25) {
      while (pos < end && bytes[pos] !== 0x0a && bytes[pos] !== 0x0d) pos++;
    } else break;
  }
  return pos;
}

/** The end of the regular-character run that starts at `pos`. */
export function tokenEnd(bytes: Uint8Array, pos: number, end = bytes.length): number {
  while (pos < end && CHAR_CLASS[bytes[pos]] === 0) pos++;
  return pos;
}

/** True when `word` stands at `pos` as a whole token. */
export function isKeywordAt(bytes: Uint8Array, pos: number, word: Uint8Array, end = bytes.length): boolean {
  if (pos + word.length > end) return false;
  for (let i = 0; i < word.length; i++) if (bytes[pos + i] !== word[i]) return false;
  return pos + word.length === end || CHAR_CLASS[bytes[pos + word.length]] !== 0;
}

/**
 * A non-negative decimal integer at `pos`: its value and end, or undefined.
 * Values past 2^53 are refused rather than rounded: an offset or an object
 * number that large is damage, not a number to act on.
 */
export function readUnsigned(bytes: Uint8Array, pos: number, end = bytes.length): { value: number; end: number } | undefined {
  const at = unsignedEnd(bytes, pos, end);
  return at < 0 ? undefined : { value: unsignedValue, end: at };
}

/** `N G obj` at `pos` (after white space): the numbers and where the body starts. */
export function readObjectHeader(bytes: Uint8Array, pos: number, end = bytes.length): { num: number; gen: number; bodyStart: number } | undefined {
  const bodyStart = headerEnd(bytes, pos, end);
  return bodyStart < 0 ? undefined : { num: headerNum, gen: headerGen, bodyStart };
}

/**
 * Where the body of the object `num gen` starts when its header `num gen obj`
 * stands at `pos` (after white space), else -1: readObjectHeader's answer
 * for a known object without a result object (the reader checks every
 * object's header, some twice: 8,000 of them in a rotate of long-text).
 */
export function bodyStartAt(bytes: Uint8Array, pos: number, num: number, gen: number, end = bytes.length): number {
  const bodyStart = headerEnd(bytes, pos, end);
  return bodyStart >= 0 && headerNum === num && headerGen === gen ? bodyStart : -1;
}

/** The numbers headerEnd read last. */
let headerNum = 0;
let headerGen = 0;

/**
 * Where the body starts after `N G obj` at `pos` (after white space), else -1; the numbers in headerNum and
 * headerGen. Read here rather than by readUnsigned, whose result objects were two per header read.
 */
function headerEnd(bytes: Uint8Array, pos: number, end: number): number {
  pos = skipWhite(bytes, pos, end);
  const numEnd = unsignedEnd(bytes, pos, end);
  if (numEnd < 0) return -1;
  headerNum = unsignedValue;
  let at = skipWhite(bytes, numEnd, end);
  const genEnd = unsignedEnd(bytes, at, end);
  if (genEnd < 0) return -1;
  headerGen = unsignedValue;
  at = skipWhite(bytes, genEnd, end);
  return isKeywordAt(bytes, at, OBJ, end) ? at + 3 : -1;
}

/** The value unsignedEnd read last. */
let unsignedValue = 0;

/** The value the last unsignedEnd that succeeded read. */
export const lastUnsigned = (): number => unsignedValue;

/** readUnsigned without a result object: the end (the value in lastUnsigned()), or -1. */
export function unsignedEnd(bytes: Uint8Array, pos: number, end: number): number {
  let value = 0;
  let i = pos;
  // Each byte read once, no call per digit: every object header is read so, mostly by unoptimized code.
  for (; i < end; i++) {
    const b = bytes[i];
    if (b < 0x30 || b > 0x39) break;
    if (i - pos >= 15) return -1;
    value = value * 10 + (b - 0x30);
  }
  if (i === pos || (i < end && CHAR_CLASS[bytes[i]] === 0)) return -1;
  unsignedValue = value;
  return i;
}

export const ascii = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

export const OBJ = ascii('obj');
export const ENDOBJ = ascii('endobj');
export const STREAM = ascii('stream');
export const ENDSTREAM = ascii('endstream');
export const XREF = ascii('xref');
export const TRAILER = ascii('trailer');
export const STARTXREF = ascii('startxref');

/** The last occurrence of `word` in bytes[from, to), or -1. */
export function lastIndexOf(bytes: Uint8Array, word: Uint8Array, from: number, to: number): number {
  outer: for (let i = to - word.length; i >= from; i--) {
    for (let k = 0; k < word.length; k++) if (bytes[i + k] !== word[k]) continue outer;
    return i;
  }
  return -1;
}

/**
 * The first occurrence of `word` in bytes[from, to), or -1. The native search
 * runs on a view that ends at `to`: searching the whole buffer from `from`
 * made every bounded look (a window after each object of a damaged file)
 * run to the next match or the end of the file, quadratic in its size.
 */
export function indexOf(bytes: Uint8Array, word: Uint8Array, from: number, to = bytes.length): number {
  from = Math.max(0, from);
  to = Math.min(to, bytes.length);
  if (to - from < word.length) return -1;
  const at = Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).indexOf(word);
  return at < 0 ? -1 : from + at;
}

/** A damaged or unreadable structure; the reader recovers from it or reports the document unreadable. */
export class PdfSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset?: number,
  ) {
    super(offset === undefined ? message : `${message} (at byte ${offset})`);
    this.name = 'PdfSyntaxError';
  }
}

/**
 * data[start, start + length) as a plain Uint8Array to copy from: a Buffer's
 * subarray makes a Buffer through Node's own code, twice the cost (and an
 * object to collect) for each of the thousands of objects a write copies.
 */
export function plainView(data: Uint8Array, start: number, length: number): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset + start, length);
}

/**
 * True when every `#` in `bytes` starts a name escape of a byte past ASCII
 * (`#e5`, as UTF-8 names are written): such escapes spell no letter, so a
 * search of the bytes for a key or a word misses none written as escapes.
 */
export function escapesSpellNoLetter(bytes: Uint8Array): boolean {
  for (let at = bytes.indexOf(0x23); at >= 0; at = bytes.indexOf(0x23, at + 3)) {
    if (hexDigit(bytes[at + 1]) < 8 || hexDigit(bytes[at + 2]) < 0) return false;
  }
  return true;
}

/** The value of a hexadecimal digit; -1 for any other byte (or none). */
function hexDigit(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}
