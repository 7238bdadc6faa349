/**
 * Inflating and deflating whole buffers through Node's zlib binding: the
 * native handle that node:zlib's own synchronous functions drive (its
 * `writeSync`, then the two counters it leaves), without loading node:zlib.
 * That module loads Node's streams with it (twenty internal modules): about
 * 1 MiB of peak RSS on every run that inflates or deflates anything, which
 * none of these calls use (a long-text rotate 58.6 -> 59.6 MiB with `-r
 * zlib`, bench/README.md "wmrss"). The same zlib, given the same parameters,
 * input and flush as node:zlib gives it: the same bytes. A Node without the
 * binding gets node:zlib.
 */
import { nodeBinding } from './node-binding.js';

/** zlib's flush values (zlib.h). */
export const Z_SYNC_FLUSH = 2;
const Z_FINISH = 4;

/** The binding's modes (Node's node_zlib.cc). */
const DEFLATE = 1;
export const INFLATE = 2;
const INFLATERAW = 6;
type Mode = typeof DEFLATE | typeof INFLATE | typeof INFLATERAW;

/**
 * What node:zlib passes by default (zlib.h's defaults), inflate included: a
 * window of 0 (read from the header) would be kept by a reset as the first
 * stream's, and a reused inflater would then refuse any later stream with a
 * larger window ("invalid window size"); 15 takes every window a header may give.
 */
const WINDOW_BITS = 15;
const MEM_LEVEL = 8;
const STRATEGY = 0;
const DEFAULT_LEVEL = -1;

export interface ZlibOptions {
  /** Deflate's level (default: zlib's). */
  level?: number;
  /** The flush of the one write (default Z_FINISH: data cut off is an error; Z_SYNC_FLUSH gives what it decoded). */
  finishFlush?: number;
  /** More output than this throws a RangeError whose code is ERR_BUFFER_TOO_LARGE, as node:zlib's does. */
  maxOutputLength?: number;
}

/** A native zlib stream, as node:zlib's classes hold it. */
export interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOffset: number, inLength: number, output: Uint8Array, outOffset: number, outLength: number): void;
  /** Called during writeSync when zlib fails (required: the binding calls it). */
  onerror: (message: string, errno: number, code?: string) => void;
  reset(): void;
  close(): void;
}

interface ZlibBinding {
  Zlib: new (
    mode: Mode,
  ) => ZlibHandle & {
    init(windowBits: number, level: number, memLevel: number, strategy: number, state: Uint32Array, processCallback: () => void, dictionary: undefined): void;
  };
}

let binding: ZlibBinding | null | undefined;

/**
 * A native zlib stream of `mode` and the counters each `writeSync` leaves in
 * `state`: [output room left, input left]. Undefined when this Node has no
 * binding to make one.
 */
export function openZlib(mode: Mode, level = DEFAULT_LEVEL): { handle: ZlibHandle; state: Uint32Array } | undefined {
  if (binding === undefined) {
    const Zlib = nodeBinding('zlib')?.Zlib;
    binding = typeof Zlib === 'function' ? { Zlib: Zlib as ZlibBinding['Zlib'] } : null;
  }
  if (binding === null) return undefined;
  const handle = new binding.Zlib(mode);
  const state = new Uint32Array(2);
  try {
    // The callback is for asynchronous writes, which are never made here.
    handle.init(WINDOW_BITS, level, MEM_LEVEL, STRATEGY, state, noAsyncWrites, undefined);
  } catch {
    // An internal binding may change between Node versions: one that no longer takes these arguments gets node:zlib.
    binding = null;
    return undefined;
  }
  return { handle, state };
}

function noAsyncWrites(): void {
  throw new Error('zlib-native makes synchronous writes only');
}

/** zlib-wrapped inflate, as node:zlib's inflateSync. */
export function inflateSync(data: Uint8Array, options: ZlibOptions = {}): Buffer {
  return whole(INFLATE, data, options) ?? nodeZlib().inflateSync(data, options);
}

/**
 * zlib-wrapped inflate, as inflateSync with `maxOutputLength: size`, into one
 * buffer of `size` + 1 bytes made up front (pages never written are never
 * touched): for output whose most is known, without the 16 KB pieces and
 * their joined copy held beside each other.
 */
