import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { ValidationError } from '../../core/errors.js';
import { selectPages } from '../../core/pages.js';
import { arrangePages } from '../../pdf/operations/arrange.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import type { RefTargets } from '../../pdf/model/objects.js';
import { pageCount, pageEntriesKeeping } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const removePages: Transform<typeof fields, 'document'> = async (values, context) => {
  // Reads only the pages it keeps (and what they reach), not the whole page tree (issue 22).
  // The signature check's walk of the form is kept for pruneFields (forms.ts, FieldTreeIndex).
  const doc = await openInput(values.file, context, { fewPages: true, indexFields: true });
  const count = pageCount(doc);
  const removed = new Set(selectPages(values.pages, count, 'pages'));
  if (removed.size === count) {
    throw ValidationError.field('pages', `selects every page (the document has ${count}); a PDF needs at least one page, so leave at least one out`);
  }
  const kept = [...Array(count).keys()].filter((i) => !removed.has(i));
  // The references to the removed pages are left out by the writer's walk: one walk of the document, not two.
  let nullify: RefTargets | undefined;
  arrangePages(doc, kept, pageEntriesKeeping(doc, kept), undefined, (targets) => {
    nullify = targets;
  });
  return saveDocumentPieces(doc, { nullify, storeObjectStreams: true });
};

export default removePages;
