import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';
import { encryptionAlgorithm, newPassword } from '../../pdf/security/fields.js';

export const fields = {
  file: pdfFile,
  password: { ...newPassword, required: true, help: 'The password needed to open the document.' },
  encryption_algorithm: encryptionAlgorithm,
} as const satisfies FieldMap;

export default defineAction({
  name: 'add_password',
  group: 'security',
  summary: 'Encrypt a PDF so that it opens only with a password.',
  description:
    'Every string and stream is encrypted (AES-128 by default, or AES-256). The password opens the document and is also its owner password, so whoever opens it may do everything; for permission restrictions as well, use {add_restrictions} once with {owner_password} and {user_password} instead. Use this last: no other action can read the output without {remove_password}.',
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
