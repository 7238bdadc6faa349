import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = {
  file: { ...pdfFile, example: 'pages-10.pdf' },
  page_count: {
    kind: 'integer',
    required: true,
    // The contract: 1 or greater (docs/contract.md, "Fields"). No upper bound: a count past the last page gives one part, the whole document.
    min: 1,
    example: 2,
    help: 'Pages per output PDF; the last part holds the pages that remain.',
  },
} as const satisfies FieldMap;

export default defineAction({
  name: 'split_by_page_count',
  group: 'split',
  summary: 'Split into consecutive parts of a fixed number of pages.',
  description:
    'Parts of {page_count} pages each, in order; the last part holds the remaining pages and may be smaller. The parts are named 00001.pdf, 00002.pdf and so on.',
  fields,
  output: 'documents',
  transform: () => import('./transform.js'),
});