export function inflateSized(data: Uint8Array, size: number, finishFlush = Z_FINISH): Buffer {
  const made = withStream(INFLATE, DEFAULT_LEVEL, (write, state) => {
    const out = Buffer.allocUnsafeSlow(size + 1);
    // One write: zlib stops with room left only when the input is used up or the stream has ended.
    write(finishFlush, data, 0, data.byteLength, out, 0, out.length);
    const [roomLeft] = state;
    if (roomLeft === 0) throw tooLarge(size);
    return out.subarray(0, out.length - roomLeft);
  });
  return made ?? nodeZlib().inflateSync(data, { finishFlush, maxOutputLength: size });
}

/** Raw inflate, as node:zlib's inflateRawSync. */
export function inflateRawSync(data: Uint8Array, options: ZlibOptions = {}): Buffer {
  return whole(INFLATERAW, data, options) ?? nodeZlib().inflateRawSync(data, options);
}

/** zlib-wrapped deflate, as node:zlib's deflateSync. */
export function deflateSync(data: Uint8Array, options: ZlibOptions = {}): Buffer {
  return whole(DEFLATE, data, options) ?? nodeZlib().deflateSync(data, options);
}

function nodeZlib(): typeof import('node:zlib') {
  return process.getBuiltinModule('node:zlib') as typeof import('node:zlib');
}

/**
 * Where `whole` makes its output first, kept for the next call: an output that fits is copied out at its size, one
 * allocation and one copy, where node:zlib's 16 KB pieces cost an allocation each (a new ArrayBuffer) and a copy to
 * join them (the 87 object streams of bench's object-streams.pdf, 10 MB inflated: 31 -> 23 ms of CPU). A larger
 * output keeps it as its first piece and goes on in pieces (one buffer grown by doubling instead: +4 MiB of peak RSS
 * on object-streams, whose largest object stream inflates to 2.7 MB).
 */
let scratch: Buffer | undefined;
const SCRATCH_BYTES = 256 * 1024;

/** An output larger than the scratch goes on in pieces of this size. */
const PIECE_BYTES = 256 * 1024;

/** `data` through a fresh stream in one write, as node:zlib's processChunkSync does it; undefined without the binding. */
function whole(mode: Mode, data: Uint8Array, options: ZlibOptions): Buffer | undefined {
  const flush = options.finishFlush ?? Z_FINISH;
  const max = options.maxOutputLength ?? Infinity;
  return withStream(mode, options.level ?? DEFAULT_LEVEL, (write, state) => {
    const pieces: Buffer[] = [];
    let total = 0;
    let inOffset = 0;
    let inLength = data.byteLength;
    let out = (scratch ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES));
    let outOffset = 0;
    for (;;) {
      // Room for at most one byte past `max`: a bomb stops there.
      const room = Math.min(out.length - outOffset, max + 1 - total);
      write(flush, data, inOffset, inLength, out, outOffset, room);
      const [roomLeft, inputLeft] = state;
      const made = room - roomLeft;
      outOffset += made;
      total += made;
      if (total > max) throw tooLarge(max);
      // Room left in the output: zlib took all it could (the input is used up, or the stream ended).
      if (roomLeft !== 0) break;
      // The buffer is full: it becomes a piece (the scratch too, a new one made for the next call).
      pieces.push(out);
      if (out === scratch) scratch = undefined;
      out = Buffer.allocUnsafeSlow(PIECE_BYTES);
      outOffset = 0;
      inOffset += inLength - inputLeft;
      inLength = inputLeft;
    }
    if (total === 0) return Buffer.alloc(0);
    if (pieces.length === 0) {
      const result = Buffer.allocUnsafe(total);
      result.set(out.subarray(0, total));
      return result;
    }
    pieces.push(out.subarray(0, outOffset));
    return Buffer.concat(pieces, total);
  });
}

/**
 * `run` given a fresh stream's writeSync (which throws what zlib reported, as
 * node:zlib's error) and its counters; the stream is closed after.
 * Undefined without the binding.
 */
function withStream(mode: Mode, level: number, run: (write: ZlibHandle['writeSync'], state: Uint32Array) => Buffer): Buffer | undefined {
  const opened = openZlib(mode, level);
  if (!opened) return undefined;
  const { handle, state } = opened;
  let failure: Error | undefined;
  handle.onerror = (message, errno, code) => {
    failure = Object.assign(new Error(message), { errno, code });
  };
  const write: ZlibHandle['writeSync'] = (...args) => {
    handle.writeSync(...args);
    if (failure) throw failure;
  };
  try {
    return run(write, state);
  } finally {
    handle.close();
  }
}

/** node:zlib's error for output past maxOutputLength. */
function tooLarge(max: number): RangeError {
  return Object.assign(new RangeError(`Cannot create a Buffer larger than ${max} bytes`), { code: 'ERR_BUFFER_TOO_LARGE' });
}
