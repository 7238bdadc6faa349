/**
 * Image watermarks: PNG (its alpha channel kept as a soft mask) and JPEG
 * (baseline or progressive; grey, RGB or CMYK). Anything else is refused with
 * a message that says what the bytes look like.
 */
import { ValidationError } from '../../core/errors.js';
import { PDFContext, PDFRef } from '../lib.js';
import { JpegEmbedder, PngEmbedder } from './drawing-lib.js';

export interface PreparedImage {
  type: 'PNG' | 'JPEG';
  width: number;
  height: number;
  embed(context: PDFContext): Promise<PDFRef>;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: number[] | string, at = 0): boolean {
  const codes = typeof prefix === 'string' ? [...prefix].map((c) => c.charCodeAt(0)) : prefix;
  return codes.every((c, i) => bytes[at + i] === c);
}

/** What the bytes are, when they are not PNG or JPEG: for the message. */
export function describeNonImage(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'an empty file';
  const known: Array<[boolean, string]> = [
    [startsWith(bytes, 'GIF8'), 'a GIF image'],
    [startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8), 'a WebP image'],
    [startsWith(bytes, 'BM'), 'a BMP image'],
    [startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a]), 'a TIFF image'],
    [startsWith(bytes, 'ftyp', 4) && /^(avif|avis)/.test(String.fromCharCode(...bytes.subarray(8, 12))), 'an AVIF image'],
    [startsWith(bytes, 'ftyp', 4) && /^(heic|heix|mif1|msf1)/.test(String.fromCharCode(...bytes.subarray(8, 12))), 'a HEIC image'],
    [startsWith(bytes, [0x00, 0x00, 0x01, 0x00]), 'an ICO icon'],
    [startsWith(bytes, '%PDF-'), 'a PDF document'],
    [/^\s*(<\?xml[^>]*>\s*)?<svg/i.test(new TextDecoder().decode(bytes.subarray(0, 256))), 'an SVG image'],
    [startsWith(bytes, [0xff, 0x0a]) || startsWith(bytes, [0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20]), 'a JPEG XL image'],
    [startsWith(bytes, [0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20]) || startsWith(bytes, [0xff, 0x4f, 0xff, 0x51]), 'a JPEG 2000 image'],
  ];
  const hit = known.find(([match]) => match);
  if (hit) return hit[1];
  const head = [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  return `${bytes.length} bytes of something else (it starts with ${head})`;
}

/** Reads the image (all of it, so a damaged file is refused now, not in a reader). */
export async function prepareImage(bytes: Uint8Array, field = 'image'): Promise<PreparedImage> {
  const isPng = startsWith(bytes, PNG_SIGNATURE);
  const isJpeg = startsWith(bytes, [0xff, 0xd8, 0xff]);
  if (!isPng && !isJpeg) {
    throw ValidationError.field(field, `must be a PNG or JPEG image; got ${describeNonImage(bytes)}`);
  }
  const type = isPng ? 'PNG' : 'JPEG';
  try {
    const embedder = isPng ? await PngEmbedder.for(bytes) : await JpegEmbedder.for(bytes);
    if (!(embedder.width > 0 && embedder.height > 0)) throw new Error('no size');
    if (isJpeg) checkJpegEnd(bytes);
    return { type, width: embedder.width, height: embedder.height, embed: (context) => embedder.embedIntoContext(context) };
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    throw ValidationError.field(field, `is a damaged or unsupported ${type} image and cannot be read (${type === 'PNG' ? 'the PNG data does not decode' : 'no valid JPEG frame header'})`);
  }
}

/** pdf-lib only reads a JPEG's header: refuse a file cut off before its image data. */
function checkJpegEnd(bytes: Uint8Array): void {
  // Walk the marker segments to the start of scan; there must be data after it.
  let pos = 2;
  while (pos + 4 <= bytes.length) {
    if (bytes[pos] !== 0xff) throw new Error('bad marker');
    const marker = bytes[pos + 1];
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01 || marker === 0xff) {
      pos += marker === 0xff ? 1 : 2;
      continue;
    }
    const length = (bytes[pos + 2] << 8) | bytes[pos + 3];
    if (marker === 0xda) {
      if (pos + 2 + length >= bytes.length) throw new Error('no scan data');
      return;
    }
    pos += 2 + length;
  }
  throw new Error('no scan');
}
