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
import splitByPageCount from '../../../src/actions/split_by_page_count/action.js';
import type { Warning } from '../../../src/core/warnings.js';
import { runAction } from '../../../src/core/run.js';
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

function doc(pages: RawObject[][], root = ''): Uint8Array {
  const kids = pages.map((_, i) => `${2 * i + 4} 0 R`).join(' ');
  const objects: RawObject[] = [
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { num: 2, body: `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} ${root} >>` },
    { num: 3, body: FONT },
    ...pages.flat(),
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
