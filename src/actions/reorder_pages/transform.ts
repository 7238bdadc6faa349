import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { orderPages } from '../../core/pages.js';
import { arrangePages } from '../../pdf/operations/arrange.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { pageCount, pageEntriesKeeping } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const reorderPages: Transform<typeof fields, 'document'> = async (values, context) => {
  // Pages whose bytes need no repair are not parsed: they go out as their input bytes (page-tree.ts, pageEntriesKeeping).
  const doc = await openInput(values.file, context, { fewPages: true });
  const order = orderPages(values.page_order, pageCount(doc), 'page_order');
  arrangePages(doc, order, pageEntriesKeeping(doc, order));
  return saveDocumentPieces(doc, { storeObjectStreams: true });
};

export default reorderPages;
