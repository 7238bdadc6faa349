/**
 * Helpers for the split actions' tests: running a split in process, reading
 * each part back with qpdf and poppler, and unpacking the three packagings
 * (ZIP with adm-zip, the JSON envelope, multipart/mixed) the way a client
 * would.
 */
import AdmZip from 'adm-zip';
import { execa } from 'execa';
import { expect } from 'vitest';
import type { AnyAction, NamedDocument } from '../../src/core/action.js';
import { ValidationError } from '../../src/core/errors.js';
import type { RawValues } from '../../src/core/fields.js';
import { runAction } from '../../src/core/run.js';
import { fixture, pageMarkers, qpdfCheck, qpdfJson, tempFile, type QpdfJson, type QpdfOutline } from './pdf-tools.js';

/** Runs a split action on a fixture (or given bytes); returns its named parts. */
export async function split(action: AnyAction, file: string | Uint8Array, values: RawValues = {}): Promise<NamedDocument[]> {
  const bytes = typeof file === 'string' ? fixture(file) : file;
  const result = await runAction(action, { file: bytes, ...values });
  if (result.output !== 'documents') throw new Error(`${action.name} gave one document; expected several`);
  return result.documents;
}

/** Runs a split that must be refused; returns the ValidationError's `errors`. */
export async function refusal(action: AnyAction, file: string | Uint8Array, values: RawValues = {}): Promise<Record<string, string[]>> {
  const bytes = typeof file === 'string' ? fixture(file) : file;
  try {
    await runAction(action, { file: bytes, ...values });
  } catch (err) {
    if (err instanceof ValidationError) return err.errors;
    throw err;
  }
  throw new Error(`${action.name} produced parts; expected a ValidationError`);
}

