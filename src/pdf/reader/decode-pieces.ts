/**
 * A stream's filter chain decoded a piece at a time, for code that only looks
 * at the data (the watermark's content scan): each piece is handed over and
 * dropped before the next is made, and every filter of the chain counts what
 * it makes against one byte budget. So a bomb never sits in memory whole,
 * whatever the chain: `/Filter [/FlateDecode /FlateDecode]` (6 KB that hold
 * 2 MB of Flate that hold 2 GiB) stops at the budget like a plain one, and
 * so do LZW (up to 2,700 times) and RunLength (64 times).
 *
 * node:zlib has no public synchronous streaming API: inflateSync returns the
 * whole output, and a zlib stream is asynchronous. Flate drives zlib's
 * native handle the way inflateSync itself does (core/zlib-native.ts:
 * writeSync, then the counters it leaves); when a Node version lacks that
 * binding, the data is inflated in one piece, capped at what is left of the
 * budget.
 * pdf-lib's decoders (decodePDFRawStream) are not used: they keep all they
 * decode and know no cap.
 */
import { INFLATE, inflateSync, openZlib, Z_SYNC_FLUSH, type ZlibHandle } from '../../core/zlib-native.js';
import { PDFArray, PDFDict, PDFName, PDFNumber, type PDFObject } from '../model/primitives.js';

/**
 * What is decoded: bytes, or a function that hands them over in chunks, each
 * valid only during the call (a range of a lazily read file, read through a
 * small reused buffer instead of copied whole first).
 */
export type Encoded = Uint8Array | ((each: (chunk: Uint8Array) => void) => void);

/** The chunks of `data` in one buffer. */
function joined(data: (each: (chunk: Uint8Array) => void) => void): Uint8Array {
  const chunks: Buffer[] = [];
  data((chunk) => void chunks.push(Buffer.from(chunk)));
  return Buffer.concat(chunks);
}

/** Receives each piece (a view valid only during the call); false stops the decoding. */
export type Take = (piece: Uint8Array) => boolean | void;

/** How the decoding ended: all of it, stopped by `take`, or stopped at the budget. */
export type Decoded = 'done' | 'stopped' | 'over budget';

/** A filter a piece at a time: `write` and `end` return false once `emit` has said stop. */
interface Decoder {
  write(input: Uint8Array, emit: (piece: Uint8Array) => boolean): boolean;
  end(emit: (piece: Uint8Array) => boolean): boolean;
  close(): void;
}

/** One filter of a chain, as its dictionary gives it. */
export interface Filter {
  name: 'FlateDecode' | 'LZWDecode' | 'ASCIIHexDecode' | 'ASCII85Decode' | 'RunLengthDecode';
  /** LZW's /EarlyChange (default 1). */
  earlyChange: number;
}

const NAMES: Record<string, Filter['name']> = {
  FlateDecode: 'FlateDecode',
  Fl: 'FlateDecode',
  LZWDecode: 'LZWDecode',
  LZW: 'LZWDecode',
  ASCIIHexDecode: 'ASCIIHexDecode',
  AHx: 'ASCIIHexDecode',
  ASCII85Decode: 'ASCII85Decode',
  A85: 'ASCII85Decode',
  RunLengthDecode: 'RunLengthDecode',
  RL: 'RunLengthDecode',
};

/** The same, by the name objects themselves: names are pooled by their decoded text (#xx escapes and all), so no text is made per stream. */
const NAME_OBJECTS = new Map<PDFName, Filter['name']>(Object.entries(NAMES).map(([text, name]) => [PDFName.of(text), name]));

const FILTER = PDFName.of('Filter');
const DECODE_PARMS = PDFName.of('DecodeParms');
const PREDICTOR = PDFName.of('Predictor');
const EARLY_CHANGE = PDFName.of('EarlyChange');
/** The common chain, one Flate filter without parameters, given as one object (a chain is only read). */
const FLATE_ONLY: readonly Filter[] = Object.freeze([Object.freeze({ name: 'FlateDecode', earlyChange: 1 } as const)]);

const numberIn = (parms: PDFObject | undefined, key: PDFName, fallback: number): number => {
  const value = parms instanceof PDFDict ? parms.lookup(key) : undefined;
  return value instanceof PDFNumber ? value.asNumber() : fallback;
};

/**
 * The chain a stream dictionary names, first filter first; undefined when one
 * of them cannot be decoded here (an image filter, a crypt filter, a
 * predictor), or the entries are not names.
 */
