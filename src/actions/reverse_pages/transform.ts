import type { Transform } from '../../core/action.js';
import { arrangePages } from '../../pdf/arrange.js';
import { openDocument, saveDocumentPieces } from '../../pdf/document.js';
import { pageEntries } from '../../pdf/page-tree.js';
import type { fields } from './action.js';

const reversePages: Transform<typeof fields, 'document'> = async (values, { action }) => {
  const doc = await openDocument(values.file, { action });
  const count = pageEntries(doc).length;
  arrangePages(doc, Array.from({ length: count }, (_, i) => count - 1 - i));
  return saveDocumentPieces(doc);
};

export default reversePages;
