/**
 * How a page's content leaves the graphics state stack. Content that saves
 * the state more often than it restores it (`q` without `Q`, common in the
 * wild, often after a `cm`) would make the single `Q` that closes our wrap
 * restore the page's state instead of ours, and the watermark would be drawn
 * through the page's transformation; content with an extra `Q` would pop our
 * `q`. So the operators are counted and the wrap gets as many `q` and `Q` as
 * it takes.
 */
import { fileRangeOf, type FileRange } from '../../core/lazy-file.js';
import { PDFContext, PDFRawStream, PDFRef, PDFStream } from '../model/primitives.js';
import { objectTableOf, unloadedData } from '../reader/object-table.js';
import { decodePieces, filterChain, type Filter } from '../reader/decode-pieces.js';

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
/**
 * 1: a byte that cannot start anything the scan counts or must skip, outside
 * arrays and dictionaries (DepthScan's fast path). Not plain: `q`, `Q`, `I`
 * (of `ID`), and what starts a string, comment, name, hex string or
 * dictionary, or array.
 */
const PLAIN = new Uint8Array(256).fill(1);
for (const c of 'qQI(%/<[') PLAIN[c.charCodeAt(0)] = 0;

/**
 * Counts `q` and `Q` operators, skipping strings, comments, names and inline
 * image data. `quick`: whether the quick look (quickDepth) may be tried first.
 */
export function graphicsDepth(data: Uint8Array, quick = true): Depth {
  const looked = quick && data.length <= QUICK_PIECE && quickSpent < QUICK_BYTES ? quickLook(latin1(data)) : undefined;
  if (looked) return looked;
  const scan = new DepthScan();
  scan.feed(data, true);
  return scan.result();
}

/** `data` as Latin-1 text: one character per byte. */
function latin1(data: Uint8Array): string {
  return (Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)).toString('latin1');
}

/**
 * The quick look (quickDepth) is for the first bytes a process scans: in a
 * short run DepthScan runs interpreted there (and is deoptimized and
 * optimized again several times, on V8's compiler thread), at ~10 ns a byte;
 * a regular expression is machine code from its second call, ~4 ns a byte
 * on page content. Once DepthScan is optimized (a few MB on, or in the
 * server) it takes ~2 ns a byte, so past QUICK_BYTES the scan alone is used.
 */
const QUICK_BYTES = 4 * 2 ** 20;
/**
 * Content larger than this goes to the scan: on a large stream it is soon
 * optimized, and damaged content (strings that never close, say) costs the
 * regular expression more per byte.
 */
const QUICK_PIECE = 256 * 2 ** 10;
/** What the quick look has been given so far in this process. */
let quickSpent = 0;

/** quickDepth while this process has not spent QUICK_BYTES on it. */
function quickLook(text: string): Depth | undefined {
  if (quickSpent >= QUICK_BYTES) return undefined;
  quickSpent += text.length;
  return quickDepth(text);
}

const WHITE = '\\x00\\t\\n\\f\\r ';
const DELIMITERS = '()<>\\[\\]{}/%';
const REGULAR = `[^${WHITE}${DELIMITERS}]`;
/**
 * One pass that removes what cannot count: strings (their escapes stepped
 * over), names, hex strings, white space, and every token but `q`, `Q` and
 * those with an `I` in them (`BI`, `ID`, `EI`: an inline image); `<<` is kept
 * (group 1), so that its second `<` is not taken for a hex string. What is
 * left of plain content is its `q`, `Q`, `[`, `]`, `<<` and `>>`.
 */
const NOT_COUNTED = new RegExp(
  `(<<)|\\((?:[^()\\\\]|\\\\[^])*\\)|\\/${REGULAR}*|<[0-9A-Fa-f${WHITE}]*>|` +
    `(?:[${WHITE}]+|[^${WHITE}${DELIMITERS}qQI][^${WHITE}${DELIMITERS}I]*|[qQ][^${WHITE}${DELIMITERS}I]+)+`,
  'g',
);

/**
 * The depth of `text` (content as Latin-1) by one regular expression, when
 * its syntax is plain enough to be sure of it: no comment, inline image,
 * nested or cut-off string, lone `<` or `>`, `{` or `}`; else undefined, and
 * the content goes to DepthScan. Arrays and dictionaries are followed
 * without DepthScan's rule that an operator inside one ends it (readers'
 * recovery): that rule only empties what is open, so when they close here
 * they close there too; when they do not, the scan decides.
 */
