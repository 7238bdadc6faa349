import type { Transform } from '../../core/action.js';
import { openInput, refusedOn } from '../inputs.js';
import { ValidationError } from '../../core/errors.js';
import { orderPages } from '../../core/pages.js';
import { say, type Words } from '../../core/words.js';
import { pagesToSplit, splitDocument } from '../../pdf/operations/split.js';
import type { fields } from './action.js';

const splitByGroups: Transform<typeof fields, 'documents'> = async (values, context) => {
  const doc = await openInput(values.file, context);
  const count = await refusedOn('file', () => pagesToSplit(doc));
  const groups = values.groups.split(';');
  const parts = groups.map((group, i) => {
    try {
      return orderPages(group, count, 'groups');
    } catch (err) {
      if (!(err instanceof ValidationError) || groups.length === 1) throw err;
      // Say which group, as the same page can be fine in one and wrong in another.
      const messages = (err.messages.groups ?? []).map((m) => (words: Words) => `group ${i + 1} (${JSON.stringify(group.trim())}): ${say(m, words)}`);
      throw new ValidationError({ groups: messages }, err.code);
    }
  });
  return splitDocument(doc, parts, context.keepPart);
};

export default splitByGroups;
