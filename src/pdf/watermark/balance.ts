/**
 * How a page's content leaves the graphics state stack. Content that saves
 * the state more often than it restores it (`q` without `Q`, common in the
 * wild, often after a `cm`) would make the single `Q` that closes our wrap
 * restore the page's state instead of ours, and the watermark would be drawn
 * through the page's transformation; content with an extra `Q` would pop our
 * `q`. So the operators are counted and the wrap gets as many `q` and `Q` as
 * it takes.
 */
import { constants as zlib, inflateSync } from 'node:zlib';
import { PDFArray, PDFContext, PDFName, PDFRawStream, PDFRef, PDFStream } from '../lib.js';
import { decodePDFRawStream } from './drawing-lib.js';
import { dataForOneLook } from '../reader/object-table.js';
import { inflatePieces } from '../inflate-pieces.js';

/**
 * `min`: the lowest depth reached relative to the start; `end`: the depth at
 * the end; `unclosed`: the tokens that end what the content leaves open (an
 * array, dictionary, string or inline image cut off by damage), which would
 * otherwise swallow whatever is drawn after it.
 */
export interface Depth {
  min: number;
  end: number;
  unclosed: string;
}

const BALANCED: Depth = { min: 0, end: 0, unclosed: '' };

/** Byte classes: 0 regular, 1 white space, 2 delimiter. */
const CLASS = new Uint8Array(256);
for (const c of [0x20, 0x0a, 0x0d, 0x09, 0x0c, 0x00]) CLASS[c] = 1;
for (const c of '()<>[]{}/%') CLASS[c.charCodeAt(0)] = 2;

/** Counts `q` and `Q` operators, skipping strings, comments, names and inline image data. */
export function graphicsDepth(data: Uint8Array): Depth {
  const scan = new DepthScan();
  scan.feed(data, true);
  return scan.result();
}

/**
 * The scan of `graphicsDepth`, fed piece by piece so that a large stream is
 * looked at as it inflates and never held whole. `feed` returns how many bytes
 * it consumed: a token that may go on in the next piece (a number, a string,
 * a comment, inline image data) is left for the caller to pass again in front
 * of it, unless `last` says nothing follows.
 */
export class DepthScan {
  private depth = 0;
  private min = 0;
  // Open arrays and dictionaries, innermost last; what is cut off at the end.
  private readonly open: string[] = [];
  private cutOff = '';

