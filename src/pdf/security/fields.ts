/** Field declarations the security actions share. */
import type { ChoiceField, TextField } from '../../core/fields.js';

/**
 * A password that protects a new encryption. 4 to 32 printable ASCII
 * characters (docs/contract.md, "Fields"): 32 bytes is all that revisions 2 to 4 use, and
 * ASCII is the one alphabet every reader turns into the same bytes.
 */
export const newPassword = {
  kind: 'text',
  minLength: 4,
  maxLength: 32,
  printableAscii: true,
  secret: true,
  help: 'A password.',
  example: 'open-sesame',
} as const satisfies TextField;

export const encryptionAlgorithm = {
  kind: 'choice',
  values: ['AES-128', 'AES-256'],
  default: 'AES-128',
  example: 'AES-256',
  help: 'AES-128 (revision 4, read by every reader since PDF 1.6) or AES-256 (revision 6, PDF 2.0 and Acrobat X and later).',
} as const satisfies ChoiceField<'AES-128' | 'AES-256'>;
