import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { arrangePages } from '../../pdf/operations/arrange.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { pageEntries } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const reversePages: Transform<typeof fields, 'document'> = async (values, context) => {
  const doc = await openInput(values.file, context);
  const count = pageEntries(doc).length;
  arrangePages(
    doc,
    Array.from({ length: count }, (_, i) => count - 1 - i),
  );
  return saveDocumentPieces(doc);
};

export default reversePages;
