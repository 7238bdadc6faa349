/**
 * add_text_watermark: placement judged on rendered pages (poppler), text
 * judged by pdftotext, structure by qpdf. Pages of every kind: /Rotate 90,
 * 180, 270 on the page and inherited, MediaBox off the origin, a CropBox
 * smaller than the MediaBox, content with an unbalanced `cm`, and all of
 * those at once.
 */
import type { Font } from '@cantoo/fontkit';
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { addTextWatermark, ValidationError } from '../../index.js';
import { StandardFontEmbedder, StandardFonts } from '@cantoo/pdf-lib';
import { fixture, formContents, pageDicts, pageTexts, pdfinfo, qpdfCheck, qpdfJson, tempFile } from '../../../test/helpers/pdf-tools.js';
import { centroid, findPixels, pixel, reddish, renderPage, renderPageMupdf } from '../../../test/helpers/render.js';
import { expectPlaced, PAGE_KINDS, POSITIONS } from '../../../test/helpers/placement.js';
import { buildPdf, FONT, pageDict, type RawObject } from '../../../test/helpers/raw-pdf.js';

const DPI = 20;
const PX = DPI / 72;
const TOL = 2;

const WORD = 'CONFIDENTIAL';
const SIZE = 30;
const wordWidth = StandardFontEmbedder.for(StandardFonts.HelveticaBold as never).widthOfTextAtSize(WORD, SIZE);

describe('add_text_watermark placement on every kind of page', () => {
  describe.each(POSITIONS)('position %s', (position) => {
    it.each(['rotated.pdf', 'boxes.pdf', 'watermark-pages.pdf'])('%s: upright, at the position, margin from the visible edges', async (file) => {
      const out = await addTextWatermark({
        file: fixture(file),
        line_1: WORD,
        color: '#ff0000',
        transparency: 0,
        rotation: 0,
        font_size: SIZE,
        margin: 36,
        position,
      });
      for (const { page, kind } of PAGE_KINDS.filter((k) => k.file === file)) {
        const raster = await renderPage(out, page, DPI);
        const box = findPixels(raster, reddish);
        const where = `${file} page ${page} (${kind}), ${position}`;
        expect(box, where).not.toBeNull();
        // Upright: a one-line word is wider than tall, at its true size (no cm from the page leaked in).
        expect(Math.abs(box!.x1 - box!.x0 + 1 - wordWidth * PX), `${where}: width`).toBeLessThanOrEqual(TOL + 1);
        expect(box!.y1 - box!.y0 + 1, `${where}: height`).toBeLessThan(SIZE * PX);
        expectPlaced(box!, raster.width, raster.height, position, 36, where);
      }
    });
  });

  it.each(PAGE_KINDS)(
    'default: fitted, along the diagonal bottom-left to top-right as the reader sees it ($file page $page, $kind)',
    async ({ file, page }) => {
      const out = await addTextWatermark({ file: fixture(file), line_1: WORD, color: '#ff0000', transparency: 0, pages: String(page) });
      const raster = await renderPage(out, page, DPI);
      const box = findPixels(raster, reddish)!;
      expect(box).not.toBeNull();
      expectPlaced(box, raster.width, raster.height, 'center', 36, `${file} page ${page}`);
      // Rising to the right: the red on the left of the box is lower (larger y) than on the right.
      const third = Math.floor((box.x1 - box.x0) / 3);
      const left = centroid(raster, reddish, box.x0, box.x0 + third)!;
      const right = centroid(raster, reddish, box.x1 - third, box.x1)!;
      expect(left.y).toBeGreaterThan(right.y + 5);
      // Fitted: the text's diagonal extent is about 60 % of the shorter side.
      const extent = Math.hypot(box.x1 - box.x0, box.y1 - box.y0);
      const shorter = Math.min(raster.width, raster.height);
      expect(extent / shorter).toBeGreaterThan(0.5);
      expect(extent / shorter).toBeLessThan(0.85);
    },
  );

  it('explicit rotations turn the text counter-clockwise as the reader sees it', async () => {
    for (const [rotation, rising] of [
      [30, true],
      [-30, false],
      [90, null],
    ] as const) {
      const out = await addTextWatermark({ file: fixture('rotated.pdf'), line_1: WORD, color: '#ff0000', transparency: 0, rotation, font_size: 30 });
      for (const page of [1, 2, 3, 4, 5]) {
        const raster = await renderPage(out, page, DPI);
        const box = findPixels(raster, reddish)!;
        if (rising === null) {
          expect(box.y1 - box.y0, `rotation 90, page ${page}: taller than wide`).toBeGreaterThan(box.x1 - box.x0);
          continue;
        }
        const third = Math.floor((box.x1 - box.x0) / 3);
        const left = centroid(raster, reddish, box.x0, box.x0 + third)!;
        const right = centroid(raster, reddish, box.x1 - third, box.x1)!;
        if (rising) expect(left.y, `rotation ${rotation}, page ${page}`).toBeGreaterThan(right.y + 3);
        else expect(right.y, `rotation ${rotation}, page ${page}`).toBeGreaterThan(left.y + 3);
      }
    }
  });

  it('several lines are centred on each other, line 1 on top', async () => {
    const out = await addTextWatermark({
      file: fixture('pages-3.pdf'),
      line_1: 'TOP LINE',
      line_2: 'A MUCH LONGER SECOND LINE',
      color: '#ff0000',
      transparency: 0,
      rotation: 0,
      font_size: 24,
      pages: '1',
    });
    const raster = await renderPage(out, 1, 40);
    const box = findPixels(raster, reddish)!;
    const mid = Math.round((box.y0 + box.y1) / 2);
    const topLine = findPixels({ ...raster, pixels: raster.pixels.subarray(0, mid * raster.width * 3), height: mid }, reddish)!;
    expect(topLine.x1 - topLine.x0).toBeLessThan((box.x1 - box.x0) * 0.6);
    expect(Math.abs((topLine.x0 + topLine.x1) / 2 - (box.x0 + box.x1) / 2)).toBeLessThanOrEqual(2);
    const text = (await pageTexts(out))[0];
    expect(text.indexOf('TOP LINE')).toBeLessThan(text.indexOf('A MUCH LONGER SECOND LINE'));
  });
});

