import type { Transform } from '../../core/action.js';
import { openDocument, saveDocumentPieces } from '../../pdf/document.js';
import { permissionValue } from '../../pdf/security/permissions.js';
import type { fields } from './action.js';

const addRestrictions: Transform<typeof fields, 'document'> = async (values, { action }) => {
  const doc = await openDocument(values.file, { action });
  return saveDocumentPieces(doc, {
    encrypt: {
      algorithm: values.encryption_algorithm,
      userPassword: values.user_password ?? '',
      ownerPassword: values.owner_password,
      permissions: permissionValue(values),
    },
  });
};

export default addRestrictions;
