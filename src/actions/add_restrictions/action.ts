import { defineAction } from '../../core/action.js';
import { ValidationError } from '../../core/errors.js';
import type { BooleanField, FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';
import { encryptionAlgorithm, newPassword } from '../../pdf/security/fields.js';
import { sameSecret } from '../../pdf/security/compare.js';

/** The contract's eight flags, each true (permitted) by default (docs/contract.md, "Fields"); see pdf/security/permissions.ts for their /P bits. */
const flag = (help: string) => ({ kind: 'boolean', default: true, example: false, help }) as const satisfies BooleanField;

export const fields = {
  file: pdfFile,
  owner_password: {
    ...newPassword,
    required: true,
    example: 'owner-secret',
    help: 'The owner password: it opens the document and lets a reader change its permissions.',
  },
  user_password: {
    ...newPassword,
    emptyMeansAbsent: true,
    example: 'open-sesame',
    help: 'An open password as well; omitted or empty means anyone can open the document. Must differ from {owner_password}.',
  },
  encryption_algorithm: encryptionAlgorithm,
  allow_copy_content: flag('Copying text and images to the clipboard (permission bit 5).'),
  allow_change_content: flag('Changing the content of the document (bit 4).'),
  allow_print: flag('Printing (bit 3).'),
  allow_print_high_resolution: flag('Printing in high resolution (bit 12); without {allow_print} there is no printing at all.'),
  allow_comment_and_fill_form: flag('Adding, editing or modifying annotations and filling form fields (bit 6).'),
  allow_fill_form: flag('Filling form fields, even when {allow_comment_and_fill_form} is false (bit 9).'),
  allow_assemble_document: flag('Inserting, deleting and rotating pages (bit 11).'),
  allow_accessibility: flag('Accessibility software reading text and images (bit 10).'),
} as const satisfies FieldMap;

export default defineAction({
  name: 'add_restrictions',
  group: 'security',
  summary: 'Restrict what readers may do (print, copy, change …), guarded by an owner password.',
  description:
    'Encrypts the document with permission flags; a flag set to false turns that permission off. With {user_password} the document also needs that password to open: this is how to get both an open password and restrictions, in one step (not {add_password} followed by {add_restrictions}).',
  fields,
  check: (values) => {
    if (values.user_password !== undefined && sameSecret(values.user_password, values.owner_password)) {
      throw ValidationError.field(
        'user_password',
        (words) =>
          `must differ from ${words.name('owner_password')}: with the same password every reader would be the owner, and the restrictions would be void`,
      );
    }
  },
  output: 'document',
  transform: () => import('./transform.js'),
});
