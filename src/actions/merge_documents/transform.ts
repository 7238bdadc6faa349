import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { mergeInto } from '../../pdf/operations/merge.js';
import type { fields } from './action.js';

const mergeDocuments: Transform<typeof fields, 'document'> = async (values, context) => {
  const docs = [];
  for (const [i, bytes] of values.file.entries()) {
    docs.push(await openInput(bytes, context, { position: values.file.length > 1 ? i + 1 : undefined }));
  }
  return saveDocumentPieces(mergeInto(docs));
};

export default mergeDocuments;
