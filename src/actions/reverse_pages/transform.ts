import type { Transform } from '../../core/action.js';
import { arrangePages } from '../../pdf/arrange.js';
import { openDocument, saveDocument } from '../../pdf/document.js';
import type { fields } from './action.js';

const reversePages: Transform<typeof fields, 'document'> = async (values, { action }) => {
  const doc = await openDocument(values.file, { action });
  const count = doc.getPageCount();
  arrangePages(doc, Array.from({ length: count }, (_, i) => count - 1 - i));
  return saveDocument(doc);
};

export default reversePages;
