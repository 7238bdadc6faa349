import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = { file: pdfFile } as const satisfies FieldMap;

export default defineAction({
  name: 'reverse_pages',
  aliases: ['reverse'],
  group: 'pages',
  summary: 'Reverse the order of the pages.',
  description: 'Content and dimensions of each page are preserved; outlines, links, form fields and page labels follow their pages.',
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