export function filterChain(dict: PDFDict): readonly Filter[] | undefined {
  const filter = dict.lookup(FILTER);
  const parms = dict.lookup(DECODE_PARMS);
  // Most page content: /Filter /FlateDecode alone (asked for each content stream of the document).
  if (parms === undefined && filter instanceof PDFName && NAME_OBJECTS.get(filter) === 'FlateDecode') return FLATE_ONLY;
  const names = filter === undefined ? [] : filter instanceof PDFArray ? filter.asArray().map((f) => dict.context.lookup(f)) : [filter];
  const parmList = parms instanceof PDFArray ? parms.asArray().map((p) => dict.context.lookup(p)) : [parms];
  const chain: Filter[] = [];
  for (const [i, name] of names.entries()) {
    const known = name instanceof PDFName ? NAME_OBJECTS.get(name) : undefined;
    if (!known) return undefined;
    const p = parmList[i];
    if (numberIn(p, PREDICTOR, 1) !== 1) return undefined;
    chain.push({ name: known, earlyChange: numberIn(p, EARLY_CHANGE, 1) });
  }
  return chain;
}

/**
 * Decodes `data` through `chain` and hands the result to `take` a piece at a
 * time; data given in chunks is decoded as they come. Every filter's output counts against `budget`: past it, the decoding
 * stops ('over budget'). `made`: what the filters made in all. Damaged or
 * cut-off data ends where it breaks, as readers draw what decoded up to
 * there. `room`: where the last filter makes each piece, if it is Flate (the
 * content scan's memory, so that its pieces are not copied there); asked
 * again for each piece.
 */
export function decodePieces(data: Encoded, chain: readonly Filter[], budget: number, take: Take, room?: () => Uint8Array): { ended: Decoded; made: number } {
  if (chain.length === 0) {
    const whole = typeof data === 'function' ? joined(data) : data;
    if (whole.length > budget) return { ended: 'over budget', made: 0 };
    return { ended: take(whole) === false ? 'stopped' : 'done', made: 0 };
  }
  let made = 0;
  let ended: Decoded = 'done';
  const decoders = chain.map((filter, i) => decoderFor(filter, budget, i === chain.length - 1 ? room : undefined));
  // emits[i] takes what decoder i makes: into decoder i + 1, or to `take` after the last.
  const emits: Array<(piece: Uint8Array) => boolean> = decoders.map((_, i) => (piece) => {
    made += piece.length;
    if (made > budget) {
      ended = 'over budget';
      return false;
    }
    const ok = i + 1 < decoders.length ? decoders[i + 1].write(piece, emits[i + 1]) : take(piece) !== false;
    if (!ok && ended === 'done') ended = 'stopped';
    return ok;
  });
  try {
    let going = true;
    const write = (chunk: Uint8Array) => {
      if (going) going = decoders[0].write(chunk, emits[0]);
    };
    if (typeof data === 'function') data(write);
    else write(data);
    if (going) {
      for (let i = 0; i < decoders.length; i++) if (!decoders[i].end(emits[i])) break;
    }
  } catch (err) {
    if (!(err instanceof OverBudget)) throw err;
    ended = 'over budget';
  } finally {
    for (const decoder of decoders) decoder.close();
  }
  return { ended, made: Math.min(made, budget) };
}

function decoderFor(filter: Filter, budget: number, room: (() => Uint8Array) | undefined): Decoder {
  switch (filter.name) {
    case 'FlateDecode':
      return FlateDecoder.create(room) ?? new WholeFlateDecoder(budget);
    case 'LZWDecode':
      return new LzwDecoder(filter.earlyChange);
    case 'ASCIIHexDecode':
      return new AsciiHexDecoder();
    case 'ASCII85Decode':
      return new Ascii85Decoder();
    case 'RunLengthDecode':
      return new RunLengthDecoder();
  }
}

/** Output is made in pieces of this size. */
const PIECE = 2 ** 20;

// Output buffers for reuse (the decoding is synchronous): a fresh megabyte per
// content stream made the garbage collector a fifth of a watermark's time.
const spares: Buffer[] = [];
const borrow = (): Buffer => spares.pop() ?? Buffer.allocUnsafe(PIECE);
const giveBack = (buffer: Buffer): void => {
  if (spares.length < 4) spares.push(buffer);
};

/** Decoders that write into a PIECE-sized buffer and emit it when full (LZW, RunLength, the ASCII ones). */
abstract class BufferedDecoder implements Decoder {
  private out: Buffer | undefined = borrow();
  protected used = 0;

  abstract write(input: Uint8Array, emit: (piece: Uint8Array) => boolean): boolean;

  /** Appends a byte; false when emitting a full piece was refused. */
  protected put(byte: number, emit: (piece: Uint8Array) => boolean): boolean {
    this.out![this.used++] = byte;
    return this.used < PIECE || this.flush(emit);
  }

  protected flush(emit: (piece: Uint8Array) => boolean): boolean {
    if (this.used === 0) return true;
    const piece = this.out!.subarray(0, this.used);
    this.used = 0;
    return emit(piece);
  }

  end(emit: (piece: Uint8Array) => boolean): boolean {
    return this.flush(emit);
  }

