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
import { DEPTH_SCAN_WASM } from './depth-scan-wasm.js';

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

/**
 * Counts `q` and `Q` operators, skipping strings, comments, names and inline
 * image data. `quick`: whether the quick look (quickDepth) may be tried first.
 */
export function graphicsDepth(data: Uint8Array, quick = true): Depth {
  const looked = quick && data.length <= QUICK_PIECE && quickSpent < QUICK_BYTES ? quickLook(latin1(data)) : undefined;
  if (looked) return looked;
  const scan = new DepthScan();
  scan.push(data);
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
/**
 * An input this large has its streams scanned by the module from the first. The quick look is kept for what the
 * module costs in memory (~1 MiB when instantiated, more while V8 tiers it up), which matters to a small input's peak
 * RSS; on the images shape (53 MiB, 500 streams, 2.1 MB of content) it cost 66 M instructions of the main thread
 * more than the module (bench/README.md, "imgtw").
 */
const LARGE_INPUT = 16 * 2 ** 20;
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
 * left of plain content is its `q`, `Q`, `[`, `]`, `<<` and `>>`. Everything
 * removed between two kept tokens is one match (each alternative starts on
 * bytes no other starts on, so the repetition stays linear): each match is a
 * step of the replace's own, and a match per name and string was a fifth of
 * the time on the images shape's content (2.1 MB: 5.8 -> 4.6 ms).
 */
const NOT_COUNTED = new RegExp(
  `(<<)|(?:[${WHITE}]+|[^${WHITE}${DELIMITERS}qQI][^${WHITE}${DELIMITERS}I]*|\\/${REGULAR}*|\\((?:[^()\\\\]|\\\\[^])*\\)|` +
    `[qQ][^${WHITE}${DELIMITERS}I]+|<[0-9A-Fa-f${WHITE}]*>)+`,
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

/** What depth-scan.wat exports (Node's types do not declare WebAssembly). */
interface DepthScanExports {
  memory: { buffer: ArrayBuffer };
  input: { value: number };
  room: { value: number };
  stack: { value: number };
  push(length: number): void;
  finish(): void;
  reset(): void;
  depth: { value: number };
  min: { value: number };
  mode: { value: number };
  nesting: { value: number };
  imageEnd: { value: number };
  open: { value: number };
}
/** The global WebAssembly, as far as it is used here. */
declare const WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: DepthScanExports } };

/** depth-scan.wat's modes that leave something open at the end. */
const STRING = 2;
const HEX = 3;
const INLINE_IMAGE = 4;

let compiled: DepthScanExports | undefined;
/** The scan using the module: one at a time (a scan runs from its first piece to its result without yielding). */
let owner: DepthScan | undefined;
/** The module's memory as bytes (made again when the memory grows, which detaches it). */
let memory = new Uint8Array(0);

/** The module, compiled on first use (~2 KB: Liftoff compiles it at once, so the first page is scanned at full speed). */
function depthScanModule(): DepthScanExports {
  compiled ??= new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(DEPTH_SCAN_WASM, 'base64'))).exports;
  return compiled;
}

/**
 * The scan of `graphicsDepth`, given the content piece by piece so that a
 * large stream is looked at as it inflates and never held whole:
 * depth-scan.wat, which steps over what cannot count 16 bytes at a time
 * (JavaScript took ~2 ns a byte once optimized, ~10 before). A short token
 * cut off at the end of a piece (it may be `q`, `Q`, `ID`, `true`, …) is
 * scanned again in front of the next; comments, strings, hex strings,
 * inline image data and long tokens are followed across pieces instead.
 */
export class DepthScan {
  /** Whether the module was reset for this scan: not before its first byte (content the quick look answers never needs it). */
  private started = false;

  constructor() {
    owner = this;
  }

  /** Where a decoder may make the next piece: `push` takes one made there where it lies, instead of copying it. */
  room(): Uint8Array {
    const wasm = this.module();
    return this.memory().subarray(wasm.input.value, wasm.input.value + wasm.room.value);
  }

  push(piece: Uint8Array): void {
    const wasm = this.module();
    const input = wasm.input.value;
    if (piece.buffer === memory.buffer && piece.byteOffset === input) return wasm.push(piece.length);
    const room = wasm.room.value;
    for (let done = 0; done < piece.length; done += room) {
      const part = piece.subarray(done, done + room);
      this.memory().set(part, input);
      wasm.push(part.length);
    }
  }

