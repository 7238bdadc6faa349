/**
 * Merging documents: every input's objects move into the first document's
 * object table (renumbered), and the page tree, outline, form, names and
 * page labels are combined there. Placeholder until the merge work lands.
 */
import { ValidationError } from '../core/errors.js';
import type { PDFDocument } from './lib.js';

export function mergeInto(docs: PDFDocument[]): PDFDocument {
  if (docs.length === 1) return docs[0];
  throw ValidationError.field('file', 'merging is not implemented yet');
}
