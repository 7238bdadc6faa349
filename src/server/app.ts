/**
 * The HTTP API as an h3 app: routes generated from the action declarations,
 * checks in the order DECISIONS.md §4 gives (path, method, key, region,
 * Accept, content type, size, fields, document), every failure a problem
 * object. Runs in process for tests, behind listhen in `pdfsvc serve`.
 */
import { H3 } from 'h3';
import type { AnyAction } from '../core/action.js';
import { ValidationError } from '../core/errors.js';
import type { Field, RawValues } from '../core/fields.js';
import { packageDocuments, type Packaging } from '../core/packaging.js';
import { problem, problemFor, STATUSES, type Problem } from '../core/problem.js';
import { validateInput, type ActionResult } from '../core/run.js';
import { PLAN_REGIONS, type KeyStore, type Region, type StoredKey } from './keys.js';
import { negotiatePackaging } from './negotiate.js';
import { openApiDocument } from './openapi.js';
import { errorPage } from './pages.js';

/** Runs a validated action somewhere (in process, or in a worker thread). */
export type ActionRunner = (action: AnyAction, values: Record<string, unknown>) => Promise<ActionResult>;

export interface AppOptions {
  actions: readonly AnyAction[];
  region: Region;
  keys: KeyStore;
  run: ActionRunner;
  maxUploadBytes: number;
  /** Base of problem `type` URIs; default `<request origin>/v1/errors`. */
  errorTypeBase?: string;
  version: string;
  /** Called once per request with what may be logged (never contents, passwords or keys). */
  log?: (entry: RequestLogEntry) => void;
}

export interface RequestLogEntry {
  time: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  bytes_in: number;
  bytes_out: number;
  region: Region;
  key?: string;
}

class RequestTooLarge extends Error {}

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

export function createApp(options: AppOptions): H3 {
  const app = new H3({
    silent: true,
    onError: (error, event) => {
      const cause = error.cause ?? error;
      return problemResponse(toProblem(cause, typeBase(event.req as Request)), cause instanceof HttpProblem ? cause.headers : {});
    },
  });
  const typeBase = (request: Request) => options.errorTypeBase ?? `${new URL(request.url).origin}/v1/errors`;
  const openapi = openApiDocument(options.actions, options.version);

  app.get('/healthz', () => Response.json({ status: 'ok', region: options.region, version: options.version }));
  app.get('/v1/openapi.json', () => Response.json(openapi));
  app.get('/v1/errors/:status', (event) => {
    const status = Number(event.context.params?.status);
    if (!STATUSES[status]) throw new HttpProblem(404);
    return new Response(errorPage(status), { headers: { 'content-type': 'text/html; charset=utf-8' } });
  });

  for (const action of options.actions) {
    app.all(`/v1/${action.name}`, async (event) => {
      const request = event.req as Request;
      if (request.method !== 'POST') throw new HttpProblem(405, `${action.name} accepts POST only`, { Allow: 'POST' });
      const key = authenticate(request, options);
      (event.context as { key?: StoredKey }).key = key;
      const packaging = action.output === 'documents' ? negotiateOrThrow(request) : undefined;
      const contentType = request.headers.get('content-type') ?? '';
      if (!/^multipart\/form-data\s*;/i.test(contentType)) {
        throw new HttpProblem(415, `send the fields as multipart/form-data (got ${contentType ? JSON.stringify(contentType.split(';')[0]) : 'no Content-Type'})`);
      }
      const body = await readBodyWithLimit(request, options.maxUploadBytes);
      (event.context as { bytesIn?: number }).bytesIn = body.byteLength;
      const raw = await formValues(action, contentType, body);
      const values = validateInput(action, raw);
      const result = await options.run(action, values);
      return respond(result, packaging);
    });
  }

  app.all('/**', (event) => {
    const path = new URL((event.req as Request).url).pathname;
    throw new HttpProblem(404, `no endpoint ${path}; actions are POST /v1/<action> (see GET /v1/openapi.json)`);
  });

  if (options.log) {
    const log = options.log;
    const fetch = app.fetch.bind(app);
    const logged = async (request: Request) => {
      const started = performance.now();
      const response = await fetch(request);
      const context = (request as unknown as { context?: { key?: StoredKey; bytesIn?: number } }).context;
      log({
        time: new Date().toISOString(),
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        bytes_in: context?.bytesIn ?? Number(request.headers.get('content-length') ?? 0),
        bytes_out: Number(response.headers.get('content-length') ?? 0),
        region: options.region,
        key: context?.key?.name,
      });
      return response;
    };
    (app as unknown as { fetch: typeof logged }).fetch = logged;
  }

  const fetchWithRegion = app.fetch.bind(app);
  (app as unknown as { fetch: (request: Request) => Promise<Response> }).fetch = async (request: Request) => {
    const response = await fetchWithRegion(request);
    response.headers.set('X-Region', options.region);
    return response;
  };
  return app;
}

