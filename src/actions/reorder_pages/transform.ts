import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { orderPages } from '../../core/pages.js';
import { arrangePages } from '../../pdf/operations/arrange.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { pageEntries } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const reorderPages: Transform<typeof fields, 'document'> = async (values, context) => {
  const doc = await openInput(values.file, context);
  arrangePages(doc, orderPages(values.page_order, pageEntries(doc).length, 'page_order'));
  return saveDocumentPieces(doc);
};

export default reorderPages;
