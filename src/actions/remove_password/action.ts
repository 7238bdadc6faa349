import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = {
  file: { ...pdfFile, example: 'encrypted-user.pdf' },
  password: {
    kind: 'text',
    // Required, as the contract lists it; an empty value is the empty password, so a document whose
    // passwords are both empty (restrictions alone) decrypts too. The contract: at most 256 characters.
    // Readers use only the first 32 bytes (RC4, AES-128) or 127 bytes (AES-256), so a longer one still opens.
    required: true,
    emptyFor: 'a document that opens without a password',
    maxLength: 256,
    secret: true,
    example: 'secret-user',
    help: 'The password that opens the document now: its user (open) password or its owner password. Empty for a document that opens without a password.',
  },
} as const satisfies FieldMap;

export default defineAction({
  name: 'remove_password',
  group: 'security',
  summary: 'Decrypt a password-protected PDF, so that it opens without a password.',
  description:
    'Works with every password-based encryption: RC4 40 and 128 bit, AES-128, AES-256 (revisions 5 and 6), and files that encrypt only their attachments. Restrictions go with the encryption. A document without encryption comes back unchanged in content. Certificate-encrypted documents are not supported.',
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