export function quickDepth(text: string): Depth | undefined {
  // Inline image data (any bytes) is the scan's to step over: not searched through first.
  if (text.includes(' ID') || text.includes('\nID')) return undefined;
  const counted = text.replace(NOT_COUNTED, '$1');
  let depth = 0;
  let min = 0;
  const open: number[] = [];
  for (let i = 0; i < counted.length; i++) {
    const c = counted.charCodeAt(i);
    if (c === 0x71) depth++;
    else if (c === 0x51) {
      if (--depth < min) min = depth;
    } else if (c === 0x5b) open.push(0x5d);
    else if (c === 0x5d) {
      if (open[open.length - 1] === 0x5d) open.pop();
    } else if (c === 0x3c && counted.charCodeAt(i + 1) === 0x3c) {
      open.push(0x3e);
      i++;
    } else if (c === 0x3e && counted.charCodeAt(i + 1) === 0x3e) {
      if (open[open.length - 1] === 0x3e) open.pop();
      i++;
    } else {
      // What the pass left of what it does not know: the scan's.
      return undefined;
    }
  }
  return open.length === 0 ? { min, end: depth, unclosed: '' } : undefined;
}

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
export class DepthScan {
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

/**
 * Content that takes DepthScan through each of its branches, in pieces that
 * end inside a hex string, a comment, inline image data, a name, a string
 * (after a backslash), a long token, a short one and a `<`.
 */
const PRIMING = [
  '0 0 1 rg q 1 0 0 1 72 720 cm BT /F1 12 Tf (a\\)(b)c) Tj <414 2> Tj [1 (x) -2 <4',
  '3>] TJ [1 true Tj] ET Q Q % a comm',
  'ent\nq BI /W 1 /H 1 ID \x00E\x01 E',
  'I Q << /MCID 0 >> BDC EMC q /Fm',
  '1 Do Q (str\\',
  ')) qqqqqqqqqqqq',
  'qq Q <',
  '< /A 1 >> BDC EMC Q',
  ' Q 1 (open',
];
let primed = false;

/**
 * Runs DepthScan over PRIMING (a few microseconds), so that V8 has seen
 * every branch of its loop when it optimizes it. A document whose first
 * thousand pages have no `q`, string or array (long-text's) had the
 * optimized scan thrown away at the first page that did ("insufficient type
 * feedback") and compiled again, once or twice: 10-30 ms of a compiler
 * thread each time, and its memory.
 */
function primeScan(): void {
  if (primed) return;
  primed = true;
  // Twice: V8 gives a function its feedback vector only after it ran a while (lazy feedback allocation).
  for (let round = 0; round < 2; round++) {
    const scan = new DepthScan();
    let carry = NOTHING;
    PRIMING.forEach((text, k) => {
      const piece = Buffer.concat([carry, Buffer.from(text, 'latin1')]);
      const consumed = scan.feed(piece, k === PRIMING.length - 1);
      carry = piece.subarray(consumed);
    });
    scan.result();
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

/**
 * The most one content stream's filters may make while it is scanned, every
 * filter of its chain counted (real pages stay far below it); past it, the
 * stream is taken as balanced.
 */
export const MAX_CONTENT_BYTES = 128 * 2 ** 20;

/**
 * The most the scans of one document may make in all: a document of many
 * small bombs (a different one on each page) would otherwise cost 128 MB of
 * decoding each. Streams scanned after it is spent are taken as balanced.
 */
export const MAX_DOCUMENT_CONTENT_BYTES = 512 * 2 ** 20;

/** The depths of a document's content streams, each scanned once, under the document's budget. */
export class ContentDepths {
  /**
   * Whether the quick look is tried on this document's streams: decided on
   * the first, from its decoded size times the pages to stamp. Content of
   * more than QUICK_BYTES would take the scan through its slow start anyway
   * (after the quick look), so the quick look would only add to it.
   */
  private quick: boolean | undefined;

  /** `pages`: how many pages will be looked at. */
  constructor(private readonly pages: number) {
    primeScan();
  }

  private readonly known = new Map<PDFRef, Depth>();
  /**
   * What the input bytes say of the stream looked at last (see plainContent): a page's stream is asked for by
   * isStream, then scanned. Not one per stream: a view of each stream's data, kept to the end of the stamping, was
   * ~0.3 MB of heap on a 2,000-page document.
   */
  private lastPlain: { ref: PDFRef; plain: PlainContent | undefined } | undefined;
  /** What the filters of the streams scanned so far made (unfiltered streams cost nothing to decode). */
  spent = 0;

  /** Whether `ref` leads to a stream: from its input bytes when its dictionary is a plain one, else parsed. */
  isStream(context: PDFContext, ref: PDFRef): boolean {
    return this.plainContent(context, ref) !== undefined || context.lookup(ref) instanceof PDFStream;
  }

  /** The depth of several streams drawn one after another (a page's /Contents array). */
  of(context: PDFContext, refs: PDFRef[]): Depth {
    let min = 0;
    let end = 0;
    // Streams are read as one: only what the last leaves open reaches what follows.
    let unclosed = '';
    for (const ref of refs) {
      let depth = this.known.get(ref);
      if (!depth) {
        depth = this.streamDepth(context, ref);
        this.known.set(ref, depth);
      }
      min = Math.min(min, end + depth.min);
      end += depth.end;
      unclosed = depth.unclosed;
    }
    return { min, end, unclosed };
  }

  private streamDepth(context: PDFContext, ref: PDFRef): Depth {
    const plain = this.plainContent(context, ref);
    if (plain) return this.decoded(plain.chain, fileRangeOf(plain.data) ?? plain.data);
    const stream = context.lookup(ref);
    if (!(stream instanceof PDFRawStream)) return BALANCED;
    const chain = filterChain(stream.dict);
    // A filter not decoded here (an image filter in page content): readers will not draw it either.
    if (!chain) return BALANCED;
    return this.decoded(chain, unloadedData(stream) ?? stream.getContents());
  }

  /** The depth of `data` decoded through `chain`, within what is left of the document's budget. */
  private decoded(chain: readonly Filter[], data: Uint8Array | FileRange): Depth {
    const left = MAX_DOCUMENT_CONTENT_BYTES - this.spent;
    if (chain.length > 0 && left <= 0) return BALANCED;
    const { depth, made } = decodedDepth(data, chain, Math.min(MAX_CONTENT_BYTES, left), this.quick ?? true);
    this.spent += made;
    this.quick ??= (chain.length > 0 ? made : data.byteLength) * this.pages <= QUICK_BYTES;
    return depth;
  }

  private plainContent(context: PDFContext, ref: PDFRef): PlainContent | undefined {
    if (this.lastPlain?.ref !== ref) this.lastPlain = { ref, plain: plainContent(context, ref) };
    return this.lastPlain.plain;
  }
}

/** A stream read from its input bytes, unparsed: its filters, and its data (a view of the input, perhaps not read in yet). */
interface PlainContent {
  chain: readonly Filter[];
  data: Uint8Array;
}

/**
 * Most content streams' dictionaries: `<< /Length n /Filter /FlateDecode >>`,
 * in either order, the length perhaps indirect, the filter perhaps absent.
 * Group 1 or 2: the filter.
 */
const PLAIN_DICTIONARY =
  /^\s*<<\s*(?:\/Length\s+\d+(?:\s+\d+\s+R)?\s*(\/Filter\s*\/FlateDecode\s*)?|(\/Filter\s*\/FlateDecode\s*)\/Length\s+\d+(?:\s+\d+\s+R)?\s*)>>\s*$/;
/** Longer than any dictionary PLAIN_DICTIONARY matches but for white space. */
const PLAIN_DICTIONARY_BYTES = 128;
const FLATE: readonly Filter[] = [{ name: 'FlateDecode', earlyChange: 1 }];

/**
 * An untouched stream of the input whose dictionary is a plain one, read
 * from the bytes the reader skimmed when it opened the document: parsing
 * each content stream's dictionary (to know its filters and where its data
 * lies) cost ~20 ms on a 2,000-page document. Undefined otherwise (the
 * stream is then parsed).
 */
function plainContent(context: PDFContext, ref: PDFRef): PlainContent | undefined {
  const raw = objectTableOf(context)?.rawObject(ref);
  if (!raw?.stream || raw.dictEnd === undefined || raw.dataStart === undefined || raw.dataEnd === undefined) return undefined;
  if (raw.dictEnd - raw.start > PLAIN_DICTIONARY_BYTES) return undefined;
  // The input is a Buffer (a view made per stream costs Buffer's constructor, 2,000 times on a long document).
  const text = Buffer.isBuffer(raw.data)
    ? raw.data.toString('latin1', raw.start, raw.dictEnd)
    : Buffer.from(raw.data.buffer, raw.data.byteOffset + raw.start, raw.dictEnd - raw.start).toString('latin1');
  const match = PLAIN_DICTIONARY.exec(text);
  if (!match) return undefined;
  return { chain: match[1] || match[2] ? FLATE : [], data: raw.data.subarray(raw.dataStart, raw.dataEnd) };
}

/**
 * The depth of `data` decoded through `chain`, scanned a piece at a time as
 * it decodes, and how many bytes the filters made (decodePieces); past
 * `budget` it is taken as balanced. `quick`: as for graphicsDepth.
 */
export function decodedDepth(
  data: Uint8Array | FileRange,
  chain: readonly Filter[],
  budget: number = MAX_CONTENT_BYTES,
  quick = true,
): { depth: Depth; made: number } {
  // Data still in a lazily read file: unfiltered, it is copied into the scratch buffer; filtered, it is decoded as it is read, a chunk at a time.
  if (chain.length === 0) return { depth: graphicsDepth(data instanceof Uint8Array ? data : data.readCopy(0, data.byteLength, scratch), quick), made: 0 };
  const encoded = data instanceof Uint8Array ? data : (each: (chunk: Uint8Array) => void) => data.forEachChunk(each);
  const scan = new DepthScan();
  // What the scan left for the next piece: a short token that may go on (fewer than LONG_TOKEN bytes, see DepthScan).
  let carry: Uint8Array = NOTHING;
  // Most content decodes to far less than QUICK_PIECE (in one to three writes, as its bytes cross the file's 4 KB
  // chunks): its text is gathered for the quick look, and handed to the scan if it grows past that.
  let gathered: string | undefined = quick && quickSpent < QUICK_BYTES ? '' : undefined;
  const { ended, made } = decodePieces(encoded, chain, budget, (piece) => {
    if (gathered !== undefined) {
      if (gathered.length + piece.length <= QUICK_PIECE) {
        gathered += latin1(piece);
        return;
      }
      quickSpent += gathered.length;
      scanPiece(Buffer.from(gathered, 'latin1'));
      gathered = undefined;
    }
    scanPiece(piece);
  });
  if (ended === 'over budget') return { depth: BALANCED, made };
  if (gathered !== undefined) {
    const quick = quickLook(gathered);
    if (quick) return { depth: quick, made };
    scanPiece(Buffer.from(gathered, 'latin1'));
  }
  scan.feed(carry, true);
  return { depth: scan.result(), made };

  function scanPiece(piece: Uint8Array): void {
    let rest = piece;
    if (carry.length > 0) {
      // The carried token joined with the piece's first bytes only: enough to end it, or to make it long enough to be stepped over.
      const joined = Buffer.concat([carry, piece.subarray(0, LONG_TOKEN * 2)]);
      const consumed = scan.feed(joined, false);
      if (consumed < carry.length) {
        // A piece shorter than that, and the token goes on.
        carry = Buffer.from(joined.subarray(consumed));
        return;
      }
      rest = piece.subarray(consumed - carry.length);
      carry = NOTHING;
    }
    // The common case: the piece is scanned where it lies, and only a short token cut at its end is kept.
    const consumed = scan.feed(rest, false);
    if (consumed < rest.length) carry = Buffer.from(rest.subarray(consumed));
  }
}

/** No bytes: what is carried after a piece scanned to its end (most content streams are one piece). */
const NOTHING = new Uint8Array(0);

/**
 * Where unfiltered content read from a lazily read file is put while it is
 * scanned: reused, as a fresh buffer per stream (20 MB over the 500-page
 * bench document) kept the garbage collector busy. Streams larger than this
 * get their own. (Filtered content is decoded as it is read: see
 * decodedDepth.)
 */
const scratch = Buffer.allocUnsafeSlow(4 * 2 ** 20);
