/**
 * One runner (core/run.ts) serves the library, the command line, batch mode
 * and the server's workers: the same input gives the same output bytes, the
 * same warnings and the same refusal through each of them. The server is a
 * real `pdfsvc serve` (its work runs on worker threads), the CLI and batch
 * mode are the real command.
 */
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotatePages, splitByPageCount, ValidationError, type Warning } from '../../src/index.js';
import { fixture, pageTexts, pdfinfo, qpdfCheck } from '../helpers/pdf-tools.js';
import { buildPdf, shiftTableOffsets, simpleDoc } from '../helpers/raw-pdf.js';
import { postAction, serve, waitFor, type Served } from '../server/spawn.js';
import { CLI_WORDS } from '../../src/cli/words.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pdfsvc = (args: string[]) => execa('node', ['bin/pdfsvc.js', ...args], { reject: false, encoding: 'buffer', stripFinalNewline: false });
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

/** Three pages whose cross-reference table is off by 7 bytes: read by rebuilding it, which is a warning. */
const DAMAGED = shiftTableOffsets(buildPdf([{ objects: simpleDoc(['PAGE ONE', 'PAGE TWO', 'PAGE THREE']).objects }]), 7);
const REBUILT = /^file: its cross-reference table is damaged or does not match the file: it was rebuilt/;

let served: Served;
beforeAll(async () => {
  served = await serve({ args: ['--workers', '1'] });
  writeFileSync(join(dir, 'damaged.pdf'), DAMAGED);
  writeFileSync(join(dir, 'signed.pdf'), fixture('signed.pdf'));
  writeFileSync(join(dir, 'pages-1.pdf'), fixture('pages-1.pdf'));
}, 60_000);
afterAll(() => served?.stop());

const logLines = (action: string) => served.log().filter((entry) => entry.path === `/v1/${action}`);

/** Posts to the server and gives its answer with the warnings its log line for the request names. */
async function viaServer(action: string, fields: Parameters<typeof postAction>[2], headers: Record<string, string> = {}) {
  const before = logLines(action).length;
  const reply = await postAction(served, action, fields, { headers });
  const line = await waitFor(() => logLines(action)[before], 10_000, 'the request log line');
  return { reply, warnings: (line.warnings as string[] | undefined) ?? [] };
}

describe('a document output: rotate_pages --angle 90 on a file read through damage', () => {
  it('is the same bytes, with the same warning, from the library, the CLI, batch mode and the server', async () => {
    const warnings: Warning[] = [];
    const library = await rotatePages({ file: DAMAGED, angle: 90 }, { onWarning: (w) => warnings.push(w) });
    const libraryWarnings = warnings.map(({ field, message }) => `${field}: ${message}`);
    expect(libraryWarnings).toHaveLength(1);
    expect(libraryWarnings[0]).toMatch(REBUILT);
    // Checked with independent readers once: the others are compared to it byte for byte.
    expect((await qpdfCheck(library)).exitCode).toBe(0);
    expect((await pdfinfo(library)).pages.map((p) => p.rotation)).toEqual([90, 90, 90]);
    expect((await pageTexts(library)).map((t) => t.trim())).toEqual(['PAGE ONE', 'PAGE TWO', 'PAGE THREE']);

    const cli = await pdfsvc(['rotate', '--angle', '90', join(dir, 'damaged.pdf'), '-o', join(dir, 'cli.pdf')]);
    expect(cli.exitCode, text(cli.stderr)).toBe(0);
    expect(text(cli.stderr)).toBe(libraryWarnings.map((w) => `pdfsvc: warning: ${w}\n`).join(''));
    expect(readFileSync(join(dir, 'cli.pdf'))).toEqual(Buffer.from(library));

    const batch = await pdfsvc([
      'rotate',
      '--angle',
      '90',
      join(dir, 'damaged.pdf'),
      join(dir, 'pages-1.pdf'),
      '--out-dir',
      join(dir, 'batch'),
      '--jobs',
      '2',
      '--json',
    ]);
    expect(batch.exitCode, text(batch.stderr)).toBe(0);
    expect(text(batch.stderr)).toContain(libraryWarnings.map((w) => `pdfsvc: warning: ${join(dir, 'damaged.pdf')}: ${w}\n`).join(''));
    expect(readFileSync(join(dir, 'batch', 'damaged.pdf'))).toEqual(Buffer.from(library));

    const { reply, warnings: logged } = await viaServer('rotate_pages', { file: DAMAGED, angle: '90' });
    expect(reply.status, reply.body.toString()).toBe(200);
    expect(reply.body).toEqual(Buffer.from(library));
    expect(logged).toEqual(libraryWarnings);
  }, 60_000);
});

