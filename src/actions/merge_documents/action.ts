import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';

export const fields = {
  file: {
    kind: 'file',
    accepts: 'pdf',
    required: true,
    // Over HTTP the part repeated, or the contract's numbered fields file_1 … file_10; more needs the repeated part (docs/contract.md, "Fields"). The OpenAPI document and the README say so; the command line takes paths.
    multiple: { numberedUpTo: 10 },
    example: ['pages-3.pdf', 'pages-1.pdf'],
    help: 'The PDFs to merge, in the order given.',
  },
} as const satisfies FieldMap;

export default defineAction({
  name: 'merge_documents',
  aliases: ['merge'],
  group: 'pages',
  summary: 'Merge several PDFs into one, in the order given.',
  description:
    "The output has the pages of every input in order. Each input's outline becomes one top-level entry; form fields are kept, and a field whose name collides with an earlier document's is renamed so no value is lost.",
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
