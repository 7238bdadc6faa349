import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile, selectedPages } from '../../core/common-fields.js';

export const fields = {
  file: pdfFile,
  pages: { ...selectedPages, help: 'The pages to keep; omitted means every page.' },
} as const satisfies FieldMap;

export default defineAction({
  name: 'extract_pages',
  aliases: ['extract'],
  group: 'pages',
  summary: 'Keep only the selected pages, in document order.',
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