describe('add_text_watermark on consecutive pages that share or change their geometry and depth', () => {
  // Each page is placed by the view of the page before when its boxes and rotation read the same (stamp.ts), and
  // wrapped by the streams made for the page before when its content leaves the same q/Q depth: every change below
  // must be noticed, whatever the page before was.
  const geometry = [
    '/MediaBox [0 0 612 792]',
    '/MediaBox [0 0 612 792]',
    '/MediaBox [0 0 612 792] /CropBox [100 100 400 500]',
    '/MediaBox [0 0 612 792] /CropBox [100 100 400 500] /Rotate 90',
    '/MediaBox [0 0 612.0 792.000]',
    '/MediaBox [0 0 792 612]',
    '/MediaBox 30 0 R',
    '/MediaBox [0 0 612 792]',
  ];
  // Pages 2 and 7 leave a q open after a scale that would double the mark; page 8 has a Q too many.
  const content = (i: number) =>
    i === 1 || i === 6 ? 'q 2 0 0 2 0 0 cm 0 0 1 rg 10 10 20 20 re f' : i === 7 ? 'Q 0 0 1 rg 10 10 20 20 re f' : '0 0 1 rg 10 10 20 20 re f';
  const objects: RawObject[] = [
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { num: 2, body: `<< /Type /Pages /Kids [${geometry.map((_, i) => `${4 + 2 * i} 0 R`).join(' ')}] /Count ${geometry.length} >>` },
    { num: 3, body: FONT },
    { num: 30, body: '[0 0 792 612]' },
  ];
  geometry.forEach((entries, i) => {
    objects.push({ num: 4 + 2 * i, body: pageDict(2, 5 + 2 * i, entries) });
    objects.push({ num: 5 + 2 * i, body: { dict: '', stream: content(i) } });
  });
  const input = buildPdf([{ objects }]).bytes;

  it.each(['center', 'bottom-right'] as const)('each page gets the mark at its own position, at its true size (%s)', async (position) => {
    const out = await addTextWatermark({ file: input, line_1: WORD, color: '#ff0000', transparency: 0, rotation: 0, font_size: SIZE, margin: 36, position });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    for (let page = 1; page <= geometry.length; page++) {
      const raster = await renderPage(out, page, DPI);
      const box = findPixels(raster, reddish);
      const where = `page ${page} (${geometry[page - 1]}), ${position}`;
      expect(box, where).not.toBeNull();
      expect(Math.abs(box!.x1 - box!.x0 + 1 - wordWidth * PX), `${where}: width`).toBeLessThanOrEqual(TOL + 1);
      expect(box!.y1 - box!.y0 + 1, `${where}: height`).toBeLessThan(SIZE * PX);
      expectPlaced(box!, raster.width, raster.height, position, 36, where);
    }
  });
});

