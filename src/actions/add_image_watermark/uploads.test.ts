/**
 * add_image_watermark with the images users upload: phone photos (EXIF
 * orientation), scans (grey, CMYK with and without Adobe's marker), logos
 * (PNG of every colour type and depth). Each is judged on the page rendered
 * by poppler and MuPDF against the colours the image was written with (the
 * test writes it: test/helpers/jpeg.ts, a PNG writer here), never by the
 * library that embeds it.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { addImageWatermark, ValidationError } from '../../index.js';
import { fixture, qpdfCheck, qpdfJson, tempFile } from '../../../test/helpers/pdf-tools.js';
import { makeJpeg } from '../../../test/helpers/jpeg.js';
import { formRequest, inProcessApp, keys, problemOf } from '../../../test/server/harness.js';
import { findPixels, pixel, type Raster, renderPage, renderPageMupdf } from '../../../test/helpers/render.js';
import { runCliMeasured } from '../../../test/helpers/peak-rss.js';

const RENDERERS = { poppler: renderPage, mupdf: renderPageMupdf } as const;

type ColorName = 'red' | 'green' | 'blue' | 'yellow';
const RGB: Record<ColorName, [number, number, number]> = { red: [255, 0, 0], green: [0, 255, 0], blue: [0, 0, 255], yellow: [255, 255, 0] };
const CMYK: Record<ColorName, number[]> = { red: [0, 255, 255, 0], green: [255, 0, 255, 0], blue: [255, 255, 0, 0], yellow: [0, 0, 255, 0] };

/** The colour a rendered pixel shows (loosely: the renderers convert CMYK each their own way), or what it is. */
function nameOf([r, g, b]: [number, number, number]): string {
  const high = (v: number) => v > 140;
  const low = (v: number) => v < 110;
  if (high(r) && low(g) && low(b)) return 'red';
  if (high(g) && low(r) && low(b)) return 'green';
  if (b > 120 && low(r) && low(g)) return 'blue';
  if (high(r) && high(g) && low(b)) return 'yellow';
  return `rgb(${r},${g},${b})`;
}

const saturated = (r: number, g: number, b: number) => Math.max(r, g, b) - Math.min(r, g, b) > 80;

/** The image as the page shows it: its four quadrants' colours (top-left, top-right, bottom-left, bottom-right) and width / height. */
function quadrants(raster: Raster): { colors: string[]; aspect: number } {
  const box = findPixels(raster, saturated);
  if (!box) return { colors: [], aspect: 0 };
  const at = (fx: number, fy: number) => nameOf(pixel(raster, Math.round(box.x0 + fx * (box.x1 - box.x0)), Math.round(box.y0 + fy * (box.y1 - box.y0))));
  return { colors: [at(0.25, 0.25), at(0.75, 0.25), at(0.25, 0.75), at(0.75, 0.75)], aspect: (box.x1 - box.x0 + 1) / (box.y1 - box.y0 + 1) };
}

/** 32 x 16 pixels: red and green over blue and yellow (blocks of 8 pixels; the quadrants are 2 x 1 blocks). */
const STORED: ColorName[] = ['red', 'green', 'blue', 'yellow'];
const quadrantOf = (bx: number, by: number): ColorName => STORED[(by < 1 ? 0 : 2) + (bx < 2 ? 0 : 1)];

/**
 * The mark's width on pages-1.pdf (A4) at 40 dpi: 40 % of 595.28 pt. It is centred; the middle of the page
 * is blank.
 */
const MARK_WIDTH = (0.4 * 595.28 * 40) / 72;

/** The pixels at the middles of `parts` equal parts of the mark, left to right, on the line across the page's middle. */
function acrossTheMiddle(raster: Raster, parts: number): Array<[number, number, number]> {
  const left = raster.width / 2 - MARK_WIDTH / 2;
  return Array.from({ length: parts }, (_, i) => pixel(raster, Math.round(left + ((i + 0.5) * MARK_WIDTH) / parts), Math.round(raster.height / 2)));
}

// Where viewers show the stored pixel (s, t) of the image (0..1 from its top left) for each EXIF orientation, as (x, y) from the shown top left.
const SHOWN: Record<number, (s: number, t: number) => [number, number]> = {
  1: (s, t) => [s, t],
  2: (s, t) => [1 - s, t],
  3: (s, t) => [1 - s, 1 - t],
  4: (s, t) => [s, 1 - t],
  5: (s, t) => [t, s],
  6: (s, t) => [1 - t, s],
  7: (s, t) => [1 - t, 1 - s],
  8: (s, t) => [t, 1 - s],
};

