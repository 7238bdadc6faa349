/**
 * add_image_watermark: placement judged on rendered pages (poppler) for every
 * position on every kind of page; PNG transparency, JPEG variants (baseline,
 * progressive, CMYK), the image embedded once, and the refusals.
 */
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addImageWatermark, ValidationError } from '../../index.js';
import { PDFDocument, rgb } from '@cantoo/pdf-lib';
import { fixture, formContents, pageTexts, qpdfCheck, qpdfJson, tempFile } from '../../../test/helpers/pdf-tools.js';
import { findPixels, makePng, pixel, pngBomb, reddish, renderPage } from '../../../test/helpers/render.js';
import { inProcessApp, formRequest, keys, problemOf } from '../../../test/server/harness.js';
import { PAGE_KINDS, POSITIONS, expectPlaced } from '../../../test/helpers/placement.js';
import { runCliMeasured } from '../../../test/helpers/peak-rss.js';

const DPI = 20;
const PX = DPI / 72;

/** A solid red image three times as wide as tall. */
const RED_PNG = makePng(90, 30, () => [255, 0, 0, 255]);

/** A JPEG of a red rectangle (60 × 20 pt at 72 dpi), written by pdftoppm: baseline, progressive or CMYK. */
async function redJpeg(variant: 'baseline' | 'progressive' | 'cmyk'): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([60, 20]);
  page.drawRectangle({ x: 0, y: 0, width: 60, height: 20, color: rgb(1, 0, 0) });
  const path = tempFile(await doc.save());
  const args = variant === 'cmyk' ? ['-jpegcmyk'] : variant === 'progressive' ? ['-jpeg', '-jpegopt', 'progressive=y'] : ['-jpeg'];
  // A file, not standard output: pdftoppm cannot write CMYK JPEG to a pipe.
  await execa('pdftoppm', [...args, '-r', '72', '-singlefile', path, `${path}-${variant}`]);
  return readFileSync(`${path}-${variant}.jpg`);
}

describe('add_image_watermark placement on every kind of page', () => {
  describe.each(POSITIONS)('position %s', (position) => {
    it.each(['rotated.pdf', 'boxes.pdf', 'watermark-pages.pdf'])('%s: upright, at the position, the asked share of the width', async (file) => {
      const out = await addImageWatermark({ file: fixture(file), image: RED_PNG, transparency: 0, scale: 30, margin: 36, position });
      for (const { page, kind } of PAGE_KINDS.filter((k) => k.file === file)) {
        const raster = await renderPage(out, page, DPI);
        const box = findPixels(raster, reddish);
        const where = `${file} page ${page} (${kind}), ${position}`;
        expect(box, where).not.toBeNull();
        const width = box!.x1 - box!.x0 + 1;
        const height = box!.y1 - box!.y0 + 1;
        // 30 % of the visible width as the reader sees it; upright: three times as wide as tall.
        expect(Math.abs(width - 0.3 * raster.width), `${where}: width ${width}px of ${raster.width}px`).toBeLessThanOrEqual(2);
        expect(Math.abs(width / height - 3), `${where}: aspect ${width}x${height}`).toBeLessThan(0.5);
        expectPlaced(box!, raster.width, raster.height, position, 36, where);
      }
    });
  });

  it('the image keeps its aspect ratio and never leaves the page: scale 100 on a tall image fits inside the margins', async () => {
    const tall = makePng(10, 100, () => [255, 0, 0, 255]);
    const out = await addImageWatermark({ file: fixture('rotated.pdf'), image: tall, transparency: 0, scale: 100, margin: 36 });
    for (const page of [1, 2]) {
      const raster = await renderPage(out, page, DPI);
      const box = findPixels(raster, reddish)!;
      expect(box.y0).toBeGreaterThanOrEqual(Math.floor(36 * PX) - 1);
      expect(raster.height - 1 - box.y1).toBeGreaterThanOrEqual(Math.floor(36 * PX) - 1);
      expect(Math.abs((box.y1 - box.y0 + 1) / (box.x1 - box.x0 + 1) - 10)).toBeLessThan(2.5);
    }
  });
});

