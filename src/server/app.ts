/**
 * The HTTP API as an h3 app: routes generated from the action declarations,
 * checks in the contract's order (docs/contract.md, "HTTP": path, method,
 * key, region, Accept, content type, size, fields, document), every failure a
 * problem object. Runs in process for tests, behind listhen in `pdfsvc serve`.
 *
 * The main thread only looks at headers and moves bytes: the body is streamed
 * into one buffer (refused with 413 as soon as it passes the limit), handed to
 * the work runner (a worker thread in `pdfsvc serve`), and the answer streamed
 * out. Each action request has a deadline (`requestTimeoutMs`): past it, the
 * upload is cut off with 408, or the work is cancelled (its worker freed)
 * and the client gets 503 with Retry-After.
 */
import { H3, HTTPError, HTTPResponse, type H3Event } from 'h3';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { AnyAction } from '../core/action.js';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import type { Packaging } from '../core/packaging.js';
import { problem, problemFor, STATUSES, type Problem } from '../core/problem.js';
import { docsPage } from './docs.js';
import { PLAN_REGIONS, type KeyStore, type Region, type StoredKey } from './keys.js';
import { negotiatePackaging } from './negotiate.js';
import { openApiDocument } from './openapi.js';
import { errorPage } from './pages.js';
import { Busy, queueIsFull, WorkerDied, WorkerFault, type PoolStatus } from './pool.js';
import { WORKING_SET_FACTOR, type MemoryBudget } from './memory-budget.js';
import { rateLimitHeaders, type RateLimiter } from './rate-limit.js';
import { boundaryOf } from '../client/multipart.js';
import { faultSummary, missingBoundary, runWork, type WorkResult, type WorkTask } from './work.js';

/**
 * Runs one request's work somewhere (in process, or on a worker thread); honours the signals: `signal` (the
 * deadline) at once, `clientGone` as the pool decides (a short task may finish first).
 */
export type WorkRunner = (task: WorkTask, signal: AbortSignal, clientGone: AbortSignal) => Promise<WorkResult>;

export interface AppOptions {
  actions: readonly AnyAction[];
  region: Region;
  keys: KeyStore;
  /** Where the work runs; default: in process (tests). `pdfsvc serve` passes its worker pool. */
  run?: WorkRunner;
  /** The worker pool's state, reported by /healthz (for load balancers and autoscalers). */
  poolStatus?: () => PoolStatus;
  /** Memory the requests in flight may hold together (memory-budget.ts); none: no budget. */
  memoryBudget?: MemoryBudget;
  /** Requests per key and plan (rate-limit.ts); none: no limits. */
  rateLimiter?: RateLimiter;
  maxUploadBytes: number;
  /** Longest an action request may take, upload included; default 120 s. */
  requestTimeoutMs?: number;
  /** Base of problem `type` URIs; default `<request origin>/v1/errors`. */
  errorTypeBase?: string;
  version: string;
  /** Called once per request with what may be logged (never contents, passwords or keys). */
  log?: (entry: RequestLogEntry) => void;
  /** Called once per action request that passed the key checks, with its key and log entry: usage counting (accounts.ts). */
  count?: (key: StoredKey, entry: RequestLogEntry) => void;
}

export interface RequestLogEntry {
  time: string;
  method: string;
  path: string;
  /**
   * The action the request was routed to, by its catalog name: the router also takes `/v1/<action>/` and
   * percent-encoded letters, so the path alone does not say. What the metrics and the audit trail name.
   */
  action?: string;
  status: number;
  duration_ms: number;
  /** Body bytes the server read (0 when it refused the request before reading). */
  bytes_in: number;
  bytes_out: number;
  region: Region;
  /** The key's id and name from the keys file; never the key. */
  key_id?: string;
  key_name?: string;
  /** The account that owns the key (keys from the database; keys files have no accounts). */
  account?: string;
  /** 500 only: the kind of fault and where it happened (no message: it could quote the document). */
  fault?: string;
  /** Damage the inputs were read through: fixed messages that quote nothing of the document. */
  warnings?: string[];
  /** Answered actions only: pages of the input documents processed. */
  pages?: number;
}