/** The STORED image's quadrants as viewers show it under `orientation`: each stored quadrant's centre goes where the orientation puts it. */
function shownQuadrants(orientation: number): string[] {
  const shown: string[] = [];
  for (const [i, name] of STORED.entries()) {
    const [x, y] = SHOWN[orientation](i % 2 ? 0.75 : 0.25, i < 2 ? 0.25 : 0.75);
    shown[(y < 0.5 ? 0 : 2) + (x < 0.5 ? 0 : 1)] = name;
  }
  return shown;
}

const watermark = (image: Uint8Array) => addImageWatermark({ file: fixture('pages-1.pdf'), image, transparency: 0, scale: 40, position: 'center', margin: 0 });

describe('JPEG watermarks as viewers show them', () => {
  describe.each(Object.entries(RENDERERS))('rendered by %s', (_, render) => {
    it.each([
      ['without', false],
      ['with', true],
    ])('a CMYK JPEG %s an Adobe marker draws in its colours, not their negative', async (_, adobe) => {
      const jpeg = makeJpeg({ width: 32, height: 16, components: 4, adobe, color: (bx, by) => CMYK[quadrantOf(bx, by)] });
      const out = await watermark(jpeg);
      expect(quadrants(await render(out, 1, 40)).colors).toEqual(STORED);
    });

    it('a grey JPEG draws in its greys', async () => {
      const greys = [0, 255, 96, 160];
      const jpeg = makeJpeg({ width: 32, height: 16, components: 1, color: (bx) => [greys[bx]] });
      const raster = await render(await watermark(jpeg), 1, 40);
      // Each within 10 of its grey (closeTo with precision -1.3: a difference under 10^1.3 / 2).
      expect(acrossTheMiddle(raster, 4).map(([r]) => r)).toEqual(greys.map((grey) => expect.closeTo(grey, -1.3)));
    });
  });

  it('/Decode inverts CMYK only under an Adobe marker (it stores CMYK inverted, as Photoshop does)', async () => {
    const decodes = [];
    for (const adobe of [false, true]) {
      const out = await watermark(makeJpeg({ width: 8, height: 8, components: 4, adobe, color: () => CMYK.red }));
      expect((await qpdfCheck(out)).exitCode).toBe(0);
      const image = Object.values((await qpdfJson(out)).qpdf[1]).find((o) => o.stream?.dict['/Subtype'] === '/Image');
      decodes.push(image?.stream?.dict['/Decode']);
    }
    expect(decodes).toEqual([undefined, [1, 0, 1, 0, 1, 0, 1, 0]]);
  });

  describe.each(Object.entries(RENDERERS))('rendered by %s', (_, render) => {
    it.each([1, 2, 3, 4, 5, 6, 7, 8])('EXIF orientation %i: the mark is turned as viewers show the photo', async (orientation) => {
      const jpeg = makeJpeg({ width: 32, height: 16, components: 3, orientation, color: (bx, by) => RGB[quadrantOf(bx, by)] });
      const shown = quadrants(await render(await watermark(jpeg), 1, 40));
      expect(shown.colors).toEqual(shownQuadrants(orientation));
      // Turned a quarter (5 to 8), the 2:1 photo stands 1:2.
      expect(shown.aspect).toBeCloseTo(orientation >= 5 ? 0.5 : 2, 1);
    });
  });

  it('a JPEG with an ICC profile is drawn through it (poppler, built with lcms2); one of other colours is left out', async () => {
    // A profile whose red and green colorants are sRGB's swapped: stored red shows green, if the profile is used.
    const swapped = rgbProfile(SRGB_COLORANTS.green, SRGB_COLORANTS.red, SRGB_COLORANTS.blue);
    const jpeg = makeJpeg({ width: 32, height: 16, components: 3, iccProfile: swapped, color: (bx, by) => RGB[quadrantOf(bx, by)] });
    const out = await watermark(jpeg);
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect(quadrants(await renderPage(out, 1, 40)).colors).toEqual(['green', 'red', 'blue', 'yellow']);
    // The same profile said to be CMYK's does not fit an RGB JPEG: device RGB, as before.
    const misfit = Buffer.from(swapped);
    misfit.write('CMYK', 16, 'latin1');
    const plain = await watermark(makeJpeg({ width: 32, height: 16, components: 3, iccProfile: misfit, color: (bx, by) => RGB[quadrantOf(bx, by)] }));
    expect(quadrants(await renderPage(plain, 1, 40)).colors).toEqual(STORED);
    expect(JSON.stringify((await qpdfJson(plain)).qpdf[1])).toContain('"/ColorSpace":"/DeviceRGB"');
  });

  it('a 1 x 1 JPEG and a 1 x 1 PNG make a mark', async () => {
    for (const image of [
      makeJpeg({ width: 1, height: 1, components: 3, color: () => RGB.red }),
      png(1, 1, { colorType: 2, bitDepth: 8, samples: () => [255, 0, 0] }),
    ]) {
      expect(quadrants(await renderPage(await watermark(image), 1, 20)).colors).toEqual(['red', 'red', 'red', 'red']);
    }
  });
});

