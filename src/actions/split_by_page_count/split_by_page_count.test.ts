/**
 * split_by_page_count, and through it what every split action shares: what
 * a part keeps (docs/contract.md, "Inputs and outputs"), the three packagings chosen by Accept with
 * the 406 rule (§4), and the command line's -o DIR / --format (§5).
 *
 * Parts are judged with qpdf and poppler: `qpdf --check`, the `PDFSVC PAGE n`
 * markers (pdftotext), `qpdf --json` for outlines, labels, fields and objects,
 * `pdfinfo` for sizes, rotation, metadata and named destinations.
 */
import { execa, type Options } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import splitByPageCount from './action.js';
import { fixture, fixturePath, pageMarkers, pdfinfo, qpdfCheck, qpdfJson } from '../../../test/helpers/pdf-tools.js';
import {
  catalogKeys,
  checkedMarkers,
  formFields,
  imagesHeld,
  linksPerPage,
  namedDestinations,
  outlineLines,
  pageLabels,
  partNames,
  refusal,
  split,
  unpack,
} from '../../../test/helpers/split-tools.js';
import { formRequest, inProcessApp, keys, problemOf } from '../../../test/server/harness.js';
import { openDocument } from '../../pdf/document.js';
import { splitDocument } from '../../pdf/operations/split.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('split_by_page_count', () => {
  it('a part of a few KB holds a few KB of memory until it is written, not a 64 KB block of the writer', async () => {
    const input = fixture('pages-10.pdf');
    const parts = splitDocument(
      await openDocument(input),
      range(0, 9).map((page) => [page]),
    );
    for (const [i, part] of parts.entries()) {
      // The writer's own buffers: views of the input (stream data) are not the part's.
      const held = new Set(part.pieces.flatMap((piece) => (piece instanceof Uint8Array && piece.buffer !== input.buffer ? [piece.buffer] : [])));
      const bytes = [...held].reduce((sum, buffer) => sum + buffer.byteLength, 0);
      expect(part.byteLength, `part ${i + 1}`).toBeLessThan(2_000);
      expect(bytes, `part ${i + 1}`).toBeLessThanOrEqual(8_192);
      expect(await pageMarkers(part.join()), `part ${i + 1}`).toEqual([i + 1]);
    }
  });

  it.each([
    [3, [range(1, 3), range(4, 6), range(7, 9), [10]]],
    [1, range(1, 10).map((n) => [n])],
    [4, [range(1, 4), range(5, 8), [9, 10]]],
    [10, [range(1, 10)]],
    [25, [range(1, 10)]],
  ])('page_count %i on 10 pages: consecutive parts, the last one smaller', async (count, expected) => {
    const parts = await split(splitByPageCount, 'pages-10.pdf', { page_count: count });
    expect(parts.map((p) => p.name)).toEqual(partNames(expected.length));
    expect(await checkedMarkers(parts)).toEqual(expected);
  });

  it('takes the count as text too, as the CLI and HTML forms send it', async () => {
    const parts = await split(splitByPageCount, 'pages-10.pdf', { page_count: '5' });
    expect(await checkedMarkers(parts)).toEqual([range(1, 5), range(6, 10)]);
  });

  it('keeps each page as it was: size, rotation (inherited too), boxes', async () => {
    const sizes = (await Promise.all((await split(splitByPageCount, 'pages-10.pdf', { page_count: 4 })).map((p) => pdfinfo(p.bytes)))).map((info) =>
      info.pages.map((page) => `${page.width}x${page.height}`),
    );
    expect(sizes).toEqual([range(1, 4), range(5, 8), [9, 10]].map((pages) => pages.map((n) => `${400 + 10 * n}x${600 + 10 * n}`)));
    const rotated = await split(splitByPageCount, 'rotated.pdf', { page_count: 2 });
    expect(await checkedMarkers(rotated)).toEqual([[1, 2], [3, 4], [5]]);
    const rotations = await Promise.all(rotated.map(async (p) => (await pdfinfo(p.bytes)).pages.map((page) => page.rotation)));
    expect(rotations).toEqual([[0, 90], [180, 270], [90]]);
    const boxes = await split(splitByPageCount, 'boxes.pdf', { page_count: 1 });
    const visible = await Promise.all(boxes.map(async (p) => (await pdfinfo(p.bytes)).pages.map((page) => `${page.width}x${page.height}`)));
    expect(visible).toEqual([['612x792'], ['512x672'], ['612x792']]);
    expect(await checkedMarkers(boxes)).toEqual([[1], [2], [3]]);
  });

  describe('what a part keeps (outline.pdf in parts of 2 pages)', async () => {
    const parts = await split(splitByPageCount, 'outline.pdf', { page_count: 2 });

    it('is three clean parts of pages 1-2, 3-4, 5-6', async () => {
      expect(await checkedMarkers(parts)).toEqual([
        [1, 2],
        [3, 4],
        [5, 6],
      ]);
    });

    it('the outline cut down to its pages; an entry whose page went points at its first surviving child', async () => {
      const outlines = await Promise.all(parts.map(async (p) => outlineLines((await qpdfJson(p.bytes)).outlines)));
      expect(outlines).toEqual([
        ['Chapter 1→1', '  Section 1.1→2'],
        ['Chapter 1→1', '  Section 1.2→1', 'Chapter 2→2'],
        ['Chapter 2→1', '  Section 2.1→1', 'Appendix→2'],
      ]);
    });

    it('page labels: every page keeps the label the reader saw', async () => {
      expect(await Promise.all(parts.map((p) => pageLabels(p.bytes)))).toEqual([
        ['i', 'ii'],
        ['1', '2'],
        ['3', '4'],
      ]);
    });

    it('the named destinations that lead to its pages', async () => {
      expect(await Promise.all(parts.map((p) => namedDestinations(p.bytes)))).toEqual([{ sec11: 2 }, { chap2: 2 }, { appendix: 2 }]);
    });

    it('links that stay inside the part and web links; a link to a page of another part goes', async () => {
      expect(await Promise.all(parts.map((p) => linksPerPage(p.bytes)))).toEqual([
        [['uri:https://example.com/pdfsvc'], []],
        [[], []],
        [[], []],
      ]);
      const whole = await split(splitByPageCount, 'outline.pdf', { page_count: 6 });
      expect(await linksPerPage(whole[0].bytes)).toEqual([['uri:https://example.com/pdfsvc', 'page:5'], [], ['name:appendix'], [], [], []]);
    });

    it('Info and XMP metadata, the viewer settings and the document-level attachments', async () => {
      const attachments = (await qpdfJson(fixture('outline.pdf'))).attachments;
      expect(Object.keys(attachments).length).toBeGreaterThan(0);
      for (const part of parts) {
        const info = await pdfinfo(part.bytes);
        expect(info.fields.Title).toBe('PDFSVC Outline Fixture');
        expect(info.fields.Author).toBe('pdfsvc fixtures');
        const { catalog, names } = await catalogKeys(part.bytes);
        expect(catalog).toEqual(expect.arrayContaining(['/Metadata', '/PageMode', '/PageLabels', '/Outlines']));
        // Outputs keep what the reader had (docs/contract.md, "Inputs and outputs"): every part carries the attachments.
        expect(names).toContain('/EmbeddedFiles');
        expect((await qpdfJson(part.bytes)).attachments).toEqual(attachments);
      }
    });
  });

  it('form fields go with the page of their widget, values kept', async () => {
    const parts = await split(splitByPageCount, 'form.pdf', { page_count: 1 });
    expect(await checkedMarkers(parts)).toEqual([[1], [2], [3]]);
    expect(await Promise.all(parts.map((p) => formFields(p.bytes)))).toEqual([
      ['name=Ada Lovelace@1', 'email=ada@example.com@1'],
      ['agree=/Yes@1'],
      ['address.street=1 Main St@1', 'address.city=London@1'],
    ]);
  });

  it('a part holds only the objects its own pages use: shared ones once (sized.pdf)', async () => {
    const parts = await split(splitByPageCount, 'sized.pdf', { page_count: 4 });
    expect(await checkedMarkers(parts)).toEqual([range(1, 4), range(5, 8), range(9, 12)]);
    expect(await Promise.all(parts.map((p) => imagesHeld(p.bytes)))).toEqual([
      [0, 1, 2, 3, 4],
      [0, 5, 6, 7, 8],
      [0, 9, 10, 11, 12],
    ]);
    for (const part of parts) {
      // The structure tree describes the whole document (README: splitting); attachments stay.
      const { catalog, structParents } = await catalogKeys(part.bytes);
      expect(catalog).not.toContain('/StructTreeRoot');
      expect(catalog).not.toContain('/MarkInfo');
      expect(structParents).toBe(false);
    }
  });

  it.each([
    [{ page_count: 0 }, /must be 1 or greater; got 0/],
    [{ page_count: -3 }, /must be 1 or greater; got -3/],
    [{ page_count: '2.5' }, /whole number/],
    [{ page_count: 'two' }, /whole number/],
    [{}, /required/],
    [{ page_count: '' }, /^is empty; send whole number, 1 or greater$/],
  ])('refuses %j with errors.page_count', async (values, message) => {
    const errors = await refusal(splitByPageCount, 'pages-10.pdf', values);
    expect(Object.keys(errors)).toEqual(['page_count']);
    expect(errors.page_count.join(' ')).toMatch(message);
  });

  it('refuses an unknown field, an unreadable file, an encrypted or a signed one with errors.<field>', async () => {
    expect(Object.keys(await refusal(splitByPageCount, 'pages-10.pdf', { page_count: 2, pages: '1' }))).toEqual(['pages']);
    expect((await refusal(splitByPageCount, 'not-a-pdf.pdf', { page_count: 2 })).file.join(' ')).toMatch(/could not be parsed/);
    expect((await refusal(splitByPageCount, 'encrypted-user.pdf', { page_count: 2 })).file.join(' ')).toMatch(/remove_password/);
    expect((await refusal(splitByPageCount, 'signed.pdf', { page_count: 2 })).file.join(' ')).toMatch(/remove_signatures/);
  });
});