/** What the app keeps about a request while it runs (for the log line). */
interface RequestNotes {
  action?: string;
  key?: StoredKey;
  /** The key's RateLimit-* fields once the request was counted: on every answer from then on, refusals too. */
  rateHeaders?: Record<string, string>;
  /** A known key refused (suspended account, region not in its plan or its list): named in the log and the audit trail, not counted as usage. */
  refusedKey?: StoredKey;
  bytesIn?: number;
  fault?: string;
  warnings?: string[];
  pages?: number;
}

export type App = H3 & {
  /** Action requests being handled right now (read by /healthz and by shutdown). */
  readonly inFlight: number;
  /** Those of them whose body is still arriving (for the metrics). */
  readonly uploadsInFlight: number;
};

const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/** An HTTP failure on its way to becoming a problem response. */
class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? STATUSES[status]?.title);
  }
}

const notes = new WeakMap<Request, RequestNotes>();
const notesOf = (request: Request): RequestNotes => {
  let found = notes.get(request);
  if (!found) notes.set(request, (found = {}));
  return found;
};

export function createApp(options: AppOptions): App {
  const run: WorkRunner = options.run ?? ((task) => runWork(task));
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  let inFlight = 0;
  let uploadsInFlight = 0;
  const app = new H3({
    silent: true,
    onError: (error, event) => {
      const request = event.req as Request;
      // h3 wraps what a handler throws (the cause); an HTTPError without an
      // Error cause is h3's own refusal (a path that is not valid
      // percent-encoding): the client's mistake, not a fault.
      const refusedByH3 = HTTPError.isError(error) && !(error.cause instanceof Error) && error.status < 500 && STATUSES[error.status] !== undefined;
      const cause = refusedByH3 ? h3Refusal(error.status) : (error.cause ?? error);
      if (cause instanceof WorkerFault) notesOf(request).fault = cause.fault;
      else if (!(cause instanceof HttpProblem) && !(cause instanceof PdfsvcError)) notesOf(request).fault = faultSummary(cause);
      const headers =
        cause instanceof HttpProblem ? cause.headers : cause instanceof Busy || cause instanceof WorkerDied ? { 'Retry-After': String(cause.retryAfter) } : {};
      return problemResponse(toProblem(cause, typeBase(request)), headers);
    },
  });
  const typeBase = (request: Request) => options.errorTypeBase ?? `${new URL(request.url).origin}/v1/errors`;
  const openapi = openApiDocument(options.actions, options.version, options.region);
  const docs = docsPage(openapi);

  const openapiText = JSON.stringify(openapi);
  /**
   * A resource read with GET, and so with HEAD (RFC 9110 §9.3.2: the same
   * headers, no body; h3 drops the body); any other method is 405 with Allow
   * (§15.5.6). `exists` lets a path template refuse what it does not name
   * (404 comes before 405: the path is checked first).
   */
  const readOnly = (path: string, answer: (event: H3Event) => Response, exists: (event: H3Event) => boolean = () => true) =>
    app.all(path, (event) => {
      if (!exists(event)) throw new HttpProblem(404);
      const method = (event.req as Request).method;
      if (method !== 'GET' && method !== 'HEAD')
        throw new HttpProblem(405, `${new URL((event.req as Request).url).pathname} answers GET and HEAD only`, { Allow: 'GET, HEAD' });
      return answer(event);
    });
  readOnly('/healthz', () =>
    textResponse(
      JSON.stringify({
        status: 'ok',
        region: options.region,
        version: options.version,
        in_flight: inFlight,
        ...(options.poolStatus ? { workers: options.poolStatus() } : {}),
        ...(options.memoryBudget ? { memory: options.memoryBudget.status() } : {}),
      }),
      {
        'content-type': 'application/json',
      },
    ),
  );
  readOnly('/v1/openapi.json', () => textResponse(openapiText, { 'content-type': 'application/json' }));
  readOnly('/docs', () => textResponse(docs.html, docs.headers));
  const errorStatus = (event: H3Event) => Number(event.context.params?.status);
  readOnly(
    '/v1/errors/:status',
    (event) => textResponse(errorPage(errorStatus(event)), { 'content-type': 'text/html; charset=utf-8' }),
    (event) => STATUSES[errorStatus(event)] !== undefined,
  );

  for (const action of options.actions) {
    app.all(`/v1/${action.name}`, async (event) => {
      const request = event.req as Request;
      notesOf(request).action = action.name;
      if (request.method !== 'POST') throw new HttpProblem(405, `${action.name} accepts POST only`, { Allow: 'POST' });
      const key = authenticate(request, options, notesOf(request));
      notesOf(request).key = key;
      const rate = options.rateLimiter?.take(key);
      if (rate) notesOf(request).rateHeaders = rateLimitHeaders(rate);
      if (rate && !rate.allowed) {
        throw new HttpProblem(429, `this key has made its ${rate.limit} requests for now (the ${key.plan} plan's limit); retry in ${rate.reset} s`, {
          'Retry-After': String(rate.reset),
        });
      }
      const packaging = action.output === 'documents' ? negotiateOrThrow(request) : undefined;
      const contentType = request.headers.get('content-type') ?? '';
      const mediaType = contentType.split(';')[0].trim();
      if (mediaType.toLowerCase() !== 'multipart/form-data') {
        throw new HttpProblem(415, `send the fields as multipart/form-data (got ${mediaType ? JSON.stringify(mediaType) : 'no Content-Type'})`);
      }
      // The right media type without its boundary: the body cannot be split, a client mistake (400), not an unsupported type.
      if (!boundaryOf(contentType)) throw missingBoundary();
      // A full queue refuses before the upload is read: a body that could only
      // be refused after it arrived would cost the client its upload and the
      // server its memory. (Uploads under way are not counted; the pool checks
      // again when the body is in.)
      const pool = options.poolStatus?.();
      if (pool && queueIsFull(pool)) throw new Busy();
      inFlight++;
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), timeoutMs);
      // The upload stops when the deadline passes or the client goes away; the work too (run's signals).
      const uploadSignal = AbortSignal.any([deadline.signal, request.signal]);
      let phase: 'upload' | 'work' = 'upload';
      // The request's share of the memory budget, grown with its body: at once from Content-Length, else as bytes arrive.
      const budget = options.memoryBudget;
      let reserved = 0;
      const reserve = (bodyBytes: number) => {
        const wanted = bodyBytes * WORKING_SET_FACTOR;
        if (!budget || wanted <= reserved) return;
        if (!budget.reserve(wanted - reserved)) {
          throw new HttpProblem(503, 'this server is at its memory budget with the documents already in work; retry shortly', {
            'Retry-After': '5',
            Connection: 'close',
          });
        }
        reserved = wanted;
      };
      uploadsInFlight++;
      try {
        const announced = Number(request.headers.get('content-length'));
        if (Number.isFinite(announced) && announced > 0 && announced <= options.maxUploadBytes) reserve(announced);
        const body = await readBodyWithLimit(request, options.maxUploadBytes, uploadSignal, (n) => {
          notesOf(request).bytesIn = n;
          reserve(n);
        });
        phase = 'work';
        uploadsInFlight--;
        const result = await run({ action: action.name, contentType, body, packaging }, deadline.signal, request.signal);
        // A task let finish after its client left (pool.ts): nobody reads the answer.
        request.signal.throwIfAborted();
        if (result.warnings) notesOf(request).warnings = result.warnings.map(({ field, message }) => `${field}: ${message}`);
        notesOf(request).pages = result.pages;
        // h3's HTTPResponse goes to the socket as it is; a web Response would copy the body first.
        return new HTTPResponse(result.body, {
          statusText: 'OK',
          headers: { 'content-type': result.contentType, 'content-length': String(result.body.byteLength) },
        });
      } catch (err) {
        if (!deadline.signal.aborted) {
          // Nobody will read this answer; 499 (nginx's "client closed request") only reaches the log.
          if (request.signal.aborted) throw new HttpProblem(499, 'the client closed the connection before the answer was ready');
          throw err;
        }
        if (phase === 'upload') {
          throw new HttpProblem(408, `the request body did not arrive within ${timeoutMs} ms`, { Connection: 'close' });
        }
        throw new HttpProblem(
          503,
          `the request took longer than this server allows (${timeoutMs} ms) and was stopped; retry later, or send a smaller document`,
          { 'Retry-After': '5' },
        );
      } finally {
        clearTimeout(timer);
        inFlight--;
        if (phase === 'upload') uploadsInFlight--;
        budget?.release(reserved);
      }
    });
  }

  app.all('/**', (event) => {
    const path = new URL((event.req as Request).url).pathname;
    const meant = meantAction(path, options.actions);
    const hint = meant ? `did you mean POST /v1/${meant.name}? ` : '';
    throw new HttpProblem(404, `no endpoint ${path}; ${hint}actions are POST /v1/<action> (see GET /v1/openapi.json)`);
  });

  const fetch = app.fetch.bind(app);
  const { log, count } = options;
  const handle = async (request: Request): Promise<Response> => {
    const started = performance.now();
    const response = await fetch(request);
    response.headers.set('X-Region', options.region);
    for (const [name, value] of Object.entries(notes.get(request)?.rateHeaders ?? {})) response.headers.set(name, value);
    if (log || count) {
      const noted = notes.get(request);
      const entry: RequestLogEntry = {
        time: new Date().toISOString(),
        method: request.method,
        path: new URL(request.url).pathname,
        ...(noted?.action ? { action: noted.action } : {}),
        status: response.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        bytes_in: noted?.bytesIn ?? 0,
        // A HEAD answer carries the Content-Length of the GET one, and no body.
        bytes_out: request.method === 'HEAD' ? 0 : Number(response.headers.get('content-length') ?? 0),
        region: options.region,
        ...keyFields(noted?.key ?? noted?.refusedKey),
        ...(noted?.fault ? { fault: noted.fault } : {}),
        ...(noted?.warnings ? { warnings: noted.warnings } : {}),
        ...(noted?.pages !== undefined ? { pages: noted.pages } : {}),
      };
      log?.(entry);
      if (count && noted?.key) count(noted.key, entry);
    }
    return response;
  };
  Object.defineProperty(app, 'fetch', { value: handle, configurable: true, writable: true });
  Object.defineProperty(app, 'inFlight', { get: () => inFlight });
  Object.defineProperty(app, 'uploadsInFlight', { get: () => uploadsInFlight });
  return app as App;
}

