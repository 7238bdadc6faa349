import type { Transform } from '../../core/action.js';
import { orderPages } from '../../core/pages.js';
import { arrangePages } from '../../pdf/arrange.js';
import { openDocument, saveDocumentPieces } from '../../pdf/document.js';
import { pageEntries } from '../../pdf/page-tree.js';
import type { fields } from './action.js';

const reorderPages: Transform<typeof fields, 'document'> = async (values, { action }) => {
  const doc = await openDocument(values.file, { action });
  arrangePages(doc, orderPages(values.page_order, pageEntries(doc).length, 'page_order'));
  return saveDocumentPieces(doc);
};

export default reorderPages;
