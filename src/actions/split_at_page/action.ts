import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = {
  file: { ...pdfFile, example: 'pages-10.pdf' },
  page: {
    kind: 'pages',
    form: 'single',
    required: true,
    example: '2',
    help: 'The first page of the second part: from 2 to the last page.',
  },
} as const satisfies FieldMap;

export default defineAction({
  name: 'split_at_page',
  group: 'split',
  summary: 'Split into two parts, the second starting at the given page.',
  description: 'Two parts: pages 1 to N - 1, and N to the last page, where N is {page}; it must resolve to 2 … the last page (-1 is the last page).',
  fields,
  output: 'documents',
  transform: () => import('./transform.js'),
});