function authenticate(request: Request, options: AppOptions): StoredKey {
  const key = options.keys.find(request.headers.get('x-api-key'));
  if (!key) throw new HttpProblem(401, 'send a valid API key in the X-API-Key header');
  if (!PLAN_REGIONS[key.plan].includes(options.region)) {
    throw new HttpProblem(403, `the ${key.plan} plan does not include the ${options.region} region; it includes ${PLAN_REGIONS[key.plan].join(', ')}`);
  }
  return key;
}

function negotiateOrThrow(request: Request): Packaging {
  const packaging = negotiatePackaging(request.headers.get('accept'));
  if (!packaging) throw new HttpProblem(406, 'split actions answer with application/zip (default), application/json or multipart/mixed; ask for one of them in Accept, or send no Accept header');
  return packaging;
}

/**
 * Reads the body, refusing it with 413 as soon as it passes the limit: before
 * reading anything when Content-Length announces too much, else while
 * streaming (chunked uploads).
 */
async function readBodyWithLimit(request: Request, limit: number): Promise<Uint8Array> {
  const announced = request.headers.get('content-length');
  const tooLarge = () => new HttpProblem(413, `the request body is larger than this server accepts (${limit} bytes)`, { Connection: 'close' });
  if (announced !== null && Number(announced) > limit) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) throw new RequestTooLarge();
      chunks.push(value);
    }
  } catch (err) {
    await reader.cancel().catch(() => {});
    if (err instanceof RequestTooLarge) throw tooLarge();
    throw err;
  }
  return Buffer.concat(chunks, total);
}

/**
 * Turns the multipart form into raw field values: files as bytes, others as
 * text. A field sent twice is an error (except the repeated `file` of merge),
 * and `file_1` … `file_N` are read in numeric order.
 */
async function formValues(action: AnyAction, contentType: string, body: Uint8Array): Promise<RawValues> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new ValidationError({ body: ['the multipart/form-data body could not be read; check the boundary and the part headers'] });
  }
  const fields = action.fields as Record<string, Field>;
  const grouped = new Map<string, Array<string | Uint8Array>>();
  for (const [name, value] of form.entries()) {
    const item = typeof value === 'string' ? value : new Uint8Array(await value.arrayBuffer());
    grouped.set(name, [...(grouped.get(name) ?? []), item]);
  }
  const raw: RawValues = {};
  const errors: Record<string, string[]> = {};
  const numbered = new Map<string, Array<[number, Uint8Array]>>();
  for (const [name, items] of grouped) {
    const field = fields[name];
    const numberedMatch = /^(.+)_(\d+)$/.exec(name);
    const base = numberedMatch && fields[numberedMatch[1]];
    if (!field && base && base.kind === 'file' && base.multiple) {
      const n = Number(numberedMatch![2]);
      if (n < 1 || n > base.multiple.numberedUpTo || items.length > 1 || !(items[0] instanceof Uint8Array)) {
        errors[name] = [`numbered fields run from ${numberedMatch![1]}_1 to ${numberedMatch![1]}_${base.multiple.numberedUpTo}, one file each; for more documents repeat the ${numberedMatch![1]} part`];
        continue;
      }
      numbered.set(numberedMatch![1], [...(numbered.get(numberedMatch![1]) ?? []), [n, items[0]]]);
      continue;
    }
    if (field?.kind === 'file' && field.multiple) {
      raw[name] = items as Uint8Array[];
      if (items.some((i) => typeof i === 'string')) errors[name] = ['must be a file part (with a filename), not a text value'];
      continue;
    }
    if (items.length > 1 && field) {
      errors[name] = [`was sent ${items.length} times; send it once`];
      continue;
    }
    raw[name] = items[0] as string | Uint8Array;
  }
  for (const [name, parts] of numbered) {
    if (raw[name] !== undefined) {
      errors[name] = [`send the documents either as repeated ${name} parts or as ${name}_1 … ${name}_N, not both`];
      continue;
    }
    raw[name] = parts.sort((a, b) => a[0] - b[0]).map(([, bytes]) => bytes);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return raw;
}

async function respond(result: ActionResult, packaging: Packaging | undefined): Promise<Response> {
  if (result.output === 'document') {
    return new Response(result.bytes, {
      headers: { 'content-type': 'application/pdf', 'content-length': String(result.bytes.byteLength) },
    });
  }
  const packaged = await packageDocuments(result.documents, packaging ?? 'zip');
  return new Response(packaged.body, {
    headers: { 'content-type': packaged.contentType, 'content-length': String(packaged.body.byteLength) },
  });
}

function toProblem(err: unknown, typeBase: string): Problem {
  if (err instanceof HttpProblem) return problem(err.status, typeBase, err.detail ? { detail: err.detail } : {});
  return problemFor(err, typeBase);
}

function problemResponse(body: Problem, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(body);
  return new Response(text, {
    status: body.status,
    headers: { 'content-type': 'application/problem+json', 'content-length': String(Buffer.byteLength(text)), ...headers },
  });
}
