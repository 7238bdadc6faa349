import type { Transform } from '../../core/action.js';
import { openDocument, saveDocumentPieces } from '../../pdf/document.js';
import { ALL_PERMISSIONS } from '../../pdf/security/permissions.js';
import type { fields } from './action.js';

const addPassword: Transform<typeof fields, 'document'> = async (values, { action }) => {
  const doc = await openDocument(values.file, { action });
  return saveDocumentPieces(doc, {
    encrypt: {
      algorithm: values.encryption_algorithm,
      userPassword: values.password,
      ownerPassword: values.password,
      permissions: ALL_PERMISSIONS,
    },
  });
};

export default addPassword;
