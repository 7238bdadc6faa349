/**
 * Page labels (/PageLabels number tree): read as one label per page, and
 * written back for a new page order, so every page keeps the label the
 * reader showed for it ("iv", "A-3", …).
 */
import { forEachTreePair } from './trees.js';
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFNumber, PDFObject } from '../model/primitives.js';

export interface PageLabel {
  style?: PDFName;
  prefix?: PDFObject;
  prefixText: string;
  value: number;
}

/** One label per page, or undefined when the document has no page labels. */
export function readPageLabels(doc: PDFDocument, pageCount: number): PageLabel[] | undefined {
  const root = doc.catalog.lookup(PDFName.of('PageLabels'));
  if (!(root instanceof PDFDict)) return undefined;
  const ranges: Array<{ start: number; dict: PDFDict }> = [];
  forEachTreePair(doc.context, root, 'Nums', (item, value) => {
    const key = doc.context.lookup(item);
    const dict = doc.context.lookup(value);
    if (key instanceof PDFNumber && dict instanceof PDFDict) ranges.push({ start: key.asNumber(), dict });
  });
  if (ranges.length === 0) return undefined;
  ranges.sort((a, b) => a.start - b.start);
  const labels: PageLabel[] = [];
  let r = -1;
  for (let page = 0; page < pageCount; page++) {
    while (r + 1 < ranges.length && ranges[r + 1].start <= page) r++;
    if (r < 0) {
      // Pages before the first range have no label style: plain numbers from 1.
      labels.push({ style: PDFName.of('D'), prefixText: '', value: page + 1 });
      continue;
    }
    const { start, dict } = ranges[r];
    const style = dict.lookup(PDFName.of('S'));
    const prefix = dict.get(PDFName.of('P'));
    const first = dict.lookup(PDFName.of('St'));
    labels.push({
      style: style instanceof PDFName ? style : undefined,
      prefix,
      prefixText: prefix ? String(doc.context.lookup(prefix) ?? '') : '',
      value: (first instanceof PDFNumber ? first.asNumber() : 1) + (page - start),
    });
  }
  return labels;
}

/** Writes a /PageLabels tree that gives page i the label `labels[i]`. */
export function writePageLabels(doc: PDFDocument, labels: PageLabel[]): void {
  const nums: PDFObject[] = [];
  labels.forEach((label, i) => {
    const prev = labels[i - 1];
    const continues = prev && prev.style === label.style && prev.prefixText === label.prefixText && prev.value + 1 === label.value;
    if (continues) return;
    const dict = doc.context.obj({}) as PDFDict;
    if (label.style) dict.set(PDFName.of('S'), label.style);
    if (label.prefix) dict.set(PDFName.of('P'), label.prefix);
    if (label.value !== 1) dict.set(PDFName.of('St'), PDFNumber.of(label.value));
    nums.push(PDFNumber.of(i), dict);
  });
  const tree = doc.context.obj({}) as PDFDict;
  tree.set(PDFName.of('Nums'), doc.context.obj(nums) as PDFArray);
  doc.catalog.set(PDFName.of('PageLabels'), doc.context.register(tree));
}
