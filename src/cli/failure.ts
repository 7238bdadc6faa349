/**
 * How a failure ends the command: its exit status and the problem object
 * `--json` prints. Failures the server answered with (remote mode) keep the
 * server's problem and the exit status local work would have had.
 */
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { problemFor, type Problem } from '../core/problem.js';
import { API_WORDS, type Message, resay } from '../core/words.js';

/**
 * The server refused the fields or the document (400): reported field by field, exit 2. The messages are the
 * server's, in the API's words; said in another surface's words, they name the options and commands of `names`.
 */
export class RemoteValidationError extends ValidationError {
  override name = 'RemoteValidationError';
  constructor(
    readonly problem: Problem,
    names: readonly string[] = [],
  ) {
    const messages = Object.fromEntries(
      Object.entries(problem.errors ?? {}).map(([field, texts]) => [
        field,
        texts.map(
          (text): Message =>
            (words) =>
              words === API_WORDS ? text : resay(text, words, names),
        ),
      ]),
    );
    super(messages, problem.code);
  }
}

/** Any other failure of a remote call, with the exit status it stands for. */
export class RemoteFailure extends PdfsvcError {
  override name = 'RemoteFailure';
  constructor(
    message: string,
    readonly exitStatus: number,
    readonly problem: Problem,
  ) {
    super(problem.status, message);
  }
}

export const EXIT_OK = 0;
/** A command line, fields or a document refused. */
export const EXIT_INVALID = 2;

/** 2 for invalid input (what a server answers 400 or 413 to), 1 for anything else. */
export function exitStatusOf(err: unknown): number {
  if (err instanceof RemoteFailure) return err.exitStatus;
  return err instanceof PdfsvcError && err.status < 500 ? 2 : 1;
}

/** The problem object for --json: the server's own in remote mode, else the one the API would return. */
export function problemOf(err: unknown): Problem {
  if (err instanceof RemoteFailure || err instanceof RemoteValidationError) return err.problem;
  return problemFor(err, 'about:blank');
}