/** Who sent a request, for the log entry. */
/**
 * The action a path that names none was probably meant for: its API name in
 * another case or with dashes (`rotate-pages`, the command line's spelling), a
 * short verb (`rotate`), a path without `/v1`, or a name one or two letters
 * off (`rotate_page`). Undefined when none is close, or two are equally close.
 */
function meantAction(path: string, actions: readonly AnyAction[]): AnyAction | undefined {
  const last = path.split('/').filter(Boolean).pop();
  if (!last) return undefined;
  const wanted = last.toLowerCase().replaceAll('-', '_');
  const exact = actions.find((action) => action.name === wanted || action.aliases?.includes(wanted));
  if (exact) return exact;
  let best: AnyAction | undefined;
  let bestDistance = 3;
  let tie = false;
  for (const action of actions) {
    const distance = editDistance(wanted, action.name);
    if (distance < bestDistance) [best, bestDistance, tie] = [action, distance, false];
    else if (distance === bestDistance) tie = true;
  }
  return best && !tie ? best : undefined;
}

/** Levenshtein distance (insertions, deletions, substitutions), over names of a few dozen characters. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

function keyFields(key: StoredKey | undefined): Pick<RequestLogEntry, 'key_id' | 'key_name' | 'account'> {
  return key ? { key_id: key.id, key_name: key.name, ...(key.accountName ? { account: key.accountName } : {}) } : {};
}

function authenticate(request: Request, options: AppOptions, notes: RequestNotes): StoredKey {
  const key = options.keys.find(request.headers.get('x-api-key'));
  if (!key) throw new HttpProblem(401, 'send a valid API key in the X-API-Key header');
  notes.refusedKey = key;
  // 403, not 401: the key is right, so replacing it would not help (README, "Accounts, keys and usage").
  if (key.suspended)
    throw new HttpProblem(403, `the account${key.accountName ? ` ${key.accountName}` : ''} is suspended: its keys are refused until the operator resumes it`);
  if (!PLAN_REGIONS[key.plan].includes(options.region)) {
    throw new HttpProblem(403, `the ${key.plan} plan does not include the ${options.region} region; it includes ${PLAN_REGIONS[key.plan].join(', ')}`);
  }
  if (key.regions && !key.regions.includes(options.region)) {
    throw new HttpProblem(
      403,
      `this key is limited to the ${key.regions.join(', ')} region${key.regions.length > 1 ? 's' : ''}; use a key for the ${options.region} region, or one without a region limit`,
    );
  }
  return key;
}

function negotiateOrThrow(request: Request): Packaging {
  const packaging = negotiatePackaging(request.headers.get('accept'));
  if (!packaging)
    throw new HttpProblem(
      406,
      'split actions answer with application/zip (default), application/json or multipart/mixed; ask for one of them in Accept (with a weight, if any, from q=0.001 to q=1), or send no Accept header',
    );
  return packaging;
}

/**
 * Reads the body into one buffer of its own (so that it can be transferred to
 * a worker thread without a copy), refusing it with 413 as soon as it passes
 * the limit: before reading anything when Content-Length announces too much,
 * else while streaming (chunked uploads). Stops when the signal aborts.
 */
