/**
 * Links to removed pages go; every other annotation stays. The page actions
 * decide from an annotation's input bytes, without parsing it, that a link
 * that names no destination, no GoTo, and neither its action nor the
 * action's type by reference leads to no page (arrange.ts: leadsToNoPage);
 * every other link is parsed to see where it leads. These links spell the
 * same destinations in each of those ways, at the top level of the file and
 * packed in an object stream, and qpdf says which of them the output keeps.
 */
import { describe, expect, it } from 'vitest';
import removePages from '../../../src/actions/remove_pages/action.js';
import splitByPageCount from '../../../src/actions/split_by_page_count/action.js';
import { runAction } from '../../../src/core/run.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';
import { dictOf, qpdfView, runOne } from '../../helpers/reader-checks.js';

const RECT = '/Rect [0 0 10 10]';
// Pages of simpleDoc: 4, 6 and 8. Each annotation is named by its /NM.
const LINKS: Record<string, string> = {
  uri: '/A << /S /URI /URI (https://example.com/a) >>',
  'uri-percent': '/A << /S /URI /URI (https://example.com/a%20b) >>',
  'uri-says-goto': '/A << /S /URI /URI (https://example.com/GoTo/Dest) >>',
  'action-by-reference': '/A 30 0 R',
  'type-by-reference': '/A << /S 31 0 R /D [6 0 R /Fit] >>',
  'dest-array': '/Dest [6 0 R /Fit]',
  'dest-by-reference': '/Dest 32 0 R',
  'goto-page-2': '/A<</S/GoTo/D[6 0 R/Fit]>>',
  'goto-page-3': '/A << /S /GoTo /D [8 0 R /Fit] >>',
  'name-escaped': '/A << /S /Go#54o /D [6 0 R /Fit] >>',
};
const NAMES = Object.keys(LINKS);
// Annotations 10.., all on page 1 (object 4); their /P is the page.
const annotations = NAMES.map((name, i) => ({ num: 10 + i, body: `<< /Type /Annot /Subtype /Link ${RECT} /P 4 0 R /NM (${name}) ${LINKS[name]} >>` }));
const extra = [
  { num: 30, body: '<< /S /GoTo /D [6 0 R /Fit] >>' },
  { num: 31, body: '/GoTo' },
  { num: 32, body: '[6 0 R /XYZ 0 0 0]' },
];

function input(packed: boolean): Uint8Array {
  const doc = simpleDoc(['one', 'two', 'three'], { page: (i) => (i === 0 ? `/Annots [${annotations.map((a) => `${a.num} 0 R`).join(' ')}]` : '') });
  const objects = [...doc.objects, ...annotations, ...extra];
  const members = [...annotations, ...extra].map((o) => o.num);
  return buildPdf([{ objects, xref: packed ? 'stream' : 'table', objectStreams: packed ? [{ num: 40, members }] : undefined }]).bytes;
}

/** The /NM of each annotation on the first page, by qpdf. */
async function firstPageLinks(bytes: Uint8Array): Promise<string[]> {
  const view = await qpdfView(bytes);
  const page = dictOf(view.objects, view.pages[0])!;
  const annots = (page['/Annots'] as string[] | undefined) ?? [];
  return annots.map((ref) => String(dictOf(view.objects, ref)?.['/NM']).replace(/^u:/, ''));
}

describe.each([false, true])('links to removed pages (annotations in an object stream: %s)', (packed) => {
  it('the input has every link on page 1', async () => {
    expect(await firstPageLinks(input(packed))).toEqual(NAMES);
  });

  it('remove_pages 2 keeps the links that do not lead to page 2', async () => {
    const out = await runOne(removePages, { file: input(packed), pages: '2' });
    expect(await firstPageLinks(out)).toEqual(['uri', 'uri-percent', 'uri-says-goto', 'goto-page-3']);
  });

  it('a split part of page 1 alone keeps only the links that lead to no page', async () => {
    const result = await runAction(splitByPageCount, { file: input(packed), page_count: '1' });
    if (result.output !== 'documents') throw new Error('expected several documents');
    expect(await firstPageLinks(result.documents[0].bytes)).toEqual(['uri', 'uri-percent', 'uri-says-goto']);
  });
});

describe('a kept page whose links all stay', () => {
  // Its bytes spell the box as the serializer would not (612.000): a page parsed and written again would show.
  const kept = ['uri', 'goto-page-3'].map((name) => annotations[NAMES.indexOf(name)]);
  const doc = simpleDoc(['one', 'two', 'three'], {
    mediaBox: '[0 0 612.000 792.000]',
    page: (i) => (i === 0 ? `/Annots [${kept.map((a) => `${a.num} 0 R`).join(' ')}]` : ''),
  });
  const file = buildPdf([{ objects: [...doc.objects, ...kept] }]).bytes;

  it('goes out as its input bytes, with every link (remove_pages 2)', async () => {
    const out = await runOne(removePages, { file, pages: '2' });
    expect(await firstPageLinks(out)).toEqual(['uri', 'goto-page-3']);
    const page1 = doc.objects.find((o) => o.num === 4)?.body as string;
    expect(Buffer.from(out).toString('latin1')).toContain(page1);
  });
});