  /** The depth of all that was pushed (the end of the content). */
  result(): Depth {
    if (!this.started) return BALANCED;
    const wasm = this.module();
    wasm.finish();
    // What the content leaves open at its very end: a string, a hex string, inline image data; then what is open,
    // innermost first (the module's stack: 1 an array, 2 a dictionary).
    const mode = wasm.mode.value;
    let unclosed = '';
    if (mode === STRING) unclosed = ')'.repeat(wasm.nesting.value);
    else if (mode === HEX) unclosed = '>';
    else if (mode === INLINE_IMAGE && wasm.imageEnd.value !== 2) unclosed = '\nEI';
    const open: string[] = [];
    const bytes = this.memory();
    for (let k = wasm.open.value - 1; k >= 0; k--) open.push(bytes[wasm.stack.value + k] === 1 ? ']' : '>>');
    unclosed += open.join(' ');
    const depth = wasm.depth.value;
    const min = wasm.min.value;
    // Most content is balanced: one object for all of it (ContentDepths keeps a depth per stream to the end of the stamping).
    if (min === 0 && depth === 0 && unclosed === '') return BALANCED;
    return { min, end: depth, unclosed };
  }

  /** The module, reset for this scan on first use. */
  private module(): DepthScanExports {
    if (owner !== this) throw new Error('DepthScan: another scan began before this one ended');
    const wasm = depthScanModule();
    if (!this.started) {
      wasm.reset();
      this.started = true;
    }
    return wasm;
  }

  /** The module's memory as bytes. */
  private memory(): Uint8Array {
    // Made again when the memory has grown (a deep stack of arrays), which detaches the last view.
    if (memory.byteLength === 0) memory = new Uint8Array(depthScanModule().memory.buffer);
    return memory;
  }
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

  /**
   * `pages`: how many pages will be looked at. `inputBytes`: the document's size; from LARGE_INPUT on, every stream
   * goes to the module (see there).
   */
  constructor(
    private readonly pages: number,
    inputBytes = 0,
  ) {
    if (inputBytes >= LARGE_INPUT) this.quick = false;
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
  if (chain.length === 0)
    return { depth: graphicsDepth(data instanceof Uint8Array ? data : data.readCopy(0, data.byteLength, scratchBuffer()), quick), made: 0 };
  const encoded = data instanceof Uint8Array ? data : (each: (chunk: Uint8Array) => void) => data.forEachChunk(each);
  const scan = new DepthScan();
  // Most content decodes to far less than QUICK_PIECE (in one to three writes, as its bytes cross the file's 4 KB
  // chunks): its bytes are gathered for the quick look (how many so far; -1: not gathering), and handed to the scan
  // if they grow past that. Gathered as bytes and made text once: a text per piece, joined, was copied again whole
  // by the quick look's first search.
  let gathered = quick && quickSpent < QUICK_BYTES ? 0 : -1;
  const take = (piece: Uint8Array): void => {
    if (gathered >= 0) {
      if (gathered + piece.length <= QUICK_PIECE) {
        gatherRoom.set(piece, gathered);
        gathered += piece.length;
        return;
      }
      quickSpent += gathered;
      // With the piece: it may lie in the scan's room, which pushing what was gathered overwrites.
      const both = Buffer.allocUnsafe(gathered + piece.length);
      both.set(gatherRoom.subarray(0, gathered));
      both.set(piece, gathered);
      scan.push(both);
      gathered = -1;
      return;
    }
    scan.push(piece);
  };
  // Flate inflates into the scan's memory, where the scan takes each piece (no copy); content gathered for the quick
  // look, which most often answers, is inflated apart (the module is not even compiled then).
  const room = gathered < 0 ? () => scan.room() : undefined;
  const { ended, made } = decodePieces(encoded, chain, budget, take, room);
  if (ended === 'over budget') return { depth: BALANCED, made };
  if (gathered >= 0) {
    const quick = quickLook(gatherRoom.toString('latin1', 0, gathered));
    if (quick) return { depth: quick, made };
    scan.push(gatherRoom.subarray(0, gathered));
  }
  return { depth: scan.result(), made };
}

/** Where decodedDepth gathers a stream's decoded bytes for the quick look: reused, its pages touched only as far as used. */
const gatherRoom = Buffer.allocUnsafeSlow(QUICK_PIECE);

/**
 * Where unfiltered content read from a lazily read file is put while it is
 * scanned: reused, as a fresh buffer per stream (20 MB over the 500-page
 * bench document) kept the garbage collector busy. Streams larger than this
 * get their own. (Filtered content is decoded as it is read: see
 * decodedDepth.)
 */
let scratch: Buffer | undefined;

/**
 * The scratch buffer, made on first use: V8 counts an ArrayBuffer's bytes towards the old generation's limit, and
 * 4 MB made as the module loaded brought on a full collection in a watermark of 2,000 small pages (long-text),
 * whose content is all filtered and never needs it.
 */
function scratchBuffer(): Buffer {
  scratch ??= Buffer.allocUnsafeSlow(4 * 2 ** 20);
  return scratch;
}