describe('JPEG watermarks PDF readers cannot draw are refused', () => {
  const refused = async (image: Uint8Array) => {
    const error = await watermark(image).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors.image?.join(' ');
  };
  const rgb = { width: 16, height: 16, components: 3, color: () => RGB.red } as const;

  it('a 12-bit JPEG → 400 errors.image: save it as 8-bit', async () => {
    expect(await refused(makeJpeg({ ...rgb, precision: 12 }))).toMatch(/is a 12-bit JPEG; .* save it as an ordinary 8-bit JPEG/);
  });

  it('an arithmetic-coded JPEG (SOF9) → 400 errors.image', async () => {
    const jpeg = Buffer.from(makeJpeg(rgb));
    jpeg[jpeg.indexOf(Buffer.from([0xff, 0xc0])) + 1] = 0xc9;
    expect(await refused(jpeg)).toMatch(/arithmetic-coded JPEG.*save it as an ordinary \(baseline or progressive\) JPEG/);
  });

  it('a JPEG that declares 20000 x 20000 pixels → 400 errors.image at once, and the command line stays small (exit 2)', async () => {
    // The frame header of a 20000 x 20000 JPEG and one block of its data: what a few MB of flat JPEG declares.
    const jpeg = Buffer.from(makeJpeg(rgb));
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    jpeg.writeUInt16BE(20000, sof + 5);
    jpeg.writeUInt16BE(20000, sof + 7);
    expect(await refused(jpeg)).toMatch(/declares 20000 x 20000 pixels \(400\.0 megapixels\); .* at most 67\.1 megapixels .* scale it down/);
    const { run, maxRssKb } = await runCliMeasured(['add-image-watermark', '--image', tempFile(jpeg, '.jpg'), fixture_path('pages-1.pdf'), '-o', '/dev/null']);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/pdfsvc: image: declares 20000 x 20000 pixels/);
    expect(maxRssKb).toBeLessThan(300 * 1024);
  });

  it('a JPEG cut off in its headers or in its image data → 400 errors.image: damaged, export it again', async () => {
    const jpeg = makeJpeg({ ...rgb, width: 64, color: (bx, by) => [bx * 30, by * 30, 0] });
    expect(await refused(jpeg.subarray(0, 30))).toMatch(/is a damaged JPEG image .*export it again/);
    // Readers draw what is there and warn ("premature end of data"): a broken-off upload, to be sent again.
    expect(await refused(jpeg.subarray(0, jpeg.length - 10))).toMatch(/is a damaged JPEG image .*cut off inside its image data.*export it again/);
  });

  it('a JPEG with bytes after its end (as some cameras append) is taken', async () => {
    const jpeg = Buffer.concat([makeJpeg({ ...rgb, width: 32, height: 16, color: (bx, by) => RGB[quadrantOf(bx, by)] }), Buffer.alloc(500, 0x41)]);
    expect(quadrants(await renderPage(await watermark(jpeg), 1, 40)).colors).toEqual(STORED);
  });
});

describe('images that are not what their name or type says', () => {
  it('the bytes decide, not the file name or the part type: a JPEG sent as logo.png (image/png) is drawn; a TIFF sent as photo.jpg is refused naming what works', async () => {
    const app = inProcessApp();
    const send = (bytes: Uint8Array, filename: string, type: string) =>
      app.fetch(
        formRequest(
          'http://pdfsvc.test/v1/add_image_watermark',
          [
            ['file', fixture('pages-1.pdf')],
            ['image', { bytes, filename, type }],
            ['transparency', '0'],
            ['scale', '40'],
            ['margin', '0'],
          ],
          { 'X-API-Key': keys.business },
        ),
      );
    const jpeg = makeJpeg({ width: 32, height: 16, components: 3, color: (bx, by) => RGB[quadrantOf(bx, by)] });
    const ok = await send(jpeg, 'logo.png', 'image/png');
    expect(ok.status).toBe(200);
    expect(quadrants(await renderPage(new Uint8Array(await ok.arrayBuffer()), 1, 40)).colors).toEqual(STORED);
    const tiff = Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0, 0, 0]);
    const bad = await send(tiff, 'photo.jpg', 'image/jpeg');
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).errors?.image?.[0]).toMatch(/must be a PNG or JPEG image; got a TIFF image/);
  });
});

