/**
 * The build puts src/pdf/watermark/fflate-node.ts in the place of fflate for pdf-lib:
 * what pdf-lib gets from it must be what fflate gives, on good data and on
 * the damaged data fflate tolerates.
 */
import * as fflate from 'fflate';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inflateSync, unzlibSync, zlibSync } from '../../../src/pdf/watermark/fflate-node.js';

const text = new TextEncoder().encode('BT /F1 12 Tf 72 712 Td (Hello) Tj ET\n'.repeat(2000));
/** Byte for byte (toEqual on large typed arrays is slow). */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

const samples = { text, random: new Uint8Array(randomBytes(70_000)), empty: new Uint8Array(0) };

describe('fflate on node:zlib', () => {
  it.each(Object.entries(samples))('round-trips %s data both ways with fflate', (_, data) => {
    expect(same(fflate.unzlibSync(zlibSync(data)), data)).toBe(true);
    expect(same(unzlibSync(fflate.zlibSync(data)), data)).toBe(true);
    expect(same(unzlibSync(zlibSync(data, { level: 9 })), data)).toBe(true);
    expect(same(inflateSync(fflate.deflateSync(data)), data)).toBe(true);
  });

  it('gives plain Uint8Arrays that own their memory (pdf-lib reads .buffer)', () => {
    for (const out of [zlibSync(text), unzlibSync(fflate.zlibSync(new Uint8Array([1, 2, 3])))]) {
      expect(out.constructor).toBe(Uint8Array);
      expect(out.byteOffset).toBe(0);
      expect(out.buffer.byteLength).toBe(out.byteLength);
    }
  });

  it('decodes data with a wrong checksum or cut short, as fflate does', () => {
    const packed = fflate.zlibSync(text);
    const badChecksum = packed.slice();
    badChecksum[badChecksum.length - 1] ^= 0xff;
    expect(same(unzlibSync(badChecksum), fflate.unzlibSync(badChecksum))).toBe(true);
    const cut = packed.subarray(0, packed.length - 40);
    expect(same(text.subarray(0, 1000), unzlibSync(cut).subarray(0, 1000))).toBe(true);
  });

  it('refuses data that is not zlib', () => {
    expect(() => unzlibSync(new Uint8Array([1, 2, 3, 4, 5, 6]))).toThrow();
    expect(() => fflate.unzlibSync(new Uint8Array([1, 2, 3, 4, 5, 6]))).toThrow();
  });
});