describe('add_text_watermark on pages with a /UserUnit', () => {
  // A /UserUnit of 2 makes a unit of the page two points (PDF 1.6): font size and margin are points all the same.
  // Judged by MuPDF, which scales such a page as Acrobat does (poppler ignores /UserUnit). Page 3 has page 2's
  // boxes and rotation but no /UserUnit: it must not reuse page 2's placement.
  const geometry = ['/MediaBox [0 0 306 396] /UserUnit 2', '/MediaBox [0 0 306 396] /UserUnit 2 /Rotate 90', '/MediaBox [0 0 306 396] /Rotate 90'];
  const objects: RawObject[] = [
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { num: 2, body: `<< /Type /Pages /Kids [${geometry.map((_, i) => `${4 + 2 * i} 0 R`).join(' ')}] /Count ${geometry.length} >>` },
    { num: 3, body: FONT },
  ];
  geometry.forEach((entries, i) => {
    objects.push({ num: 4 + 2 * i, body: pageDict(2, 5 + 2 * i, entries) });
    objects.push({ num: 5 + 2 * i, body: { dict: '', stream: '0 0 1 rg 10 10 20 20 re f' } });
  });
  const input = buildPdf([{ objects }]).bytes;

  it.each(['top-left', 'bottom-right'] as const)('the mark is its size in points, a margin in points from the edges (%s)', async (position) => {
    const out = await addTextWatermark({ file: input, line_1: WORD, color: '#ff0000', transparency: 0, rotation: 0, font_size: SIZE, margin: 36, position });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    for (let page = 1; page <= geometry.length; page++) {
      const raster = await renderPageMupdf(out, page, DPI);
      const box = findPixels(raster, reddish);
      const where = `page ${page} (${geometry[page - 1]}), ${position}`;
      expect(box, where).not.toBeNull();
      expect(Math.abs(box!.x1 - box!.x0 + 1 - wordWidth * PX), `${where}: width`).toBeLessThanOrEqual(TOL + 1);
      expectPlaced(box!, raster.width, raster.height, position, 36, where);
    }
  });
});