function fixture_path(name: string): string {
  return new URL(`../../../fixtures/out/${name}`, import.meta.url).pathname;
}

// ------------------------------------------------------------------ ICC profiles

/** sRGB's colorants adapted to D50, as ICC profiles give them (XYZ). */
const SRGB_COLORANTS = { red: [0.4361, 0.2225, 0.0139], green: [0.3851, 0.7169, 0.0971], blue: [0.1431, 0.0606, 0.7141] };

const s15Fixed16 = (values: number[]) =>
  Buffer.concat(values.map((v) => Buffer.from(new Uint8Array(new Int32Array([Math.round(v * 65536)]).buffer).reverse())));
const typed = (type: string, body: Buffer) => Buffer.concat([Buffer.from(`${type}\0\0\0\0`, 'latin1'), body]);
const xyz = (values: number[]) => typed('XYZ ', s15Fixed16(values));
const D50 = [0.9642, 1, 0.8249];
const LINEAR = typed('curv', Buffer.alloc(4)); // no entries: the identity

/** A version 2 RGB display profile with linear curves and the colorants given: enough for lcms2 to draw through it. */
function rgbProfile(red: number[], green: number[], blue: number[]): Buffer {
  return displayProfile('RGB ', [
    ['rXYZ', xyz(red)],
    ['gXYZ', xyz(green)],
    ['bXYZ', xyz(blue)],
    ['rTRC', LINEAR],
    ['gTRC', LINEAR],
    ['bTRC', LINEAR],
  ]);
}

/** A version 2 grey display profile whose tone curve is linear: stored 128 is shown as sRGB's 188 (lcms2, Chromium), not 128. */
function linearGreyProfile(): Buffer {
  return displayProfile('GRAY', [['kTRC', LINEAR]]);
}

/** A version 2 display profile of `colorSpace` with a description, D50 white, the `colorTags` given and a copyright. */
function displayProfile(colorSpace: 'RGB ' | 'GRAY', colorTags: Array<[string, Buffer]>): Buffer {
  const name = Buffer.from('pdfsvc test\0', 'latin1');
  const description = typed('desc', Buffer.concat([Buffer.from([0, 0, 0, name.length]), name, Buffer.alloc(4 + 4 + 2 + 1 + 67)]));
  const tags: Array<[string, Buffer]> = [['desc', description], ['wtpt', xyz(D50)], ...colorTags, ['cprt', typed('text', Buffer.from('none\0', 'latin1'))]];
  const table = Buffer.alloc(4 + 12 * tags.length);
  table.writeUInt32BE(tags.length);
  const data: Buffer[] = [];
  let offset = 128 + table.length;
  for (const [i, [signature, body]] of tags.entries()) {
    const padded = Buffer.concat([body, Buffer.alloc((4 - (body.length % 4)) % 4)]);
    table.write(signature, 4 + 12 * i, 'latin1');
    table.writeUInt32BE(offset, 8 + 12 * i);
    table.writeUInt32BE(body.length, 12 + 12 * i);
    data.push(padded);
    offset += padded.length;
  }
  const header = Buffer.alloc(128);
  header.writeUInt32BE(offset, 0);
  header.writeUInt32BE(0x02100000, 8);
  header.write(`mntr${colorSpace}XYZ `, 12, 'latin1');
  header.write('acsp', 36, 'latin1');
  s15Fixed16(D50).copy(header, 68);
  return Buffer.concat([header, table, ...data]);
}

// ------------------------------------------------------------------ PNG of every kind

