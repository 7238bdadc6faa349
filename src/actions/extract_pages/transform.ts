import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { selectPages } from '../../core/pages.js';
import { arrangePages } from '../../pdf/operations/arrange.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { pageCount, pageEntriesKeeping } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const extractPages: Transform<typeof fields, 'document'> = async (values, context) => {
  // Reads only the pages it keeps (and what they reach), not the whole page tree (issue 22).
  const doc = await openInput(values.file, context, { fewPages: values.pages !== undefined });
  const count = pageCount(doc);
  if (values.pages !== undefined) {
    const order = selectPages(values.pages, count, 'pages');
    arrangePages(doc, order, pageEntriesKeeping(doc, order));
  }
  return saveDocumentPieces(doc);
};

export default extractPages;
