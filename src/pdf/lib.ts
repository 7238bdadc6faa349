/**
 * The one door to @cantoo/pdf-lib. pdf-lib supplies the object model, the
 * drawing API, fonts and images; reading and writing files is ours
 * (reader/, writer.ts). Every other module of src/pdf imports pdf-lib names
 * from here.
 */
import { deflateSync } from 'node:zlib';
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFStream } from '@cantoo/pdf-lib';

export * from '@cantoo/pdf-lib';

export { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFStream };

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
