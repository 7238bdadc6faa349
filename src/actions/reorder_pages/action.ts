import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = {
  file: pdfFile,
  page_order: { kind: 'pages', form: 'ordered', required: true, example: '-1..1', help: 'The pages of the output, in order.' },
} as const satisfies FieldMap;

export default defineAction({
  name: 'reorder_pages',
  aliases: ['reorder'],
  group: 'pages',
  summary: 'Put pages in a new order, repeat or drop them.',
  description:
    'Pages come out in the order listed in {page_order}; a page listed twice appears twice (as an independent copy), pages not listed are dropped, and a range may run backwards (5..1).',
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
