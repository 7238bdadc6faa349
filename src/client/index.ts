/**
 * pdfsvc's HTTP client: one typed function per action, generated from the
 * same declarations as the library, sending the action to a pdfsvc server
 * (or any server implementing /v1/).
 *
 *   import { createClient } from 'pdfsvc/client';
 *   const pdfsvc = createClient({ baseUrl: 'https://pdf.example.com', apiKey });
 *   const rotated = await pdfsvc.rotatePages({ file: bytes, angle: 90 });   // Uint8Array
 *   const parts = await pdfsvc.splitAtPage({ file: blob, page: 3 });        // [{ name, bytes }, …]
 *
 * Web platform only (fetch, FormData, Blob, Headers, TextDecoder, atob): it
 * runs in Node 20 and in browsers. It imports the action declarations,
 * which are plain data; the transforms and pdf-lib are left out of its build
 * (scripts/build.mjs).
 */
import { actions } from '../actions/index.js';
import { camelName, type ActionDefinition, type ActionOutput, type AnyAction, type CamelName, type NamedDocument } from '../core/action.js';
import type { FieldInput, FieldMap } from '../core/fields.js';
import { bytesRemedy, describeValue, isFieldObject, notFieldObject } from '../core/input-shape.js';
import { documentsFromBody } from './documents.js';
import { errorFromResponse } from './error.js';

export { PdfsvcHttpError } from './error.js';
export type { NamedDocument } from '../core/action.js';
export type { Problem } from '../core/problem.js';

/** A file field's value: bytes, or a Blob (a File from an `<input type=file>`). */
export type FileInput = Uint8Array | Blob;

/** An action's fields as the client takes them: the library's names and types, files also as Blobs. */
export type ClientInput<A> = A extends ActionDefinition<infer M extends FieldMap, ActionOutput, string> ? FieldInput<M, FileInput> : never;
/** One PDF, or the named parts of a split. */
export type ClientOutput<A> = A extends { output: 'documents' } ? NamedDocument[] : Uint8Array;

export interface CallOptions {
  /** Aborts the request (and any wait before a retry). */
  signal?: AbortSignal | undefined;
}

type Catalog = (typeof actions)[number];

export type PdfsvcClient = {
  [A in Catalog as CamelName<A['name']>]: (input: ClientInput<A>, options?: CallOptions) => Promise<ClientOutput<A>>;
} & {
  /**
   * Any action by its API name, untyped (for servers with actions this
   * client does not know). Field values are sent as text, files as parts.
   */
  call(action: string, input: Record<string, unknown>, options?: CallOptions): Promise<Uint8Array | NamedDocument[]>;
};

export interface ClientOptions {
  /** The server's base URL, such as `https://pdf.example.com` (actions are POST <baseUrl>/v1/<action>). */
  baseUrl: string;
  /** Sent as X-API-Key. */
  apiKey?: string | undefined;
  /** A fetch of your own (a proxy, custom TLS, tests); default: the global fetch. */
  fetch?: ((input: string, init: RequestInit) => Promise<Response>) | undefined;
  /** How many times a 503 (server busy) is retried, after the Retry-After it gives; default 3. Other failures are never retried. */
  retries?: number | undefined;
}

/** Longest wait before a retry, whatever Retry-After says: a caller should not hang for minutes unawares. */
const MAX_RETRY_WAIT_SECONDS = 60;
/** The wait when a 503 gives no Retry-After. */
const DEFAULT_RETRY_WAIT_SECONDS = 1;

const SPLIT_ACCEPT = 'multipart/mixed, application/json;q=0.9';
const ANY_ACCEPT = `application/pdf, ${SPLIT_ACCEPT}`;

export function createClient(options: ClientOptions): PdfsvcClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const retries = options.retries ?? 3;
  if (!Number.isInteger(retries) || retries < 0) throw new TypeError(`retries must be a whole number, 0 or more; got ${retries}`);
  // Called as a plain function: browsers refuse a fetch called as another object's method.
  const send = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  const byName = new Map((actions as readonly AnyAction[]).map((action) => [action.name, action]));

  const call = async (name: string, input: Record<string, unknown>, callOptions: CallOptions = {}): Promise<Uint8Array | NamedDocument[]> => {
    const action = byName.get(name);
    // Refused before sending: `rotatePages(bytes)` would send one part per byte; a file given as an ArrayBuffer or a
    // path would reach the server as text, which it reads as a damaged PDF.
    if (!isFieldObject(input)) throw notFieldObject(action ? camelName(name) : `call('${name}', fields)`, action ? Object.keys(action.fields) : [], input);
    if (action) checkFiles(action, input);
    const url = `${base}/v1/${encodeURIComponent(name)}`;
    const headers = new Headers({ accept: action ? (action.output === 'documents' ? SPLIT_ACCEPT : 'application/pdf') : ANY_ACCEPT });
    if (options.apiKey !== undefined) headers.set('x-api-key', options.apiKey);
    for (let attempt = 0; ; attempt++) {
      const response = await send(url, { method: 'POST', headers, body: formOf(input), signal: callOptions.signal });
      if (response.ok) return readAnswer(response);
      const error = await errorFromResponse(response);
      if (response.status !== 503 || attempt >= retries) throw error;
      await sleep(Math.min(error.retryAfter ?? DEFAULT_RETRY_WAIT_SECONDS, MAX_RETRY_WAIT_SECONDS) * 1000, callOptions.signal);
    }
  };

  const client: Record<string, unknown> = { call };
  for (const action of actions as readonly AnyAction[]) {
    client[camelName(action.name)] = (input: Record<string, unknown>, callOptions?: CallOptions) => call(action.name, input, callOptions);
  }
  return client as PdfsvcClient;
}

/** Each file field's value is bytes or a Blob (FileInput); anything else would be sent as text. */
function checkFiles(action: AnyAction, input: Record<string, unknown>): void {
  for (const [name, field] of Object.entries(action.fields as FieldMap)) {
    const value = input[name];
    if (field.kind !== 'file' || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (!(item instanceof Uint8Array || item instanceof Blob)) {
        throw new TypeError(`${name}: must be a Uint8Array or a Blob (a File); got ${describeValue(item)}${bytesRemedy(item)}`);
      }
    }
  }
}

/** The fields as multipart/form-data: files (and each file of a list) as parts, the rest as text. */
function formOf(input: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(input)) {
    for (const item of value === undefined ? [] : Array.isArray(value) ? value : [value]) {
      if (item instanceof Blob) form.append(name, item, (item as File).name || name);
      else if (item instanceof Uint8Array) form.append(name, new Blob([item as Uint8Array<ArrayBuffer>]), `${name}${extensionOf(item)}`);
      else form.append(name, String(item));
    }
  }
  return form;
}

/** A part's file name extension from its first bytes (servers read the bytes; a name only helps a reader of logs). */
function extensionOf(bytes: Uint8Array): string {
  const starts = (...magic: number[]) => magic.every((byte, i) => bytes[i] === byte);
  if (starts(0x25, 0x50, 0x44, 0x46)) return '.pdf';
  if (starts(0x89, 0x50, 0x4e, 0x47)) return '.png';
  if (starts(0xff, 0xd8, 0xff)) return '.jpg';
  return '';
}

async function readAnswer(response: Response): Promise<Uint8Array | NamedDocument[]> {
  const type = response.headers.get('content-type') ?? '';
  const body = new Uint8Array(await response.arrayBuffer());
  return /^application\/pdf\b/i.test(type) ? body : documentsFromBody(type, body);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
