/**
 * How page content leaves the graphics state and its own syntax open, which
 * decides what a watermark drawn after it must close first: unbalanced `q`/`Q`,
 * and (damaged content, seen in real files) an array, dictionary, string or
 * inline image cut off at the end, which would swallow the watermark.
 */
import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { addImageWatermark, addTextWatermark } from '../../src/index.js';
import { graphicsDepth } from '../../src/pdf/watermark/balance.js';
import { pageTexts, qpdfCheck } from '../helpers/pdf-tools.js';
import { findPixels, makePng, reddish, renderPage } from '../helpers/render.js';

const depth = (content: string) => graphicsDepth(new TextEncoder().encode(content));

describe('graphicsDepth', () => {
  it.each([
    ['q 1 0 0 1 5 5 cm Q', { min: 0, end: 0, unclosed: '' }],
    ['q q 2 0 0 2 0 0 cm', { min: 0, end: 2, unclosed: '' }],
    ['Q q', { min: -1, end: 0, unclosed: '' }],
    ['BT [(a) 10 (b)] TJ ET /P << /MCID 0 >> BDC EMC', { min: 0, end: 0, unclosed: '' }],
    ['(q Q \\) q) Tj % q q q', { min: 0, end: 0, unclosed: '' }],
    ['BT (Potato) Tj ET [ /oops', { min: 0, end: 0, unclosed: ']' }],
    ['[ 1 << /A [ 2', { min: 0, end: 0, unclosed: '] >> ]' }],
    ['BT (never (closed) Tj ET', { min: 0, end: 0, unclosed: ')' }],
    ['BT <4142 Tj', { min: 0, end: 0, unclosed: '>' }],
    ['BI /W 1 /H 1 /BPC 8 /CS /G ID \x00\x01 q', { min: 0, end: 0, unclosed: '\nEI' }],
    ['BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI q', { min: 0, end: 1, unclosed: '' }],
    // An operator after an unclosed `[`: readers recover there, so nothing is left open.
    ['[ 1 2 q 0 0 m', { min: 0, end: 1, unclosed: '' }],
  ])('%j', (content, expected) => {
    expect(depth(content)).toEqual(expected);
  });
});

/** One page whose content ends inside an array (as qpdf's content-stream-errors.pdf does). */
async function cutOffPage(tail: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([400, 400]);
  page.node.setFontDictionary(PDFName.of('F1'), font.ref);
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream(`BT /F1 24 Tf 72 300 Td (Potato) Tj ET\n${tail}`)));
  return doc.save({ useObjectStreams: false });
}

describe('a watermark after content cut off in the middle of a construct', () => {
  it.each(['[ /oops', '<< /Open [ 1', '(never closed'])('text watermark after %j is drawn and extracted', async (tail) => {
    const out = await addTextWatermark({ file: await cutOffPage(tail), line_1: 'STAMPED', transparency: 0, color: '#ff0000' });
    expect((await qpdfCheck(out)).exitCode).not.toBe(2);
    const [text] = await pageTexts(out);
    expect(text).toContain('STAMPED');
    const raster = await renderPage(out, 1, 20);
    expect(findPixels(raster, reddish)).not.toBeNull();
  });

  it('image watermark after an inline image without EI is drawn', async () => {
    const out = await addImageWatermark({ file: await cutOffPage('BI /W 1 /H 1 /BPC 8 /CS /G ID \x7f'), image: makePng(40, 20, () => [255, 0, 0, 255]), transparency: 0 });
    const raster = await renderPage(out, 1, 20);
    expect(findPixels(raster, reddish)).not.toBeNull();
  });
});
