/**
 * Independent readers for test assertions: qpdf and poppler, run on a
 * temporary copy of the bytes under test. pdf-lib wrote the output, so
 * pdf-lib is never the judge of it.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const fixturesDir = new URL('../../fixtures/out/', import.meta.url);

/** A fixture made by scripts/build-fixtures.mjs. */
export function fixture(name: string): Uint8Array {
  return readFileSync(new URL(name, fixturesDir));
}

export function fixturePath(name: string): string {
  return new URL(name, fixturesDir).pathname;
}

let scratch: string | undefined;
let counter = 0;
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Writes bytes to a temporary file and returns its path. */
export function tempFile(bytes: Uint8Array, suffix = '.pdf'): string {
  scratch ??= mkdtempSync(join(tmpdir(), 'pdfsvc-test-'));
  const path = join(scratch, `${++counter}${suffix}`);
  writeFileSync(path, bytes);
  return path;
}

/** `qpdf --check`: exit 0 clean, 3 warnings, 2 errors. */
export async function qpdfCheck(bytes: Uint8Array, password?: string): Promise<{ exitCode: number; output: string }> {
  const args = ['--check', ...(password !== undefined ? [`--password=${password}`] : []), tempFile(bytes)];
  const result = await execa('qpdf', args, { reject: false });
  return { exitCode: result.exitCode ?? -1, output: `${result.stdout}\n${result.stderr}` };
}

/**
 * A judge's own bound (qpdf, poppler), far beyond pdfsvc's own (the 10 s
 * request deadline): on a busy machine a judge can be slow, and its time-out
 * is no verdict on pdfsvc.
 */
export const JUDGE_TIMEOUT_MS = 120_000;

export type Verdict = 'reads' | 'does not read' | 'no verdict';

/**
 * Whether qpdf reads a file's structure: it rewrites it with the stream data
 * as it is (`--stream-data=preserve`, to /dev/null), which parses every
 * object the file reaches and checks where each stream ends, without
 * decoding any stream. `qpdf --check` also decodes and parses page content:
 * on a page of Flate inside Flate holding 2 GiB it took 100 s and 6 GB
 * (a hostile fixture), which is no way to judge an answer that took a second. Exit 0
 * or 3 (read, with warnings) reads; 2 does not; 'no verdict' when qpdf
 * passes JUDGE_TIMEOUT_MS. `file`: the bytes, or the path of a file.
 */
export async function qpdfReads(file: Uint8Array | string, password?: string): Promise<{ verdict: Verdict; output: string }> {
  const path = typeof file === 'string' ? file : tempFile(file);
  const args = ['--stream-data=preserve', ...(password !== undefined ? [`--password=${password}`] : []), path, '/dev/null'];
  const run = await execa('qpdf', args, { reject: false, timeout: JUDGE_TIMEOUT_MS });
  const output = `${run.stdout}\n${run.stderr}`;
  if (run.timedOut) return { verdict: 'no verdict', output };
  return { verdict: run.exitCode === 0 || run.exitCode === 3 ? 'reads' : 'does not read', output };
}

export interface QpdfJson {
  pages: Array<{ object: string; label?: unknown }>;
  pagelabels: Array<{ index: number; label: Record<string, unknown> }>;
  outlines: QpdfOutline[];
  acroform: { fields: Array<{ fullname: string; value: unknown; pageposfrom1: number; fieldtype: string; object: string }>; hasacroform: boolean };
  attachments: Record<string, unknown>;
  encrypt: {
    encrypted: boolean;
    userpasswordmatched: boolean;
    ownerpasswordmatched: boolean;
    parameters: Record<string, unknown>;
    capabilities: Record<string, boolean>;
  };
  qpdf: [Record<string, unknown>, Record<string, { value?: Record<string, unknown>; stream?: { dict: Record<string, unknown> } }>];
}
export interface QpdfOutline {
  title: string;
  destpageposfrom1: number | null;
  kids: QpdfOutline[];
}

export async function qpdfJson(bytes: Uint8Array, password?: string): Promise<QpdfJson> {
  const args = ['--json=2', ...(password !== undefined ? [`--password=${password}`] : []), tempFile(bytes)];
  const result = await execa('qpdf', args, { reject: false });
  if (result.exitCode !== 0 && result.exitCode !== 3) throw new Error(`qpdf --json failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as QpdfJson;
}

/** The decoded content of every Form XObject, as qpdf reads it. */
export async function formContents(bytes: Uint8Array): Promise<string[]> {
  const path = tempFile(bytes);
  const json = await qpdfJson(bytes);
  const forms = Object.entries(json.qpdf[1]).filter(([, o]) => o?.stream?.dict['/Subtype'] === '/Form');
  return Promise.all(
    forms.map(
      async ([key]) => (await execa('qpdf', [`--show-object=${key.replace(/^obj:/, '').replace(/ 0 R$/, '')}`, '--filtered-stream-data', path])).stdout,
    ),
  );
}

/** The dictionary of each page, in order (from qpdf --json). */
export function pageDicts(json: QpdfJson): Array<Record<string, unknown>> {
  const objects = json.qpdf[1];
  return json.pages.map((page) => objects[`obj:${page.object}`]?.value ?? {});
}

/** Text of each page, by pdftotext, in order. */
export async function pageTexts(bytes: Uint8Array, password?: string): Promise<string[]> {
  const path = tempFile(bytes);
  const pages = await pageCount(bytes, password);
  const texts: string[] = [];
  for (let page = 1; page <= pages; page++) {
    const args = ['-f', String(page), '-l', String(page), ...(password !== undefined ? ['-upw', password] : []), path, '-'];
    texts.push((await execa('pdftotext', args)).stdout);
  }
  return texts;
}

/** The `PDFSVC PAGE n` markers the fixtures draw, one per page, in output order. */
export async function pageMarkers(bytes: Uint8Array): Promise<number[]> {
  const text = (await execa('pdftotext', [tempFile(bytes), '-'])).stdout;
  // pdftotext starts each page after the first with a form feed.
  return [...text.matchAll(/^\f?PDFSVC PAGE (\d+)\b/gm)].map((m) => Number(m[1]));
}

/** `pdfinfo` fields, and per page size and rotation. */
export async function pdfinfo(
  bytes: Uint8Array,
  password?: string,
): Promise<{ fields: Record<string, string>; pages: Array<{ width: number; height: number; rotation: number }> }> {
  const path = tempFile(bytes);
  const pw = password !== undefined ? ['-upw', password] : [];
  const { stdout } = await execa('pdfinfo', [...pw, path]);
  const fields: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const m = /^([^:]+):\s*(.*)$/.exec(line);
    if (m) fields[m[1].trim()] = m[2];
  }
  const count = Number(fields.Pages);
  const detail = (await execa('pdfinfo', [...pw, '-f', '1', '-l', String(count), path])).stdout;
  const pages: Array<{ width: number; height: number; rotation: number }> = [];
  for (const m of detail.matchAll(/^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+)/gm))
    pages[Number(m[1]) - 1] = { width: Number(m[2]), height: Number(m[3]), rotation: 0 };
  for (const m of detail.matchAll(/^Page\s+(\d+) rot:\s+(\d+)/gm)) pages[Number(m[1]) - 1].rotation = Number(m[2]);
  return { fields, pages };
}

export async function pageCount(bytes: Uint8Array, password?: string): Promise<number> {
  const pw = password !== undefined ? ['-upw', password] : [];
  const { stdout } = await execa('pdfinfo', [...pw, tempFile(bytes)]);
  return Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]);
}