  feed(data: Uint8Array, last: boolean): number {
    // A plain Uint8Array view whatever came in (Buffer or not): the loop below then sees one kind of array and stays fast.
    const bytes = data.constructor === Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const n = bytes.length;
    const open = this.open;
    let i = 0;
    while (i < n) {
      const start = i;
      const c = bytes[i];
      const kind = CLASS[c];
      if (kind === 0) {
        // A number or an operator: the common case first.
        i++;
        while (i < n && CLASS[bytes[i]] === 0) i++;
        if (i >= n && !last) return start;
        const length = i - start;
        if (length === 1) {
          if (c === 0x71) this.depth++;
          else if (c === 0x51) {
            this.depth--;
            if (this.depth < this.min) this.min = this.depth;
          } else if (open.length > 0 && !isOperand(bytes, start, length)) open.length = 0;
        } else if (length === 2 && c === 0x49 && bytes[start + 1] === 0x44) {
          // Inline image data: binary until whitespace, `EI`, whitespace (or the end).
          i++;
          // Each `E` found natively (indexOf), not every byte of the image looked at here.
          for (;;) {
            const e = bytes.indexOf(0x45, i);
            if (e < 0) {
              i = n;
              break;
            }
            i = e;
            if (CLASS[bytes[i - 1]] === 1 && bytes[i + 1] === 0x49 && (i + 2 >= n || CLASS[bytes[i + 2]] !== 0)) break;
            i++;
          }
          if (i + 2 >= n && !last) return start;
          if (i >= n) this.cutOff = '\nEI';
          i += 2;
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
      if (c === 0x25) {
        while (i < n && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
        if (i >= n && !last) return start;
      } else if (c === 0x28) {
        let nesting = 1;
        i++;
        while (i < n && nesting > 0) {
          const d = bytes[i++];
          if (d === 0x5c) i++;
          else if (d === 0x28) nesting++;
          else if (d === 0x29) nesting--;
        }
        if (nesting > 0 || i > n) {
          if (!last) return start;
          if (nesting > 0) this.cutOff = ')'.repeat(nesting);
        }
      } else if (c === 0x3c) {
        if (bytes[i + 1] === 0x3c) {
          open.push('>>');
          i += 2;
        } else {
          while (i < n && bytes[i] !== 0x3e) i++;
          if (i >= n && !last) return start;
          if (i >= n) this.cutOff = '>';
          i++;
        }
      } else if (c === 0x3e) {
        if (bytes[i + 1] === 0x3e) {
          if (open[open.length - 1] === '>>') open.pop();
          i += 2;
        } else i++;
      } else if (c === 0x5b) {
        open.push(']');
        i++;
      } else if (c === 0x5d) {
        if (open[open.length - 1] === ']') open.pop();
        i++;
      } else if (c === 0x2f) {
        i++;
        while (i < n && CLASS[bytes[i]] === 0) i++;
        if (i >= n && !last) return start;
      } else {
        i++;
      }
    }
    return n;
  }

  result(): Depth {
    return { min: this.min, end: this.depth, unclosed: this.cutOff + [...this.open].reverse().join(' ') };
  }
}

/** Numbers, true, false and null are operands; any other bare token is an operator. */
function isOperand(bytes: Uint8Array, start: number, length: number): boolean {
  const c = bytes[start];
  if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return true;
  const word = String.fromCharCode(...bytes.subarray(start, start + length));
  return word === 'true' || word === 'false' || word === 'null';
}

/** The depth of several streams drawn one after another (a page's /Contents array). */
export function contentDepth(context: PDFContext, refs: PDFRef[], cache: Map<PDFRef, Depth>): Depth {
  let min = 0;
  let end = 0;
  // Streams are read as one: only what the last leaves open reaches what follows.
  let unclosed = '';
  for (const ref of refs) {
    let depth = cache.get(ref);
    if (!depth) {
      depth = streamDepth(context.lookup(ref));
      cache.set(ref, depth);
    }
    min = Math.min(min, end + depth.min);
    end += depth.end;
    unclosed = depth.unclosed;
  }
  return { min, end, unclosed };
}

/** The most of one content stream the balance scan inflates (real pages stay far below it). */
const MAX_CONTENT_BYTES = 128 * 2 ** 20;

/** The depth of Flate content, inflated and scanned a piece at a time; past MAX_CONTENT_BYTES it is taken as balanced. */
export function flateDepth(data: Uint8Array): Depth {
  const scan = new DepthScan();
  // What the scan left for the next piece (a token that may go on), and what inflated since.
  let carry: Uint8Array = new Uint8Array(0);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  const streamed = inflatePieces(data, (piece) => {
    total += piece.length;
    if (total > MAX_CONTENT_BYTES) return false;
    if (carry.length === 0) {
      // The common case: the piece is scanned where it lies, and only a token cut at its end is kept.
      carry = Buffer.from(piece.subarray(scan.feed(piece, false)));
      return true;
    }
    pending.push(Buffer.from(piece));
    pendingBytes += piece.length;
    // A long carried token (a huge string or inline image) is scanned again only once as much again has come: linear time.
    if (pendingBytes < carry.length) return true;
    const bytes = Buffer.concat([carry, ...pending]);
    carry = bytes.subarray(scan.feed(bytes, false));
    pending = [];
    pendingBytes = 0;
    return true;
  });
  if (streamed === undefined) return graphicsDepth(inflateSync(data, { finishFlush: zlib.Z_SYNC_FLUSH, maxOutputLength: MAX_CONTENT_BYTES }));
  if (total > MAX_CONTENT_BYTES) return BALANCED;
  scan.feed(Buffer.concat([carry, ...pending]), true);
  return scan.result();
}

/**
 * Where content read from a lazily read file is put while it is scanned:
 * reused, as a fresh buffer per stream (20 MB over the 500-page bench
 * document) kept the garbage collector busy. Streams larger than this get
 * their own.
 */
const scratch = Buffer.allocUnsafeSlow(4 * 2 ** 20);

function streamDepth(stream: unknown): Depth {
  try {
    if (stream instanceof PDFRawStream) {
      // Plain Flate (nearly every content stream) through node's zlib: a third of pdf-lib's time.
      const filter = stream.dict.lookup(PDFName.of('Filter'));
      const flate = filter === PDFName.of('FlateDecode') || (filter instanceof PDFArray && filter.size() === 1 && filter.lookup(0) === PDFName.of('FlateDecode'));
      if (flate && !stream.dict.has(PDFName.of('DecodeParms'))) {
        // Capped and a piece at a time: a few KB of Flate can claim gigabytes.
        return flateDepth(dataForOneLook(stream, scratch));
      }
      if (filter === undefined) return graphicsDepth(dataForOneLook(stream, scratch));
      return graphicsDepth(decodePDFRawStream(stream).decode());
    }
    if (stream instanceof PDFStream) return graphicsDepth(stream.getContents());
  } catch {
    // A filter pdf-lib cannot decode, or damaged data: readers will not draw it either.
  }
  return BALANCED;
}
