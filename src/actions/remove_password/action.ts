import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile } from '../../core/common-fields.js';

export const fields = {
  file: { ...pdfFile, example: 'encrypted-user.pdf' },
  password: {
    kind: 'text',
    // The contract lists it as required (docs/contract.md, "Fields"). It is optional here only so that a
    // document whose passwords are both empty (it opens without one) can be
    // decrypted too: omitted means the empty password, and a document that
    // needs a password then answers 400 errors.password "is required".
    // The contract: at most 256 characters. Readers use only the first 32 bytes
    // (RC4, AES-128) or 127 bytes (AES-256), so a longer one still opens.
    maxLength: 256,
    secret: true,
    example: 'secret-user',
    inExample: true,
    help: 'The password that opens the document now: its user (open) password or its owner password. Omitted only for a document that opens without a password.',
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
