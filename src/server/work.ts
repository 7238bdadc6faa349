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
import { packageDocuments, type Packaging } from '../core/packaging.js';
import { countingPagesRead } from '../core/pages-read.js';
import { runValidated, validateInput } from '../core/run.js';
import { runWithWarnings, type Warning } from '../core/warnings.js';

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
  /** Pages of the input documents the action read (core/pages-read.ts), for the log and the metrics. */
  pages: number;
}

/** Runs one task: throws ValidationError (400), PdfsvcError, or an internal fault. */
export async function runWork(task: WorkTask): Promise<WorkResult> {
  const action = findAction(task.action);
  if (!action) throw new Error(`unknown action ${task.action}`);
  const raw = await formValues(action, task.contentType, task.body);
  const values = validateInput(action, raw);
  const warnings: Warning[] = [];
  const { result, pages } = await countingPagesRead(() => runWithWarnings((warning) => warnings.push(warning), () => runValidated(action, values)));
  const noted = { pages, ...(warnings.length > 0 ? { warnings } : {}) };
  if (result.output === 'document') return { contentType: 'application/pdf', body: result.bytes, ...noted };
  const packaged = await packageDocuments(result.documents, task.packaging ?? 'zip');
  return { contentType: packaged.contentType, body: packaged.body, ...noted };
}

/**
 * Turns the multipart form into raw field values: files as bytes, others as
 * text. A field sent twice is an error (except the repeated `file` of merge),
 * and `file_1` … `file_N` are read in numeric order.
 */
export async function formValues(action: AnyAction, contentType: string, body: Uint8Array): Promise<RawValues> {
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

/**
 * What the log may say about an internal fault: its class and the code
 * location it came from, never its message (which could quote the document).
 */
export function faultSummary(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const frame = err.stack?.split('\n').find((line) => line.trimStart().startsWith('at '))?.trim();
  return frame ? `${err.name} ${frame}` : err.name;
}
