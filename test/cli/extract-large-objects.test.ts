/**
 * extract_pages from file to file, as the command line runs it: the input is
 * read lazily (core/lazy-file.ts), and an object is parsed without a skim
 * first when its bytes hold no `stream` (object-table.ts, holdsStreamWord),
 * whatever its size. Objects of more than 4 KB on both sides of that line:
 * a catalog with its page labels written in it, a page whose dictionary
 * holds the word in a string, and a content stream larger than the first
 * window looked at, in the part of the file read as it is asked for. Judged by qpdf and pdftotext, and against the same
 * action run on the bytes in memory.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import extractPages from '../../src/actions/extract_pages/action.js';
import { buildPdf, drawText, FONT, pageDict, type RawObject } from '../helpers/raw-pdf.js';
import { pageDicts, pageTexts, qpdfCheck, qpdfJson } from '../helpers/pdf-tools.js';
import { runOne } from '../helpers/reader-checks.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-extract-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PAGES = 6;
const PAD = 'x'.repeat(3000);
// Page 2's content stream: its text after 8 KB of comment lines, past the first 4 KB window.
const LONG_CONTENT = `${'% padding line of a long content stream\n'.repeat(200)}${drawText('PAGE 2 LONG STREAM')}`;
// Page 3's dictionary: the word `stream` in a string, 20 KB of it (taken to the skim, which finds no stream).
const NOTE = `(a stream of words ${'y'.repeat(20_000)})`;

function document(): Uint8Array {
  // The reader takes the first and last 64 KB of a file at once (lazy-file.ts): the document's objects lie between
  // two unused streams of 80 KB, so that they are read as they are asked for.
  const filler = (num: number): RawObject => ({ num, body: { dict: '', stream: '% unused\n'.repeat(10_000) } });
  const objects: RawObject[] = [
    filler(40),
    // Each page's label prefix is 3,000 bytes long: the catalog is over 18 KB, none of it `stream`.
    {
      num: 1,
      body: `<< /Type /Catalog /Pages 2 0 R /PageLabels << /Nums [${Array.from({ length: PAGES }, (_, i) => `${i} << /P (L${i + 1}-${PAD}-) >>`).join(' ')}] >> >>`,
    },
    {
      num: 2,
      body: `<< /Type /Pages /Kids [${Array.from({ length: PAGES }, (_, i) => `${4 + 2 * i} 0 R`).join(' ')}] /Count ${PAGES} /MediaBox [0 0 612 792] >>`,
    },
    { num: 3, body: FONT },
  ];
  for (let i = 0; i < PAGES; i++) {
    const page = 4 + 2 * i;
    objects.push({ num: page, body: pageDict(2, page + 1, i === 2 ? `/PDFSVCNote ${NOTE}` : '') });
    objects.push({ num: page + 1, body: { dict: '', stream: i === 1 ? LONG_CONTENT : drawText(`PAGE ${i + 1}`) } });
  }
  objects.push(filler(41));
  return buildPdf([{ objects }]).bytes;
}

describe('extract_pages, file to file, objects larger than 4 KB', () => {
  it('keeps the pages, their labels, a long content stream and a note holding the word stream; as in memory', async () => {
    const input = document();
    const path = join(dir, 'in.pdf');
    writeFileSync(path, input);
    const out = join(dir, 'out.pdf');
    const run = await execa('node', ['bin/pdfsvc.js', 'extract', '--pages', '2..3', path, '-o', out], { reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    // No warning: an object parsed before its bytes were read would have had the table rebuilt, and said so.
    expect(run.stderr).toBe('');
    const output = readFileSync(out);
    expect((await qpdfCheck(output)).exitCode).toBe(0);
    expect((await pageTexts(output)).map((text) => text.trim())).toEqual(['PAGE 2 LONG STREAM', 'PAGE 3']);
    const json = await qpdfJson(output);
    expect(json.pagelabels.map(({ index, label }) => [index, label['/P']])).toEqual([
      [0, `u:L2-${PAD}-`],
      [1, `u:L3-${PAD}-`],
    ]);
    expect(pageDicts(json)[1]['/PDFSVCNote']).toBe(`u:${NOTE.slice(1, -1)}`);
    // Read lazily from the file or whole from memory, the same document comes out.
    expect(Buffer.compare(output, await runOne(extractPages, { pages: '2..3', file: input }))).toBe(0);
  });
});