/** Adam7's passes (first column, first row, column step, row step), written out here apart from the decoder's: the writer is its reference. */
const ADAM7_PASSES = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** PNG writer for every colour type, depth, palette, tRNS and Adam7 interlacing: `samples(x, y)` gives a pixel's samples (palette index for type 3). */
function png(
  width: number,
  height: number,
  options: { colorType: 0 | 2 | 3 | 4 | 6; bitDepth: 1 | 2 | 4 | 8 | 16; samples: (x: number, y: number) => number[]; interlace?: boolean; chunks?: Buffer[] },
): Uint8Array {
  const { colorType, bitDepth, samples } = options;
  const passes = options.interlace ? ADAM7_PASSES : [[0, 0, 1, 1]];
  const rows: number[] = [];
  for (const [x0, y0, dx, dy] of passes) {
    for (let y = y0; y < height; y += dy) {
      const bits: number[] = [];
      for (let x = x0; x < width; x += dx) for (const sample of samples(x, y)) bits.push(sample);
      if (bits.length === 0) continue;
      rows.push(0);
      if (bitDepth === 16) for (const v of bits) rows.push(v >> 8, v & 255);
      else if (bitDepth === 8) rows.push(...bits);
      else {
        const perByte = 8 / bitDepth;
        for (let i = 0; i < bits.length; i += perByte) {
          let byte = 0;
          for (let k = 0; k < perByte; k++) byte |= (bits[i + k] ?? 0) << (8 - bitDepth * (k + 1));
          rows.push(byte);
        }
      }
    }
  }
  return pngFile(width, height, bitDepth, colorType, Boolean(options.interlace), Buffer.from(rows), options.chunks);
}

