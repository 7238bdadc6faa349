/**
 * The `brotli/decompress.js` function fontkit calls for a WOFF2 font, on
 * Node's native Brotli. The build (scripts/build.mjs) puts this module in its
 * place in dist/cli-fontkit.cjs: the JavaScript decoder loads a 120 KB
 * dictionary as JavaScript source, about 12 ms of every watermark that loads
 * fontkit, which reads no WOFF2 itself (woff2.ts decodes the shipped fonts).
 */
import { brotliDecompressSync } from 'node:zlib';

/** `data` decompressed, at most `size` bytes of it, or null when it is no Brotli stream of that size (fontkit then refuses the font). */
export default function decompress(data: Uint8Array, size: number): Uint8Array | null {
  try {
    return new Uint8Array(brotliDecompressSync(data, { maxOutputLength: Math.max(1, size) }));
  } catch {
    return null;
  }
}
