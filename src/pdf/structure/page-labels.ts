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
  // What the current range gives each of its pages, read once per range, not per page (a 2,013-page
  // document read its ranges' entries 2,013 times, and PDFName.of decodes its text on every call).
  let range: { start: number; style: PDFName | undefined; prefix: PDFObject | undefined; prefixText: string; first: number } | undefined;
  for (let page = 0; page < pageCount; page++) {
    while (r + 1 < ranges.length && ranges[r + 1].start <= page) {
      const { start, dict } = ranges[++r];
      const style = dict.lookup(S);
      const prefix = dict.get(P);
      const first = dict.lookup(ST);
      range = {
        start,
        style: style instanceof PDFName ? style : undefined,
        prefix,
        prefixText: prefix ? String(doc.context.lookup(prefix) ?? '') : '',
        first: first instanceof PDFNumber ? first.asNumber() : 1,
      };
    }
    if (!range) {
      // Pages before the first range have no label style: plain numbers from 1.
      labels.push({ style: DECIMAL, prefixText: '', value: page + 1 });
      continue;
    }
    labels.push({ style: range.style, prefix: range.prefix, prefixText: range.prefixText, value: range.first + (page - range.start) });
  }
  return labels;
}

const S = PDFName.of('S');
const P = PDFName.of('P');
const ST = PDFName.of('St');
const DECIMAL = PDFName.of('D');

/** Whether `label` follows on from `prev` in one range: then a tree of labels has no entry for it. */
export function continuesRange(prev: PageLabel | undefined, label: PageLabel): boolean {
  return prev !== undefined && prev.style === label.style && prev.prefixText === label.prefixText && prev.value + 1 === label.value;
}

/** The dictionary of the range that starts with `label`, as writePageLabels writes it. */
export function rangeDict(doc: PDFDocument, label: PageLabel): PDFDict {
  const dict = doc.context.obj({}) as PDFDict;
  if (label.style) dict.set(S, label.style);
  if (label.prefix) dict.set(P, label.prefix);
  if (label.value !== 1) dict.set(ST, PDFNumber.of(label.value));
  return dict;
}

/** Writes a /PageLabels tree that gives page i the label `labels[i]`. */
export function writePageLabels(doc: PDFDocument, labels: PageLabel[]): void {
  const nums: PDFObject[] = [];
  labels.forEach((label, i) => {
    if (!continuesRange(labels[i - 1], label)) nums.push(PDFNumber.of(i), rangeDict(doc, label));
  });
  const tree = doc.context.obj({}) as PDFDict;
  tree.set(PDFName.of('Nums'), doc.context.obj(nums) as PDFArray);
  doc.catalog.set(PDFName.of('PageLabels'), doc.context.register(tree));
}