  close(): void {
    if (this.out) giveBack(this.out);
    this.out = undefined;
  }
}

/**
 * Decoders for reuse, their inflaters reset between streams: making a zlib
 * stream (its native state, its buffers, a stream object) cost more than
 * inflating a small content stream, and a watermark scans one per page
 * (2,000 on a long text document); the decoder around it and its error
 * callback are kept with it.
 */
const spareFlate: FlateDecoder[] = [];

/** Flate through zlib's native handle, fed as input comes. */
class FlateDecoder implements Decoder {
  /** Where the pieces are made: the caller's room, or a borrowed PIECE-sized buffer. */
  private room: (() => Uint8Array) | undefined;
  private out: Buffer | undefined;
  private open = true;
  private broken = false;

  private constructor(
    private readonly handle: ZlibHandle,
    private readonly state: Uint32Array,
  ) {
    handle.onerror = () => {
      this.broken = true;
    };
  }

  /** Undefined when this Node version lacks the binding. */
  static create(room: (() => Uint8Array) | undefined): FlateDecoder | undefined {
    let decoder = spareFlate.pop();
    if (!decoder) {
      const opened = openZlib(INFLATE);
      if (!opened) return undefined;
      decoder = new FlateDecoder(opened.handle, opened.state);
    }
    decoder.room = room;
    decoder.out = room ? undefined : borrow();
    decoder.open = true;
    return decoder;
  }

  write(input: Uint8Array, emit: (piece: Uint8Array) => boolean): boolean {
    let inOffset = 0;
    let inLength = input.length;
    while (!this.broken) {
      const out = this.room?.() ?? this.out!;
      this.handle.writeSync(Z_SYNC_FLUSH, input, inOffset, inLength, out, 0, out.length);
      // Damage ends the data; what came before it was handed over.
      if (this.broken) return true;
      const [availOut, availIn] = this.state;
      if (availOut < out.length && !emit(out.subarray(0, out.length - availOut))) return false;
      inOffset += inLength - availIn;
      inLength = availIn;
      // Room left in the output: the input is used up (or the stream ended).
      if (availOut !== 0) return true;
    }
    return true;
  }

  end(): boolean {
    return true;
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    // A sound inflater is reset and kept for the next stream; one that met damage is dropped.
    if (this.broken || spareFlate.length >= 4) this.handle.close();
    else {
      this.handle.reset();
      spareFlate.push(this);
    }
    if (this.out) giveBack(this.out);
    this.out = undefined;
    this.room = undefined;
  }
}

/** Thrown by a decoder that knows, without making it, that its output passes the budget. */
class OverBudget extends Error {}

/** Flate in one piece, for a Node without the internals FlateDecoder uses: capped, as the budget holds anyway. */
class WholeFlateDecoder implements Decoder {
  private readonly input: Uint8Array[] = [];

  constructor(private readonly budget: number) {}

  write(input: Uint8Array): boolean {
    this.input.push(Uint8Array.from(input));
    return true;
  }

  end(emit: (piece: Uint8Array) => boolean): boolean {
    let out: Buffer;
    try {
      // One byte past the budget is enough to tell "over".
      out = inflateSync(Buffer.concat(this.input), { finishFlush: Z_SYNC_FLUSH, maxOutputLength: this.budget + 1 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new OverBudget();
      // Damage ends the data (node's one-piece inflate gives nothing of it then).
      return true;
    }
    return emit(out);
  }

  close(): void {}
}

/** LZW as PDF uses it: codes of 9 to 12 bits, 256 clears, 257 ends; /EarlyChange 1 widens codes one early. */
class LzwDecoder extends BufferedDecoder {
  private readonly prefix = new Uint16Array(4096);
  private readonly suffix = new Uint8Array(4096);
  private readonly lengths = new Uint16Array(4096);
  private readonly sequence = new Uint8Array(4096);
  private bits = 0;
  private bitCount = 0;
  private codeLength = 9;
  private next = 258;
  private previous = -1;
  private done = false;

  constructor(private readonly earlyChange: number) {
    super();
    for (let i = 0; i < 256; i++) {
      this.suffix[i] = i;
      this.lengths[i] = 1;
    }
  }

  write(input: Uint8Array, emit: (piece: Uint8Array) => boolean): boolean {
    for (let i = 0; i < input.length && !this.done; i++) {
      this.bits = ((this.bits << 8) | input[i]) & 0xffffff;
      this.bitCount += 8;
      while (this.bitCount >= this.codeLength && !this.done) {
        this.bitCount -= this.codeLength;
        const code = (this.bits >>> this.bitCount) & ((1 << this.codeLength) - 1);
        if (!this.code(code, emit)) return false;
      }
    }
    return true;
  }

  private code(code: number, emit: (piece: Uint8Array) => boolean): boolean {
    if (code === 256) {
      this.codeLength = 9;
      this.next = 258;
      this.previous = -1;
      return true;
    }
    if (code === 257) {
      this.done = true;
      return true;
    }
    let length: number;
    if (code < this.next) {
      length = this.lengths[code];
      for (let j = length - 1, c = code; j >= 0; j--) {
        this.sequence[j] = this.suffix[c];
        c = this.prefix[c];
      }
    } else if (this.previous >= 0) {
      // The code being defined now (KwKwK): the previous sequence and its own first byte.
      length = this.lengths[this.previous] + 1;
      for (let j = length - 2, c = this.previous; j >= 0; j--) {
        this.sequence[j] = this.suffix[c];
        c = this.prefix[c];
      }
      this.sequence[length - 1] = this.sequence[0];
    } else {
      // A code that means nothing yet: damage, which ends the data.
      this.done = true;
      return true;
    }
    if (this.previous >= 0 && this.next < 4096) {
      this.prefix[this.next] = this.previous;
      this.suffix[this.next] = this.sequence[0];
      this.lengths[this.next] = this.lengths[this.previous] + 1;
      this.next++;
      if (this.next + this.earlyChange >= 1 << this.codeLength && this.codeLength < 12) this.codeLength++;
    }
    this.previous = code;
    for (let j = 0; j < length; j++) if (!this.put(this.sequence[j], emit)) return false;
    return true;
  }
}

const hexValue = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1);

/** Pairs of hex digits; white space and anything else skipped; `>` ends (an odd last digit is followed by 0). */
class AsciiHexDecoder extends BufferedDecoder {
  private high = -1;
  private done = false;

