/**
 * Recovery of files that were refused although qpdf reads them,
 * each made byte by byte in the shape of the real file that showed it:
 * an incremental update whose /Prev is itself (qpdf's append-xref-loop.pdf),
 * a catalog written into the trailer (bad-direct-root.pdf), an object stream
 * that lists itself as its first member (bad40.pdf,
 * object-stream-self-ref.pdf); and the damage that hides a catalog from a
 * reader that trusts /Root and /Pages: a wrong generation, a /Root that leads
 * to the page tree, a /Pages that leads nowhere, to a page, or a catalog that
 * cannot be parsed.
 *
 * Each goes through every page action (PAGE_ACTIONS); every output must
 * pass `qpdf --check` with no warning, show the expected pages to qpdf,
 * pdfinfo and pdftotext, and have every /Count right. What qpdf 11.3 and
 * poppler make of each input is recorded per row: several they cannot read
 * at all, which is no reason for pdfsvc not to.
 */
import { describe, expect, it } from 'vitest';
import rotatePages from '../../../src/actions/rotate_pages/action.js';
import { runAction } from '../../../src/core/run.js';
import type { Warning } from '../../../src/core/warnings.js';
import { buildPdf, bytesOf, drawText, simpleDoc, type RawObject } from '../../helpers/raw-pdf.js';
import { expectCleanAction, PAGE_ACTIONS, popplerTexts, qpdfPageList } from '../../helpers/reader-checks.js';

// The document every row damages: objects 1 catalog, 2 pages, 3 font, pages 4/6/8 with contents 5/7/9.
const TEXTS = ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'];
const doc = simpleDoc(TEXTS);
const LATER = ['PAGE ONE', 'PAGE TWO LATER', 'PAGE THREE'];
/** An incremental update giving page two new content (object 7). */
const laterPageTwo: RawObject = { num: 7, body: { dict: '', stream: drawText('PAGE TWO LATER') } };
/** The objects of `doc` with object `num`'s body replaced. */
const replacing = (num: number, body: string) => doc.objects.map((o) => (o.num === num ? { num, body } : o));
const BODY = new Map(doc.objects.map((o) => [o.num, o.body]));

/**
 * Objects 1, 2, 3, 4, 6 and 8 in object stream 20, whose header lists 20
 * itself first (`20 0 1 0 2 …`, /N 7) while the cross-reference stream
 * numbers the members from 0 without it: every index is one off.
 */
function objectStreamListingItself(): Uint8Array {
  const members = [1, 2, 3, 4, 6, 8];
  let header = '20 0';
  let body = '';
  for (const num of members) {
    header += ` ${num} ${body.length}`;
    body += `${BODY.get(num) as string}\n`;
  }
  header += '\n';
  const xrefRows = Object.fromEntries(members.map((num, index) => [num, [2, 20, index] as [number, number, number]]));
  return buildPdf([
    {
      objects: [
        ...doc.objects.filter((o) => !members.includes(o.num)),
        { num: 20, body: { dict: `/Type /ObjStm /N ${members.length + 1} /First ${header.length}`, stream: header + body } },
      ],
      xref: 'stream',
      xrefNum: 21,
      xrefRows,
    },
  ]).bytes;
}

interface RecoveryCase {
  name: string;
  make: () => Uint8Array;
  /** The text of each page (the newest revision's). */
  texts: string[];
  /** qpdf 11.3's page list of the input (qpdfPageList): [] when it reads none. */
  qpdf: string[];
  /** What poppler shows of the input. */
  poppler: string[];
  /** What the warning says, when the repair is more than a rebuilt table. */
  warning?: RegExp;
}

const REBUILT = /cross-reference table .* rebuilt/;

