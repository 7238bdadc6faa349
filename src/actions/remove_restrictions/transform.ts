import type { Transform } from '../../core/action.js';
import { ValidationError } from '../../core/errors.js';
import { openEveryPage } from '../inputs.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import type { fields } from './action.js';

const removeRestrictions: Transform<typeof fields, 'document'> = async (values, context) => {
  try {
    // Restrictions alone leave the user password empty: the empty password opens the file.
    const { doc } = await openEveryPage(values.file, context, { allowEncrypted: true, allowSigned: true, password: '' });
    // What the document reaches is written, as qpdf --decrypt does: each object parsed, decrypted and let go in turn.
    return await saveDocumentPieces(doc);
  } catch (err) {
    if (err instanceof ValidationError && err.code === 'wrong_password') {
      throw ValidationError.field(
        'file',
        (words) =>
          `the document is password-protected (it needs a password to open): ${words.call} ${words.name('remove_password')} first; ${words.name('remove_restrictions')} has no password ${words.field}`,
        'encrypted',
      );
    }
    throw err;
  }
};

export default removeRestrictions;
