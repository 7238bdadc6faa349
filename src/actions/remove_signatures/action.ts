import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = {
  file: { ...pdfFile, example: 'signed.pdf' },
} as const satisfies FieldMap;

export default defineAction({
  name: 'remove_signatures',
  group: 'security',
  summary: 'Remove every digital signature and document time stamp, keeping the content.',
  description:
    'Removes every signature field (also deep in the field tree) with its widgets on the pages, the signature values, certification and usage-rights entries (/Perms), /SigFlags and the document security store (/DSS). Every other form field and all page content stay. Use it before editing a signed document: any edit would invalidate the signatures anyway.',
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
