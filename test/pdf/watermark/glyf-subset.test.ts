/**
 * The TrueType subset written from outlines (for WOFF2 and variable fonts,
 * which fontkit cannot subset): read back by fontkit, each glyph has the
 * outline and advance of the instance it came from, and the file is a valid
 * sfnt (whole-file checksum). Readers drawing it: add_text_watermark's tests.
 */
import fontkit from '@cantoo/fontkit';
import { describe, expect, it } from 'vitest';
import { covers, type Face, notoFaces } from '../../../src/pdf/watermark/fonts.js';
import { GlyfSubset, type OutlineFont, type OutlineGlyph } from '../../../src/pdf/watermark/glyf-subset.js';

async function faceFor(c: string): Promise<Face> {
  const cp = c.codePointAt(0)!;
  const face = (await notoFaces()).find((f) => covers(f, cp) && f.font.hasGlyphForCodePoint(cp));
  if (!face) throw new Error(`no face for ${c}`);
  return face;
}

function points(glyph: OutlineGlyph): number[][] {
  return glyph.path.commands.map(({ args }) => args.map(Math.round));
}

describe('GlyfSubset', () => {
  it('CJK text is drawn from Noto Sans SC at its Bold instance (the default instance is Thin)', async () => {
    const face = await faceFor('机');
    expect(face.file).toMatch(/^noto-sans-sc-\d+-wght-normal\.woff2$/);
    expect(face.name).toBe('NotoSansSC-Bold');
    const thin = fontkit.create(face.bytes) as unknown as OutlineFont;
    const [bold, light] = [face.font.layout('机').glyphs[0], thin.layout('机').glyphs[0]];
    expect(bold.id).toBe(light.id);
    expect(bold.bbox.maxX - bold.bbox.minX).toBeGreaterThan(light.bbox.maxX - light.bbox.minX);
  });

  it('fontkit reads the subset back: same outlines, advances and glyph order', async () => {
    const face = await faceFor('机');
    const font = face.font as OutlineFont;
    const subset = new GlyfSubset(font);
    const glyphs = font.layout('机').glyphs as OutlineGlyph[];
    expect(glyphs.map((g) => subset.includeGlyph(g))).toEqual([1]);
    expect(subset.includeGlyph(glyphs[0])).toBe(1);
    const bytes = subset.encode();
    const back = fontkit.create(bytes) as unknown as OutlineFont & { numGlyphs: number; type: string };
    expect(back.type).toBe('TTF');
    expect(back.numGlyphs).toBe(2);
    const original = font.getGlyph(glyphs[0].id);
    const copy = back.getGlyph(1);
    expect(copy.advanceWidth).toBe(Math.round(original.advanceWidth));
    // The outline, on the integer grid.
    expect(points(copy)).toEqual(points(original));
    expect([copy.bbox.minX, copy.bbox.minY, copy.bbox.maxX, copy.bbox.maxY]).toEqual(
      [original.bbox.minX, original.bbox.minY, original.bbox.maxX, original.bbox.maxY].map(Math.round),
    );
    // An sfnt's bytes, head's checkSumAdjustment included, sum to 0xB1B0AFBA.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let sum = 0;
    for (let i = 0; i < bytes.length; i += 4) sum = (sum + view.getUint32(i)) >>> 0;
    expect(sum).toBe(0xb1b0afba);
  });
});
