import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { ValidationError } from '../../core/errors.js';
import { selectPages } from '../../core/pages.js';
import { arrangePages } from '../../pdf/operations/arrange.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { pageEntries } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const removePages: Transform<typeof fields, 'document'> = async (values, context) => {
  const doc = await openInput(values.file, context);
  const count = pageEntries(doc).length;
  const removed = new Set(selectPages(values.pages, count, 'pages'));
  if (removed.size === count) {
    throw ValidationError.field('pages', `selects every page (the document has ${count}); a PDF needs at least one page, so leave at least one out`);
  }
  arrangePages(
    doc,
    [...Array(count).keys()].filter((i) => !removed.has(i)),
  );
  return saveDocumentPieces(doc);
};

export default removePages;
