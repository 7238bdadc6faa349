/**
 * On a sound page tree, reverse, reorder, remove and extract leave a page
 * unparsed when its input bytes show nothing to repair
 * (page-tree.ts, pageEntriesKeeping; structure/leaf-bytes.ts): the output
 * carries those bytes as they are. A page whose bytes show something to
 * repair, or that the bytes cannot tell about, is parsed and repaired as
 * before: what a user sees of every page is the same either way.
 */
import { describe, expect, it } from 'vitest';
import removePages from '../../../src/actions/remove_pages/action.js';
import reorderPages from '../../../src/actions/reorder_pages/action.js';
import reversePages from '../../../src/actions/reverse_pages/action.js';
import rotatePages from '../../../src/actions/rotate_pages/action.js';
import splitByPageCount from '../../../src/actions/split_by_page_count/action.js';
import type { Warning } from '../../../src/core/warnings.js';
import { runAction } from '../../../src/core/run.js';
import { joinPdf } from '../../../src/core/pdf-data.js';
import { loadPdf, saveDocumentPieces } from '../../../src/pdf/document.js';
import { PDFDict, PDFName, PDFNumber } from '../../../src/pdf/model/primitives.js';
import { pageCount, pageEntriesKeeping, turnPage } from '../../../src/pdf/structure/page-tree.js';
import { buildPdf, drawText, FONT, type RawObject } from '../../helpers/raw-pdf.js';
import { type Expected, expectCleanOutput } from '../../helpers/reader-checks.js';

const RESOURCES = '/Resources << /Font << /F1 3 0 R >> >>';
const LETTER: [number, number] = [612, 792];

/** Page `n` (1-based) is object 2n + 2, its contents 2n + 3; `entries` replace the default ones. */
function page(n: number, entries = `/Type /Page /Parent 2 0 R ${RESOURCES} /MediaBox [0 0 ${400 + n}.000 600.000] /Contents ${2 * n + 3} 0 R`): RawObject[] {
  return [
    { num: 2 * n + 2, body: `<< ${entries} >>` },
    { num: 2 * n + 3, body: { dict: '', stream: drawText(`PAGE ${n}`, 100) } },
  ];
}

function doc(pages: RawObject[][], root = '', extra: RawObject[] = []): Uint8Array {
  const kids = pages.map((_, i) => `${2 * i + 4} 0 R`).join(' ');
  const objects: RawObject[] = [
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { num: 2, body: `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} ${root} >>` },
    { num: 3, body: FONT },
    ...pages.flat(),
    ...extra,
  ];
  return buildPdf([{ objects }]).bytes;
}

const sizeOf = (n: number): [number, number] => [400 + n, 600];

async function reversed(input: Uint8Array, warnings: Warning[] = []): Promise<Uint8Array> {
  const result = await runAction(reversePages, { file: input }, { onWarning: (w) => warnings.push(w) });
  if (result.output !== 'document') throw new Error('one document expected');
  return result.bytes;
}

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

describe('pages whose bytes need no repair go out as their bytes', () => {
  const input = doc([page(1), page(2), page(3)]);
  // What re-serializing would change: the numbers (400.000 is written 400 by the serializer).
  const bodies = [1, 2, 3].map((n) => `<< /Type /Page /Parent 2 0 R ${RESOURCES} /MediaBox [0 0 ${400 + n}.000 600.000] /Contents ${2 * n + 3} 0 R >>`);

  it('reverse and reorder: every page as its input bytes, in the new order', async () => {
    const bytes = await reversed(input);
    await expectCleanOutput(bytes, { texts: ['PAGE 3', 'PAGE 2', 'PAGE 1'], sizes: [sizeOf(3), sizeOf(2), sizeOf(1)] }, 'reverse');
    for (const body of bodies) expect(latin1(bytes)).toContain(body);
    const reordered = await runAction(reorderPages, { file: input, page_order: '2,3,1,2' });
    if (reordered.output !== 'document') throw new Error('one document expected');
    await expectCleanOutput(reordered.bytes, { texts: ['PAGE 2', 'PAGE 3', 'PAGE 1', 'PAGE 2'] }, 'reorder 2,3,1,2');
    expect(latin1(reordered.bytes)).toContain(bodies[2]);
  });

  it('remove: the pages kept, as their bytes; a split (which reads every page) keeps the same pages', async () => {
    const removed = await runAction(removePages, { file: input, pages: '2' });
    if (removed.output !== 'document') throw new Error('one document expected');
    await expectCleanOutput(removed.bytes, { texts: ['PAGE 1', 'PAGE 3'], sizes: [sizeOf(1), sizeOf(3)] }, 'remove 2');
    expect(latin1(removed.bytes)).toContain(bodies[0]);
    expect(latin1(removed.bytes)).not.toContain('PAGE 2');
    const split = await runAction(splitByPageCount, { file: input, page_count: 2 });
    if (split.output !== 'documents') throw new Error('documents expected');
    expect(split.documents).toHaveLength(2);
    await expectCleanOutput(split.documents[0].bytes, { texts: ['PAGE 1', 'PAGE 2'], sizes: [sizeOf(1), sizeOf(2)] }, 'split part 1');
    await expectCleanOutput(split.documents[1].bytes, { texts: ['PAGE 3'], sizes: [sizeOf(3)] }, 'split part 2');
  });
});

