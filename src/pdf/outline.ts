/**
 * Outlines (bookmarks): pruning entries whose pages are gone, and relinking
 * the sibling chain with correct /Count values.
 */
import { PDFDict, type PDFDocument, PDFName, PDFNumber, PDFRef } from './lib.js';
import { NamedDestinations, targetPage } from './destinations.js';

const FIRST = PDFName.of('First');
const LAST = PDFName.of('Last');
const NEXT = PDFName.of('Next');
const PREV = PDFName.of('Prev');
const PARENT = PDFName.of('Parent');
const COUNT = PDFName.of('Count');

export interface OutlineItem {
  ref: PDFRef;
  dict: PDFDict;
}

/** The children of an outline node, following /First and /Next (cycle-safe). */
export function outlineChildren(doc: PDFDocument, node: PDFDict): OutlineItem[] {
  const items: OutlineItem[] = [];
  const seen = new Set<PDFRef>();
  let ref = node.get(FIRST);
  while (ref instanceof PDFRef && !seen.has(ref)) {
    seen.add(ref);
    const dict = doc.context.lookup(ref);
    if (!(dict instanceof PDFDict)) break;
    items.push({ ref, dict });
    ref = dict.get(NEXT);
  }
  return items;
}

/**
 * Makes `children` the children of `parent`, in order, and returns how many
 * items are visible below `parent` when it is open (for /Count).
 */
export function linkOutlineChildren(parentRef: PDFRef, parent: PDFDict, children: OutlineItem[]): void {
  if (children.length === 0) {
    parent.delete(FIRST);
    parent.delete(LAST);
    return;
  }
  parent.set(FIRST, children[0].ref);
  parent.set(LAST, children[children.length - 1].ref);
  children.forEach((child, i) => {
    child.dict.set(PARENT, parentRef);
    if (i > 0) child.dict.set(PREV, children[i - 1].ref);
    else child.dict.delete(PREV);
    if (i < children.length - 1) child.dict.set(NEXT, children[i + 1].ref);
    else child.dict.delete(NEXT);
  });
}

/**
 * Recomputes /Count below `node`: an open item counts its visible
 * descendants (positive), a closed one the same number negated, the root the
 * total visible items. Returns the number visible below `node` when open.
 */
export function recount(doc: PDFDocument, node: PDFDict, isRoot: boolean): number {
  let visible = 0;
  for (const child of outlineChildren(doc, node)) {
    const below = recount(doc, child.dict, false);
    visible += 1 + (isOpen(child.dict) ? below : 0);
  }
  if (visible === 0) node.delete(COUNT);
  else node.set(COUNT, PDFNumber.of(isRoot || isOpen(node) ? visible : -visible));
  return visible;
}

function isOpen(item: PDFDict): boolean {
  const count = item.lookup(COUNT);
  return !(count instanceof PDFNumber && count.asNumber() < 0);
}

/**
 * Drops outline items that point to a removed page and have no surviving
 * children; an item whose own page is gone but whose children survive is kept
 * and pointed at its first surviving child's destination.
 */
export function pruneOutline(doc: PDFDocument, dropped: Set<PDFRef>, named: NamedDestinations): void {
  const rootRef = doc.catalog.get(PDFName.of('Outlines'));
  const root = doc.context.lookup(rootRef);
  if (!(rootRef instanceof PDFRef) || !(root instanceof PDFDict)) return;
  const seen = new Set<PDFRef>();
  const prune = (nodeRef: PDFRef, node: PDFDict): void => {
    const kept: OutlineItem[] = [];
    for (const item of outlineChildren(doc, node)) {
      if (seen.has(item.ref)) continue;
      seen.add(item.ref);
      prune(item.ref, item.dict);
      const target = targetPage(doc, item.dict, named);
      if (target && dropped.has(target)) {
        const first = outlineChildren(doc, item.dict)[0];
        if (!first) continue;
        retarget(item.dict, first.dict);
      }
      kept.push(item);
    }
    linkOutlineChildren(nodeRef, node, kept);
  };
  prune(rootRef, root);
  recount(doc, root, true);
  if (!root.has(FIRST)) doc.catalog.delete(PDFName.of('Outlines'));
}

function retarget(item: PDFDict, from: PDFDict): void {
  item.delete(PDFName.of('A'));
  item.delete(PDFName.of('Dest'));
  const dest = from.get(PDFName.of('Dest'));
  const action = from.get(PDFName.of('A'));
  if (dest !== undefined) item.set(PDFName.of('Dest'), dest);
  else if (action !== undefined) item.set(PDFName.of('A'), action);
}