describe('add_image_watermark images', () => {
  it('keeps PNG transparency (soft mask): the transparent half shows the page', async () => {
    const half = makePng(100, 50, (x) => (x < 50 ? [255, 0, 0, 255] : [255, 0, 0, 0]));
    const out = await addImageWatermark({ file: fixture('pages-3.pdf'), image: half, transparency: 0, scale: 50, margin: 36, position: 'bottom' });
    const raster = await renderPage(out, 1, DPI);
    const box = findPixels(raster, reddish)!;
    const expectedWidth = 0.5 * raster.width;
    // Only the opaque left half is red.
    expect(Math.abs(box.x1 - box.x0 + 1 - expectedWidth / 2)).toBeLessThanOrEqual(2);
    expect(Math.abs(box.x0 - (raster.width - expectedWidth) / 2)).toBeLessThanOrEqual(2);
    const json = JSON.stringify((await qpdfJson(out)).qpdf[1]);
    expect(json).toContain('"/SMask"');
  });

  it.each(['baseline', 'progressive', 'cmyk'] as const)('draws a %s JPEG in its true colours', async (variant) => {
    const jpeg = await redJpeg(variant);
    const out = await addImageWatermark({ file: fixture('pages-1.pdf'), image: jpeg, transparency: 0, scale: 40, position: 'bottom' });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    const raster = await renderPage(out, 1, 30);
    const box = findPixels(raster, reddish);
    expect(box, `${variant}: red found`).not.toBeNull();
    const [r, g, b] = pixel(raster, Math.round((box!.x0 + box!.x1) / 2), Math.round((box!.y0 + box!.y1) / 2));
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(60);
    expect(b).toBeLessThan(60);
    const json = JSON.stringify((await qpdfJson(out)).qpdf[1]);
    expect(json).toContain('/DCTDecode');
    if (variant === 'cmyk') expect(json).toContain('/DeviceCMYK');
  });

  it('is embedded once and shared by every page: the output grows by about one image', async () => {
    const big = makePng(200, 200, (x, y) => [(x * 7) & 255, (y * 13) & 255, (x * y) & 255, 255]);
    const input = fixture('pages-10.pdf');
    const one = await addImageWatermark({ file: input, image: big, pages: '1' });
    const all = await addImageWatermark({ file: input, image: big });
    expect(all.length - one.length).toBeLessThan(9 * 250);
    const images = Object.values((await qpdfJson(all)).qpdf[1]).filter((o) => o.stream?.dict['/Subtype'] === '/Image');
    expect(images).toHaveLength(1);
    for (let page = 1; page <= 10; page++)
      expect(
        findPixels(await renderPage(all, page, DPI), (r, g, b) => r + g + b < 600 && Math.abs(r - g) > 40),
        `page ${page}`,
      ).not.toBeNull();
  });

  it('leaves page text, form fields and annotations alone', async () => {
    const input = fixture('form.pdf');
    const out = await addImageWatermark({ file: input, image: RED_PNG, layer: 'under' });
    expect(await pageTexts(out)).toEqual(await pageTexts(input));
    const [a, b] = [await qpdfJson(input), await qpdfJson(out)];
    expect(b.acroform.fields.map((f) => [f.fullname, f.value])).toEqual(a.acroform.fields.map((f) => [f.fullname, f.value]));
  });

  it('layer under is hidden beneath an opaque rectangle, over is not; transparency blends', async () => {
    const options = { file: fixture('watermark-pages.pdf'), image: RED_PNG, scale: 30, pages: '2' };
    expect(findPixels(await renderPage(await addImageWatermark({ ...options, transparency: 0, layer: 'over' }), 2, DPI), reddish)).not.toBeNull();
    expect(findPixels(await renderPage(await addImageWatermark({ ...options, transparency: 0, layer: 'under' }), 2, DPI), reddish)).toBeNull();
    const half = await renderPage(await addImageWatermark({ file: fixture('pages-1.pdf'), image: RED_PNG, transparency: 50 }), 1, DPI);
    const [r, g, b] = pixel(half, Math.floor(half.width / 2), Math.floor(half.height / 2) + 2);
    expect(r).toBeGreaterThan(240);
    expect(g).toBeGreaterThan(110);
    expect(g).toBeLessThan(145);
    expect(b).toBeGreaterThan(110);
  });
});

