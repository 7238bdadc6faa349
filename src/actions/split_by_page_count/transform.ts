import type { Transform } from '../../core/action.js';
import { openDocument } from '../../pdf/document.js';
import { pagesToSplit, splitDocument } from '../../pdf/split.js';
import type { fields } from './action.js';

const splitByPageCount: Transform<typeof fields, 'documents'> = async (values, { action }) => {
  const doc = await openDocument(values.file, { action });
  const count = pagesToSplit(doc);
  const parts: number[][] = [];
  for (let start = 0; start < count; start += values.page_count) {
    const end = Math.min(count, start + values.page_count);
    parts.push(Array.from({ length: end - start }, (_, i) => start + i));
  }
  return splitDocument(doc, parts);
};

export default splitByPageCount;
