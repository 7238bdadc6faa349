import type { Transform } from '../../core/action.js';
import { openDocument } from '../../pdf/document.js';
import { splitBySize } from '../../pdf/split-by-size.js';
import type { fields } from './action.js';

const splitBySizeTransform: Transform<typeof fields, 'documents'> = async (values, { action }) => {
  const doc = await openDocument(values.file, { action });
  return splitBySize(doc, values.maximum_bytes).map((part) => part.pdf);
};

export default splitBySizeTransform;