/** The names 00001.pdf … in order, for `count` parts. */
export function partNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${String(i + 1).padStart(5, '0')}.pdf`);
}

/** Every part passes `qpdf --check` cleanly; returns each part's `PDFSVC PAGE n` markers. */
export async function checkedMarkers(parts: Array<{ bytes: Uint8Array }>): Promise<number[][]> {
  const markers: number[][] = [];
  for (const [i, part] of parts.entries()) {
    const check = await qpdfCheck(part.bytes);
    expect(check.exitCode, `part ${i + 1}: ${check.output}`).toBe(0);
    markers.push(await pageMarkers(part.bytes));
  }
  return markers;
}

/** An outline as `title→page` strings, depth shown by indentation. */
export function outlineLines(outlines: QpdfOutline[], depth = 0): string[] {
  return outlines.flatMap((item) => [`${'  '.repeat(depth)}${item.title}→${item.destpageposfrom1}`, ...outlineLines(item.kids, depth + 1)]);
}

/** Page labels as the reader shows them (`i`, `ii`, `1`, …). */
export async function pageLabels(bytes: Uint8Array): Promise<string[]> {
  return pageLabelsOf(await qpdfJson(bytes));
}

/** The label a reader shows on each page, expanded from qpdf's /PageLabels ranges (styles D, r, R, and prefixes). */
export function pageLabelsOf(json: QpdfJson): string[] {
  const ranges = json.pagelabels;
  return json.pages.map((_, page) => {
    const range = [...ranges].reverse().find((r) => r.index <= page);
    if (!range) return String(page + 1);
    const label = range.label as { '/S'?: string; '/St'?: number; '/P'?: string };
    const value = (label['/St'] ?? 1) + page - range.index;
    const prefix = typeof label['/P'] === 'string' ? label['/P'].replace(/^u:/, '') : '';
    const style = label['/S'];
    return prefix + (style === '/D' ? String(value) : style === '/r' ? roman(value) : style === '/R' ? roman(value).toUpperCase() : '');
  });
}

function roman(n: number): string {
  const table: Array<[number, string]> = [
    [1000, 'm'],
    [900, 'cm'],
    [500, 'd'],
    [400, 'cd'],
    [100, 'c'],
    [90, 'xc'],
    [50, 'l'],
    [40, 'xl'],
    [10, 'x'],
    [9, 'ix'],
    [5, 'v'],
    [4, 'iv'],
    [1, 'i'],
  ];
  let out = '';
  for (const [value, text] of table) while (n >= value) (out += text), (n -= value);
  return out;
}

/** Named destinations and the page each leads to, from `pdfinfo -dests`. */
export async function namedDestinations(bytes: Uint8Array): Promise<Record<string, number>> {
  const { stdout } = await execa('pdfinfo', ['-dests', tempFile(bytes)]);
  const out: Record<string, number> = {};
  for (const m of stdout.matchAll(/^\s*(\d+)\s+\[.*\]\s+"(.*)"$/gm)) out[m[2]] = Number(m[1]);
  return out;
}

type Objects = Record<string, { value?: Record<string, unknown>; stream?: { dict: Record<string, unknown> } }>;

/** The links on each page: `uri:<address>`, `page:<n>` (a page of this file) or `name:<dest>`. */
export async function linksPerPage(bytes: Uint8Array): Promise<string[][]> {
  const json = await qpdfJson(bytes);
  const objects = json.qpdf[1] as Objects;
  const pageAt = new Map(json.pages.map((page, i) => [page.object, i + 1]));
  const value = (ref: unknown) => (typeof ref === 'string' && objects[`obj:${ref}`] ? objects[`obj:${ref}`].value : ref) as Record<string, unknown> | undefined;
  return json.pages.map((page) => {
    const dict = objects[`obj:${page.object}`]?.value ?? {};
    const annots = (value(dict['/Annots']) as unknown as unknown[] | undefined) ?? [];
    return annots.flatMap((ref) => {
      const annot = value(ref);
      if (!annot || annot['/Subtype'] !== '/Link') return [];
      const action = value(annot['/A']);
      if (action?.['/S'] === '/URI') return [`uri:${String(action['/URI']).replace(/^u:/, '')}`];
      const dest = annot['/Dest'] ?? action?.['/D'];
      if (Array.isArray(dest)) return [`page:${pageAt.get(dest[0] as string) ?? '?'}`];
      return [`name:${String(dest).replace(/^u:/, '')}`];
    });
  });
}

/** Fully qualified form field names and values, with the page of their widget. */
export async function formFields(bytes: Uint8Array): Promise<string[]> {
  const json = await qpdfJson(bytes);
  return json.acroform.fields.map((f) => `${f.fullname}=${String(f.value).replace(/^u:/, '')}@${f.pageposfrom1}`);
}

/** The /PdfsvcImage numbers of the image streams a part holds (sized.pdf: 0 is the shared logo). */
export async function imagesHeld(bytes: Uint8Array): Promise<number[]> {
  const json = await qpdfJson(bytes);
  const objects = json.qpdf[1] as Objects;
  return Object.values(objects)
    .flatMap((object) => (object.stream && typeof object.stream.dict['/PdfsvcImage'] === 'number' ? [object.stream.dict['/PdfsvcImage'] as number] : []))
    .sort((a, b) => a - b);
}

/** What the catalog of a part has, and whether a page still has /StructParents. */
export async function catalogKeys(bytes: Uint8Array): Promise<{ catalog: string[]; names: string[]; structParents: boolean }> {
  const json = await qpdfJson(bytes);
  const objects = json.qpdf[1] as Objects;
  const trailer = (objects.trailer?.value ?? {}) as Record<string, string>;
  const catalog = objects[`obj:${trailer['/Root']}`]?.value ?? {};
  const namesRef = catalog['/Names'];
  const names = typeof namesRef === 'string' ? (objects[`obj:${namesRef}`]?.value ?? {}) : ((namesRef as Record<string, unknown>) ?? {});
  const structParents = json.pages.some((page) => '/StructParents' in (objects[`obj:${page.object}`]?.value ?? {}));
  return { catalog: Object.keys(catalog).sort(), names: Object.keys(names).sort(), structParents };
}

// ---------------------------------------------------------------------------
// Packagings, read back as a client would
// ---------------------------------------------------------------------------

export interface Unpacked {
  contentType: string;
  documents: NamedDocument[];
}

/** Reads a split response (or CLI output) of the given packaging into its named documents. */
export function unpack(body: Uint8Array, contentType: string): Unpacked {
  const type = contentType.split(';')[0].trim();
  if (type === 'application/zip') {
    const zip = new AdmZip(Buffer.from(body));
    return { contentType: type, documents: zip.getEntries().map((entry) => ({ name: entry.entryName, bytes: new Uint8Array(entry.getData()) })) };
  }
  if (type === 'application/json') {
    const envelope = JSON.parse(Buffer.from(body).toString('utf8')) as { documents: Array<{ name: string; content: string; content_type: string }> };
    for (const doc of envelope.documents) expect(doc.content_type).toBe('application/pdf');
    return { contentType: type, documents: envelope.documents.map((doc) => ({ name: doc.name, bytes: new Uint8Array(Buffer.from(doc.content, 'base64')) })) };
  }
  if (type === 'multipart/mixed') {
    const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
    if (!boundary) throw new Error(`no boundary in ${contentType}`);
    return { contentType: type, documents: parseMultipart(Buffer.from(body), boundary) };
  }
  throw new Error(`unexpected packaging ${contentType}`);
}

/** A multipart/mixed body: every part must be application/pdf with a Content-Disposition filename. */
function parseMultipart(body: Buffer, boundary: string): NamedDocument[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const documents: NamedDocument[] = [];
  let at = body.indexOf(delimiter);
  expect(at).toBe(0);
  for (;;) {
    const afterDelimiter = at + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === '--') break; // the closing delimiter
    const headersStart = afterDelimiter + 2; // CRLF
    const headersEnd = body.indexOf('\r\n\r\n', headersStart);
    const headers = Object.fromEntries(
      body
        .subarray(headersStart, headersEnd)
        .toString('latin1')
        .split('\r\n')
        .map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headersEnd);
    expect(next).toBeGreaterThan(0);
    expect(headers['content-type']).toBe('application/pdf');
    const name = /filename="([^"]+)"/.exec(headers['content-disposition'] ?? '')?.[1];
    expect(name, 'Content-Disposition names the document').toBeDefined();
    documents.push({ name: name!, bytes: new Uint8Array(body.subarray(headersEnd + 4, next)) });
    at = next + 2;
  }
  return documents;
}
