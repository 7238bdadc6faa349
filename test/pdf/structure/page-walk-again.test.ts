/**
 * pageEntries remembers its walk of a flat page tree (page-tree.ts,
 * flatWalkStanding) so that an action that asks for the pages again does
 * not settle every page again. What it gives must always be what a new walk
 * would find: the tree as it stands now, each page settled.
 */
import { describe, expect, it } from 'vitest';
import { loadPdf } from '../../../src/pdf/document.js';
import { PDFArray, PDFDict, PDFName, PDFRef } from '../../../src/pdf/model/primitives.js';
import { pageEntries, setPages } from '../../../src/pdf/structure/page-tree.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';

const MEDIA_BOX = PDFName.of('MediaBox');

function threePages() {
  // Pages 4, 6, 8 under root 2; /Rotate 90 on the root, which each page inherits.
  const { objects } = simpleDoc(['ONE', 'TWO', 'THREE']);
  objects[1] = { num: 2, body: '<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count 3 /Rotate 90 >>' };
  return loadPdf(buildPdf([{ objects }]).bytes);
}

const numbers = (entries: { ref: PDFRef }[]) => entries.map((entry) => entry.ref.objectNumber);

describe('pageEntries asked again', () => {
  it('gives the same pages, settled, in a copy its caller may reorder', () => {
    const doc = threePages();
    const first = pageEntries(doc);
    first.reverse();
    const again = pageEntries(doc);
    expect(numbers(again)).toEqual([4, 6, 8]);
    expect(again.map((entry) => entry.dict)).toEqual([...first].reverse().map((entry) => entry.dict));
    for (const { dict } of again) expect(dict.get(PDFName.of('Rotate'))?.toString()).toBe('90');
  });

  it('follows a tree rebuilt by setPages', () => {
    const doc = threePages();
    const [one, , three] = pageEntries(doc).map((entry) => entry.ref);
    setPages(doc, [three, one]);
    expect(numbers(pageEntries(doc))).toEqual([8, 4]);
  });

  it('follows /Kids edited in place, and settles the page added', () => {
    const doc = threePages();
    pageEntries(doc);
    const root = doc.context.lookup(doc.catalog.get(PDFName.of('Pages'))) as PDFDict;
    const kids = root.lookup(PDFName.of('Kids')) as PDFArray;
    const added = doc.context.register(doc.context.obj({ Type: 'Page', Parent: doc.catalog.get(PDFName.of('Pages')) as PDFRef }));
    kids.set(1, added);
    const again = pageEntries(doc);
    expect(again.map((entry) => entry.ref)).toEqual([PDFRef.of(4), added, PDFRef.of(8)]);
    // Settled as a new walk settles it: a page size (letter, as qpdf gives) and empty resources.
    expect(again[1].dict.get(MEDIA_BOX)?.toString()).toBe('[ 0 0 612 792 ]');
    expect(again[1].dict.get(PDFName.of('Resources'))).toBeInstanceOf(PDFDict);
  });

  it('follows a page object replaced under its number', () => {
    const doc = threePages();
    const before = pageEntries(doc);
    const replacement = doc.context.obj({ Type: 'Page', Parent: PDFRef.of(2) }) as PDFDict;
    doc.context.assign(PDFRef.of(6), replacement);
    const again = pageEntries(doc);
    expect(again[1].dict).toBe(replacement);
    expect(again[1].dict).not.toBe(before[1].dict);
    expect(replacement.get(MEDIA_BOX)?.toString()).toBe('[ 0 0 612 792 ]');
  });
});
