import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { selectPages } from '../../core/pages.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { pageCount, pageEntriesKeeping, turnPage } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const rotatePages: Transform<typeof fields, 'document'> = async (values, context) => {
  // Every page is read and repaired as the opening walk would (pageEntriesKeeping), but those whose bytes need no
  // repair stay unparsed: a selected one is turned in its bytes (page-tree.ts, turnPage), the others go out as they are.
  const doc = await openInput(values.file, context, { fewPages: true });
  const count = pageCount(doc);
  const pages = pageEntriesKeeping(
    doc,
    Array.from({ length: count }, (_, i) => i),
  );
  const selected = values.pages === undefined ? pages.keys() : selectPages(values.pages, pages.length, 'pages');
  for (const index of selected) turnPage(doc, pages[index], values.angle);
  return saveDocumentPieces(doc);
};

export default rotatePages;
