import type { Transform } from '../../core/action.js';
import { selectPages } from '../../core/pages.js';
import { arrangePages } from '../../pdf/arrange.js';
import { openDocument, saveDocumentPieces } from '../../pdf/document.js';
import { pageEntries } from '../../pdf/page-tree.js';
import type { fields } from './action.js';

const extractPages: Transform<typeof fields, 'document'> = async (values, { action }) => {
  const doc = await openDocument(values.file, { action });
  const count = pageEntries(doc).length;
  if (values.pages !== undefined) arrangePages(doc, selectPages(values.pages, count, 'pages'));
  return saveDocumentPieces(doc);
};

export default extractPages;
