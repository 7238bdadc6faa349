import { describe, expect, it } from 'vitest';
import { unfilterPngRows } from '../../../src/pdf/reader/png-rows.js';

/** PNG's forward filters (RFC 2083, 6.3-6.6) of `raw`'s rows, each row given its type from `types`. */
function filterRows(raw: Uint8Array, rows: number, stride: number, bpp: number, types: number[]): Uint8Array {
  const out = new Uint8Array(rows * (stride + 1));
  const at = (y: number, i: number) => (y >= 0 && i >= 0 ? raw[y * stride + i] : 0);
  for (let y = 0; y < rows; y++) {
    out[y * (stride + 1)] = types[y];
    for (let i = 0; i < stride; i++) {
      const x = at(y, i);
      const a = at(y, i - bpp);
      const b = at(y - 1, i);
      const c = at(y - 1, i - bpp);
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predicted = [0, a, b, (a + b) >> 1, paeth][types[y]];
      out[y * (stride + 1) + 1 + i] = (x - predicted) & 255;
    }
  }
  return out;
}

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state;
  };
}

describe('PNG row filters undone (png-rows.ts)', () => {
  it('gives back the rows every filter type made, packed and in place, at 1 to 4 bytes a pixel', () => {
    const next = random(7);
    for (let round = 0; round < 200; round++) {
      const bpp = 1 + (round % 4);
      const stride = bpp * (1 + (next() % 9));
      const rows = 1 + (next() % 7);
      const raw = Uint8Array.from({ length: rows * stride }, () => next() & 255);
      const types = Array.from({ length: rows }, () => next() % 5);
      const filtered = filterRows(raw, rows, stride, bpp, types);
      expect(unfilterPngRows(filtered, rows, stride, bpp, 'packed', 'refuse')).toEqual(raw);
      const inPlace = unfilterPngRows(filtered, rows, stride, bpp, 'in place', 'refuse')!;
      expect(inPlace).toBe(filtered);
      for (let y = 0; y < rows; y++) expect(inPlace.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))).toEqual(raw.subarray(y * stride, (y + 1) * stride));
    }
  });

  it('takes a type that does not exist as None, or refuses the data', () => {
    const data = Uint8Array.of(0, 1, 2, 7, 3, 4, 2, 1, 1);
    expect(unfilterPngRows(data, 3, 2, 1, 'packed', 'none')).toEqual(Uint8Array.of(1, 2, 3, 4, 4, 5));
    expect(unfilterPngRows(data, 3, 2, 1, 'packed', 'refuse')).toBeUndefined();
  });
});
