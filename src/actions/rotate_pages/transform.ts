import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { selectPages } from '../../core/pages.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { effectiveRotation, pageEntries, setRotation } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const rotatePages: Transform<typeof fields, 'document'> = async (values, context) => {
  const doc = await openInput(values.file, context);
  const pages = pageEntries(doc);
  const selected = values.pages === undefined ? pages.keys() : selectPages(values.pages, pages.length, 'pages');
  for (const index of selected) {
    const page = pages[index].dict;
    setRotation(page, effectiveRotation(page) + values.angle);
  }
  return saveDocumentPieces(doc);
};

export default rotatePages;