describe('add_text_watermark leaves everything else alone', () => {
  it('page text, annotations, links, form fields and outlines are unchanged', async () => {
    for (const file of ['outline.pdf', 'form.pdf', 'rotated.pdf', 'watermark-pages.pdf']) {
      const input = fixture(file);
      const out = await addTextWatermark({ file: input, line_1: 'WMSTAMP', rotation: 0, font_size: 20, position: 'bottom-right', margin: 10 });
      expect((await qpdfCheck(out)).exitCode, file).toBe(0);
      const before = await pageTexts(input);
      const after = await pageTexts(out);
      const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
      if (file === 'watermark-pages.pdf') {
        // Page 6 starts with a Q that has nothing to restore: poppler gives up on the
        // original page and draws nothing; inside the watermark's q … Q it draws.
        expect(before[5].trim()).toBe('');
        expect(after[5]).toContain('PDFSVC PAGE 6');
        before.splice(5, 1);
        after.splice(5, 1);
      }
      expect(
        after.map((t) => collapse(t.replace('WMSTAMP', ''))),
        file,
      ).toEqual(before.map(collapse));
      for (const t of after) expect(t).toContain('WMSTAMP');
      const [a, b] = [await qpdfJson(input), await qpdfJson(out)];
      expect(b.acroform.fields.map((f) => [f.fullname, f.value, f.pageposfrom1])).toEqual(a.acroform.fields.map((f) => [f.fullname, f.value, f.pageposfrom1]));
      expect(b.outlines).toEqual(a.outlines);
      expect(pageDicts(b).map((p) => p['/Annots'])).toEqual(pageDicts(a).map((p) => p['/Annots']));
      // Sizes and rotations as readers see them (an inherited /Rotate may now sit on the page itself).
      expect((await pdfinfo(out)).pages).toEqual((await pdfinfo(input)).pages);
    }
  });

  it('only the selected pages get the watermark; a /Resources shared with unselected pages is copied, not changed', async () => {
    const input = fixture('watermark-pages.pdf');
    const out = await addTextWatermark({ file: input, line_1: WORD, color: '#ff0000', transparency: 0, pages: '1,4' });
    for (const [page, marked] of [
      [1, true],
      [2, false],
      [3, false],
      [4, true],
    ] as const) {
      expect(findPixels(await renderPage(out, page, DPI), reddish) !== null, `page ${page}`).toBe(marked);
    }
    const json = await qpdfJson(out);
    const objects = json.qpdf[1];
    const resourcesOf = (p: Record<string, unknown>) => {
      const r = p['/Resources'];
      return typeof r === 'string' ? (objects[`obj:${r}`]?.value ?? {}) : (r as Record<string, unknown>);
    };
    const pages = pageDicts(json);
    const xobjects = pages.map((p) => JSON.stringify(resourcesOf(p)['/XObject'] ?? null));
    expect(xobjects[0]).toContain('PdfsvcWatermark');
    expect(xobjects[3]).toContain('PdfsvcWatermark');
    expect(xobjects[1]).not.toContain('PdfsvcWatermark');
    expect(xobjects[2]).not.toContain('PdfsvcWatermark');
    // Pages 2 and 3 still share one dictionary; 1 and 4 share the copy.
    expect(pages[1]['/Resources']).toBe(pages[2]['/Resources']);
    expect(pages[0]['/Resources']).toBe(pages[3]['/Resources']);
    expect(pages[0]['/Resources']).not.toBe(pages[1]['/Resources']);
  });

  it('the mark is a watermark artifact, so a tagged document stays tagged: all of its drawing inside /Artifact … EMC', async () => {
    const out = await addTextWatermark({ file: fixture('pages-3.pdf'), line_1: WORD, line_2: 'Ωmega' });
    const [form, ...others] = await formContents(out);
    expect(others).toEqual([]);
    expect(form.trimStart()).toMatch(/^\/Artifact <<\s*\/Type \/Pagination \/Subtype \/Watermark\s*>> BDC\s/);
    expect(form.trimEnd()).toMatch(/\sEMC$/);
    expect(form.match(/\bBDC\b/g)?.length).toBe(form.match(/\bEMC\b/g)?.length);
    expect((await pageTexts(out))[0]).toContain(WORD);
  });

  it('the output grows by about one watermark, not one per page', async () => {
    const input = fixture('pages-10.pdf');
    const one = await addTextWatermark({ file: input, line_1: WORD, pages: '1' });
    const all = await addTextWatermark({ file: input, line_1: WORD });
    // Each further page costs its placement (a cm and a Do, about 150 bytes), never another copy of the text.
    expect(all.length - one.length).toBeLessThan(9 * 250);
    const json = await qpdfJson(all);
    const forms = Object.values(json.qpdf[1]).filter((o) => o.stream?.dict['/Subtype'] === '/Form');
    expect(forms).toHaveLength(1);
  });
});

