/**
 * A tiny baseline JPEG writer for test images whose every 8 x 8 block is one
 * flat colour: only DC coefficients, so the pixels are exactly the colours
 * given (the reference is the colour function, not a decoder). It writes
 * what real files carry around the pixels: an Adobe APP14 marker (and the
 * inverted CMYK that goes with it), an EXIF orientation, a declared 12-bit
 * precision, so each can be tested alone.
 */

export interface JpegOptions {
  /** Size in pixels; each 8 x 8 block takes the colour of `color(blockX, blockY)`. */
  width: number;
  height: number;
  /** 1 (grey), 3 (RGB, written as YCbCr) or 4 (CMYK) values, 0-255 each. */
  color: (blockX: number, blockY: number) => number[];
  components: 1 | 3 | 4;
  /** Writes an APP14 "Adobe" marker with colour transform 0; CMYK is then stored inverted, as Photoshop stores it. */
  adobe?: boolean;
  /** Writes an EXIF APP1 segment with this orientation (1-8). */
  orientation?: number;
  /** The frame header's sample precision (a 12-bit file is declared, not encoded). */
  precision?: number;
  /** Appends an APP2 ICC_PROFILE segment carrying these bytes. */
  iccProfile?: Uint8Array;
}

const segment = (marker: number, body: number[] | Uint8Array): number[] => [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 255, ...body];
const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The EXIF APP1 body: a big-endian TIFF header and IFD0 with one entry, Orientation (0x0112, SHORT). */
function exifOrientation(orientation: number): number[] {
  return [...ascii('Exif\0\0'), ...ascii('MM'), 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0];
}

// The standard luminance DC table (ITU T.81 K.3) for every component; the AC table holds only end-of-block.
const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_CODES: Array<[code: number, length: number]> = (() => {
  const codes: Array<[number, number]> = [];
  let code = 0;
  DC_BITS.forEach((count, i) => {
    for (let k = 0; k < count; k++) codes.push([code++, i + 1]);
    code <<= 1;
  });
  return codes;
})();

export function makeJpeg(options: JpegOptions): Uint8Array {
  const { width, height, components } = options;
  const out: number[] = [0xff, 0xd8];
  if (options.orientation !== undefined) out.push(...segment(0xe1, exifOrientation(options.orientation)));
  if (options.adobe) out.push(...segment(0xee, [...ascii('Adobe'), 0, 100, 0, 0, 0, 0, 0]));
  if (options.iccProfile) out.push(...segment(0xe2, [...ascii('ICC_PROFILE\0'), 1, 1, ...options.iccProfile]));
  out.push(...segment(0xdb, [0, ...new Array(64).fill(1)]));
  const ids = Array.from({ length: components }, (_, i) => i + 1);
  out.push(...segment(0xc0, [options.precision ?? 8, height >> 8, height & 255, width >> 8, width & 255, components, ...ids.flatMap((id) => [id, 0x11, 0])]));
  out.push(...segment(0xc4, [0x00, ...DC_BITS, ...DC_CODES.map((_, i) => i)]));
  out.push(...segment(0xc4, [0x10, 1, ...new Array(15).fill(0), 0x00]));
  out.push(...segment(0xda, [components, ...ids.flatMap((id) => [id, 0x00]), 0, 63, 0]));

  let buffer = 0;
  let filled = 0;
  const put = (bits: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) {
      buffer = (buffer << 1) | ((bits >> i) & 1);
      if (++filled === 8) {
        out.push(buffer);
        if (buffer === 0xff) out.push(0);
        buffer = filled = 0;
      }
    }
  };
  const predictions = new Array(components).fill(0);
  for (let by = 0; by < Math.ceil(height / 8); by++) {
    for (let bx = 0; bx < Math.ceil(width / 8); bx++) {
      for (const [c, sample] of samples(options, bx, by).entries()) {
        // A flat block's only coefficient: 8 x (sample - 128), quantised by 1.
        const dc = 8 * (sample - 128);
        const diff = dc - predictions[c];
        predictions[c] = dc;
        const size = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
        put(...DC_CODES[size]);
        put(diff < 0 ? diff + (1 << size) - 1 : diff, size);
        put(0, 1); // end of block
      }
    }
  }
  if (filled > 0) put((1 << (8 - filled)) - 1, 8 - filled);
  out.push(0xff, 0xd9);
  return Uint8Array.from(out);
}

/** The block's stored samples: RGB as YCbCr (as JFIF has it; RGB as it is under an Adobe marker with transform 0), CMYK inverted under an Adobe marker. */
function samples(options: JpegOptions, bx: number, by: number): number[] {
  const values = options.color(bx, by);
  if (options.components === 3 && !options.adobe) {
    const [r, g, b] = values;
    const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
    return [clamp(0.299 * r + 0.587 * g + 0.114 * b), clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b), clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)];
  }
  if (options.components === 4 && options.adobe) return values.map((v) => 255 - v);
  return values;
}
