/**
 * The three fflate functions pdf-lib calls, on Node's native zlib. The build
 * (scripts/build.mjs) puts this module in fflate's place: fflate loads
 * worker_threads when it is imported, about 10 ms of every run that touches
 * pdf-lib, and its JavaScript deflate is slower than zlib's.
 *
 * Decoding follows fflate, not zlib's stricter rules: the zlib header and the
 * Adler-32 checksum are skipped rather than checked (a PNG with a wrong
 * checksum still decodes), and data cut off early gives what it decoded.
 */
import { deflateSync, inflateRawSync, Z_SYNC_FLUSH } from '../../core/zlib-native.js';

interface DeflateOptions {
  level?: number;
  mem?: number;
}

/** A plain Uint8Array that owns its memory: pdf-lib code may use `.buffer` of what it gets. */
function own(buffer: Buffer): Uint8Array {
  if (buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength) return new Uint8Array(buffer.buffer);
  return new Uint8Array(buffer);
}

/** zlib-wrapped deflate, as fflate's `zlibSync`. */
export function zlibSync(data: Uint8Array, options: DeflateOptions = {}): Uint8Array {
  return own(deflateSync(data, options.level === undefined ? {} : { level: options.level }));
}

/** Raw inflate, as fflate's `inflateSync`. */
export function inflateSync(data: Uint8Array): Uint8Array {
  return own(inflateRawSync(data, { finishFlush: Z_SYNC_FLUSH }));
}

/** zlib-wrapped inflate, as fflate's `unzlibSync`: the 2-byte header (6 with a preset dictionary) and the 4-byte checksum are not checked. */
export function unzlibSync(data: Uint8Array): Uint8Array {
  if (data.length < 2 || (data[0] & 0x0f) !== 8 || ((data[0] << 8) | data[1]) % 31 !== 0) throw new Error('invalid zlib data');
  const header = data[1] & 0x20 ? 6 : 2;
  return inflateSync(data.subarray(header, Math.max(header, data.length - 4)));
}
