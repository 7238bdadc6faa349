/**
 * Where the PDF layer's refusals become field errors. The PDF layer says what
 * is wrong with a document (a PdfError with a code); an action knows which
 * field the bytes came from, which document of several it was, and what the
 * user should do next (call remove_password first, …).
 */
import type { TransformContext } from '../core/action.js';
import { ValidationError, type ErrorCode } from '../core/errors.js';
import type { Words } from '../core/words.js';
import { openDocument, type OpenOptions } from '../pdf/document.js';
import { PdfError } from '../pdf/errors.js';
import type { PDFDocument } from '../pdf/model/primitives.js';
import { pageCount, pageEntriesKeeping, type PageEntry } from '../pdf/structure/page-tree.js';

export interface InputOptions extends Pick<OpenOptions, 'allowEncrypted' | 'allowSigned' | 'password' | 'fewPages' | 'indexFields'> {
  /** The field the bytes came from (default `file`). */
  field?: string;
  /** Which document of several (merge), 1-based, for messages. */
  position?: number;
}

/** What to do about a document refused for these codes, before running `action` again. */
const NEXT_STEP: Partial<Record<ErrorCode, (action: string, words: Words) => string>> = {
  encrypted: (action, words) => `${words.call} ${words.name('remove_password')} with its password first, then ${words.name(action)}`,
  restricted: (action, words) => `${words.call} ${words.name('remove_restrictions')} first, then ${words.name(action)}`,
  signed: (action, words) => `${words.call} ${words.name('remove_signatures')} first, then ${words.name(action)}`,
};

/**
 * Opens an input document of the running action: its warnings go to the run
 * (prefixed with its position among several), its pages are counted, and a
 * refusal becomes a ValidationError on its field, with the code.
 */
export async function openInput(bytes: Uint8Array, context: TransformContext, options: InputOptions = {}): Promise<PDFDocument> {
  const { field = 'file', position, ...open } = options;
  try {
    return await openDocument(bytes, {
      ...open,
      onWarning: (message) => context.warn({ field, message: position ? `document ${position}: ${message}` : message }),
      onPagesRead: context.pagesRead,
    });
  } catch (err) {
    throw fieldErrorOf(err, field, { position, action: context.action });
  }
}

/**
 * openInput for an action that writes every page as it is (rotate, the
 * passwords and restrictions), with its pages: each page is read and
 * repaired as the opening walk would (pageEntriesKeeping), but a page whose
 * bytes need no repair stays unparsed and goes out as its input bytes (its
 * strings replaced where it has any; rotate turns it in them). Parsing and
 * serializing the 2,013 pages of long-text was 35 ms of an add_password's
 * 0.32 s CPU, and their garbage more (bench/README.md, "ltenc").
 */
export async function openEveryPage(
  bytes: Uint8Array,
  context: TransformContext,
  options: Omit<InputOptions, 'fewPages'> = {},
): Promise<{ doc: PDFDocument; pages: PageEntry[] }> {
  const doc = await openInput(bytes, context, { ...options, fewPages: true });
  try {
    const pages = pageEntriesKeeping(
      doc,
      Array.from({ length: pageCount(doc) }, (_, i) => i),
    );
    return { doc, pages };
  } catch (err) {
    throw fieldErrorOf(err, options.field ?? 'file', { position: options.position, action: context.action });
  }
}

/**
 * A PdfError as a ValidationError on `field`, its message as users read it;
 * anything else unchanged. `position` names the document among several;
 * `action` adds the next step where there is one.
 */
export function fieldErrorOf(err: unknown, field: string, about: { position?: number; action?: string } = {}): unknown {
  if (!(err instanceof PdfError)) return err;
  const { position, action } = about;
  const subject = position ? `document ${position} ` : err.subject === 'named' ? 'the document ' : '';
  const next = action === undefined ? undefined : NEXT_STEP[err.code];
  const message = `${subject}${err.predicate}`;
  return ValidationError.field(field, next ? (words) => `${message}: ${next(action!, words)}` : message, err.code);
}

/** Runs `work`, turning a PdfError it throws into a ValidationError on `field` (a document without pages to split, an image). */
export async function refusedOn<T>(field: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw fieldErrorOf(err, field);
  }
}
