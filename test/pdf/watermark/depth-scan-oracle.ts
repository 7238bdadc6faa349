/**
 * The content scan as it was in JavaScript (src/pdf/watermark/balance.ts before depth-scan.wat): the oracle the
 * WebAssembly scan is compared with, on random content in random pieces (balance.test.ts).
 */
import type { Depth } from '../../../src/pdf/watermark/balance.js';

const BALANCED: Depth = { min: 0, end: 0, unclosed: '' };

/** Byte classes: 0 regular, 1 white space, 2 delimiter. */
const CLASS = new Uint8Array(256);
for (const c of [0x20, 0x0a, 0x0d, 0x09, 0x0c, 0x00]) CLASS[c] = 1;
for (const c of '()<>[]{}/%') CLASS[c.charCodeAt(0)] = 2;
/**
 * 1: a byte that cannot start anything the scan counts or must skip, outside
 * arrays and dictionaries (DepthScan's fast path). Not plain: `q`, `Q`, `I`
 * (of `ID`), and what starts a string, comment, name, hex string or
 * dictionary, or array.
 */
const PLAIN = new Uint8Array(256).fill(1);
for (const c of 'qQI(%/<[') PLAIN[c.charCodeAt(0)] = 0;

/** What the scan is inside of when a piece ends (so the next piece goes on with it). */
const NONE = 0;
const COMMENT = 1;
const STRING = 2;
const HEX = 3;
const INLINE_IMAGE = 4;
/** The rest of a long number, operator or name: none of them counts, and in an array it is already known whether it is an operand. */
const TOKEN = 5;

/**
 * A number or operator cut off at the end of a piece is passed again with the
 * next piece (it may be `q`, `Q`, `ID`, `true`, …) while shorter than this;
 * from this length on it can only be one that does not count, so its rest is
 * stepped over instead: what is carried stays a few bytes.
 */
const LONG_TOKEN = 8;

/**
 * The scan of `graphicsDepth`, fed piece by piece so that a large stream is
 * looked at as it inflates and never held whole. `feed` returns how many bytes
 * it consumed: a short token that may go on in the next piece (a number or an
 * operator of fewer than LONG_TOKEN bytes, a `<` or `>`) is left for the
 * caller to pass again in front of it, unless `last` says nothing follows.
 * Comments, strings, hex strings, inline image data and long tokens are
 * followed across pieces instead: content without a line break, or a page
 * drawn as one huge inline image, would otherwise be carried (and copied)
 * whole, megabytes at a time.
 */
export class OracleScan {
  private depth = 0;
  private min = 0;
  // Open arrays and dictionaries, innermost last; what is cut off at the end.
  private readonly open: string[] = [];
  private cutOff = '';
  /** The byte before what the next feed gets: whether its first byte starts a token. */
  private before = 0x20;
  /** What the scan is inside of (NONE, COMMENT, …): at the end of a feed, what the next piece goes on with. */
  private mode = NONE;
  /** In a string: how many `(` are open; and whether the piece ended right after a backslash. */
  private nesting = 0;
  private escaped = false;
  /** In inline image data: the piece ended with white space and `E` (1), or with white space, `E` and `I` (2). */
  private imageEnd = 0;

  feed(data: Uint8Array, last: boolean): number {
    // A plain Uint8Array view whatever came in (Buffer or not): the loop below then sees one kind of array and stays fast.
    const bytes = data.constructor === Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const consumed = this.scan(bytes, last);
    if (consumed > 0) this.before = bytes[consumed - 1];
    return consumed;
  }

