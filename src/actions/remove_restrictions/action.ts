import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = {
  file: { ...pdfFile, example: 'restricted.pdf' },
} as const satisfies FieldMap;

export default defineAction({
  name: 'remove_restrictions',
  group: 'security',
  summary: 'Clear the permission restrictions of a PDF that opens without a password.',
  description:
    'A document with restrictions but no open password comes back unencrypted, with every permission and its content unchanged. A document that needs a password to open is refused: use {remove_password} first. A document without encryption comes back unchanged in content.',
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