describe('add_text_watermark layers and transparency', () => {
  it('over draws above an opaque rectangle; under is hidden beneath it', async () => {
    const input = fixture('watermark-pages.pdf');
    const options = { file: input, line_1: WORD, color: '#ff0000', transparency: 0, rotation: 0, font_size: 30, pages: '2' };
    const over = await renderPage(await addTextWatermark({ ...options, layer: 'over' }), 2, DPI);
    const under = await renderPage(await addTextWatermark({ ...options, layer: 'under' }), 2, DPI);
    expect(findPixels(over, reddish)).not.toBeNull();
    expect(findPixels(under, reddish)).toBeNull();
    // Under does show where the page paints nothing: the same text outside the rectangle.
    const below = await renderPage(await addTextWatermark({ ...options, layer: 'under', position: 'bottom' }), 2, DPI);
    expect(findPixels(below, reddish)).not.toBeNull();
  });

  it('transparency blends with the page through an ExtGState (/ca), not by changing the colour', async () => {
    const options = { file: fixture('pages-1.pdf'), line_1: 'M', color: '#ff0000', rotation: 0, font_size: 300, position: 'bottom' as const };
    const strongest = async (transparency: number) => {
      const out = await addTextWatermark({ ...options, transparency });
      const raster = await renderPage(out, 1, 30);
      const box = findPixels(raster, (r, g) => r > 200 && g < 245 && r - g > 20)!;
      let best: [number, number, number] = [255, 255, 255];
      for (let y = box.y0; y <= box.y1; y++)
        for (let x = box.x0; x <= box.x1; x++) {
          const p = pixel(raster, x, y);
          if (p[1] < best[1]) best = p;
        }
      return { best, json: JSON.stringify((await qpdfJson(out)).qpdf[1]) };
    };
    const opaque = await strongest(0);
    expect(opaque.best[1]).toBeLessThan(20);
    const half = await strongest(50);
    expect(half.best[0]).toBeGreaterThan(240);
    expect(half.best[1]).toBeGreaterThan(110);
    expect(half.best[1]).toBeLessThan(145);
    expect(half.json).toMatch(/"\/ca":\s*0\.5/);
    const quarter = await strongest(75);
    expect(quarter.best[1]).toBeGreaterThan(180);
  });
});

describe('add_text_watermark Unicode text', () => {
  const lines = { line_1: 'Ελληνικά Черновик', line_2: 'हिन्दी नमस्ते', line_3: 'Łódź — Ærø', line_4: 'ASCII only' };

  it('draws Greek, Cyrillic, Devanagari and Latin Extended with embedded subset Noto Sans; pdftotext finds every line', async () => {
    const out = await addTextWatermark({ file: fixture('pages-3.pdf'), ...lines, color: '#ff0000', transparency: 0 });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    const texts = await pageTexts(out);
    for (const text of texts) for (const line of Object.values(lines)) expect(text).toContain(line);
    const fonts = (await execa('pdffonts', [tempFile(out)])).stdout;
    const rows = fonts.split('\n').filter((l) => /NotoSans/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) expect(row).toMatch(/^[A-Z]{6}\+NotoSans\S*\s.*\byes\s+yes\s+yes\b/);
    expect(findPixels(await renderPage(out, 1, DPI), reddish)).not.toBeNull();
    // Subsets: the whole output stays small (the font files are 20-60 KB each).
    expect(out.length - fixture('pages-3.pdf').length).toBeLessThan(40_000);
  });

  it('draws Chinese (simplified and traditional), Japanese and Korean with embedded subsets of Noto Sans SC and KR Bold', async () => {
    const cjk = { line_1: '机密文件 请勿外传', line_2: '機密文件 請勿外傳', line_3: 'ひらがな カタカナ 社外秘', line_4: '대외비 문서' };
    const input = fixture('pages-1.pdf');
    const out = await addTextWatermark({ file: input, ...cjk, color: '#ff0000', transparency: 0 });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    // Each line's glyphs come out as its characters (the fonts' ToUnicode maps, then /ActualText).
    const text = (await pageTexts(out))[0];
    for (const line of Object.values(cjk)) expect(text).toContain(line);
    const fonts = (await execa('pdffonts', [tempFile(out)])).stdout;
    const rows = fonts.split('\n').filter((l) => /NotoSans/.test(l));
    for (const family of ['SC', 'KR']) expect(rows.some((row) => row.includes(`+NotoSans${family}-Bold `))).toBe(true);
    for (const row of rows) expect(row).toMatch(/^[A-Z]{6}\+NotoSans(SC|KR)-Bold\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes\b/);
    // Ink where the watermark is (the centre of the page), none of it red before.
    expect(findPixels(await renderPage(input, 1, DPI), reddish)).toBeNull();
    const raster = await renderPage(out, 1, DPI);
    const ink = findPixels(raster, reddish);
    expect(ink).not.toBeNull();
    expect(Math.abs((ink!.x0 + ink!.x1) / 2 - raster.width / 2)).toBeLessThan(raster.width / 10);
    expect(Math.abs((ink!.y0 + ink!.y1) / 2 - raster.height / 2)).toBeLessThan(raster.height / 10);
    expect(ink!.count).toBeGreaterThan(200);
    // Subsets of a few glyphs each, not the font files (40-80 KB each).
    expect(out.length - input.length).toBeLessThan(60_000);
  });

  it('Latin-1 text uses the standard Helvetica-Bold: nothing embedded', async () => {
    const out = await addTextWatermark({ file: fixture('pages-1.pdf'), line_1: 'Entwurf – Brouillon «privé» €5' });
    const fonts = (await execa('pdffonts', [tempFile(out)])).stdout;
    expect(fonts).toMatch(/Helvetica-Bold\s+Type 1\s+WinAnsi\s+no/);
    expect((await pageTexts(out))[0]).toContain('Entwurf – Brouillon «privé» €5');
  });

  it('a character no shipped font has is a 400 naming the line, never a blank box', async () => {
    for (const [text, what] of [
      ['西夏文 𗀀', '𗀀'],
      ['Top secret 🔒', '🔒'],
      ['ลับ', 'ล'],
    ] as const) {
      const error = await addTextWatermark({ file: fixture('pages-1.pdf'), line_1: 'OK', line_2: text }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).errors)).toEqual(['line_2']);
      expect((error as ValidationError).errors.line_2[0]).toContain(what);
    }
  });

  it('a line with a control character (a line break) is a 400 naming the line', async () => {
    const error = await addTextWatermark({ file: fixture('pages-1.pdf'), line_1: 'two\nlines' }).catch((e: unknown) => e);
    expect((error as ValidationError).errors.line_1[0]).toMatch(/control character U\+000A/);
  });
});

