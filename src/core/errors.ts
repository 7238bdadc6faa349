/**
 * Transport-neutral errors. The CLI maps them to exit codes (2 for invalid
 * input, 1 for everything else), the server to problem objects. Anything that
 * is not a PdfsvcError is an internal fault: its message never reaches a client.
 */
import { API_WORDS, say, type Message, type Words } from './words.js';

/** Base class: an error that knows its HTTP status. */
export class PdfsvcError extends Error {
  // Each class spells its name: the build may rename classes, so `new.target.name` is not what users read.
  override name = 'PdfsvcError';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * What was wrong with a document (or image) a request was refused for: the
 * closed set of `code`s a problem object and `--json` carry beside `errors`,
 * so that a client can branch without reading messages. The one list: the
 * OpenAPI document and the README are made from it. A refusal of a field's
 * own value (its syntax, its range) has no code: `errors` says what to change.
 */
export const ERROR_CODES = {
  damaged: 'The document cannot be read: it is not a PDF, or it is corrupt or truncated (its encryption dictionary included).',
  limit: 'The input passes a limit of what pdfsvc reads (nesting depth, image pixels), far beyond any real document: it is too complex, or looks malicious.',
  encrypted: 'The document needs a password to open: call remove_password with its password first.',
  restricted: 'The document is encrypted with permission restrictions only: call remove_restrictions first.',
  unsupported_encryption: 'The document is encrypted with a certificate or a method pdfsvc does not support.',
  wrong_password: 'The password given opens the document neither as its user nor as its owner.',
  signed: 'The document is digitally signed, and the action would invalidate the signatures: call remove_signatures first.',
  no_pages: 'The document has no pages, and the action needs some.',
  page_out_of_range: 'A page number names a page the document does not have.',
  bad_image: 'The watermark image is not a PNG or JPEG image, or is damaged.',
  unsupported_character: 'A line of watermark text holds a character the shipped fonts lack (it would be drawn as a blank box).',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Invalid input: HTTP 400, exit status 2. `errors` maps field names to messages in the API's words; `code` says
 * what was wrong with a document. `messages` keeps them as made, for a surface that says them in its own (errorsIn).
 */
export class ValidationError extends PdfsvcError {
  override name = 'ValidationError';
  readonly errors: Record<string, string[]>;
  readonly messages: Record<string, Message[]>;
  // Declared only: a class field would make every error without a code carry `code: undefined` (console.log shows it).
  declare readonly code?: ErrorCode;
  constructor(messages: Record<string, Message[]>, code?: ErrorCode) {
    const errors = sayAll(messages, API_WORDS);
    const first = Object.entries(errors)[0];
    super(400, first ? `${first[0]}: ${first[1][0]}` : 'validation failed');
    this.errors = errors;
    this.messages = messages;
    if (code !== undefined) this.code = code;
  }

  /** The messages in a surface's words (the command line's options and commands). */
  errorsIn(words: Words): Record<string, string[]> {
    return sayAll(this.messages, words);
  }

  /** The common case: one field, one message. */
  static field = fieldError;
}

// Outside the class: a class that names itself in its body is bundled as `class _ValidationError`, which is what
// Node prints for console.log(err) (the constructor's name), where users read ValidationError.
function fieldError(field: string, message: Message, code?: ErrorCode): ValidationError {
  return new ValidationError({ [field]: [message] }, code);
}

function sayAll(messages: Record<string, Message[]>, words: Words): Record<string, string[]> {
  return Object.fromEntries(Object.entries(messages).map(([field, list]) => [field, list.map((message) => say(message, words))]));
}

/** Collects validation messages for several fields, then throws them together. */
export class ValidationErrors {
  private readonly errors: Record<string, Message[]> = {};
  add(field: string, message: Message): void {
    (this.errors[field] ??= []).push(message);
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw new ValidationError(this.errors);
  }
}

/**
 * An output failed the check an action makes of it before answering (an
 * encrypted output that its own password does not open): HTTP 500
 * with the cause, exit status 1, and no output at all.
 */
export class OutputCheckError extends PdfsvcError {
  override name = 'OutputCheckError';
  constructor(cause: string) {
    super(500, `the output failed pdfsvc's own check and was not returned: ${cause}. This is a fault in pdfsvc, not in the document; please report it`);
  }
}
