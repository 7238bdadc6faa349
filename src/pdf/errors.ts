/**
 * Why the PDF layer refuses an input. It knows documents, not requests: an
 * error says what is wrong (`code`, from the closed set in core/errors.ts)
 * and why, as the rest of a sentence whose subject the caller writes; the
 * actions, which know the field and which document of several it was, make
 * it a field error (actions/inputs.ts).
 */
import type { ErrorCode } from '../core/errors.js';

/** How the caller's sentence starts: `bare` reads on from the field or "document 2" (`file: could not be parsed`), `named` from "the document" (`the document is signed`). */
export type PdfErrorSubject = 'bare' | 'named';

export class PdfError extends Error {
  constructor(
    readonly code: ErrorCode,
    /** The sentence after its subject: "could not be parsed; …", "is digitally signed (2 signatures); …". */
    readonly predicate: string,
    readonly subject: PdfErrorSubject = 'named',
    /** Which of several inputs the error is about (0-based): the line of a text watermark. */
    readonly item?: number,
  ) {
    super(`${subject === 'named' ? 'the document ' : ''}${predicate}`);
    this.name = 'PdfError';
  }
}
