/**
 * PNG's row filters (None, Sub, Up, Average, Paeth) undone: for the PNG
 * predictor of structure streams (filters.ts) and for the image watermark's
 * own PNG decoder (watermark/image.ts). Each filter is a small function of
 * its own: V8 compiles a long loop while it runs, and a large one late (the
 * Up rows of object-streams' 19,000-row cross-reference stream took ~8 ms in
 * one general loop, most of it before it was optimized).
 */

/**
 * The `rows` rows of `src`, each a filter-type byte and `stride` bytes
 * (`bpp` bytes a pixel), with their filters undone. `'in place'`: each row
 * where it lies, after its type byte, and `src` is returned; `'packed'`: into
 * a new array of the rows alone. A type that does not exist is taken as None
 * (`unknownType: 'none'`) or refuses the data (`'refuse'`: undefined, the
 * rows before it undone). `src` must hold rows * (stride + 1) bytes.
 */
export function unfilterPngRows(
  src: Uint8Array,
  rows: number,
  stride: number,
  bpp: number,
  layout: 'in place' | 'packed',
  unknownType: 'none' | 'refuse',
): Uint8Array | undefined {
  const inPlace = layout === 'in place';
  const out = inPlace ? src : new Uint8Array(rows * stride);
  const outStride = inPlace ? stride + 1 : stride;
  for (let y = 0; y < rows; y++) {
    const type = src[y * (stride + 1)];
    const from = y * (stride + 1) + 1;
    const to = inPlace ? from : y * stride;
    // The row above, already undone (none for the first: zeros).
    const above = y > 0 ? to - outStride : -1;
    if (type === 1) subRow(src, from, out, to, stride, bpp);
    else if (type === 2 && above >= 0) upRow(src, from, out, to, above, stride);
    else if (type === 3) averageRow(src, from, out, to, above, stride, bpp);
    else if (type === 4) paethRow(src, from, out, to, above, stride, bpp);
    else if (type === 0 || type === 2 || unknownType === 'none') {
      // None, and Up on the first row, leave the row as it is.
      if (!inPlace) out.set(src.subarray(from, from + stride), to);
    } else return undefined;
  }
  return out;
}

function subRow(src: Uint8Array, from: number, out: Uint8Array, to: number, stride: number, bpp: number): void {
  for (let i = 0; i < stride; i++) out[to + i] = (src[from + i] + (i >= bpp ? out[to + i - bpp] : 0)) & 255;
}

function upRow(src: Uint8Array, from: number, out: Uint8Array, to: number, above: number, stride: number): void {
  for (let i = 0; i < stride; i++) out[to + i] = (src[from + i] + out[above + i]) & 255;
}

function averageRow(src: Uint8Array, from: number, out: Uint8Array, to: number, above: number, stride: number, bpp: number): void {
  for (let i = 0; i < stride; i++) {
    const left = i >= bpp ? out[to + i - bpp] : 0;
    const up = above >= 0 ? out[above + i] : 0;
    out[to + i] = (src[from + i] + ((left + up) >> 1)) & 255;
  }
}

function paethRow(src: Uint8Array, from: number, out: Uint8Array, to: number, above: number, stride: number, bpp: number): void {
  for (let i = 0; i < stride; i++) {
    const a = i >= bpp ? out[to + i - bpp] : 0;
    const b = above >= 0 ? out[above + i] : 0;
    const c = i >= bpp && above >= 0 ? out[above + i - bpp] : 0;
    const p = a + b - c;
    const pa = Math.abs(p - a);
    const pb = Math.abs(p - b);
    const pc = Math.abs(p - c);
    out[to + i] = (src[from + i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
  }
}
