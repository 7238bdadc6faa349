import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = {
  file: { ...pdfFile, example: 'pages-10.pdf' },
  maximum_bytes: {
    kind: 'integer',
    required: true,
    // The contract: 1 or greater (docs/contract.md, "Fields"). A limit below the size of any one page gives one page per part.
    min: 1,
    example: 20000,
    help: 'Largest size in bytes of each output PDF; a single page larger than this comes out alone.',
  },
} as const satisfies FieldMap;

export default defineAction({
  name: 'split_by_size',
  group: 'split',
  summary: 'Split into consecutive parts, each as large as possible without passing a size in bytes.',
  description:
    'Each part is at most {maximum_bytes} as written, and holds as many consecutive pages as fit: adding the next page would pass the limit. A page that alone is larger than {maximum_bytes} comes out as a part of its own (a page is never split). Each part carries only the objects its own pages use (fonts and images shared by its pages once).',
  fields,
  output: 'documents',
  transform: () => import('./transform.js'),
});
