/**
 * pdf-lib's drawing side: font and image embedders. Only the watermarks
 * load it (see ../lib.ts for why the rest of the code does not).
 */
import { deflateSync } from 'node:zlib';
import { PDFContext, type PDFStream } from '@cantoo/pdf-lib';

export { CustomFontSubsetEmbedder, JpegEmbedder, PngEmbedder, StandardFontEmbedder, StandardFonts } from '@cantoo/pdf-lib';

/**
 * Streams pdf-lib compresses itself (an embedded PNG's colour and alpha
 * channels, font files) go through Node's native zlib instead of fflate's
 * JavaScript deflate: on the image-watermark bench that was 60 ms of a
 * 0.9 s run.
 */
(PDFContext.prototype as unknown as { flateStream: (contents: Uint8Array, dict?: Record<string, unknown>) => PDFStream }).flateStream = function flateStream(
  this: PDFContext,
  contents: Uint8Array,
  dict: Record<string, unknown> = {},
) {
  return this.stream(deflateSync(contents), { ...dict, Filter: 'FlateDecode' } as never);
};
