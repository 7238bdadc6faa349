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
  const selected = values.pages === undefined ? pages.keys() : selectPages(values.pages, pages.length, 'pages');
  for (const index of selected) turnPage(doc, pages[index], values.angle);
  return saveDocumentPieces(doc, { storeObjectStreams: true });
};

export default rotatePages;