/** A PNG file of filtered `rows` (each a filter byte and its samples), with `chunks` between its header and its data. */
function pngFile(width: number, height: number, bitDepth: number, colorType: number, interlace: boolean, rows: Buffer, chunks: Buffer[] = []): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width);
  header.writeUInt32BE(height, 4);
  header.set([bitDepth, colorType, 0, 0, interlace ? 1 : 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    ...chunks,
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

describe('PNG watermarks of every kind draw their pixels', () => {
  // 16 x 16 pixels in quadrants: red, green over blue, and a transparent (or yellow) one.
  const at = (x: number, y: number) => (y < 8 ? 0 : 2) + (x < 8 ? 0 : 1);
  const QUADRANT_RGB = [RGB.red, RGB.green, RGB.blue, RGB.yellow];
  const see = async (image: Uint8Array) => quadrants(await renderPage(await watermark(image), 1, 40)).colors;

  it.each([
    ['16-bit RGB', { colorType: 2, bitDepth: 16, samples: (x: number, y: number) => QUADRANT_RGB[at(x, y)].map((v) => v * 257) }],
    ['16-bit RGBA', { colorType: 6, bitDepth: 16, samples: (x: number, y: number) => [...QUADRANT_RGB[at(x, y)].map((v) => v * 257), 65535] }],
    ['interlaced RGB', { colorType: 2, bitDepth: 8, interlace: true, samples: (x: number, y: number) => QUADRANT_RGB[at(x, y)] }],
    ['interlaced 2-bit palette', { colorType: 3, bitDepth: 2, interlace: true, samples: (x: number, y: number) => [at(x, y)] }],
    [
      'interlaced 16-bit RGBA',
      { colorType: 6, bitDepth: 16, interlace: true, samples: (x: number, y: number) => [...QUADRANT_RGB[at(x, y)].map((v) => v * 257), 65535] },
    ],
    ['4-bit palette', { colorType: 3, bitDepth: 4, samples: (x: number, y: number) => [at(x, y)] }],
    [
      'RGB with an sRGB, a gAMA and a pHYs chunk',
      {
        colorType: 2,
        bitDepth: 8,
        samples: (x: number, y: number) => QUADRANT_RGB[at(x, y)],
        chunks: [
          pngChunk('sRGB', Buffer.from([0])),
          pngChunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
          pngChunk('pHYs', Buffer.from([0, 0, 0x0b, 0x13, 0, 0, 0x0b, 0x13, 1])),
        ],
      },
    ],
  ] as const)('%s', async (_, options) => {
    const palette = pngChunk('PLTE', Buffer.from(QUADRANT_RGB.flat()));
    const image = png(16, 16, { ...options, chunks: [...(options.colorType === 3 ? [palette] : []), ...('chunks' in options ? options.chunks : [])] });
    expect(await see(image)).toEqual(['red', 'green', 'blue', 'yellow']);
  });

  it.each([
    ['8-bit RGB (decoded by pdfsvc)', { colorType: 2, bitDepth: 8, samples: (x: number, y: number) => QUADRANT_RGB[at(x, y)] }],
    ['16-bit RGB (decoded by pdf-lib)', { colorType: 2, bitDepth: 16, samples: (x: number, y: number) => QUADRANT_RGB[at(x, y)].map((v) => v * 257) }],
  ] as const)('%s with an iCCP profile is drawn through it (poppler, lcms2); a damaged one is left out', async (_, options) => {
    const swapped = rgbProfile(SRGB_COLORANTS.green, SRGB_COLORANTS.red, SRGB_COLORANTS.blue);
    const iccp = (profile: Buffer) => pngChunk('iCCP', Buffer.concat([Buffer.from('swapped\0\0', 'latin1'), deflateSync(profile)]));
    expect(await see(png(16, 16, { ...options, chunks: [iccp(swapped)] }))).toEqual(['green', 'red', 'blue', 'yellow']);
    expect(await see(png(16, 16, { ...options, chunks: [iccp(swapped.subarray(0, 100))] }))).toEqual(['red', 'green', 'blue', 'yellow']);
  });

  /** The colour space the watermark's image is drawn in, as qpdf --json shows it: a name, or ICCBased with its profile's /N and /Alternate. */
  async function imageColorSpace(out: Uint8Array): Promise<string> {
    const objects = (await qpdfJson(out)).qpdf[1];
    // The image, not its soft mask (which has /Decode [0 1]).
    const image = Object.values(objects).find((o) => o.stream?.dict['/Subtype'] === '/Image' && o.stream.dict['/Decode'] === undefined);
    const space = image?.stream?.dict['/ColorSpace'];
    if (!Array.isArray(space)) return String(space);
    const profile = objects[`obj:${space[1]}`]?.stream?.dict;
    return `ICCBased /N ${profile?.['/N']} ${profile?.['/Alternate']}`;
  }

  const iccp = (profile: Buffer) => pngChunk('iCCP', Buffer.concat([Buffer.from('grey\0\0', 'latin1'), deflateSync(profile)]));
  // sRGB's encoding of a linear value: what a linear profile shows a stored grey as.
  const shownLinear = (stored: number) => {
    const linear = stored / 255;
    return 255 * (linear <= 0.0031308 ? 12.92 * linear : 1.055 * linear ** (1 / 2.4) - 0.055);
  };

  it.each([
    ['8-bit grey (decoded by pdfsvc)', { colorType: 0, bitDepth: 8, samples: () => [128] }, 128],
    ['16-bit grey (decoded by pdfsvc)', { colorType: 0, bitDepth: 16, samples: () => [128 * 257] }, 128],
    ['8-bit grey with alpha (decoded by pdfsvc)', { colorType: 4, bitDepth: 8, samples: (x: number) => [128, x < 8 ? 255 : 0] }, 128],
    ['4-bit grey (decoded by pdf-lib)', { colorType: 0, bitDepth: 4, samples: () => [8] }, 136],
    [
      '8-bit grey with tRNS (decoded by pdf-lib)',
      { colorType: 0, bitDepth: 8, samples: (x: number) => [x < 8 ? 128 : 0], chunks: [pngChunk('tRNS', Buffer.from([0, 0]))] },
      128,
    ],
  ] as const)('%s with a grey iCCP profile is drawn through it as /ICCBased /N 1 (poppler, lcms2)', async (_, options, stored) => {
    const chunks = [iccp(linearGreyProfile()), ...('chunks' in options ? options.chunks : [])];
    const out = await watermark(png(16, 16, { ...options, chunks }));
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect(await imageColorSpace(out)).toBe('ICCBased /N 1 /DeviceGray');
    // The left half of the image (opaque in every case): the stored grey through the linear profile, as Chromium shows it.
    const [r, g, b] = acrossTheMiddle(await renderPage(out, 1, 40), 4)[0];
    expect([r, g, b]).toEqual(Array(3).fill(expect.closeTo(shownLinear(stored), -1)));
  });

  it("profiles of other colours than the PNG's: an RGB PNG's grey profile is left out; a grey PNG's RGB profile is used, as Chromium uses it", async () => {
    const rgb = await watermark(png(16, 16, { colorType: 2, bitDepth: 8, samples: () => RGB.red, chunks: [iccp(linearGreyProfile())] }));
    expect(await imageColorSpace(rgb)).toBe('/DeviceRGB');
    const swapped = rgbProfile(SRGB_COLORANTS.green, SRGB_COLORANTS.red, SRGB_COLORANTS.blue);
    const grey = await watermark(png(16, 16, { colorType: 0, bitDepth: 8, samples: () => [128], chunks: [iccp(swapped)] }));
    expect(await imageColorSpace(grey)).toBe('ICCBased /N 3 /DeviceRGB');
  });

  it.each([
    ['8-bit RGB', { colorType: 2, bitDepth: 8, samples: (x: number, y: number) => [(x * 37) & 255, (y * 59) & 255, (x * y) & 255] }],
    ['8-bit grey with alpha', { colorType: 4, bitDepth: 8, samples: (x: number, y: number) => [(x * 23) & 255, (y * 41) & 255] }],
    ['16-bit grey', { colorType: 0, bitDepth: 16, samples: (x: number, y: number) => [(x * 4099 + y * 97) & 65535] }],
    [
      '16-bit RGBA',
      { colorType: 6, bitDepth: 16, samples: (x: number, y: number) => [(x * 5003) & 65535, (y * 7919) & 65535, (x * y * 31) & 65535, (x + y) * 2048] },
    ],
  ] as const)('an interlaced %s PNG gives the document its plain twin gives, at sizes that leave passes empty', async (_, options) => {
    // The same pixels, Adam7 or not, must embed the same image: pdfsvc gathers the passes itself (pdf-lib's decoder took 690 MB for 4096 x 4096 16-bit RGBA).
    for (const [width, height] of [
      [1, 1],
      [3, 5],
      [13, 7],
      [33, 17],
    ]) {
      const plain = await watermark(png(width, height, options));
      const interlaced = await watermark(png(width, height, { ...options, interlace: true }));
      expect(Buffer.from(interlaced).equals(Buffer.from(plain)), `${width} x ${height}`).toBe(true);
    }
    // And a different image does not.
    const other = await watermark(png(13, 7, { ...options, samples: (x, y) => options.samples(x + 1, y) }));
    expect(Buffer.from(other).equals(Buffer.from(await watermark(png(13, 7, options))))).toBe(false);
  });

  it('an interlaced 4096 x 4096 16-bit RGBA PNG (the largest taken) costs the command line a few hundred MB, not 690', async () => {
    // Adam7 rows of one colour, a translucent teal, made as bytes (the png() writer's arrays would hold 134 M numbers).
    const size = 4096;
    const pixel16 = Buffer.from([0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    const rows: Buffer[] = [];
    for (const [x0, y0, dx, dy] of ADAM7_PASSES) {
      const row = Buffer.alloc(1 + Math.ceil((size - x0) / dx) * 8);
      for (let at = 1; at < row.length; at += 8) pixel16.copy(row, at);
      for (let y = y0; y < size; y += dy) rows.push(row);
    }
    const image = pngFile(size, size, 16, 6, true, Buffer.concat(rows));
    const output = `${tempFile(new Uint8Array(0))}.out.pdf`;
    const { run, maxRssKb } = await runCliMeasured(['add-image-watermark', '--image', tempFile(image, '.png'), fixture_path('pages-1.pdf'), '-o', output]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(maxRssKb).toBeLessThan(400 * 1024);
    // Drawn in its colour, see-through: teal over the white page.
    const raster = await renderPage(output, 1, 20);
    const teal = findPixels(raster, (r, g, b) => r < 200 && g > r + 30 && b > r + 30);
    expect(teal).not.toBeNull();
  }, 120_000);

  it('an animated PNG → 400 errors.image: save one frame as a still PNG', async () => {
    const animated = png(16, 16, { colorType: 2, bitDepth: 8, samples: () => RGB.red, chunks: [pngChunk('acTL', Buffer.from([0, 0, 0, 2, 0, 0, 0, 0]))] });
    const error = await watermark(animated).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.image?.[0]).toMatch(/is an animated PNG, which a page cannot play: save the frame to show as a still PNG/);
  });

  it('a palette PNG with tRNS: the transparent entry shows the page', async () => {
    const image = png(16, 16, {
      colorType: 3,
      bitDepth: 8,
      samples: (x, y) => [at(x, y)],
      chunks: [pngChunk('PLTE', Buffer.from(QUADRANT_RGB.flat())), pngChunk('tRNS', Buffer.from([255, 255, 255, 0]))],
    });
    const raster = await renderPage(await watermark(image), 1, 40);
    const box = findPixels(raster, saturated)!;
    // Three quadrants drawn; where the yellow one would be, the white page.
    expect(nameOf(pixel(raster, Math.round(box.x0 + 0.25 * (box.x1 - box.x0)), Math.round(box.y0 + 0.75 * (box.y1 - box.y0))))).toBe('blue');
    expect(pixel(raster, Math.round(box.x0 + 0.75 * (box.x1 - box.x0)), Math.round(box.y0 + 0.75 * (box.y1 - box.y0)))).toEqual([255, 255, 255]);
  });

  it('grey with alpha and 1-bit grey: black where black, the page where transparent', async () => {
    const greyAlpha = png(16, 16, { colorType: 4, bitDepth: 8, samples: (x) => (x < 8 ? [0, 255] : [0, 0]) });
    const oneBit = png(16, 16, { colorType: 0, bitDepth: 1, samples: (x) => [x < 8 ? 0 : 1] });
    for (const image of [greyAlpha, oneBit]) {
      expect(acrossTheMiddle(await renderPage(await watermark(image), 1, 40), 2)).toEqual([
        [0, 0, 0],
        [255, 255, 255],
      ]);
    }
  });
});

describe("a PNG's eXIf orientation, as browsers show the PNG", () => {
  /** An eXIf chunk's data: a TIFF structure whose IFD0 holds only the orientation (tag 0x0112, a SHORT). */
  function exifTiff(orientation: number, byteOrder: 'II' | 'MM'): Buffer {
    const tiff = Buffer.alloc(26);
    const little = byteOrder === 'II';
    const u16 = (value: number, at: number) => (little ? tiff.writeUInt16LE(value, at) : tiff.writeUInt16BE(value, at));
    const u32 = (value: number, at: number) => (little ? tiff.writeUInt32LE(value, at) : tiff.writeUInt32BE(value, at));
    tiff.write(byteOrder, 0, 'latin1');
    u16(42, 2);
    u32(8, 4);
    u16(1, 8);
    u16(0x0112, 10);
    u16(3, 12);
    u32(1, 14);
    u16(orientation, 18);
    return tiff;
  }
  // 32 x 16 pixels as STORED: red and green over blue and yellow.
  const stored = (x: number, y: number) => RGB[quadrantOf(x >> 3, y >> 3)];

  describe.each(Object.entries(RENDERERS))('rendered by %s', (_, render) => {
    it.each([1, 2, 3, 4, 5, 6, 7, 8])('eXIf orientation %i before the image data: the mark is turned as Chromium shows the PNG', async (orientation) => {
      const eXIf = pngChunk('eXIf', exifTiff(orientation, orientation % 2 ? 'MM' : 'II'));
      const image = png(32, 16, { colorType: 2, bitDepth: 8, samples: stored, chunks: [eXIf] });
      const shown = quadrants(await render(await watermark(image), 1, 40));
      expect(shown.colors).toEqual(shownQuadrants(orientation));
      expect(shown.aspect).toBeCloseTo(orientation >= 5 ? 0.5 : 2, 1);
    });
  });

  it('a palette PNG (decoded by pdf-lib) is turned the same way', async () => {
    const palette = pngChunk('PLTE', Buffer.from(STORED.flatMap((name) => RGB[name])));
    const image = png(32, 16, {
      colorType: 3,
      bitDepth: 8,
      samples: (x, y) => [STORED.indexOf(quadrantOf(x >> 3, y >> 3))],
      chunks: [palette, pngChunk('eXIf', exifTiff(6, 'MM'))],
    });
    const shown = quadrants(await renderPage(await watermark(image), 1, 40));
    expect(shown.colors).toEqual(shownQuadrants(6));
    expect(shown.aspect).toBeCloseTo(0.5, 1);
  });

  it('an eXIf after the image data is not read (Chromium and the PNG test suite of the web platform ignore it: the image is shown before it arrives)', async () => {
    const upright = png(32, 16, { colorType: 2, bitDepth: 8, samples: stored });
    // Before IEND, the file's last 12 bytes.
    const late = Buffer.concat([upright.subarray(0, upright.length - 12), pngChunk('eXIf', exifTiff(6, 'MM')), upright.subarray(upright.length - 12)]);
    const shown = quadrants(await renderPage(await watermark(late), 1, 40));
    expect(shown.colors).toEqual(STORED);
    expect(shown.aspect).toBeCloseTo(2, 1);
  });

  it('an eXIf without an orientation, or a damaged one, leaves the PNG upright', async () => {
    const noOrientation = exifTiff(6, 'MM');
    noOrientation.writeUInt16BE(0x0110, 10); // the camera model's tag, not the orientation's
    for (const data of [noOrientation, exifTiff(9, 'II'), exifTiff(6, 'MM').subarray(0, 12), Buffer.from('Exif\0\0')]) {
      const image = png(32, 16, { colorType: 2, bitDepth: 8, samples: stored, chunks: [pngChunk('eXIf', data)] });
      expect(quadrants(await renderPage(await watermark(image), 1, 40)).colors).toEqual(STORED);
    }
  });
});