describe('pages whose bytes show something to repair are repaired as before', () => {
  const contents = (n: number) => `/Contents ${2 * n + 3} 0 R`;
  const cases: Array<[string, string, Partial<Expected>, RegExp?]> = [
    ['no /MediaBox: letter size', `/Type /Page /Parent 2 0 R ${RESOURCES} ${contents(2)}`, { sizes: [sizeOf(3), LETTER, sizeOf(1)] }],
    [
      'a /MediaBox of three numbers: letter size',
      `/Type /Page /Parent 2 0 R ${RESOURCES} /MediaBox [0 0 400] ${contents(2)}`,
      { sizes: [sizeOf(3), LETTER, sizeOf(1)] },
    ],
    [
      'a /MediaBox behind a reference to a number',
      `/Type /Page /Parent 2 0 R ${RESOURCES} /MediaBox [0 0 402 3 0 R] ${contents(2)}`,
      { sizes: [sizeOf(3), LETTER, sizeOf(1)] },
    ],
    ['no /Type', `/Parent 2 0 R ${RESOURCES} /MediaBox [0 0 402 600] ${contents(2)}`, { sizes: [sizeOf(3), sizeOf(2), sizeOf(1)] }],
    [
      'a /Contents item the file lacks: dropped, and said',
      `/Type /Page /Parent 2 0 R ${RESOURCES} /MediaBox [0 0 402 600] /Contents [7 0 R 99 0 R]`,
      { sizes: [sizeOf(3), sizeOf(2), sizeOf(1)] },
      /\/Contents held an item that leads to no content stream/,
    ],
    [
      // The keys written inside a nested dictionary are not the page's: it has no /MediaBox of its own.
      'keys only in nested dictionaries (a direct annotation, private data)',
      `/Type /Page /Parent 2 0 R ${RESOURCES} ${contents(2)} /Annots [<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] /Contents (a note) /Parent 4 0 R >>] /PieceInfo << /X << /Private << /MediaBox [0 0 5 5] /Type /Page >> >> >>`,
      { sizes: [sizeOf(3), LETTER, sizeOf(1)] },
    ],
  ];
  it.each(cases)('%s', async (_, entries, expected, warning) => {
    const warnings: Warning[] = [];
    const bytes = await reversed(doc([page(1), page(2, entries), page(3)]), warnings);
    await expectCleanOutput(bytes, { texts: ['PAGE 3', 'PAGE 2', 'PAGE 1'], ...expected }, 'reverse');
    if (warning) expect(warnings.map((w) => w.message).join('\n')).toMatch(warning);
  });

  it('what the root gives its pages (size, rotation, resources) is written onto them', async () => {
    const bare = (n: number) => page(n, `/Type /Page /Parent 2 0 R ${contents(n)}`);
    const input = doc([bare(1), page(2), bare(3)], `/MediaBox [0 0 300 500] /Rotate 90 ${RESOURCES}`);
    const bytes = await reversed(input);
    await expectCleanOutput(bytes, { texts: ['PAGE 3', 'PAGE 2', 'PAGE 1'], sizes: [[300, 500], sizeOf(2), [300, 500]], rotation: [90, 90, 90] }, 'reverse');
    const split = await runAction(splitByPageCount, { file: input, page_count: 1 });
    if (split.output !== 'documents') throw new Error('documents expected');
    await expectCleanOutput(split.documents[1].bytes, { texts: ['PAGE 2'], sizes: [sizeOf(2)], rotation: [90] }, 'split part 2');
  });
});

/**
 * rotate_pages turns a page whose bytes need no repair in those bytes
 * (page-tree.ts, turnPage): its /Rotate's value replaced, or ` /Rotate N`
 * written before its closing `>>`; every other byte of the page as it was.
 * A page whose bytes cannot tell its rotation (a /Rotate behind a reference
 * or a real, one its ancestors give it), one that needs repair, and one whose
 * turn ends at 0 are parsed and turned as before.
 */
