import type { Transform } from '../../core/action.js';
import { openInput, refusedOn } from '../inputs.js';
import { ValidationError } from '../../core/errors.js';
import { resolveSinglePage } from '../../core/pages.js';
import { pagesToSplit, splitDocument } from '../../pdf/operations/split.js';
import type { fields } from './action.js';

const splitAtPage: Transform<typeof fields, 'documents'> = async (values, context) => {
  const doc = await openInput(values.file, context);
  const count = await refusedOn('file', () => pagesToSplit(doc));
  if (count === 1) {
    throw ValidationError.field(
      'page',
      'the document has 1 page, so there is no page to split at (the second part starts at page 2 or later)',
      'page_out_of_range',
    );
  }
  const at = resolveSinglePage(values.page, count, 'page');
  if (at === 0) {
    throw ValidationError.field(
      'page',
      `${JSON.stringify(values.page.trim())} is the first page, which would leave the first part empty; give the first page of the second part, from 2 to ${count} (or -${count - 1} to -1)`,
    );
  }
  const first = Array.from({ length: at }, (_, i) => i);
  const second = Array.from({ length: count - at }, (_, i) => at + i);
  return splitDocument(doc, [first, second], context.keepPart);
};

export default splitAtPage;
