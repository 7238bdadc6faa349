import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile, selectedPages } from '../../core/common-fields.js';

export const fields = {
  file: pdfFile,
  pages: { ...selectedPages, required: true, example: '1', help: 'The pages to remove.' },
} as const satisfies FieldMap;

export default defineAction({
  name: 'remove_pages',
  aliases: ['remove'],
  group: 'pages',
  summary: 'Drop the selected pages.',
  description: 'Outline entries, links, named destinations and form fields of the removed pages go with them. Selecting every page is an error.',
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