describe('add_text_watermark Arabic and Hebrew', () => {
  const lines = { line_1: 'عام 2024', line_2: 'שלום world', line_3: 'سلام', line_4: 'מסמך (טיוטה)', line_5: 'عام ٢٠٢٤' };
  const watermark = () => addTextWatermark({ file: fixture('pages-1.pdf'), ...lines, color: '#ff0000', transparency: 0, rotation: 0, font_size: 20 });

  it('draws them with embedded subsets of Noto Sans Arabic and Hebrew; pdftotext reads every word in reading order', async () => {
    const out = await watermark();
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    // No /ActualText on these lines (text.ts says why): poppler reads the glyphs and their ToUnicode. It gives a
    // line's runs left to right as drawn, each right-to-left word in reading order between U+202B and U+202C.
    const text = (await pageTexts(out))[0];
    expect(text).toContain('2024 \u202bعام\u202c');
    expect(text).toContain('world \u202bשלום\u202c');
    expect(text).toContain('\u202bسلام\u202c');
    const fonts = (await execa('pdffonts', [tempFile(out)])).stdout;
    for (const family of ['NotoSansArabic', 'NotoSansHebrew', 'NotoSans-'])
      expect(fonts).toMatch(new RegExp(`^[A-Z]{6}\\+${family}\\S*\\s.*\\byes\\s+yes\\s+yes\\b`, 'm'));
    expect(findPixels(await renderPage(out, 1, DPI), reddish)).not.toBeNull();
  });

  it('Arabic is shaped: the embedded glyphs are the joined forms, lam before alef the lam-alef pair, not the letters alone', async () => {
    const fontkit = (await import('@cantoo/fontkit')).default;
    const notoArabic = fontkit.create(
      readFileSync(createRequire(import.meta.url).resolve('@fontsource/noto-sans-arabic/files/noto-sans-arabic-arabic-700-normal.woff')),
    ) as Font;
    const outline = (text: string, codePoint: number) =>
      notoArabic
        .layout(text)
        .glyphs.find((g) => g.codePoints.includes(codePoint))!
        .path.toSVG();
    const joined = [outline('عام', 0x639), outline('عام', 0x627), outline('سلام', 0x644), outline('سلام', 0x627)];
    const alone = [outline('ع', 0x639), outline('ا', 0x627), outline('ل', 0x644)];
    // Noto Sans Arabic draws lam-alef as a lam and an alef of their own, not the ones of other words.
    expect(outline('سلام', 0x627)).not.toBe(outline('عام', 0x627));
    expect(outline('سلام', 0x644)).not.toBe(outline('سلم', 0x644));
    // The outlines in the subset the output embeds, read back through qpdf.
    const out = await watermark();
    const objects = Object.values((await qpdfJson(out)).qpdf[1]);
    const descriptor = objects.find((o) => /NotoSansArabic/.test(String(o.value?.['/FontName'])) && o.value?.['/FontFile2'])!;
    const fontFile = /^(\d+) 0 R$/.exec(String(descriptor.value!['/FontFile2']))![1];
    const subsetBytes = (await execa('qpdf', [`--show-object=${fontFile}`, '--filtered-stream-data', tempFile(out)], { encoding: 'buffer' })).stdout;
    const subset = fontkit.create(subsetBytes) as Font;
    const embedded = new Set(Array.from({ length: subset.numGlyphs }, (_, id) => subset.getGlyph(id)?.path.toSVG()));
    for (const form of joined) expect(embedded.has(form)).toBe(true);
    for (const form of alone) expect(embedded.has(form)).toBe(false);
  });

  it('runs are drawn right to left, Latin words and numbers among them left to right, brackets mirrored', async () => {
    // pdftotext -bbox: each word's box, its characters in the order they are drawn, left to right.
    const html = (await execa('pdftotext', ['-bbox', tempFile(await watermark()), '-'])).stdout;
    const words = [...html.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)];
    const drawn = (word: string) => {
      const found = words.find((w) => w[3] === [...word].reverse().join('') || w[3] === word);
      expect(found, word).toBeDefined();
      return { xMin: Number(found![1]), xMax: Number(found![2]), text: found![3] };
    };
    // "שלום world": the Hebrew word right to left, on the right; "world" on its left.
    expect(drawn('שלום').text).toBe('םולש');
    expect(drawn('world').xMax).toBeLessThan(drawn('שלום').xMin);
    // "عام 2024": the year on the left of the word; Arabic-Indic digits left to right too.
    expect(drawn('2024').xMax).toBeLessThan(drawn('عام').xMin);
    expect(drawn('٢٠٢٤').text).toBe('٢٠٢٤');
    // "(טיוטה)": the opening bracket on the right, drawn as the mirror image ")".
    expect(drawn('(הטויט)').text).toBe('(הטויט)');
  });
});

