import type { Transform } from '../../core/action.js';
import { selectPages } from '../../core/pages.js';
import { openDocument, saveDocumentPieces } from '../../pdf/document.js';
import { effectiveRotation, pageEntries, setRotation } from '../../pdf/page-tree.js';
import type { fields } from './action.js';

const rotatePages: Transform<typeof fields, 'document'> = async (values, { action }) => {
  const doc = await openDocument(values.file, { action });
  const pages = pageEntries(doc);
  const selected = values.pages === undefined ? pages.keys() : selectPages(values.pages, pages.length, 'pages');
  for (const index of selected) {
    const page = pages[index].dict;
    setRotation(page, effectiveRotation(page) + values.angle);
  }
  return saveDocumentPieces(doc);
};

export default rotatePages;