async function readBodyWithLimit(request: Request, limit: number, signal: AbortSignal, progress: (bytes: number) => void): Promise<Uint8Array> {
  const tooLarge = () => new HttpProblem(413, `the request body is larger than this server accepts (${limit} bytes)`, { Connection: 'close' });
  const announcedText = request.headers.get('content-length');
  const announced = announcedText !== null && /^\d+$/.test(announcedText) ? Number(announcedText) : undefined;
  if (announced !== undefined && announced > limit) throw tooLarge();
  // Announced: one buffer of that size, filled as chunks arrive (no large copy
  // on the event loop). Chunked: a buffer that doubles as needed.
  let buffer = new Uint8Array(announced ?? Math.min(limit, 64 * 1024));
  let total = 0;
  const take = (chunk: Uint8Array) => {
    if (total + chunk.byteLength > limit) throw tooLarge();
    if (total + chunk.byteLength > buffer.byteLength) {
      const grown = new Uint8Array(Math.min(limit, Math.max(buffer.byteLength * 2, total + chunk.byteLength)));
      grown.set(buffer.subarray(0, total));
      buffer = grown;
    }
    buffer.set(chunk, total);
    total += chunk.byteLength;
    progress(total);
  };
  const node = (request as unknown as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
  if (node) await readNodeStream(node, take, signal);
  else if (request.body) await readWebStream(request.body, take, signal);
  return buffer.subarray(0, total);
}

/** `pdfsvc serve`: straight from Node's request stream (no web-stream wrapper per chunk). */
function readNodeStream(stream: IncomingMessage, take: (chunk: Uint8Array) => void, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const cleanup = () => {
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      signal.removeEventListener('abort', onAbort);
    };
    const fail = (err: unknown) => {
      cleanup();
      stream.pause();
      reject(err);
    };
    const onData = (chunk: Uint8Array) => {
      try {
        take(chunk);
      } catch (err) {
        fail(err);
      }
    };
    const onEnd = () => {
      cleanup();
      resolve();
    };
    const onError = (err: Error) => fail(err);
    const onClose = () => {
      if (!stream.complete) fail(new Error('the client closed the connection during the upload'));
    };
    const onAbort = () => fail(signal.reason ?? new Error('aborted'));
    if (signal.aborted) return onAbort();
    if (stream.readableEnded) return resolve();
    stream.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** In process (tests): the web stream of a Request. */
async function readWebStream(body: ReadableStream<Uint8Array>, take: (chunk: Uint8Array) => void, signal: AbortSignal): Promise<void> {
  const reader = body.getReader();
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => {});
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      take(value);
    }
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  }
}

/** h3's own refusals; its 400 (a path that is not valid percent-encoding) names the path under `errors`, as every 400 names its field. */
function h3Refusal(status: number): Error {
  return status === 400
    ? ValidationError.field('path', 'the request path is not valid percent-encoding (RFC 3986 §2.1): write each % as %25, or encode the path')
    : new HttpProblem(status);
}

function toProblem(err: unknown, typeBase: string): Problem {
  if (err instanceof HttpProblem) return problem(err.status, typeBase, err.detail ? { detail: err.detail } : {});
  return problemFor(err, typeBase);
}

function problemResponse(body: Problem, headers: Record<string, string> = {}): Response {
  return textResponse(JSON.stringify(body), { 'content-type': 'application/problem+json', ...headers }, body.status);
}

/**
 * A text response with its Content-Length (which the log reads as bytes out), and its reason phrase:
 * without one, Node writes an empty one (`HTTP/1.1 401 `), not the `401 Unauthorized` of the contract.
 */
function textResponse(text: string, headers: Record<string, string>, status = 200): Response {
  const bytes = Buffer.from(text);
  return new Response(bytes, { status, statusText: STATUS_CODES[status], headers: { ...headers, 'content-length': String(bytes.byteLength) } });
}