const CASES: RecoveryCase[] = [
  {
    // qpdf: "loop detected following xref tables", then it rebuilds the table.
    name: 'an incremental update whose /Prev is itself (the original table is never reached)',
    make: () => buildPdf([{ objects: doc.objects }, { objects: [laterPageTwo], prev: 1 }]).bytes,
    texts: LATER,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: LATER,
    warning: REBUILT,
  },
  {
    name: 'the same with cross-reference streams',
    make: () =>
      buildPdf([
        { objects: doc.objects, xref: 'stream' },
        { objects: [laterPageTwo], prev: 1, xref: 'stream' },
      ]).bytes,
    texts: LATER,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    // Poppler loops on the streams' /Prev and finds no catalog.
    poppler: [],
    warning: REBUILT,
  },
  {
    name: 'a /Prev loop through three sections (newest → middle → newest)',
    make: () =>
      buildPdf([
        { objects: doc.objects },
        { objects: [laterPageTwo], prev: 2 },
        { objects: [{ num: 9, body: { dict: '', stream: drawText('PAGE THREE LATER') } }], prev: 1 },
      ]).bytes,
    texts: ['PAGE ONE', 'PAGE TWO LATER', 'PAGE THREE LATER'],
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: ['PAGE ONE', 'PAGE TWO LATER', 'PAGE THREE LATER'],
    warning: REBUILT,
  },
  {
    // Poppler finds no catalog in a trailer; qpdf does, and writes it back the same way.
    name: 'the catalog written into the trailer (/Root << … >>)',
    make: () => buildPdf([{ objects: doc.objects.filter((o) => o.num !== 1), root: BODY.get(1) as string }]).bytes,
    texts: TEXTS,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: [],
  },
  {
    name: "the catalog written into a cross-reference stream's dictionary",
    make: () => buildPdf([{ objects: doc.objects.filter((o) => o.num !== 1), root: BODY.get(1) as string, xref: 'stream' }]).bytes,
    texts: TEXTS,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: [],
  },
  {
    name: 'an object stream that lists itself as its first member',
    make: objectStreamListingItself,
    texts: TEXTS,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    // Poppler takes the members by index, as pdfsvc did: no catalog.
    poppler: [],
  },
  {
    // qpdf: "unable to find /Root dictionary".
    name: '/Root with the wrong generation (1 1 R for 1 0 obj)',
    make: () => buildPdf([{ objects: doc.objects, root: '1 1 R' }]).bytes,
    texts: TEXTS,
    qpdf: [],
    poppler: [],
    warning: /names the catalog 1 1 R but the file has it as 1 0 R/,
  },
  {
    // qpdf reads the page-tree node as the catalog: it has no /Pages, so no pages.
    name: '/Root leading to the page tree instead of the catalog',
    make: () => buildPdf([{ objects: doc.objects, root: '2 0 R' }]).bytes,
    texts: TEXTS,
    qpdf: [],
    poppler: [],
    warning: /\/Root leads to no catalog: object 1, the last \/Type \/Catalog of the file, was taken/,
  },
  {
    name: "the catalog's /Pages leading to an object the file lacks",
    make: () => buildPdf([{ objects: replacing(1, '<< /Type /Catalog /Pages 40 0 R >>') }]).bytes,
    texts: TEXTS,
    qpdf: [],
    poppler: [],
    warning: /\/Pages leads to no page tree: object 2, the last page-tree root of the file, was taken/,
  },
  {
    // qpdf climbs to the root ("attempting to correct"); poppler shows page two alone.
    name: "the catalog's /Pages leading to page two",
    make: () => buildPdf([{ objects: replacing(1, '<< /Type /Catalog /Pages 6 0 R >>') }]).bytes,
    texts: TEXTS,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: ['PAGE TWO'],
    warning: /\/Pages leads into the page tree, not to its root/,
  },
  {
    // qpdf climbs from the root to node 10, which does not list it, and finds no page; poppler reads the tree.
    name: 'the root /Pages node with a /Parent that does not list it',
    make: () =>
      buildPdf([
        {
          objects: [
            ...replacing(2, '<< /Type /Pages /Parent 10 0 R /Kids [4 0 R 6 0 R 8 0 R] /Count 3 >>'),
            { num: 10, body: '<< /Type /Pages /Kids [] /Count 0 >>' },
          ],
        },
      ]).bytes,
    texts: TEXTS,
    qpdf: [],
    poppler: TEXTS,
    warning: /a root node with a \/Parent/,
  },
  {
    // The font's dictionary holds a stray `]`: qpdf warns as it reads it ("treating unexpected array close token
    // as null"); copied as its bytes, the output made qpdf warn the same.
    name: 'a font dictionary with a stray ]',
    make: () => buildPdf([{ objects: replacing(3, (BODY.get(3) as string).replace('/Subtype', '] /Subtype')) }]).bytes,
    texts: TEXTS,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: TEXTS,
  },
  {
    // A string where a key belongs, then a key with no value: qpdf warns ("expected dictionary key but found
    // non-name object", "dictionary ended prematurely"); copied as its bytes, the output made it warn the same.
    name: 'a font dictionary with a string for a key and a key with no value',
    make: () => buildPdf([{ objects: replacing(3, (BODY.get(3) as string).replace('/Subtype', '(junk) /Subtype').replace(' >>', ' /Last >>')) }]).bytes,
    texts: TEXTS,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: TEXTS,
  },
  {
    // Page two's resources (object 12) cannot be parsed: /ProcSet has a stray `]` for its value. Read as far as
    // they go, they keep the font; qpdf reads the font too.
    name: 'a page whose /Resources cannot be parsed whole',
    make: () =>
      buildPdf([
        {
          objects: [
            ...replacing(6, (BODY.get(6) as string).replace('/Resources << /Font << /F1 3 0 R >> >>', '/Resources 12 0 R')),
            { num: 12, body: '<< /Font << /F1 3 0 R >> /ProcSet ] >>' },
          ],
        },
      ]).bytes,
    texts: TEXTS,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: TEXTS,
    warning: /a page whose \/Resources cannot be read whole/,
  },
  {
    // The trailer's /Info is an integer (pdf-lib's invalid_root_ref.pdf): qpdf warns of it in every output that keeps it.
    name: 'a trailer /Info that is an integer',
    make: () => buildPdf([{ objects: [...doc.objects, { num: 12, body: '1560' }], trailer: '/Info 12 0 R' }]).bytes,
    texts: TEXTS,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: TEXTS,
  },
  {
    // An array that never closes: read as far as it goes, it closes with its dictionary.
    name: 'a catalog that cannot be parsed whole',
    make: () => buildPdf([{ objects: replacing(1, '<< /Type /Catalog /Pages 2 0 R /Junk [ 1 2 >>') }]).bytes,
    texts: TEXTS,
    qpdf: [],
    poppler: TEXTS,
    warning: /its catalog is damaged: it was read as far as it goes/,
  },
  {
    // Page two's dictionary never closes: its /MediaBox array runs on to `endobj`.
    name: 'a page whose dictionary never closes',
    make: () => buildPdf([{ objects: replacing(6, (BODY.get(6) as string).replace(/\]? >>$/, '')) }]).bytes,
    texts: TEXTS,
    qpdf: ['4 0 R', '6 0 R', '8 0 R'],
    poppler: TEXTS,
    warning: /page or node whose dictionary is damaged \(read as far as it goes\)/,
  },
  {
    // The shape of qpdf's bad-direct-root.pdf: the catalog in the trailer, and the only page's
    // dictionary left open, so that it runs on through the table and the trailer to the end.
    name: "the catalog in the trailer, and the page's dictionary running on to the end of the file",
    make: () => {
      const objects = [2, 3, 5, 4].map((num) =>
        num === 2 ? { num, body: '<< /Type /Pages /Kids [4 0 R] /Count 1 >>' } : doc.objects.find((o) => o.num === num)!,
      );
      const pdf = buildPdf([{ objects, root: BODY.get(1) as string }]);
      const open = pdf.text.indexOf('792] >>\nendobj', pdf.offsets.get(4));
      return bytesOf(pdf.text.slice(0, open + 3) + pdf.text.slice(open + '792] >>\nendobj'.length));
    },
    texts: ['PAGE ONE'],
    qpdf: ['4 0 R'],
    poppler: [],
    warning: /page or node whose dictionary is damaged/,
  },
];