// ---------------------------------------------------------------------------
// HTTP: packaging by Accept (docs/contract.md, "Split outputs")
// ---------------------------------------------------------------------------

describe('split_by_page_count over HTTP', () => {
  const app = inProcessApp('global');
  const url = 'http://pdfsvc.test/v1/split_by_page_count';
  const post = (
    accept: string | undefined,
    fields: Array<[string, string | Uint8Array]> = [
      ['file', fixture('pages-10.pdf')],
      ['page_count', '3'],
    ],
  ) => app.fetch(formRequest(url, fields, { 'X-API-Key': keys.business, ...(accept === undefined ? {} : { Accept: accept }) }));

  it.each([
    [undefined, 'application/zip'],
    ['application/zip', 'application/zip'],
    ['application/json', 'application/json'],
    ['multipart/mixed', 'multipart/mixed'],
    ['application/json;q=0.4, multipart/mixed;q=0.8', 'multipart/mixed'],
    ['text/html, application/zip;q=0.1, */*;q=0.9', 'application/zip'],
    ['application/pdf, application/json;q=0.5', 'application/json'],
  ])('Accept %s → %s with 00001.pdf … 00004.pdf', async (accept, type) => {
    const response = await post(accept);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')!.split(';')[0]).toBe(type);
    const body = new Uint8Array(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(body.byteLength);
    const { documents } = unpack(body, response.headers.get('content-type')!);
    expect(documents.map((d) => d.name)).toEqual(partNames(4));
    expect(await checkedMarkers(documents)).toEqual([range(1, 3), range(4, 6), range(7, 9), [10]]);
  });

  it.each(['*/*', 'application/pdf', 'application/*', 'text/html', 'multipart/mixed;q=0', 'application/zip;q=0, */*'])(
    'Accept %s → 406 problem',
    async (accept) => {
      const response = await post(accept);
      expect(response.status).toBe(406);
      const problem = await problemOf(response);
      expect(problem.status).toBe(406);
      expect(problem.type).toMatch(/\/406$/);
    },
  );

  it('decides 406 before reading the body', async () => {
    let pulled = false;
    // highWaterMark 0: the stream is pulled only when someone reads it.
    const body = new ReadableStream(
      {
        pull() {
          pulled = true;
          throw new Error('the body must not be read');
        },
      },
      { highWaterMark: 0 },
    );
    const request = new Request(url, {
      method: 'POST',
      body,
      headers: { 'X-API-Key': keys.business, Accept: '*/*', 'Content-Type': 'multipart/form-data; boundary=x' },
      duplex: 'half',
    } as RequestInit);
    const response = await app.fetch(request);
    expect(response.status).toBe(406);
    expect(pulled).toBe(false);
  });

  it('answers invalid fields with 400 naming the field, whatever the Accept', async () => {
    const response = await post('application/json', [
      ['file', fixture('pages-10.pdf')],
      ['page_count', '0'],
    ]);
    expect(response.status).toBe(400);
    expect((await problemOf(response)).errors?.page_count?.[0]).toMatch(/1 or greater/);
  });
});

// ---------------------------------------------------------------------------
// The command line (docs/contract.md, "Command line")
// ---------------------------------------------------------------------------

describe('pdfsvc split-by-page-count', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-split-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The built CLI; output as bytes unless `options` says otherwise (their type follows the options given). */
  const pdfsvc = <const O extends Options = Record<never, never>>(args: string[], options?: O) =>
    execa('node', ['bin/pdfsvc.js', ...args], { reject: false, encoding: 'buffer', ...options } as Omit<{ reject: false; encoding: 'buffer' }, keyof O> & O);

  it('-o DIR creates the directory and writes 00001.pdf … into it', async () => {
    const out = join(dir, 'new', 'nested');
    const { exitCode, stderr } = await pdfsvc(['split-by-page-count', '--page-count', '4', fixturePath('pages-10.pdf'), '-o', out]);
    expect(exitCode, Buffer.from(stderr).toString()).toBe(0);
    expect(readdirSync(out).sort()).toEqual(partNames(3));
    expect(await checkedMarkers(partNames(3).map((name) => ({ bytes: readFileSync(join(out, name)) })))).toEqual([range(1, 4), range(5, 8), [9, 10]]);
  });

  it('does not overwrite an existing file unless --force', async () => {
    const out = join(dir, 'existing');
    expect((await pdfsvc(['split-by-page-count', '--page-count', '5', fixturePath('pages-10.pdf'), '-o', out])).exitCode).toBe(0);
    writeFileSync(join(out, '00002.pdf'), 'keep me');
    const refused = await pdfsvc(['split-by-page-count', '--page-count', '5', fixturePath('pages-10.pdf'), '-o', out]);
    expect(refused.exitCode).toBe(2);
    expect(Buffer.from(refused.stderr).toString()).toMatch(/00001\.pdf already exists; use --force/);
    expect(readFileSync(join(out, '00002.pdf'), 'utf8')).toBe('keep me');
    expect(readdirSync(out).filter((f) => f.includes('partial'))).toEqual([]);
    const forced = await pdfsvc(['split-by-page-count', '--page-count', '5', '--force', fixturePath('pages-10.pdf'), '-o', out]);
    expect(forced.exitCode).toBe(0);
    expect(await pageMarkers(readFileSync(join(out, '00002.pdf')))).toEqual(range(6, 10));
  });

  it('refused at a later part (each is written as it is made), leaves nothing of the parts before it', async () => {
    const out = join(dir, 'later');
    mkdirSync(out);
    writeFileSync(join(out, '00002.pdf'), 'keep me');
    const refused = await pdfsvc(['split-by-page-count', '--page-count', '4', fixturePath('pages-10.pdf'), '-o', out]);
    expect(refused.exitCode).toBe(2);
    expect(Buffer.from(refused.stderr).toString()).toMatch(/00002\.pdf already exists; use --force/);
    expect(readdirSync(out)).toEqual(['00002.pdf']);
    expect(readFileSync(join(out, '00002.pdf'), 'utf8')).toBe('keep me');
  });

  it('-o naming a file (not a directory) is refused on output, exit 2', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const refused = await pdfsvc(['split-by-page-count', '--page-count', '4', fixturePath('pages-10.pdf'), '-o', file]);
    expect(refused.exitCode).toBe(2);
    expect(Buffer.from(refused.stderr).toString()).toMatch(
      /^pdfsvc: output: ".*a-file" is a file: a split writes its parts into a directory, so give -o a directory$/m,
    );
    expect(readFileSync(file, 'utf8')).toBe('not a directory');
  });

  it.each([
    [[], 'application/zip'],
    [['--format', 'zip'], 'application/zip'],
    [['--format', 'json'], 'application/json'],
    [['--format', 'multipart'], 'multipart/mixed'],
  ])('without -o, %j writes %s to standard output', async (format, type) => {
    const { exitCode, stdout, stderr } = await pdfsvc(['split_by_page_count', '--page-count', '6', ...format, fixturePath('pages-10.pdf')]);
    expect(exitCode, Buffer.from(stderr).toString()).toBe(0);
    let contentType = type;
    if (type === 'multipart/mixed') {
      // The boundary is the first line of the body.
      const boundary = /^--(\S+)\r\n/.exec(Buffer.from(stdout).subarray(0, 200).toString('latin1'))?.[1];
      contentType = `multipart/mixed; boundary=${boundary}`;
    }
    const { documents } = unpack(stdout, contentType);
    expect(documents.map((d) => d.name)).toEqual(partNames(2));
    expect(await checkedMarkers(documents)).toEqual([range(1, 6), range(7, 10)]);
  });

  it('reads standard input, and refuses a bad count with exit status 2 naming the field', async () => {
    const out = join(dir, 'stdin');
    const piped = await pdfsvc(['split-by-page-count', '--page-count', '9', '-o', out], { input: fixture('pages-10.pdf') });
    expect(piped.exitCode).toBe(0);
    expect(readdirSync(out).sort()).toEqual(partNames(2));
    const bad = await pdfsvc(['split-by-page-count', '--page-count', '0', fixturePath('pages-10.pdf'), '-o', join(dir, 'bad')]);
    expect(bad.exitCode).toBe(2);
    expect(Buffer.from(bad.stderr).toString()).toMatch(/^pdfsvc: page_count: must be 1 or greater; got 0/m);
    expect(existsSync(join(dir, 'bad', '00001.pdf'))).toBe(false);
  });

  it('every part passes qpdf --check through the CLI as well', async () => {
    const out = join(dir, 'outline');
    expect((await pdfsvc(['split-by-page-count', '--page-count', '1', fixturePath('outline.pdf'), '-o', out])).exitCode).toBe(0);
    for (const name of partNames(6)) expect((await qpdfCheck(readFileSync(join(out, name)))).exitCode).toBe(0);
  });
});
