/**
 * Destinations: where outline items, links and named destinations point.
 * Resolving them to page references lets the page operations drop or keep
 * them with their pages.
 */
import { PDFArray, PDFDict, type PDFDocument, PDFHexString, PDFName, PDFObject, PDFRef, PDFString } from '../model/primitives.js';
import { dictAt } from '../model/objects.js';
import { forEachTreePair } from './trees.js';
import { REF_FIELDS, REF_START, type RawObject } from '../reader/skim.js';
import { isWhite } from '../reader/syntax.js';

/** The name of a named destination, whatever its spelling (name or string). */
export function destinationName(value: PDFObject | undefined): string | undefined {
  if (value instanceof PDFName) return value.decodeText();
  if (value instanceof PDFString || value instanceof PDFHexString) return value.decodeText();
  return undefined;
}

/** Named destinations: the catalog's /Dests dictionary and the /Names /Dests name tree. */
export class NamedDestinations {
  private readonly byName = new Map<string, PDFObject>();

  constructor(doc: PDFDocument) {
    const { catalog } = doc;
    const old = dictAt(catalog, 'Dests');
    if (old) for (const [key, value] of old.entries()) this.byName.set(key.decodeText(), value);
    const tree = dictAt(catalog, 'Names');
    const root = tree && dictAt(tree, 'Dests');
    if (root) forEachNameTreeEntry(doc, root, (name, value) => this.byName.set(name, value));
  }

  get(name: string): PDFObject | undefined {
    return this.byName.get(name);
  }
}

/** Walks a name tree's entries whose key is a name (trees.ts). */
export function forEachNameTreeEntry(doc: PDFDocument, root: PDFDict, visit: (name: string, value: PDFObject, key: PDFObject) => void): void {
  forEachTreePair(doc.context, root, 'Names', (key, value) => {
    const name = destinationName(doc.context.lookup(key) ?? key);
    if (name !== undefined) visit(name, value, key);
  });
}

/**
 * The page a destination points to: an explicit array `[page /XYZ …]`, a
 * named destination, or a dictionary holding one under /D. Undefined when
 * it points nowhere in this document (remote, by page number, or broken).
 */
export function destinationPage(doc: PDFDocument, dest: PDFObject | undefined, named: NamedDestinations, depth = 0): PDFRef | undefined {
  if (dest === undefined || depth > 8) return undefined;
  const value = dest instanceof PDFRef ? doc.context.lookup(dest) : dest;
  if (value instanceof PDFArray) {
    const first = value.get(0);
    return first instanceof PDFRef ? first : undefined;
  }
  if (value instanceof PDFDict) return destinationPage(doc, value.get(PDFName.of('D')), named, depth + 1);
  const name = destinationName(value);
  if (name !== undefined) return destinationPage(doc, named.get(name), named, depth + 1);
  return undefined;
}

/** The page an outline item or link goes to, through /Dest or a GoTo action. */
export function targetPage(doc: PDFDocument, holder: PDFDict, named: NamedDestinations): PDFRef | undefined {
  const dest = holder.get(PDFName.of('Dest'));
  if (dest !== undefined) return destinationPage(doc, dest, named);
  const action = dictAt(holder, 'A');
  if (action && action.lookup(PDFName.of('S')) === PDFName.of('GoTo')) {
    return destinationPage(doc, action.get(PDFName.of('D')), named);
  }
  return undefined;
}

/**
 * True when an annotation's input bytes show that targetPage finds no page
 * in it: no /Dest, no GoTo, and neither /A nor /S given by reference. The
 * page actions and split_by_size ask it of every link, so that such an
 * annotation (a URI link) is not parsed: removing page 1 of a document of
 * 1,700 links parsed every one of them. A `#` (a name escape could spell
 * these names) or a `%` (a comment could stand between a key and its value)
 * leaves the answer to the parse; so do these words inside a string.
 */
export function leadsToNoPage(raw: RawObject): boolean {
  const { data, start, end, refs } = raw;
  if (raw.stream) return false;
  // One pass by hand: four Buffer.indexOf calls per annotation cost more than the look itself.
  for (let at = start; at < end; at++) {
    const c = data[at];
    if (c === 0x23 || c === 0x25) return false;
    // `Dest`, `GoTo`
    if (c === 0x44 && data[at + 1] === 0x65 && data[at + 2] === 0x73 && data[at + 3] === 0x74 && at + 4 <= end) return false;
    if (c === 0x47 && data[at + 1] === 0x6f && data[at + 2] === 0x54 && data[at + 3] === 0x6f && at + 4 <= end) return false;
  }
  for (let i = 0; i < refs.length; i += REF_FIELDS) {
    let at = refs[i + REF_START];
    while (at > start && isWhite(data[at - 1])) at--;
    const key = data[at - 1];
    if ((key === 0x41 || key === 0x53) && at - 2 >= start && data[at - 2] === 0x2f) return false;
  }
  return true;
}
