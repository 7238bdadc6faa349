import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = {
  file: { ...pdfFile, example: 'pages-10.pdf' },
  groups: {
    kind: 'pages',
    form: 'groups',
    required: true,
    example: '1;2..',
    help: 'The groups, in the order of the output documents; each an ordered page list, as {reorder_pages} takes it.',
  },
} as const satisfies FieldMap;

export default defineAction({
  name: 'split_by_groups',
  group: 'split',
  summary: 'Split into explicit groups of pages, one output PDF per group.',
  description:
    "Groups are separated by ';'; each group is an ordered page list as {reorder_pages} takes it (pages in the listed order, a page listed twice appears twice, ranges may run backwards). A page may appear in several groups.",
  fields,
  output: 'documents',
  transform: () => import('./transform.js'),
});
