/**
 * The shipped WOFF2 faces (the CJK slices) are inflated with node:zlib's
 * native Brotli rather than fontkit's JavaScript decoder (0.3 s of a CJK
 * watermark's CPU, bench/README.md "polish"), and read exactly as fontkit
 * reads them itself: same glyphs, outlines and advances at the drawn weight.
 */
import fontkit from '@cantoo/fontkit';
import { describe, expect, it, vi } from 'vitest';
import { covers, notoFaces, type Face } from '../../../src/pdf/watermark/fonts.js';
import type { OutlineFont, OutlineGlyph } from '../../../src/pdf/watermark/glyf-subset.js';

async function faceFor(c: string): Promise<Face> {
  const cp = c.codePointAt(0)!;
  const face = (await notoFaces()).find((f) => covers(f, cp) && f.bytes.subarray(0, 4).toString() === 'wOF2');
  if (!face) throw new Error(`no WOFF2 face for ${c}`);
  return face;
}

describe('WOFF2 faces', () => {
  it.each(['机', '密', '秘', '대', '외'])(
    '%s: inflated natively, fontkit never runs its own Brotli decoder, and every glyph is as fontkit reads it',
    async (text) => {
      const face = await faceFor(text);
      // fontkit's own reading of the same bytes, at the same weight.
      const own = fontkit.create(face.bytes) as unknown as OutlineFont & { getVariation(s: object): OutlineFont; _decompress(): void };
      const javascriptBrotli = vi.spyOn(Object.getPrototypeOf(own) as { _decompress(): void }, '_decompress');
      const drawn = face.font as OutlineFont;
      const glyphs = drawn.layout(text).glyphs as OutlineGlyph[];
      expect(javascriptBrotli).not.toHaveBeenCalled();
      javascriptBrotli.mockRestore();
      const reference = own.getVariation({ wght: 700 });
      const expected = reference.layout(text).glyphs as OutlineGlyph[];
      expect(glyphs.map((g) => g.id)).toEqual(expected.map((g) => g.id));
      expect(glyphs.every((g) => g.id !== 0)).toBe(true);
      for (const [i, glyph] of glyphs.entries()) {
        expect(glyph.path.commands).toEqual(expected[i].path.commands);
        expect(glyph.advanceWidth).toBe(expected[i].advanceWidth);
      }
    },
  );
});
