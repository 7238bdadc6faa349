import type { Transform } from '../../core/action.js';
import { openInput, refusedOn } from '../inputs.js';
import { pagesToSplit, splitDocument } from '../../pdf/operations/split.js';
import type { fields } from './action.js';

const splitByPageCount: Transform<typeof fields, 'documents'> = async (values, context) => {
  const doc = await openInput(values.file, context);
  const count = await refusedOn('file', () => pagesToSplit(doc));
  const parts: number[][] = [];
  for (let start = 0; start < count; start += values.page_count) {
    const end = Math.min(count, start + values.page_count);
    parts.push(Array.from({ length: end - start }, (_, i) => start + i));
  }
  return splitDocument(doc, parts, context.keepPart);
};

export default splitByPageCount;
