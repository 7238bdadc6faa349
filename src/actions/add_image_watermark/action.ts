import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile, selectedPages } from '../../core/common-fields.js';
import { layer, margin, position, transparency } from '../add_text_watermark/action.js';

export const fields = {
  file: pdfFile,
  image: {
    kind: 'file',
    accepts: 'image',
    required: true,
    example: 'watermark.png',
    help: 'The watermark image: PNG (transparency kept) or JPEG (baseline or progressive, 8-bit, grey, RGB or CMYK), turned as its EXIF orientation says, as viewers show it.',
  },
  transparency,
  margin,
  position,
  scale: {
    kind: 'number',
    min: 1,
    max: 100,
    unit: 'percent',
    default: 50,
    example: 25,
    help: "Width of the image as a share of the visible page's width; the image keeps its aspect ratio and is made smaller where it would not fit inside the margins.",
  },
  layer,
  pages: { ...selectedPages, help: 'The pages to watermark; omitted means every page.' },
} as const satisfies FieldMap;

export default defineAction({
  name: 'add_image_watermark',
  group: 'watermark',
  summary: 'Draw a PNG or JPEG image on pages, placed as the reader sees each page.',
  description:
    "The image is embedded once and shared by every page that shows it. Placement is in the visible area (the crop box) after the page's rotation; the image stays upright as the reader sees it and never leaves the page.",
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
