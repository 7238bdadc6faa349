/**
 * pdf-lib's drawing side: font and image embedders. Only the watermarks
 * load it (see ../lib.ts for why the rest of the code does not).
 */
export { CustomFontSubsetEmbedder, JpegEmbedder, PngEmbedder, StandardFontEmbedder, StandardFonts } from '@cantoo/pdf-lib';
