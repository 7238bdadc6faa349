/**
 * Rendering pages with poppler (pdftoppm) and finding where a colour landed:
 * the judge of watermark placement. Pixels are read from PPM (P6), which
 * needs no decoder. Also a tiny PNG writer for test images.
 */
import { execa } from 'execa';
import { deflateSync } from 'node:zlib';
import { tempFile } from './pdf-tools.js';

export interface Raster {
  width: number;
  height: number;
  /** RGB, row by row from the top. */
  pixels: Uint8Array;
}

/** Renders one page (1-based) at `dpi`, as the reader sees it: the crop box (pdftoppm shows the MediaBox unless told), rotation applied. */
export async function renderPage(bytes: Uint8Array | string, page: number, dpi = 20): Promise<Raster> {
  const path = typeof bytes === 'string' ? bytes : tempFile(bytes);
  const { stdout } = await execa('pdftoppm', ['-cropbox', '-r', String(dpi), '-f', String(page), '-l', String(page), path], { encoding: 'buffer' });
  return parsePpm(stdout as Uint8Array);
}

/** The same with MuPDF (mutool draw), which, unlike poppler, scales a page by its /UserUnit as Acrobat does. */
export async function renderPageMupdf(bytes: Uint8Array | string, page: number, dpi = 20): Promise<Raster> {
  const path = typeof bytes === 'string' ? bytes : tempFile(bytes);
  const { stdout } = await execa('mutool', ['draw', '-q', '-r', String(dpi), '-c', 'rgb', '-F', 'pnm', '-o', '-', path, String(page)], { encoding: 'buffer' });
  return parsePpm(stdout as Uint8Array);
}

function parsePpm(data: Uint8Array): Raster {
  let pos = 0;
  const token = (): string => {
    while (/\s/.test(String.fromCharCode(data[pos]))) pos++;
    let text = '';
    while (!/\s/.test(String.fromCharCode(data[pos]))) text += String.fromCharCode(data[pos++]);
    return text;
  };
  if (token() !== 'P6') throw new Error('not a binary PPM');
  const width = Number(token());
  const height = Number(token());
  token(); // maxval 255
  pos++; // one whitespace byte before the raster
  return { width, height, pixels: data.subarray(pos, pos + width * height * 3) };
}

export type Box = { x0: number; y0: number; x1: number; y1: number; count: number };

/** The bounding box (inclusive pixel coordinates, y down) of pixels matching `test`, or null. */
export function findPixels(raster: Raster, test: (r: number, g: number, b: number) => boolean): Box | null {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity,
    count = 0;
  const { width, height, pixels } = raster;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (test(pixels[i], pixels[i + 1], pixels[i + 2])) {
        count++;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
  }
  return count === 0 ? null : { x0, y0, x1, y1, count };
}

/** Reddish: what a pure red watermark looks like, anti-aliased edges included. */
export const reddish = (r: number, g: number, b: number): boolean => r > 180 && r - g > 70 && r - b > 70;

export function pixel(raster: Raster, x: number, y: number): [number, number, number] {
  const i = (y * raster.width + x) * 3;
  return [raster.pixels[i], raster.pixels[i + 1], raster.pixels[i + 2]];
}

/** Centroid of matching pixels within a column range: for checking a diagonal's direction. */
export function centroid(raster: Raster, test: (r: number, g: number, b: number) => boolean, fromX: number, toX: number): { x: number; y: number } | null {
  let sx = 0,
    sy = 0,
    n = 0;
  for (let y = 0; y < raster.height; y++) {
    for (let x = Math.max(0, fromX); x <= Math.min(raster.width - 1, toX); x++) {
      const i = (y * raster.width + x) * 3;
      if (test(raster.pixels[i], raster.pixels[i + 1], raster.pixels[i + 2])) {
        sx += x;
        sy += y;
        n++;
      }
    }
  }
  return n === 0 ? null : { x: sx / n, y: sy / n };
}

// ------------------------------------------------------------------ PNG writer

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(Buffer.from(type, 'latin1'), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** An RGBA PNG (8 bits per channel) whose pixel (x, y) is `color(x, y)` = [r, g, b, a]. */
export function makePng(width: number, height: number, color: (x: number, y: number) => [number, number, number, number]): Uint8Array {
  const raw = new Uint8Array(height * (1 + width * 4));
  for (let y = 0; y < height; y++) {
    raw[y * (1 + width * 4)] = 0; // filter: none
    for (let x = 0; x < width; x++) raw.set(color(x, y), y * (1 + width * 4) + 1 + x * 4);
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/**
 * A PNG that declares `width` x `height` RGBA pixels and carries `rawBytes`
 * zero bytes of pixel data, deflated: a few KB that declare gigabytes, or
 * data that inflates far past the size declared.
 */
export function pngBomb(width: number, height: number, rawBytes: number): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(rawBytes), { level: 9 })),
    chunk('IEND', new Uint8Array(0)),
  ]);
}
