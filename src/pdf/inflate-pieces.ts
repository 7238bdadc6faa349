/**
 * Synchronous Flate decoding a piece at a time, for code that only looks at
 * data (the watermark's balance scan): each piece is handed over and dropped
 * before the next is made, so a bomb (a few KB that claim gigabytes) never
 * sits in memory whole and the caller can stop early.
 *
 * node:zlib has no public synchronous streaming API: inflateSync returns the
 * whole output, and a zlib stream is asynchronous. This drives the stream's
 * native handle the way inflateSync itself does (writeSync, then the
 * counters in _writeState); when a Node version lacks those internals, it
 * returns undefined and the caller decodes in one piece under a cap.
 */
import { constants, createInflate } from 'node:zlib';

interface NativeZlib {
  writeSync(flush: number, input: Uint8Array, inOffset: number, inLength: number, output: Uint8Array, outOffset: number, outLength: number): void;
  onerror: (message: string, errno: number) => void;
}

const PIECE = 2 ** 20;

// One output buffer for every call (they are synchronous): a fresh megabyte per
// content stream made the garbage collector a fifth of a watermark's time.
let spare: Buffer | undefined;

/**
 * Calls `take` with each piece of output (a view valid only during the call)
 * until the data ends or `take` returns false. Damaged data throws, as
 * inflateSync does; data cut off ends quietly. Undefined: not supported here.
 */
export function inflatePieces(data: Uint8Array, take: (piece: Buffer) => boolean | void): true | undefined {
  const inflater = createInflate() as unknown as { _handle?: NativeZlib; _writeState?: Uint32Array; close(): void };
  const handle = inflater._handle;
  const state = inflater._writeState;
  if (typeof handle?.writeSync !== 'function' || !(state instanceof Uint32Array)) {
    inflater.close();
    return undefined;
  }
  let error: Error | undefined;
  handle.onerror = (message) => {
    error = new Error(`Flate data does not decode: ${message}`);
  };
  // A call from inside `take` finds the spare taken and makes its own.
  const out = spare ?? Buffer.allocUnsafe(PIECE);
  spare = undefined;
  let inOffset = 0;
  let inLength = data.length;
  try {
    for (;;) {
      handle.writeSync(constants.Z_SYNC_FLUSH, data, inOffset, inLength, out, 0, PIECE);
      if (error) throw error;
      const [availOut, availIn] = state;
      if (availOut < PIECE && take(out.subarray(0, PIECE - availOut)) === false) return true;
      inOffset += inLength - availIn;
      inLength = availIn;
      // Room left in the output: the input is used up (or the stream ended).
      if (availOut !== 0) return true;
    }
  } finally {
    inflater.close();
    spare = out;
  }
}
