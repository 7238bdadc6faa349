/**
 * The work of one action request, from the raw multipart body to the
 * response body: read the form, check the fields, run the transform, package
 * split outputs. It runs on a worker thread in `pdfsvc serve` (so that parsing
 * a 60 MB upload or zipping forty outputs never blocks the event loop) and in
 * process for tests; the main thread only checks headers, streams the body in
 * and the answer out.
 */
import { findAction } from '../actions/index.js';
import type { AnyAction } from '../core/action.js';
import { ValidationError } from '../core/errors.js';
import type { Field, RawValues } from '../core/fields.js';
import { boundaryOf, filenameOf, parseMultipart, type MultipartPart } from '../client/multipart.js';
import { packageDocuments, type Packaging } from '../core/packaging.js';
import { joined, run } from '../core/run.js';
import type { Warning } from '../core/warnings.js';

export interface WorkTask {
  /** API name of the action. */
  action: string;
  /** The request's Content-Type (multipart/form-data with its boundary). */
  contentType: string;
  /** The whole request body; transferred to the worker, not copied. */
  body: Uint8Array;
  /** Split actions: the packaging the client's Accept chose. */
  packaging?: Packaging;
}

export interface WorkResult {
  contentType: string;
  body: Uint8Array;
  /** Damage the inputs were read through (core/warnings.ts), for the request log. */
  warnings?: Warning[];
  /** Pages of the input documents the action read (core/run.ts), for the log and the metrics. */
  pages: number;
}

/** Runs one task: throws ValidationError (400), PdfsvcError, or an internal fault. */
export async function runWork(task: WorkTask): Promise<WorkResult> {
  const action = findAction(task.action);
  if (!action) throw new Error(`unknown action ${task.action}`);
  const unnamed = new WeakSet<Uint8Array>();
  const raw = formValues(action, task.contentType, task.body, unnamed);
  const warnings: Warning[] = [];
  let done: Awaited<ReturnType<typeof run>>;
  try {
    done = await run(action, raw, { onWarning: (warning) => warnings.push(warning) });
  } catch (err) {
    throw withTextPartHint(err, action, raw, unnamed);
  }
  const result = joined(done);
  const noted = { pages: done.pages, ...(warnings.length > 0 ? { warnings } : {}) };
  if (result.output === 'document') return { contentType: 'application/pdf', body: result.bytes, ...noted };
  const packaged = await packageDocuments(result.documents, task.packaging ?? 'zip');
  return { contentType: packaged.contentType, body: packaged.body, ...noted };
}

/** Parts one request may have: far more than any form needs, few enough that a body of empty parts costs little. */
const MAX_FORM_PARTS = 10_000;

/**
 * Turns the multipart form into raw field values: files as bytes, others as
 * text. A field sent twice is an error (except the repeated `file` of merge),
 * and `file_1` … `file_N` are read in numeric order.
 *
 * Read with the RFC 2046 reader on bytes (client/multipart.ts) rather than
 * fetch's FormData, which refuses a preamble or an epilogue (RFC 2046 §5.1.1
 * allows both) and turns a file part sent without a filename (RFC 7578 §4.2:
 * SHOULD, not MUST) into text. Here the field decides: a file field takes the
 * part's bytes, with or without a filename.
 */