describe('add_image_watermark and tagged documents', () => {
  it('the mark is a watermark artifact: the drawing of the image inside /Artifact … EMC', async () => {
    const out = await addImageWatermark({ file: fixture('pages-3.pdf'), image: RED_PNG });
    const contents = await formContents(out);
    const mark = contents.find((content) => /\bDo\b/.test(content));
    expect(mark?.trimStart()).toMatch(/^\/Artifact <<\s*\/Type \/Pagination \/Subtype \/Watermark\s*>> BDC\s/);
    expect(mark?.trimEnd()).toMatch(/\sEMC$/);
  });
});

describe('add_image_watermark refusals', () => {
  const file = fixture('pages-1.pdf');
  const refused = async (image: Uint8Array) => {
    const error = await addImageWatermark({ file, image }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors.image?.[0] ?? JSON.stringify((error as ValidationError).errors);
  };

  it.each([
    ['GIF', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), /PNG or JPEG.*a GIF image/],
    ['WebP', Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'), /a WebP image/],
    ['PDF', fixture('pages-1.pdf'), /a PDF document/],
    ['SVG', Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'), /an SVG image/],
    ['text', Buffer.from('hello, world'), /12 bytes of something else \(it starts with 68 65 6c/],
    ['empty', new Uint8Array(0), /an empty file/],
    ['truncated PNG', RED_PNG.subarray(0, 40), /damaged or unsupported PNG/],
  ])('%s → 400 errors.image naming what it got', async (_, bytes, message) => {
    expect(await refused(bytes)).toMatch(message);
  });

  it.each([
    [
      '20000 x 20000 pixels of zeros in a few KB',
      () => pngBomb(20000, 20000, 200 * 80001),
      /declares 20000 x 20000 pixels .* at most 16\.8 megapixels .* scale it down/,
    ],
    ['100000 x 100000 pixels', () => pngBomb(100000, 100000, 4096), /declares 100000 x 100000 pixels/],
    ['2^31 pixels wide', () => pngBomb(2 ** 31, 1, 4096), /declares 2147483648 x 1 pixels/],
    ['1024 x 1024 declared, 64 MB of pixel data', () => pngBomb(1024, 1024, 64 * 2 ** 20), /pixel data inflates past the 1024 x 1024 pixels it declares/],
  ])('an image bomb (%s) → 400 errors.image at once, before it is decoded', async (_, make, message) => {
    const image = make();
    expect(image.byteLength).toBeLessThan(2 ** 20);
    const started = performance.now();
    expect(await refused(image)).toMatch(message);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('an image bomb costs the command line little memory and time: exit 2, no output file', async () => {
    const image = tempFile(pngBomb(1024, 1024, 64 * 2 ** 20), '.png');
    const output = `${tempFile(new Uint8Array(0))}.out.pdf`;
    const { run, maxRssKb } = await runCliMeasured(['add-image-watermark', '--image', image, tempFile(file), '-o', output]);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/pdfsvc: image: its pixel data inflates past/);
    expect(maxRssKb).toBeGreaterThan(0);
    expect(maxRssKb).toBeLessThan(300 * 1024);
    expect(existsSync(output)).toBe(false);
  });

  it('a JPEG cut off before its image data → 400 errors.image', async () => {
    const jpeg = await redJpeg('baseline');
    expect(await refused(jpeg.subarray(0, 200))).toMatch(/is a damaged JPEG image and cannot be read \(.*\); export it again/);
  });

  it.each([
    ['scale', { scale: 0 }, /from 1 to 100 percent/],
    ['scale', { scale: '100.1' }, /from 1 to 100 percent/],
    ['transparency', { transparency: 101 }, /from 0 to 100 percent/],
    ['margin', { margin: 1001 }, /from 0 to 1000 points/],
    ['position', { position: 'centre' }, /one of center/],
    ['layer', { layer: 'behind' }, /one of over, under/],
    ['image', { image: undefined }, /required: send the image as a file part/],
    ['image', { image: 'logo.png' }, /got a string \(a path or text is not read as a file\): pass the file's bytes/],
    ['rotation', { rotation: 45 }, /unknown field/],
  ])('%s: %j → 400 naming the field', async (field, extra, message) => {
    const error = await addImageWatermark({ file, image: RED_PNG, ...extra } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors[field]?.join(' '), JSON.stringify((error as ValidationError).errors)).toMatch(message);
  });
});

describe('watermarks through the HTTP API and the CLI', () => {
  it('POST /v1/add_image_watermark and /v1/add_text_watermark answer a PDF; a bad image is 400 errors.image', async () => {
    const app = inProcessApp();
    const headers = { 'X-API-Key': keys.business };
    const ok = await app.fetch(
      formRequest(
        'http://pdfsvc.test/v1/add_image_watermark',
        [
          ['file', fixture('pages-3.pdf')],
          ['image', { bytes: RED_PNG, filename: 'red.png', type: 'image/png' }],
          ['position', 'top-right'],
          ['transparency', '0'],
        ],
        headers,
      ),
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/pdf');
    const out = new Uint8Array(await ok.arrayBuffer());
    expect(findPixels(await renderPage(out, 1, DPI), reddish)).not.toBeNull();

    const bad = await app.fetch(
      formRequest(
        'http://pdfsvc.test/v1/add_image_watermark',
        [
          ['file', fixture('pages-3.pdf')],
          ['image', { bytes: Buffer.from('GIF89a....'), filename: 'x.gif' }],
        ],
        headers,
      ),
    );
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).errors?.image?.[0]).toMatch(/a GIF image/);

    const text = await app.fetch(
      formRequest(
        'http://pdfsvc.test/v1/add_text_watermark',
        [
          ['file', fixture('pages-3.pdf')],
          ['line_1', 'Черновик'],
          ['line_2', 'DRAFT'],
        ],
        headers,
      ),
    );
    expect(text.status).toBe(200);
    expect((await pageTexts(new Uint8Array(await text.arrayBuffer())))[0]).toContain('Черновик');

    const badLine = await app.fetch(
      formRequest(
        'http://pdfsvc.test/v1/add_text_watermark',
        [
          ['file', fixture('pages-3.pdf')],
          ['line_1', 'ok'],
          ['line_2', '𗀀'],
        ],
        headers,
      ),
    );
    expect(badLine.status).toBe(400);
    expect(Object.keys((await problemOf(badLine)).errors ?? {})).toEqual(['line_2']);
  });

  it('pdfsvc add-image-watermark --image and add-text-watermark --line-1', async () => {
    const cli = new URL('../../../bin/pdfsvc.js', import.meta.url).pathname;
    const png = tempFile(RED_PNG, '.png');
    const out = tempFile(new Uint8Array(0));
    const image = await execa(
      'node',
      [cli, 'add-image-watermark', '--image', png, '--scale', '20', '--transparency', '0', fixture_path('rotated.pdf'), '-o', out],
      { reject: false },
    );
    expect(image.exitCode, image.stderr).toBe(0);
    const text = await execa('node', [cli, 'add-text-watermark', '--line-1', 'Ελληνικά', '--font-size', '40', fixture_path('boxes.pdf')], {
      reject: false,
      encoding: 'buffer',
    });
    expect(text.exitCode).toBe(0);
    expect((await pageTexts(text.stdout as Uint8Array))[0]).toContain('Ελληνικά');
    const bad = await execa('node', [cli, 'add-image-watermark', '--image', fixture_path('pages-1.pdf'), fixture_path('rotated.pdf'), '-o', out], {
      reject: false,
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^pdfsvc: image: must be a PNG or JPEG image; got a PDF document/m);
  });
});

function fixture_path(name: string): string {
  return new URL(`../../../fixtures/out/${name}`, import.meta.url).pathname;
}