  write(input: Uint8Array, emit: (piece: Uint8Array) => boolean): boolean {
    for (let i = 0; i < input.length && !this.done; i++) {
      const c = input[i];
      if (c === 0x3e) {
        this.done = true;
        break;
      }
      const v = hexValue(c);
      if (v < 0) continue;
      if (this.high < 0) this.high = v;
      else {
        const byte = (this.high << 4) | v;
        this.high = -1;
        if (!this.put(byte, emit)) return false;
      }
    }
    return true;
  }

  override end(emit: (piece: Uint8Array) => boolean): boolean {
    if (this.high >= 0 && !this.put(this.high << 4, emit)) return false;
    this.high = -1;
    return super.end(emit);
  }
}

/** Base-85 groups of five characters for four bytes; `z` for four zeros; `~` ends. */
class Ascii85Decoder extends BufferedDecoder {
  private readonly group = new Uint8Array(5);
  private count = 0;
  private done = false;

  write(input: Uint8Array, emit: (piece: Uint8Array) => boolean): boolean {
    for (let i = 0; i < input.length && !this.done; i++) {
      const c = input[i];
      if (c === 0x7e) {
        this.done = true;
        break;
      }
      if (c === 0x7a && this.count === 0) {
        for (let k = 0; k < 4; k++) if (!this.put(0, emit)) return false;
        continue;
      }
      if (c < 0x21 || c > 0x75) continue;
      this.group[this.count++] = c - 0x21;
      if (this.count === 5 && !this.flushGroup(5, emit)) return false;
    }
    return true;
  }

  /** The bytes of a group of `n` characters (a short last group is padded with `u`). */
  private flushGroup(n: number, emit: (piece: Uint8Array) => boolean): boolean {
    for (let k = n; k < 5; k++) this.group[k] = 84;
    let value = 0;
    for (let k = 0; k < 5; k++) value = value * 85 + this.group[k];
    this.count = 0;
    for (let k = 0; k < n - 1; k++) if (!this.put(Math.floor(value / 256 ** (3 - k)) & 0xff, emit)) return false;
    return true;
  }

  override end(emit: (piece: Uint8Array) => boolean): boolean {
    if (this.count > 1 && !this.flushGroup(this.count, emit)) return false;
    this.count = 0;
    return super.end(emit);
  }
}

/** A length byte, then that many + 1 bytes (0 to 127) or one byte repeated 257 - length times (129 to 255); 128 ends. */
class RunLengthDecoder extends BufferedDecoder {
  /** Literal bytes still to copy, or the repeat count waiting for its byte (negative). */
  private pending = 0;
  private done = false;

  write(input: Uint8Array, emit: (piece: Uint8Array) => boolean): boolean {
    for (let i = 0; i < input.length && !this.done; i++) {
      const c = input[i];
      if (this.pending > 0) {
        this.pending--;
        if (!this.put(c, emit)) return false;
      } else if (this.pending < 0) {
        for (let n = -this.pending; n > 0; n--) if (!this.put(c, emit)) return false;
        this.pending = 0;
      } else if (c < 128) this.pending = c + 1;
      else if (c > 128) this.pending = -(257 - c);
      else this.done = true;
    }
    return true;
  }
}
