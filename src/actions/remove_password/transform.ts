import type { Transform } from '../../core/action.js';
import { ValidationError } from '../../core/errors.js';
import { openEveryPage } from '../inputs.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { OPENS_WITHOUT_PASSWORD } from '../../pdf/security/decrypt.js';
import type { fields } from './action.js';

const removePassword: Transform<typeof fields, 'document'> = async (values, context) => {
  try {
    const { doc } = await openEveryPage(values.file, context, { allowEncrypted: true, allowSigned: true, password: values.password });
    // What the document reaches is written, as qpdf --decrypt does: each object parsed, decrypted and let go in turn.
    return await saveDocumentPieces(doc);
  } catch (err) {
    if (err instanceof ValidationError && err.code === 'wrong_password') {
      // Still refused when the document opens without a password: the contract answers 400 to a password that does not open it (README, "Choices where the specification is silent").
      if (err.errors.file?.some((message) => message.includes(OPENS_WITHOUT_PASSWORD))) {
        throw ValidationError.field(
          'password',
          'does not open the document: it is not its owner password, and the document has no open password; send an empty password to decrypt it',
          'wrong_password',
        );
      }
      throw ValidationError.field('password', 'does not open the document: it is neither its open (user) password nor its owner password', 'wrong_password');
    }
    throw err;
  }
};

export default removePassword;