describe.concurrent.each(CASES)('$name', (c) => {
  const input = c.make();
  let checked: Promise<void> | undefined;
  const sound = () =>
    (checked ??= (async () => {
      expect(await qpdfPageList(input), "fixture: qpdf's page list").toEqual(c.qpdf);
      expect(await popplerTexts(input), 'fixture: pdftotext per page').toEqual(c.poppler);
    })());

  it('fixture: qpdf and poppler read it as recorded', async () => {
    await sound();
  });

  it('the repair is reported as a warning, or none is given for a file read as it is', async () => {
    const warnings: Warning[] = [];
    await runAction(rotatePages, { file: input, angle: 90 }, { onWarning: (w) => warnings.push(w) });
    if (c.warning) expect(warnings.map((w) => w.message).join('\n')).toMatch(c.warning);
    else expect(warnings).toEqual([]);
  });

  it.each(PAGE_ACTIONS.filter((a) => c.texts.length >= a.minPages))(
    '$name: every page once, in order',
    async (action) => {
      await sound();
      await expectCleanAction(action, input, c.texts, c.name);
    },
    60_000,
  );
});

// ---------------------------------------------------------------------------
// Found by the fuzz tier (npm run fuzz -- --actions merge_documents,split_…):
// outputs qpdf rejected from inputs it reads.
// ---------------------------------------------------------------------------

describe.concurrent('a token of digits that runs on into letters', () => {
  // A hex string that lost its `<` (seed 21, case 1715): `1406…9006C0064…73>` is one token, and no number.
  // Read as the number 1.4e35, it was written back as a 36-digit integer: "overflow/underflow converting
  // … to 64-bit integer", and qpdf lost the catalog ("unable to find /Root dictionary").
  const input = buildPdf([
    { objects: simpleDoc(TEXTS, { catalog: '/AcroForm 140660073007600630020006200750069006C0064002D00660069007800740075007200650073> /Lang 1e308' }).objects },
  ]).bytes;

  it('fixture: qpdf reads it', async () => {
    expect(await qpdfPageList(input)).toEqual(['4 0 R', '6 0 R', '8 0 R']);
  });

  it.each(PAGE_ACTIONS)('$name: the catalog survives, the output passes qpdf --check', async (action) => {
    await expectCleanAction(action, input, TEXTS, 'a catalog with a run-on number');
  });
});
