import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';

export const fields = {
  file: {
    kind: 'file',
    accepts: 'pdf',
    required: true,
    // The contract's numbered fields file_1 … file_10; more needs the repeated part (docs/contract.md, "Fields").
    multiple: { numberedUpTo: 10 },
    example: ['pages-3.pdf', 'pages-1.pdf'],
    help: 'The PDFs to merge, in order (repeat the part).',
  },
} as const satisfies FieldMap;

export default defineAction({
  name: 'merge_documents',
  aliases: ['merge'],
  group: 'pages',
  summary: 'Merge several PDFs into one, in the order given.',
  description:
    "The output has the pages of every input in order. Each input's outline becomes one top-level entry; form fields are kept, and a field whose name collides with an earlier document's is renamed so no value is lost. Clients that cannot repeat the file part may send file_1 … file_10 instead.",
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