  private scan(bytes: Uint8Array, last: boolean): number {
    const n = bytes.length;
    const open = this.open;
    let i = this.mode === NONE ? 0 : this.inside(bytes, 0);
    while (i < n) {
      if (open.length === 0) {
        // Outside arrays and dictionaries only the bytes that may start a q, Q, ID, string, comment, name,
        // array or dictionary matter: the rest (numbers, other operators, white space) is stepped over
        // here, a byte at a time in the tightest loop, instead of token by token below.
        while (i < n && PLAIN[bytes[i]] === 1) i++;
        if (i >= n) break;
        // A q, Q or I inside a longer token (`BI`, an unknown operator) is not one: step over that token.
        if (CLASS[bytes[i]] === 0 && CLASS[i > 0 ? bytes[i - 1] : this.before] === 0) {
          i++;
          while (i < n && CLASS[bytes[i]] === 0) i++;
          continue;
        }
      }
      const start = i;
      const c = bytes[i];
      const kind = CLASS[c];
      if (kind === 0) {
        // A number or an operator: the common case first.
        i++;
        while (i < n && CLASS[bytes[i]] === 0) i++;
        const length = i - start;
        if (i >= n && !last) {
          if (length < LONG_TOKEN) return start;
          if (open.length > 0 && !isOperand(bytes, start, length)) open.length = 0;
          this.mode = TOKEN;
          continue;
        }
        if (length === 1) {
          if (c === 0x71) this.depth++;
          else if (c === 0x51) {
            this.depth--;
            if (this.depth < this.min) this.min = this.depth;
          } else if (open.length > 0 && !isOperand(bytes, start, length)) open.length = 0;
        } else if (length === 2 && c === 0x49 && bytes[start + 1] === 0x44) {
          // Inline image data follows the one white space byte after `ID`.
          this.mode = INLINE_IMAGE;
          this.imageEnd = 0;
          i = this.inside(bytes, i + 1);
        } else if (open.length > 0 && !isOperand(bytes, start, length)) {
          // An operator inside an "array": the array was never one (readers recover here).
          open.length = 0;
        }
        continue;
      }
      if (kind === 1) {
        i++;
        continue;
      }
      // `<` and `>` look one byte ahead (`<<`, `>>`).
      if (!last && (c === 0x3c || c === 0x3e) && i + 1 >= n) return start;
      i++;
      if (c === 0x28) {
        this.mode = STRING;
        this.nesting = 1;
        i = this.inside(bytes, i);
      } else if (c === 0x3c) {
        if (bytes[i] === 0x3c) {
          open.push('>>');
          i++;
        } else {
          this.mode = HEX;
          i = this.inside(bytes, i);
        }
      } else if (c === 0x2f) {
        // A name never counts: its rest may go on in the next piece.
        while (i < n && CLASS[bytes[i]] === 0) i++;
        if (i >= n && !last) this.mode = TOKEN;
      } else if (c === 0x25) {
        this.mode = COMMENT;
        i = this.inside(bytes, i);
      } else if (c === 0x3e) {
        if (bytes[i] === 0x3e) {
          if (open[open.length - 1] === '>>') open.pop();
          i++;
        }
      } else if (c === 0x5b) open.push(']');
      else if (c === 0x5d) {
        if (open[open.length - 1] === ']') open.pop();
      }
    }
    if (last) {
      // What the content leaves open at its very end.
      const mode = this.mode;
      if (mode === STRING) this.cutOff = ')'.repeat(this.nesting);
      else if (mode === HEX) this.cutOff = '>';
      else if (mode === INLINE_IMAGE && this.imageEnd !== 2) this.cutOff = '\nEI';
      this.mode = NONE;
    }
    return n;
  }

  /**
   * Steps over the construct the scan is inside of (`mode`), begun in this
   * piece or an earlier one, from `i`: returns where it ends (and sets `mode`
   * to NONE), or the end of the piece.
   */
  private inside(bytes: Uint8Array, i: number): number {
    const n = bytes.length;
    const mode = this.mode;
    if (mode === STRING) {
      let nesting = this.nesting;
      if (this.escaped && i < n) {
        this.escaped = false;
        i++;
      }
      while (i < n && nesting > 0) {
        const d = bytes[i++];
        if (d === 0x5c) {
          if (i < n) i++;
          else this.escaped = true;
        } else if (d === 0x28) nesting++;
        else if (d === 0x29) nesting--;
      }
      this.nesting = nesting;
      if (nesting === 0) this.mode = NONE;
      return i;
    }
    if (mode === HEX) {
      // A hex string (long-text's lines are all hex strings): its end found natively, not a byte at a time.
      const e = bytes.indexOf(0x3e, i);
      if (e < 0) return n;
      this.mode = NONE;
      return e + 1;
    }
    if (mode === COMMENT) {
      while (i < n && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
      if (i < n) this.mode = NONE;
      return i;
    }
    if (mode === TOKEN) {
      while (i < n && CLASS[bytes[i]] === 0) i++;
      if (i < n) this.mode = NONE;
      return i;
    }
    // Inline image data: binary until white space, `EI`, then white space or a delimiter (or the end), possibly
    // across pieces. `imageEnd`: the last piece ended with white space and `E` (1), or white space, `E` and `I` (2).
    if (i >= n) return n;
    if (this.imageEnd === 1) {
      this.imageEnd = 0;
      if (bytes[i] !== 0x49) return this.inside(bytes, i);
      i++;
      if (i >= n) {
        this.imageEnd = 2;
        return n;
      }
      this.imageEnd = 2;
    }
    if (this.imageEnd === 2) {
      this.imageEnd = 0;
      if (CLASS[bytes[i]] !== 0) {
        this.mode = NONE;
        return i;
      }
    }
    // Each `E` found natively (indexOf), not every byte of the image looked at here.
    for (;;) {
      const e = bytes.indexOf(0x45, i);
      if (e < 0) return n;
      i = e + 1;
      if (CLASS[e > 0 ? bytes[e - 1] : this.before] !== 1) continue;
      if (i >= n) {
        this.imageEnd = 1;
        return n;
      }
      if (bytes[i] !== 0x49) continue;
      if (i + 1 >= n) {
        this.imageEnd = 2;
        return n;
      }
      if (CLASS[bytes[i + 1]] !== 0) {
        this.mode = NONE;
        return i + 1;
      }
    }
  }

  result(): Depth {
    const unclosed = this.cutOff + [...this.open].reverse().join(' ');
    // Most content is balanced: one object for all of it (ContentDepths keeps a depth per stream to the end of the stamping).
    if (this.min === 0 && this.depth === 0 && unclosed === '') return BALANCED;
    return { min: this.min, end: this.depth, unclosed };
  }
}

/** Numbers, true, false and null are operands; any other bare token is an operator. */
function isOperand(bytes: Uint8Array, start: number, length: number): boolean {
  const c = bytes[start];
  if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return true;
  // Longer than `false`: an operator (and a huge token must not become one call's arguments).
  if (length > 5) return false;
  const word = String.fromCharCode(...bytes.subarray(start, start + length));
  return word === 'true' || word === 'false' || word === 'null';
}
