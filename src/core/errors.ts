/**
 * Transport-neutral errors. The CLI maps them to exit codes (2 for invalid
 * input, 1 for everything else), the server to problem objects. Anything that
 * is not a PdfsvcError is an internal fault: its message never reaches a client.
 */

/** Base class: an error that knows its HTTP status. */
export class PdfsvcError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = new.target.name;
    this.status = status;
  }
}

/** Invalid input: HTTP 400, exit status 2. `errors` maps field names to messages. */
export class ValidationError extends PdfsvcError {
  readonly errors: Record<string, string[]>;
  constructor(errors: Record<string, string[]>) {
    const first = Object.entries(errors)[0];
    super(400, first ? `${first[0]}: ${first[1][0]}` : 'validation failed');
    this.errors = errors;
  }

  /** The common case: one field, one message. */
  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** Collects validation messages for several fields, then throws them together. */
export class ValidationErrors {
  private readonly errors: Record<string, string[]> = {};
  add(field: string, message: string): void {
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
  constructor(cause: string) {
    super(500, `the output failed pdfsvc's own check and was not returned: ${cause}. This is a fault in pdfsvc, not in the document; please report it`);
  }
}
