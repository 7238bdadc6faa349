/**
 * The build puts src/pdf/watermark/brotli-node.ts in the place of the brotli
 * package's decoder for fontkit (dist/cli-fontkit.cjs): what fontkit gets
 * from it must be what that decoder gives, and damaged data must give no
 * bytes (fontkit then refuses the font) rather than throw elsewhere.
 */
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import decompress from '../../../src/pdf/watermark/brotli-node.js';

/** The package's JavaScript decoder, as fontkit in node_modules calls it. */
const brotliJs = createRequire(import.meta.url)('brotli/decompress.js') as (data: Uint8Array, size: number) => Uint8Array;

const samples = {
  text: new TextEncoder().encode('glyf loca hmtx cmap '.repeat(5000)),
  random: new Uint8Array(randomBytes(70_000)),
};

describe('Brotli on node:zlib', () => {
  it.each(Object.entries(samples))('gives what the JavaScript decoder gives on %s data', (_, data) => {
    const compressed = new Uint8Array(brotliCompressSync(data));
    const ours = decompress(compressed, data.length);
    expect(ours).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(ours as Uint8Array).equals(Buffer.from(brotliJs(compressed, data.length)))).toBe(true);
    expect(Buffer.from(ours as Uint8Array).equals(data)).toBe(true);
  });

  it('gives null for data cut short, data that is no Brotli stream, and more bytes than the font declares', () => {
    const compressed = new Uint8Array(brotliCompressSync(samples.text));
    expect(decompress(compressed.subarray(0, compressed.length >> 1), samples.text.length)).toBeNull();
    expect(decompress(new Uint8Array([0xff, 0xff, 0xff, 0xff]), 100)).toBeNull();
    expect(decompress(compressed, samples.text.length - 1)).toBeNull();
  });
});
