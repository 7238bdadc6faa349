/**
 * A failure the server answered with. Problems (application/problem+json,
 * RFC 9457) keep their fields; any other failing answer (a proxy's HTML
 * page) becomes a problem with the status and its reason phrase.
 */
import type { ErrorCode } from '../core/errors.js';
import type { Problem } from '../core/problem.js';

export class PdfsvcHttpError extends Error {
  readonly status: number;
  readonly title: string;
  readonly type: string;
  // The optional fields are declared only: as class fields they would be `undefined` properties when absent.
  declare readonly detail?: string;
  /** 400: each offending field → messages saying what to change. */
  readonly errors: Record<string, string[]>;
  /** 400 for a refused document: what was wrong with it, from a closed set (README: Error codes). */
  declare readonly code?: ErrorCode;
  /** Seconds to wait before retrying (503, 429), when the server said. */
  declare readonly retryAfter?: number;
  /** The problem object as the server sent it (or as made up for a non-problem answer). */
  readonly problem: Problem;
  /** The answer's headers (X-Region, RateLimit-* …). */
  readonly headers: Headers;

  constructor(problem: Problem, headers: Headers) {
    const errors = problem.errors ?? {};
    const first = Object.entries(errors)[0];
    super(first ? `${first[0]}: ${first[1][0]}` : `${problem.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`);
    this.name = 'PdfsvcHttpError';
    this.status = problem.status;
    this.title = problem.title;
    this.type = problem.type;
    if (problem.detail !== undefined) this.detail = problem.detail;
    this.errors = errors;
    if (problem.code !== undefined) this.code = problem.code;
    const retryAfter = parseRetryAfter(headers.get('retry-after'));
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
    this.problem = problem;
    this.headers = headers;
  }
}

/** Reads a failing answer into a PdfsvcHttpError. */
export async function errorFromResponse(response: Response): Promise<PdfsvcHttpError> {
  const type = response.headers.get('content-type') ?? '';
  let problem: Problem | undefined;
  if (/^application\/(problem\+)?json\b/i.test(type)) {
    try {
      const body = (await response.json()) as Partial<Problem>;
      if (body && typeof body === 'object' && typeof body.title === 'string') {
        problem = { type: typeof body.type === 'string' ? body.type : 'about:blank', ...body, title: body.title, status: response.status } as Problem;
      }
    } catch {
      // Not JSON after all: described by its status below.
    }
  } else {
    await response.body?.cancel().catch(() => {});
  }
  problem ??= { type: 'about:blank', title: response.statusText || `HTTP ${response.status}`, status: response.status };
  return new PdfsvcHttpError(problem, response.headers);
}

/** Retry-After as seconds: a number of seconds, or an HTTP date. */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
