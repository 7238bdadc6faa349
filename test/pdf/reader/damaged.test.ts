/**
 * Damaged files, one row per kind of damage that qpdf's own test files show.
 * Each input is made byte by byte (test/helpers/raw-pdf.ts) and first confirmed sound: qpdf reads it (exit
 * 0 or 3) and poppler shows the expected text on each page. Then an action
 * runs on it in process, and its output must pass `qpdf --check` with no
 * warning and show the same pages, in order, rotated.
 *
 * The installed qpdf is 11.3: it cannot rebuild a file that has no
 * `trailer` dictionary anywhere, and takes /Root only from the newest
 * trailer unless it is reconstructing. Rows that need those (trailer
 * missing, trailer without /Root, truncated) therefore keep one older,
 * intact trailer in the file, so qpdf can confirm the fixture.
 */
import { describe, expect, it } from 'vitest';
import extractPages from '../../../src/actions/extract_pages/action.js';
import mergeDocuments from '../../../src/actions/merge_documents/action.js';
import rotatePages from '../../../src/actions/rotate_pages/action.js';
import {
  buildPdf,
  bytesOf,
  cutTrailer,
  drawText,
  setStartxref,
  shiftTableOffsets,
  simpleDoc,
  swapTableRows,
  truncate,
  type RawObject,
  type RawPdf,
} from '../../helpers/raw-pdf.js';
import { expectCleanOutput, expectReadableInput, runOne } from '../../helpers/reader-checks.js';

// ---------------------------------------------------------------------------
// The document every row damages: three pages, objects 1 catalog, 2 pages,
// 3 font, pages 4/6/8 with contents 5/7/9.
// ---------------------------------------------------------------------------

const TEXTS = ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'];
const doc = simpleDoc(TEXTS);
const LATER = ['PAGE ONE', 'PAGE TWO LATER', 'PAGE THREE'];
/** An incremental update giving page two new content (object 7). */
const laterPageTwo: RawObject = { num: 7, body: { dict: '', stream: drawText('PAGE TWO LATER') } };

/** The objects of `doc` with the content stream `num` given another /Length. */
function withLength(num: number, length: number | string): RawObject[] {
  return doc.objects.map((o) => (o.num === num && typeof o.body !== 'string' ? { num, body: { ...o.body, length } } : o));
}

/** Offset just past `endobj` of the latest object `num`. */
function endOf(pdf: RawPdf, num: number): number {
  const at = pdf.offsets.get(num)!;
  return at + pdf.text.indexOf('endobj\n', at) - at + 'endobj\n'.length;
}

const classic = () => buildPdf([{ objects: doc.objects }]);
const updated = () => buildPdf([{ objects: doc.objects }, { objects: [laterPageTwo] }]);

interface DamageCase {
  name: string;
  make: () => Uint8Array;
  /** What qpdf and poppler show on each page of the input (and the output must keep). */
  texts: string[];
}

