import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { selectPages } from '../../core/pages.js';
import { arrangePages } from '../../pdf/operations/arrange.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { pageEntries } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const extractPages: Transform<typeof fields, 'document'> = async (values, context) => {
  const doc = await openInput(values.file, context);
  const count = pageEntries(doc).length;
  if (values.pages !== undefined) arrangePages(doc, selectPages(values.pages, count, 'pages'));
  return saveDocumentPieces(doc);
};

export default extractPages;