describe('rotate turns a page in its bytes', () => {
  const contents = (n: number) => `/Contents ${2 * n + 3} 0 R`;
  const body = (n: number, extra = '') => `/Type /Page /Parent 2 0 R ${RESOURCES} /MediaBox [0 0 ${400 + n}.000 600.000] ${contents(n)}${extra}`;
  const texts = ['PAGE 1', 'PAGE 2', 'PAGE 3'];
  const sizes = [sizeOf(1), sizeOf(2), sizeOf(3)];

  async function rotated(input: Uint8Array, values: { angle: number; pages?: string }, warnings: Warning[] = []): Promise<Uint8Array> {
    const result = await runAction(rotatePages, { file: input, ...values }, { onWarning: (w) => warnings.push(w) });
    if (result.output !== 'document') throw new Error('one document expected');
    return result.bytes;
  }

  it('no /Rotate: one written before the closing >>; an integer /Rotate (signed too): its value replaced', async () => {
    const input = doc([page(1), page(2, body(2, ' /Rotate 90 /StructParents 0')), page(3, `/Rotate -90 ${body(3)}`)]);
    const bytes = await rotated(input, { angle: 180 });
    await expectCleanOutput(bytes, { texts, sizes, rotation: [180, 270, 90] }, 'rotate 180');
    const text = latin1(bytes);
    expect(text).toContain(`<< ${body(1)} /Rotate 180 >>`);
    expect(text).toContain(`<< ${body(2, ' /Rotate 270 /StructParents 0')} >>`);
    expect(text).toContain(`<< /Rotate 90 ${body(3)} >>`);
  });

  it('only the pages selected turn; the others go out as their bytes', async () => {
    const input = doc([page(1), page(2), page(3)]);
    const bytes = await rotated(input, { angle: -90, pages: '2' });
    await expectCleanOutput(bytes, { texts, sizes, rotation: [0, 270, 0] }, 'rotate -90 page 2');
    const text = latin1(bytes);
    expect(text).toContain(`<< ${body(1)} >>`);
    expect(text).toContain(`<< ${body(2)} /Rotate 270 >>`);
    expect(text).toContain(`<< ${body(3)} >>`);
  });

  it('a turn that ends at 0: the /Rotate taken out, or 0 under a root that has one', async () => {
    const upright = await rotated(doc([page(1), page(2, body(2, ' /Rotate 270')), page(3)]), { angle: 90 });
    await expectCleanOutput(upright, { texts, sizes, rotation: [90, 0, 90] }, 'rotate 90');
    expect(latin1(upright)).toContain(`<< ${body(2)}  >>`);
    const input = doc([page(1, body(1, ' /Rotate 270')), page(2, body(2, ' /Rotate 0')), page(3)], '/Rotate 90');
    const bytes = await rotated(input, { angle: 90 });
    // Page 3 inherits the root's 90: parsed, and turned to 180.
    await expectCleanOutput(bytes, { texts, sizes, rotation: [0, 90, 180] }, 'rotate 90 under a rotated root');
    expect(latin1(bytes)).toContain(`<< ${body(1, ' /Rotate 0')} >>`);
    expect(latin1(bytes)).toContain(`<< ${body(2, ' /Rotate 90')} >>`);
  });

  const parsed: Array<[string, RawObject[][], string, number[], Array<[number, number]>]> = [
    // The root's /Rotate is written onto pages 1 and 3 (which lack one) first: 90 + 90; page 2's own 0 + 90.
    ['a /Rotate inherited from the root', [page(1), page(2, `/Rotate 0 ${body(2)}`), page(3)], '/Rotate 90', [180, 90, 180], sizes],
    ['a /Rotate behind a reference', [page(1), page(2, body(2, ' /Rotate 20 0 R')), page(3)], '', [90, 180, 90], sizes],
    ['a /Rotate that is a real', [page(1), page(2, body(2, ' /Rotate 90.0')), page(3)], '', [90, 180, 90], sizes],
    [
      'a page to repair (no /MediaBox: letter size)',
      [page(1), page(2, `/Type /Page /Parent 2 0 R ${RESOURCES} ${contents(2)}`), page(3)],
      '',
      [90, 90, 90],
      [sizeOf(1), LETTER, sizeOf(3)],
    ],
  ];
  it.each(parsed)('%s: the page is parsed and turned as before', async (_, pages, root, rotation, expectedSizes) => {
    const objects = doc(pages, root);
    // Object 20: the number a /Rotate refers to.
    const input = root || !latin1(objects).includes('20 0 R') ? objects : doc(pages, root, [{ num: 20, body: '90' }]);
    const bytes = await rotated(input, { angle: 90 });
    await expectCleanOutput(bytes, { texts, sizes: expectedSizes, rotation }, 'rotate 90');
    // The pages whose bytes tell their rotation are turned in them even so.
    if (!root) expect(latin1(bytes)).toContain(`<< ${body(1)} /Rotate 90 >>`);
  });

  it('a page turned in its bytes reads as turned when something parses it after', async () => {
    const document = loadPdf(doc([page(1), page(2), page(3)]));
    const entries = pageEntriesKeeping(document, [0, 1, 2]);
    expect(pageCount(document)).toBe(3);
    turnPage(document, entries[1], 90);
    const dict = document.context.lookup(entries[1].ref);
    expect(dict).toBeInstanceOf(PDFDict);
    expect((dict as PDFDict).get(PDFName.of('Rotate'))).toEqual(PDFNumber.of(90));
    // Parsed now, it is written from its parsed form: still turned.
    await expectCleanOutput(joinPdf(await saveDocumentPieces(document)), { texts, sizes, rotation: [0, 90, 0] }, 'turned, then parsed');
  });
});
