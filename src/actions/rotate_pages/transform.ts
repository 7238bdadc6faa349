import type { Transform } from '../../core/action.js';
import { openEveryPage } from '../inputs.js';
import { selectPages } from '../../core/pages.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { turnPage } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const rotatePages: Transform<typeof fields, 'document'> = async (values, context) => {
  // Pages whose bytes need no repair stay unparsed (openEveryPage): a selected one is turned in its bytes
  // (page-tree.ts, turnPage), the others go out as they are.
  const { doc, pages } = await openEveryPage(values.file, context);
  // Every page by index, not through pages.keys(): an iterator result per page in code not yet optimized.
  if (values.pages === undefined) for (let index = 0; index < pages.length; index++) turnPage(doc, pages[index], values.angle);
  else for (const index of selectPages(values.pages, pages.length, 'pages')) turnPage(doc, pages[index], values.angle);
  return saveDocumentPieces(doc, { storeObjectStreams: true });
};

export default rotatePages;
