import type { Transform } from '../../core/action.js';
import { openInput, refusedOn } from '../inputs.js';
import { splitBySize } from '../../pdf/operations/split-by-size.js';
import type { fields } from './action.js';

const splitBySizeTransform: Transform<typeof fields, 'documents'> = async (values, context) => {
  const doc = await openInput(values.file, context);
  // A document without pages is refused on its field.
  return refusedOn('file', () => splitBySize(doc, values.maximum_bytes, { keep: context.keepPart }).map((part) => part.pdf));
};

export default splitBySizeTransform;
