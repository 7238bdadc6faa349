/**
 * pdf-lib's drawing side: font and image embedders. Only the watermarks
 * load it (see ../lib.ts for why the rest of the code does not).
 *
 * From pdf-lib's own module files, as lib.ts takes the object model, not
 * from its index: the index loads the whole library (forms, the drawing API,
 * every standard font's metrics), which a watermark does not use. So the
 * watermarks fit in dist/cli-action.cjs beside the other actions
 * (scripts/build.mjs) and start as fast. Types are the index's.
 */
import type * as PdfLib from '@cantoo/pdf-lib';
import CustomFontSubsetEmbedderModule from '../../../node_modules/@cantoo/pdf-lib/es/core/embedders/CustomFontSubsetEmbedder.js';
import JpegEmbedderModule from '../../../node_modules/@cantoo/pdf-lib/es/core/embedders/JpegEmbedder.js';
import PngEmbedderModule from '../../../node_modules/@cantoo/pdf-lib/es/core/embedders/PngEmbedder.js';
import StandardFontEmbedderModule from '../../../node_modules/@cantoo/pdf-lib/es/core/embedders/StandardFontEmbedder.js';
import { StandardFonts as StandardFontsModule } from '../../../node_modules/@cantoo/pdf-lib/es/api/StandardFonts.js';

export const CustomFontSubsetEmbedder = CustomFontSubsetEmbedderModule as unknown as typeof PdfLib.CustomFontSubsetEmbedder;
export type CustomFontSubsetEmbedder = PdfLib.CustomFontSubsetEmbedder;
export const JpegEmbedder = JpegEmbedderModule as unknown as typeof PdfLib.JpegEmbedder;
export const PngEmbedder = PngEmbedderModule as unknown as typeof PdfLib.PngEmbedder;
export type PngEmbedder = PdfLib.PngEmbedder;
export const StandardFontEmbedder = StandardFontEmbedderModule as unknown as typeof PdfLib.StandardFontEmbedder;
export type StandardFontEmbedder = PdfLib.StandardFontEmbedder;
export const StandardFonts = StandardFontsModule as unknown as typeof PdfLib.StandardFonts;