function formValues(action: AnyAction, contentType: string, body: Uint8Array, unnamed: WeakSet<Uint8Array>): RawValues {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw missingBoundary();
  let parts: MultipartPart[];
  try {
    // Views, not copies: the body stays alive for the request anyway.
    parts = parseMultipart(body, boundary, { maxParts: MAX_FORM_PARTS, views: true });
  } catch (err) {
    throw new ValidationError({ body: [`the multipart/form-data body could not be read: ${(err as Error).message}; check the boundary and the part headers`] });
  }
  const fields = action.fields as Record<string, Field>;
  const numberedBase = (name: string) => {
    const match = /^(.+)_(\d+)$/.exec(name);
    const base = match ? fields[match[1]] : undefined;
    return match && !fields[name] && base?.kind === 'file' && base.multiple
      ? { base: match[1], n: Number(match[2]), upTo: base.multiple.numberedUpTo }
      : undefined;
  };
  const grouped = new Map<string, Array<string | Uint8Array>>();
  const errors: Record<string, string[]> = {};
  for (const part of parts) {
    const disposition = part.headers['content-disposition'];
    const name = disposition === undefined ? undefined : formDataName(disposition);
    if (name === undefined) {
      errors.body = ['every part needs a Content-Disposition: form-data header with a name (RFC 7578 §4.2)'];
      continue;
    }
    const encoding = part.headers['content-transfer-encoding']?.toLowerCase();
    if (encoding && !['binary', '8bit', '7bit'].includes(encoding)) {
      errors[name] = [`was sent with Content-Transfer-Encoding: ${encoding}; send the bytes as they are (RFC 7578 §4.7)`];
      continue;
    }
    const isFile = fields[name]?.kind === 'file' || numberedBase(name) !== undefined || filenameOf(disposition) !== undefined;
    const item = isFile ? part.body : new TextDecoder().decode(part.body);
    if (isFile && filenameOf(disposition) === undefined) unnamed.add(part.body);
    const items = grouped.get(name);
    if (items) items.push(item);
    else grouped.set(name, [item]);
  }
  const raw: RawValues = {};
  const numbered = new Map<string, Array<[number, Uint8Array]>>();
  for (const [name, items] of grouped) {
    if (errors[name]) continue;
    const field = fields[name];
    const numberedField = numberedBase(name);
    if (numberedField) {
      const { base, n, upTo } = numberedField;
      // file_01 is no field of the action: taken as file_1 it would also be merged beside file_1, in no stated order.
      if (n < 1 || n > upTo || items.length > 1 || name !== `${base}_${n}`) {
        errors[name] = [`numbered fields run from ${base}_1 to ${base}_${upTo}, one file each; for more documents repeat the ${base} part`];
        continue;
      }
      const list = numbered.get(base);
      if (list) list.push([n, items[0] as Uint8Array]);
      else numbered.set(base, [[n, items[0] as Uint8Array]]);
      continue;
    }
    if (field?.kind === 'file' && field.multiple) {
      raw[name] = items as Uint8Array[];
      continue;
    }
    if (items.length > 1 && field) {
      errors[name] = [`was sent ${items.length} times; send it once`];
      continue;
    }
    raw[name] = items[0];
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

/**
 * A file part sent as a short line of text with no file name is most often a
 * file's name sent instead of the file (`curl -F file=in.pdf`, the @ left
 * out): the reader can only say it is no PDF (or image). When the action
 * refused such a part as unreadable, a second message says what was sent and
 * how to send the file. Only the messages change: status and code stay.
 */
function withTextPartHint(err: unknown, action: AnyAction, raw: RawValues, unnamed: WeakSet<Uint8Array>): unknown {
  if (!(err instanceof ValidationError) || (err.code !== 'damaged' && err.code !== 'bad_image')) return err;
  const fields = action.fields as Record<string, Field>;
  const messages = { ...err.messages };
  let hinted = false;
  for (const [name, value] of Object.entries(raw)) {
    if (fields[name]?.kind !== 'file' || !messages[name]) continue;
    const parts = Array.isArray(value) ? value : [value];
    parts.forEach((part, i) => {
      const text = part instanceof Uint8Array && unnamed.has(part) ? textLine(part) : undefined;
      if (text === undefined) return;
      const which = parts.length > 1 ? `document ${i + 1}` : 'it';
      const shown = text.length > 80 ? `${text.slice(0, 77)}…` : text;
      messages[name] = [
        ...messages[name]!,
        `${which} was sent as the text ${JSON.stringify(shown)} (a form field with no file name), not as a file: send the file's content (with curl, -F ${name}=@${shown.includes(' ') ? `"${shown}"` : shown}: the @ reads the file)`,
      ];
      hinted = true;
    });
  }
  return hinted ? new ValidationError(messages, err.code) : err;
}

/** The part as one line of text (up to 1 KiB of UTF-8, no control characters but a final line break); undefined otherwise. */
function textLine(bytes: Uint8Array): string | undefined {
  if (bytes.byteLength === 0 || bytes.byteLength > 1024) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  text = text.replace(/\r?\n$/, '');
  return text.length > 0 && !text.startsWith('%PDF') && !/[\u0000-\u001f\u007f]/.test(text) ? text : undefined;
}

/** The 400 for `multipart/form-data` without its boundary parameter: the body cannot be split into fields. */
export function missingBoundary(): ValidationError {
  return ValidationError.field(
    'Content-Type',
    'multipart/form-data needs its boundary parameter (RFC 7578 §4.1), as in "multipart/form-data; boundary=…"; HTTP clients add it themselves when given a form, so do not set Content-Type by hand',
  );
}

/** The `name` parameter of a part's Content-Disposition (RFC 7578 §4.2), quoted or not; undefined when it is not form-data or has none. */
function formDataName(disposition: string): string | undefined {
  if (!/^\s*form-data\s*(;|$)/i.test(disposition)) return undefined;
  const match = /;\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(disposition);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

/**
 * What the log may say about an internal fault: its class and the code
 * location it came from, never its message (which could quote the document).
 */
export function faultSummary(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const frame = err.stack
    ?.split('\n')
    .find((line) => line.trimStart().startsWith('at '))
    ?.trim();
  return frame ? `${err.name} ${frame}` : err.name;
}