const CASES: DamageCase[] = [
  {
    name: 'startxref points into the middle of a token (inside `xref`)',
    make: () => {
      const pdf = classic();
      return setStartxref(pdf, pdf.sections[0].xrefAt + 2);
    },
    texts: TEXTS,
  },
  {
    name: 'startxref points into the middle of an object header',
    make: () => {
      const pdf = classic();
      return setStartxref(pdf, pdf.offsets.get(4)! + 1);
    },
    texts: TEXTS,
  },
  {
    name: 'startxref points past the end of the file',
    make: () => {
      const pdf = classic();
      return setStartxref(pdf, pdf.bytes.length + 500);
    },
    texts: TEXTS,
  },
  { name: 'no startxref at all', make: () => setStartxref(classic(), null), texts: TEXTS },
  { name: 'table offsets shifted 3 bytes forward', make: () => shiftTableOffsets(classic(), 3), texts: TEXTS },
  { name: 'table offsets shifted 2 bytes back', make: () => shiftTableOffsets(classic(), -2), texts: TEXTS },
  {
    // Trusting the table without checking `N G obj` would swap pages one and two.
    name: 'table offsets point at the wrong object (pages one and two swapped)',
    make: () => swapTableRows(classic(), 4, 6),
    texts: TEXTS,
  },
  {
    // The update's table is followed directly by startxref. Recovery keeps the
    // first revision's trailer and the last copy of each object (qpdf does).
    name: 'trailer dictionary missing after the newest table',
    make: () => cutTrailer(updated()),
    texts: LATER,
  },
  {
    // qpdf 11.3 refuses a readable table whose trailer lacks /Root; while
    // reconstructing it takes the last trailer that has one. So the newest
    // section is both /Root-less and unreachable (startxref into a token).
    name: 'newest trailer without /Root (the catalog and an older trailer exist)',
    make: () => {
      const pdf = buildPdf([{ objects: doc.objects }, { objects: [laterPageTwo], root: null }]);
      return setStartxref(pdf, pdf.sections[1].xrefAt + 3);
    },
    texts: LATER,
  },
  { name: '/Prev loop: a section whose /Prev is itself', make: () => buildPdf([{ objects: doc.objects, prev: 0 }]).bytes, texts: TEXTS },
  {
    name: '/Prev loop: two sections pointing at each other',
    make: () =>
      buildPdf([
        { objects: doc.objects, prev: 1 },
        { objects: [laterPageTwo], prev: 0 },
      ]).bytes,
    texts: LATER,
  },
  {
    // Like a linearized file cut short in download: the first-page trailer at
    // the front survives, the objects follow, the main table and everything
    // after it is gone. More than 1054 bytes after the front section, so no
    // startxref is found near the end.
    name: 'truncated after the last page content, before the table',
    make: () => {
      const padded = doc.objects.map((o) =>
        o.num === 9 ? { num: 9, body: { dict: '', stream: `% ${'padding '.repeat(200)}\n${drawText('PAGE THREE')}` } } : o,
      );
      const pdf = buildPdf([
        { objects: [], size: 10 },
        { objects: padded, prev: null },
      ]);
      return truncate(pdf, endOf(pdf, 9));
    },
    texts: TEXTS,
  },
  {
    // Object stream 21 (the /Info dictionary and the empty outline) is listed
    // as compressed inside object stream 20. qpdf warns "supposed object
    // stream 21 is not a stream" and reads those two as null; the pages, in
    // stream 20, are intact.
    name: 'an object stream listed inside another object stream',
    make: () =>
      buildPdf([
        {
          objects: [
            ...doc.objects.map((o) => (o.num === 1 ? { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Outlines 11 0 R >>' } : o)),
            { num: 10, body: '<< /Title (Nested object streams) >>' },
            { num: 11, body: '<< /Type /Outlines /Count 0 >>' },
          ],
          xref: 'stream',
          trailer: '/Info 10 0 R',
          objectStreams: [
            { num: 20, members: [1, 2, 3, 4, 6, 8] },
            { num: 21, members: [10, 11] },
          ],
          xrefRows: { 21: [2, 20, 6] },
        },
      ]).bytes,
    texts: TEXTS,
  },
  {
    name: 'hybrid-reference file (classic table plus /XRefStm)',
    make: () => buildPdf([{ objects: doc.objects, xref: 'hybrid', objectStreams: [{ num: 20, members: [2, 4, 6, 8] }] }]).bytes,
    texts: TEXTS,
  },
  { name: 'object listed twice: an incremental update replaces page two content', make: () => updated().bytes, texts: LATER },
  {
    // Page two's dictionary is replaced by one in a newer object stream.
    name: 'object listed twice: both revisions with object streams',
    make: () =>
      buildPdf([
        { objects: doc.objects, xref: 'stream', objectStreams: [{ num: 20, members: [1, 2, 3, 4, 6, 8] }] },
        {
          objects: [
            { num: 6, body: '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents 22 0 R /MediaBox [0 0 612 792] >>' },
            { num: 22, body: { dict: '', stream: drawText('PAGE TWO LATER') } },
          ],
          xref: 'stream',
          objectStreams: [{ num: 23, members: [6] }],
        },
      ]).bytes,
    texts: LATER,
  },
  {
    // Recovery scans the whole file: the last `7 0 obj` wins.
    name: 'object listed twice, found by the recovery scan (newest startxref broken)',
    make: () => {
      const pdf = updated();
      return setStartxref(pdf, pdf.sections[1].xrefAt + 2);
    },
    texts: LATER,
  },
  {
    // An update cut off before its table (an interrupted save): the table is
    // intact and still points at the first copy, which qpdf and poppler read.
    // A reader that takes the last `7 0 obj` in the file shows the stale text.
    name: 'object listed twice: a copy appended after %%EOF with no table',
    make: () => {
      const pdf = classic();
      const stale = drawText('PAGE TWO UNSAVED');
      return bytesOf(`${pdf.text}7 0 obj\n<< /Length ${stale.length} >>\nstream\n${stale}\nendstream\nendobj\n`);
    },
    texts: TEXTS,
  },
  { name: '/Length too short', make: () => buildPdf([{ objects: withLength(5, 10) }]).bytes, texts: TEXTS },
  { name: '/Length too long (runs into the next object)', make: () => buildPdf([{ objects: withLength(5, 200) }]).bytes, texts: TEXTS },
  {
    name: '/Length an indirect reference',
    make: () => buildPdf([{ objects: [...withLength(5, '12 0 R'), { num: 12, body: String(drawText('PAGE ONE').length) }] }]).bytes,
    texts: TEXTS,
  },
  {
    // The length is in an object stream: reading stream 5 needs stream 20 first.
    name: '/Length an indirect reference into an object stream',
    make: () =>
      buildPdf([
        {
          objects: [...withLength(5, '12 0 R'), { num: 12, body: String(drawText('PAGE ONE').length) }],
          xref: 'stream',
          objectStreams: [{ num: 20, members: [1, 2, 3, 4, 6, 8, 12] }],
        },
      ]).bytes,
    texts: TEXTS,
  },
];

// Concurrent: the time goes to qpdf and poppler child processes.
describe.concurrent.each(CASES)('$name', (c) => {
  const input = c.make();
  // Checked once, awaited by both tests: the action's test fails on an unsound fixture too.
  let checked: Promise<void> | undefined;
  const sound = () => (checked ??= expectReadableInput(input, c.texts, c.name));

  it('fixture: qpdf reads it and poppler shows the expected pages', async () => {
    await sound();
  });

  it('rotate_pages 90: a clean output with the same pages, each rotated', async () => {
    await sound();
    const output = await runOne(rotatePages, { file: input, angle: 90 });
    await expectCleanOutput(output, { texts: c.texts, rotation: 90 }, `rotate_pages on "${c.name}"`);
  });
});

describe.concurrent('other actions on damaged input', () => {
  const byName = (start: string) => CASES.find((c) => c.name.startsWith(start))!;

  it('extract_pages 3,1 on a file whose table points at the wrong objects: pages one and three, in document order', async () => {
    const c = byName('table offsets point at the wrong object');
    const input = c.make();
    await expectReadableInput(input, c.texts, c.name);
    const output = await runOne(extractPages, { file: input, pages: '3,1' });
    await expectCleanOutput(output, { texts: ['PAGE ONE', 'PAGE THREE'], rotation: 0 }, 'extract_pages');
  });

  it('merge_documents of a file with no trailer after its newest table and one with a /Prev loop', async () => {
    const a = byName('trailer dictionary missing');
    const b = byName('/Prev loop: two sections');
    const [first, second] = [a.make(), b.make()];
    await expectReadableInput(first, a.texts, a.name);
    await expectReadableInput(second, b.texts, b.name);
    const output = await runOne(mergeDocuments, { file: [first, second] });
    await expectCleanOutput(output, { texts: [...a.texts, ...b.texts], rotation: 0 }, 'merge_documents');
    expect(a.texts).toEqual(LATER); // both inputs show their newer page two
  });
});
