/**
 * The PNG fast path of image watermarks (plainPng): for every PNG it takes,
 * the image embedded must be byte for byte what pdf-lib's own decoder
 * (UPNG, through PngEmbedder.for) embeds; every other PNG goes to pdf-lib.
 */
import { crc32, deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import * as lib from '@cantoo/pdf-lib';
import { type PDFContext, PDFRawStream } from '../../../src/pdf/model/primitives.js';
import { memoryContext } from '../../helpers/memory-context.js';
import { plainPng, prepareImage } from '../../../src/pdf/watermark/image.js';

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length);
  head.write(type, 4, 'latin1');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, tail]);
}

interface Options {
  colorType: number;
  bitDepth?: number;
  /** Row filters, cycled through the rows. */
  filters?: readonly number[];
  extra?: readonly Buffer[];
  opaque?: boolean;
}

/** A PNG of seeded noise, each row filtered with the filter given for it (so every filter is undone by the decoder). */
function png(width: number, height: number, { colorType, bitDepth = 8, filters = [0, 1, 2, 3, 4], extra = [], opaque = false }: Options): Uint8Array {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colorType]!;
  const stride = Math.ceil((width * channels * bitDepth) / 8);
  const bpp = Math.max(1, (channels * bitDepth) / 8);
  let seed = width * 31 + height * 7 + colorType;
  const pixels = new Uint8Array(height * stride).map((_, i) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    // Smooth with noise, so the filters' sums wrap around 255.
    const value = (i * 3 + (seed >> 16)) & 255;
    return opaque && (colorType === 4 || colorType === 6) && i % channels === channels - 1 ? 255 : value;
  });
  const raw = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const filter = filters[y % filters.length];
    raw[y * (stride + 1)] = filter;
    for (let i = 0; i < stride; i++) {
      const x = pixels[y * stride + i];
      const a = i >= bpp ? pixels[y * stride + i - bpp] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i] : 0;
      const c = y > 0 && i >= bpp ? pixels[(y - 1) * stride + i - bpp] : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predicted = [0, a, b, (a + b) >> 1, paeth][filter];
      raw[y * (stride + 1) + 1 + i] = (x - predicted) & 255;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width);
  header.writeUInt32BE(height, 4);
  header.set([bitDepth, colorType, 0, 0, 0], 8);
  const palette = colorType === 3 ? [chunk('PLTE', Buffer.alloc(768, 0x80))] : [];
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...palette,
    ...extra,
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Every object an embedding made, as text: dictionaries (pdfsvc's objects write as pdf-lib's do) and the
 * inflated stream data, in hex (pdf-lib deflates with fflate here, pdfsvc with Node's zlib).
 */
function objectsOf(context: PDFContext | lib.PDFContext): string[] {
  return context.enumerateIndirectObjects().map(([ref, object]) => {
    if (object instanceof PDFRawStream || object instanceof lib.PDFRawStream) {
      return `${ref} ${object.dict.toString()} ${inflateSync(object.getContents()).toString('hex')}`;
    }
    return `${ref} ${object.toString()}`;
  });
}

/** pdf-lib's own decoder (UPNG) and embedder, in a pdf-lib document. */
async function embeddedByPdfLib(bytes: Uint8Array): Promise<string[]> {
  const context = lib.PDFContext.create();
  await (await lib.PngEmbedder.for(bytes)).embedIntoContext(context);
  return objectsOf(context);
}

async function embeddedByPdfsvc(bytes: Uint8Array): Promise<string[]> {
  const context = memoryContext();
  await (await prepareImage(bytes)).embed(context);
  return objectsOf(context);
}

describe('PNG watermark images decoded by pdfsvc embed exactly as pdf-lib embeds them', () => {
  it.each([
    ['RGBA, every filter', 37, 23, { colorType: 6 }],
    ['RGBA, all opaque (no soft mask)', 20, 9, { colorType: 6, opaque: true }],
    ['RGB', 33, 17, { colorType: 2 }],
    ['grey', 19, 11, { colorType: 0, filters: [4, 3, 2, 1, 0] }],
    ['grey with alpha', 25, 14, { colorType: 4 }],
    ['16-bit RGBA', 21, 13, { colorType: 6, bitDepth: 16 }],
    ['16-bit RGB', 17, 9, { colorType: 2, bitDepth: 16 }],
    ['16-bit grey', 15, 7, { colorType: 0, bitDepth: 16, filters: [4, 3, 2, 1, 0] }],
    ['16-bit grey with alpha', 12, 11, { colorType: 4, bitDepth: 16 }],
    ['one row, Paeth and Average against nothing above', 50, 1, { colorType: 6, filters: [4] }],
    ['one column, Up', 1, 40, { colorType: 2, filters: [2] }],
    ['one column, Average', 1, 40, { colorType: 6, filters: [3] }],
  ] as const)('%s', async (_, width, height, options) => {
    const bytes = png(width, height, options);
    const expected = await embeddedByPdfLib(bytes);
    // With a soft mask when some pixel is translucent: two images.
    const translucent = (options.colorType === 4 || options.colorType === 6) && !('opaque' in options);
    expect(expected.length).toBe(translucent ? 2 : 1);
    expect(await embeddedByPdfsvc(bytes)).toEqual(expected);
  });

  it('takes those PNGs itself, and leaves palette, tRNS and animated ones to pdf-lib', async () => {
    const idat = (bytes: Uint8Array) => {
      const at = Buffer.from(bytes).indexOf('IDAT') - 4;
      return inflateSync(Buffer.from(bytes).subarray(at + 8, at + 8 + Buffer.from(bytes).readUInt32BE(at)));
    };
    for (const taken of [png(10, 10, { colorType: 6 }), png(10, 10, { colorType: 6, bitDepth: 16 })]) expect(plainPng(taken, idat(taken))).toBeDefined();
    const others = [
      png(10, 10, { colorType: 3 }),
      png(10, 10, { colorType: 2, extra: [chunk('tRNS', Buffer.from([0, 1, 0, 2, 0, 3]))] }),
      png(10, 10, { colorType: 6, extra: [chunk('acTL', Buffer.from([0, 0, 0, 1, 0, 0, 0, 0]))] }),
    ];
    const outcomes: string[] = [];
    for (const bytes of others) {
      expect(plainPng(bytes, idat(bytes))).toBeUndefined();
      // pdf-lib decodes them (or refuses them) as before.
      const theirs = await embeddedByPdfLib(bytes).catch(() => 'refused');
      expect(await embeddedByPdfsvc(bytes).catch(() => 'refused')).toEqual(theirs);
      outcomes.push(theirs === 'refused' ? 'refused' : 'embedded');
    }
    expect(outcomes).toEqual(['embedded', 'embedded', 'refused']);
  });
});
