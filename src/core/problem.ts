/**
 * Problem objects (RFC 9457, `application/problem+json`): the shape of every
 * failure, on HTTP and with `pdfsvc … --json`.
 */
import { PdfsvcError, ValidationError, type ErrorCode } from './errors.js';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: Record<string, string[]>;
  /** What was wrong with the document, from a closed set (core/errors.ts ERROR_CODES). */
  code?: ErrorCode;
}

/** Titles and the explanation served at /v1/errors/<status>. */
export const STATUSES: Record<number, { title: string; explanation: string }> = {
  400: {
    title: 'One or more validation errors occurred.',
    explanation:
      'A field or the uploaded document is invalid: `errors` maps each offending field to messages that say what to change. A request that is not well-formed HTTP (a header the parser refuses, an HTTP/1.1 request without Host, a path that is not valid percent-encoding) is a 400 too: `errors` names `request`, `Host` or `path`, with what to change.',
  },
  401: { title: 'The request lacks a valid API key.', explanation: 'Send a key created with `pdfsvc keys create` in the X-API-Key header.' },
  // One title for every cause (RFC 9457: the title does not change from occurrence to occurrence); `detail` says which.
  403: {
    title: 'The API key is valid but not allowed on this server.',
    explanation:
      "The key is recognised but refused here, so another key of the same account and plan would not help: its account is suspended (ask the operator), or its plan does not include this server's region (Free keys work on the global region; Starter on global, us and eu; Business everywhere: use an allowed region's server or a key with a larger plan), or the key is limited to other regions (use a key without that limit). `detail` says which.",
  },
  404: { title: 'Not found.', explanation: 'No endpoint has this path. Actions are POST /v1/<action>; GET /v1/openapi.json lists them.' },
  405: {
    title: 'Method not allowed.',
    explanation:
      'Actions accept POST only; /healthz, /v1/openapi.json, /docs and these error pages GET and HEAD. The Allow header lists the methods the path takes.',
  },
  406: {
    title: 'Not acceptable.',
    explanation: 'Split actions answer with application/zip (the default), application/json or multipart/mixed; the Accept header allowed none of them.',
  },
  408: {
    title: 'Request timeout.',
    explanation:
      "The request's headers did not arrive within 10 s, or its body within the time this server allows a request (--request-timeout-ms). Send it again over a faster connection.",
  },
  413: { title: 'Request body too large.', explanation: 'The request is larger than this server accepts (--max-upload-bytes).' },
  415: { title: 'Unsupported media type.', explanation: 'Send the request body as multipart/form-data.' },
  417: {
    title: 'Expectation failed.',
    explanation:
      "The request's Expect header asked for something other than 100-continue, the only expectation this server meets (RFC 9110 §10.1.1). Send the request without it.",
  },
  429: {
    title: 'Too many requests.',
    explanation:
      "The API key has used up its plan's requests for now (--rate-limit). Wait for Retry-After seconds; RateLimit-Reset says when the next window starts.",
  },
  431: {
    title: 'Request header fields too large.',
    explanation: "The request's headers are larger than this server reads (16 KiB in all, Node.js's limit). Send fewer or shorter headers (RFC 6585 §5).",
  },
  500: { title: 'Internal server error.', explanation: 'The server failed unexpectedly. The request may be retried; if it fails again, please report it.' },
  503: {
    title: 'Service unavailable.',
    explanation:
      'The server is busy (every worker busy and the queue full), or the request took longer than it allows (--request-timeout-ms) and its work was stopped; retry after the number of seconds in Retry-After.',
  },
};

export function problem(status: number, typeBase: string, extra: Partial<Problem> = {}): Problem {
  return { type: `${typeBase}/${status}`, title: STATUSES[status]?.title ?? 'Error.', status, ...extra };
}

/** Maps any thrown value to a problem; internal faults reveal nothing of themselves. */
export function problemFor(err: unknown, typeBase: string): Problem {
  if (err instanceof ValidationError) return problem(400, typeBase, { errors: err.errors, ...(err.code ? { code: err.code } : {}) });
  if (err instanceof PdfsvcError) return problem(err.status, typeBase, { detail: err.message });
  return problem(500, typeBase);
}
