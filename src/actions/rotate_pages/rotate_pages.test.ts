/**
 * rotate_pages: the selected pages turn by `angle` (added to the rotation the
 * reader showed), every page stays where it was and nothing else changes;
 * rotating by 0 gives back every stream byte for byte. The tables
 * (test/helpers/page-actions.ts) are those of every page action.
 */
import { describe, expect, it } from 'vitest';
import { fixture, pdfinfo } from '../../../test/helpers/pdf-tools.js';
import rotatePages from './action.js';
import {
  allStreams,
  boxesTable,
  expectCleanCheck,
  formFieldsTable,
  loadingRules,
  OUTLINE_INPUT,
  pageContents,
  pageOrderTable,
  qdfVersion,
  qpdfFullJson,
  range,
  ROTATED,
  rotationTable,
  run,
  structureTable,
  validationTable,
  withPageEntries,
} from '../../../test/helpers/page-actions.js';

pageOrderTable(rotatePages, [
  { values: { angle: 90, pages: '1..3' }, order: range(1, 10) },
  { values: { angle: 0 }, order: range(1, 10) },
]);

rotationTable(rotatePages, [
  { values: { angle: 90 }, order: range(1, 5), rotation: [90, 180, 270, 0, 180] },
  { values: { angle: -90 }, order: range(1, 5), rotation: [270, 0, 90, 180, 0] },
  { values: { angle: 180 }, order: range(1, 5), rotation: [180, 270, 0, 90, 270] },
  { values: { angle: 270 }, order: range(1, 5), rotation: [270, 0, 90, 180, 0] },
  { values: { angle: -270 }, order: range(1, 5), rotation: [90, 180, 270, 0, 180] },
  { values: { angle: -180, pages: '-1' }, order: range(1, 5), rotation: [0, 90, 180, 270, 270] },
  { values: { angle: 90, pages: '5' }, order: range(1, 5), rotation: [0, 90, 180, 270, 180] },
  { values: { angle: 270, pages: '5' }, order: range(1, 5), rotation: [0, 90, 180, 270, 0] },
  { values: { angle: -90, pages: '1,5' }, order: range(1, 5), rotation: [270, 90, 180, 270, 0] },
  { values: { angle: 90, pages: '2..4' }, order: range(1, 5), rotation: [0, 180, 270, 0, 90] },
  { values: { angle: 0 }, order: range(1, 5), rotation: ROTATED },
]);

describe('rotation beyond rotated.pdf', () => {
  it('reads non-normalised /Rotate values (-90, 450, -630) as the reader does, and adds to them', async () => {
    const input = await withPageEntries('pages-3.pdf', { 1: { '/Rotate': -90 }, 2: { '/Rotate': 450 }, 3: { '/Rotate': -630 } });
    expect((await pdfinfo(input)).pages.map((p) => p.rotation)).toEqual([270, 90, 90]);
    const output = await run(rotatePages, input, { angle: 90 });
    await expectCleanCheck(output, 'rotate 90');
    expect((await pdfinfo(output)).pages.map((p) => p.rotation)).toEqual([0, 180, 180]);
    const partial = await run(rotatePages, input, { angle: -270, pages: '2' });
    expect((await pdfinfo(partial)).pages.map((p) => p.rotation)).toEqual([270, 180, 90]);
  });

  it('rotating twice adds up (90 then -180 is -90)', async () => {
    const once = await run(rotatePages, 'rotated.pdf', { angle: 90 });
    const twice = await run(rotatePages, once, { angle: -180 });
    expect((await pdfinfo(twice)).pages.map((p) => p.rotation)).toEqual([270, 0, 90, 180, 0]);
  });
});

boxesTable(rotatePages, [{ values: { angle: 90, pages: '1,3' }, order: [1, 2, 3] }]);

structureTable(rotatePages, [{ values: { angle: 90, pages: '2' }, order: range(1, 6), outline: OUTLINE_INPUT }]);

formFieldsTable(rotatePages, [{ values: { angle: 180, pages: '1' }, order: [1, 2, 3] }]);

validationTable(rotatePages, [
  { file: 'pages-10.pdf', values: { angle: 90, pages: '1..11' }, field: 'pages', message: /\b11\b.*\b10 pages\b/ },
  { file: 'pages-10.pdf', values: { angle: 45 }, field: 'angle', message: /./ },
  { file: 'pages-10.pdf', values: { angle: 360 }, field: 'angle', message: /./ },
  { file: 'pages-10.pdf', values: {}, field: 'angle', message: /./ },
]);

loadingRules(rotatePages, { angle: 90 }, [1, 2]);

// Stream data survives a round trip byte for byte.
describe('stream data round trip (rotate by 0)', () => {
  const inputs: Array<[string, () => Promise<Uint8Array>]> = [
    ['outline.pdf', async () => fixture('outline.pdf')],
    ['pages-10.pdf', async () => fixture('pages-10.pdf')],
    ['form.pdf', async () => fixture('form.pdf')],
    ['pages-10.pdf in QDF form (indirect /Length)', () => qdfVersion('pages-10.pdf')],
    ['outline.pdf in QDF form (indirect /Length)', () => qdfVersion('outline.pdf')],
  ];
  it.each(inputs)('%s: every stream decodes to the same bytes', async (_, load) => {
    const input = await load();
    if (_.includes('QDF')) expect(new TextDecoder('latin1').decode(input)).toMatch(/\/Length \d+ 0 R/);
    const output = await run(rotatePages, input, { angle: 0 });
    await expectCleanCheck(output, 'rotate 0');
    const before = await qpdfFullJson(input, true);
    const after = await qpdfFullJson(output, true);
    expect(pageContents(after)).toEqual(pageContents(before));
    expect(allStreams(after)).toEqual(allStreams(before));
  });
});
