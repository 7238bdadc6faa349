import type { Transform } from '../../core/action.js';
import { openEveryPage } from '../inputs.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { permissionValue } from '../../pdf/security/permissions.js';
import type { fields } from './action.js';

const addRestrictions: Transform<typeof fields, 'document'> = async (values, context) => {
  const { doc } = await openEveryPage(values.file, context);
  return saveDocumentPieces(doc, {
    encrypt: {
      algorithm: values.encryption_algorithm,
      userPassword: values.user_password ?? '',
      ownerPassword: values.owner_password,
      permissions: permissionValue(values),
    },
    // Input object streams go out as their bytes, each encrypted whole: the action changes no object's content.
    storeObjectStreams: true,
  });
};

export default addRestrictions;