describe('add_text_watermark field validation', () => {
  const file = fixture('pages-1.pdf');
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['line_1', {}, /required/],
    ['line_1', { line_1: 'x'.repeat(201) }, /201 characters long; the maximum is 200/],
    ['line_3', { line_3: 'y'.repeat(201) }, /maximum is 200/],
    ['font_size', { font_size: 3.9 }, /from 4 to 400 points/],
    ['font_size', { font_size: '401' }, /from 4 to 400 points/],
    ['font_size', { font_size: 'big' }, /must be a number/],
    ['color', { color: 'red' }, /#RRGGBB/],
    ['color', { color: '#12345' }, /#RRGGBB/],
    ['transparency', { transparency: -1 }, /from 0 to 100 percent/],
    ['transparency', { transparency: '100.5' }, /from 0 to 100 percent/],
    ['rotation', { rotation: -361 }, /from -360 to 360 degrees/],
    ['rotation', { rotation: '361' }, /from -360 to 360 degrees/],
    ['position', { position: 'middle' }, /one of center, top-left, top, top-right, left, right, bottom-left, bottom, bottom-right/],
    ['margin', { margin: -1 }, /from 0 to 1000 points/],
    ['margin', { margin: 1000.5 }, /from 0 to 1000 points/],
    ['layer', { layer: 'above' }, /one of over, under/],
    ['pages', { pages: '0' }, /.+/],
    ['pages', { pages: '5' }, /does not exist/],
    ['opacity', { opacity: 50 }, /unknown field/],
  ];
  it.each(cases)('%s: %j', async (field, extra, message) => {
    const input = { file, line_1: 'OK', ...extra } as Record<string, unknown>;
    if (field === 'line_1' && !('line_1' in extra)) delete input.line_1;
    const error = await addTextWatermark(input as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors[field]?.join(' '), JSON.stringify((error as ValidationError).errors)).toMatch(message);
  });

  it('accepts the ends of every range', async () => {
    for (const extra of [
      { font_size: 4, transparency: 0, rotation: -360, margin: 0 },
      { font_size: 400, transparency: 100, rotation: 360, margin: 1000, layer: 'under' },
    ]) {
      const out = await addTextWatermark({ file, line_1: 'x'.repeat(200), ...extra } as never);
      expect((await qpdfCheck(out)).exitCode).toBe(0);
    }
  });
});