describe('split outputs: split_by_page_count --page-count 2 on the same file', () => {
  it('are the same parts, with the same warning, from the library, the CLI, batch mode and the server', async () => {
    const warnings: Warning[] = [];
    const library = await splitByPageCount({ file: DAMAGED, page_count: 2 }, { onWarning: (w) => warnings.push(w) });
    const libraryWarnings = warnings.map(({ field, message }) => `${field}: ${message}`);
    expect(library.map((d) => d.name)).toEqual(['00001.pdf', '00002.pdf']);
    expect(await Promise.all(library.map(async (d) => (await pdfinfo(d.bytes)).pages.length))).toEqual([2, 1]);
    expect(libraryWarnings).toHaveLength(1);
    expect(libraryWarnings[0]).toMatch(REBUILT);
    const parts = (folder: string) =>
      readdirSync(folder)
        .sort()
        .map((name) => ({ name, bytes: readFileSync(join(folder, name)) }));
    const expected = library.map(({ name, bytes }) => ({ name, bytes: Buffer.from(bytes) }));

    const cli = await pdfsvc(['split-by-page-count', '--page-count', '2', join(dir, 'damaged.pdf'), '-o', join(dir, 'cli-parts')]);
    expect(cli.exitCode, text(cli.stderr)).toBe(0);
    expect(text(cli.stderr)).toBe(libraryWarnings.map((w) => `pdfsvc: warning: ${w}\n`).join(''));
    expect(parts(join(dir, 'cli-parts'))).toEqual(expected);

    mkdirSync(join(dir, 'batch-in'), { recursive: true });
    writeFileSync(join(dir, 'batch-in', 'a.pdf'), DAMAGED);
    writeFileSync(join(dir, 'batch-in', 'b.pdf'), DAMAGED);
    const batch = await pdfsvc([
      'split-by-page-count',
      '--page-count',
      '2',
      join(dir, 'batch-in', 'a.pdf'),
      join(dir, 'batch-in', 'b.pdf'),
      '--out-dir',
      join(dir, 'batch-parts'),
      '--jobs',
      '1',
    ]);
    expect(batch.exitCode, text(batch.stderr)).toBe(0);
    expect(text(batch.stderr)).toContain(`pdfsvc: warning: ${join(dir, 'batch-in', 'a.pdf')}: ${libraryWarnings[0]}\n`);
    expect(parts(join(dir, 'batch-parts', 'a'))).toEqual(expected);

    const { reply, warnings: logged } = await viaServer('split_by_page_count', { file: DAMAGED, page_count: '2' }, { accept: 'application/json' });
    expect(reply.status, reply.body.toString()).toBe(200);
    const envelope = JSON.parse(reply.body.toString()) as { documents: Array<{ name: string; content: string }> };
    expect(envelope.documents.map(({ name, content }) => ({ name, bytes: Buffer.from(content, 'base64') }))).toEqual(expected);
    expect(logged).toEqual(libraryWarnings);
  }, 60_000);
});

describe('a refusal: rotate_pages on a signed document', () => {
  it('is the same field, message and code from the library, the CLI, batch mode and the server (the plain CLI in its own words)', async () => {
    const error = (await rotatePages({ file: fixture('signed.pdf'), angle: 90 }).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    const expected = { status: 400, errors: error.errors, code: 'signed' };
    expect(error.code).toBe('signed');
    expect(error.errors.file[0]).toMatch(/^the document is digitally signed \(1 signature\)/);

    const cli = await pdfsvc(['rotate', '--angle', '90', join(dir, 'signed.pdf'), '-o', join(dir, 'signed-out.pdf'), '--json']);
    expect(cli.exitCode).toBe(2);
    expect(JSON.parse(text(cli.stderr))).toMatchObject(expected);
    const plain = await pdfsvc(['rotate', '--angle', '90', join(dir, 'signed.pdf'), '-o', join(dir, 'signed-out.pdf')]);
    expect(plain.exitCode).toBe(2);
    expect(text(plain.stderr)).toBe(`pdfsvc: file: ${error.errorsIn(CLI_WORDS).file[0]}\n`);
    expect(text(plain.stderr)).toMatch(/: run remove-signatures first, then rotate-pages\n$/);

    const batch = await pdfsvc([
      'rotate',
      '--angle',
      '90',
      join(dir, 'signed.pdf'),
      join(dir, 'pages-1.pdf'),
      '--out-dir',
      join(dir, 'signed-batch'),
      '--json',
    ]);
    expect(batch.exitCode).toBe(2);
    const lines = text(batch.stdout)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: string; problem?: unknown });
    expect(lines.map((l) => l.status)).toEqual(['failed', 'ok']);
    expect(lines[0].problem).toMatchObject(expected);

    const { reply } = await viaServer('rotate_pages', { file: fixture('signed.pdf'), angle: '90' });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body.toString())).toMatchObject(expected);
  }, 60_000);
});
