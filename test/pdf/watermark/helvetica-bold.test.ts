/**
 * A Latin-1 text watermark is laid out in Helvetica-Bold from pdfsvc's own
 * table of its metrics (src/pdf/watermark/helvetica-bold.ts, made by
 * scripts/make-helvetica-bold.mjs): the widths, kerning, codes and font
 * dictionary must be pdf-lib's StandardFontEmbedder's, which drew it before,
 * for every character WinAnsi has and every pair of them.
 */
import { PDFDocument, StandardFontEmbedder, StandardFonts } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { PDFDict, PDFName } from '../../../src/pdf/model/primitives.js';
import { prepareText, REFERENCE_SIZE } from '../../../src/pdf/watermark/text.js';
import { memoryContext } from '../../helpers/memory-context.js';

const pdfLib = StandardFontEmbedder.for(StandardFonts.HelveticaBold as never);
const winAnsi = pdfLib.encoding.supportedCodePoints.map((codePoint) => String.fromCodePoint(codePoint));

describe('Helvetica-Bold metrics', () => {
  it('lays out every WinAnsi character, and every pair of them (kerning), as pdf-lib does', async () => {
    expect(winAnsi.length).toBe(218);
    const texts = [...winAnsi, ...winAnsi.flatMap((left) => winAnsi.map((right) => left + right)), 'AVAToYou, L’été «Ÿ» €1 Wo.T'];
    const mismatches: string[] = [];
    for (let i = 0; i < texts.length; i += 500) {
      const lines = texts.slice(i, i + 500).map((text) => ({ text }));
      const prepared = await prepareText(lines);
      expect([...prepared.fonts.keys()]).toEqual(['F0']);
      prepared.lines.forEach((line, k) => {
        const text = lines[k].text;
        if (line.width !== pdfLib.widthOfTextAtSize(text, REFERENCE_SIZE) || line.standard !== pdfLib.encodeText(text).toString()) mismatches.push(text);
      });
    }
    expect(mismatches).toEqual([]);
  });

  it('takes a line with a character WinAnsi lacks to the embedded fonts', async () => {
    const prepared = await prepareText([{ text: 'CONFIDENTIAL Ω' }]);
    expect(prepared.lines[0].standard).toBeUndefined();
    expect([...prepared.fonts.keys()]).not.toContain('F0');
  });

  it('embeds the font dictionary pdf-lib wrote', async () => {
    const context = memoryContext();
    const prepared = await prepareText([{ text: 'CONFIDENTIAL' }]);
    const font = context.lookup(await prepared.fonts.get('F0')!.embed(context));
    expect(font).toBeInstanceOf(PDFDict);
    const doc = await PDFDocument.create();
    const reference = doc.context.lookup(pdfLib.embedIntoContext(doc.context));
    expect((font as PDFDict).toString().replace(/\s+/g, ' ')).toBe(reference!.toString().replace(/\s+/g, ' '));
    expect((font as PDFDict).get(PDFName.of('BaseFont'))?.toString()).toBe('/Helvetica-Bold');
  });
});
