import type { Transform } from '../../core/action.js';
import { openInput, refusedOn } from '../inputs.js';
import { splitBySize } from '../../pdf/operations/split-by-size.js';
import type { fields } from './action.js';

const splitBySizeTransform: Transform<typeof fields, 'documents'> = async (values, context) => {
  // Read as the other splits read it (pageEntriesKeeping): the same pages come out as the same bytes, so a part's size is what split_by_groups would give.
  const doc = await openInput(values.file, context, { fewPages: true });
  // A document without pages is refused on its field.
  return refusedOn('file', () => splitBySize(doc, values.maximum_bytes, { keep: context.keepPart }).map((part) => part.pdf));
};

export default splitBySizeTransform;
