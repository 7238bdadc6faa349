/**
 * Outlines (bookmarks): pruning entries whose pages are gone, and relinking
 * the sibling chain with correct /Count values.
 */
import { PDFDict, type PDFDocument, PDFName, PDFNumber, PDFRef } from '../model/primitives.js';
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

/** An item of an outline with where it sits: the index of its parent in the list (-1: the root's child). */
export interface PlacedOutlineItem extends OutlineItem {
  parent: number;
}

/**
 * Every item below `root`, each once and parents before children (breadth
 * first), without recursion: outlines in the wild loop (/First or /Next back
 * to an item, /Parent cycles) and hostile ones nest thousands deep.
 */
export function outlineItems(doc: PDFDocument, root: PDFDict): PlacedOutlineItem[] {
  const items: PlacedOutlineItem[] = [];
  const seen = new Set<PDFRef>();
  const add = (node: PDFDict, parent: number) => {
    for (const item of outlineChildren(doc, node)) {
      if (seen.has(item.ref)) continue;
      seen.add(item.ref);
      items.push({ ...item, parent });
    }
  };
  add(root, -1);
  for (let i = 0; i < items.length; i++) add(items[i].dict, i);
  return items;
}

/**
 * Relinks every item below `root` as outlineItems reads the tree: each item
 * once, under one parent, with /First, /Last, /Next, /Prev and /Parent
 * agreeing and no loop left for a reader to fall into.
 */
export function relinkOutline(doc: PDFDocument, rootRef: PDFRef, root: PDFDict): void {
  const items = outlineItems(doc, root);
  const children = items.map((): OutlineItem[] => []);
  const top: OutlineItem[] = [];
  for (const item of items) (item.parent >= 0 ? children[item.parent] : top).push(item);
  items.forEach((item, i) => linkOutlineChildren(item.ref, item.dict, children[i]));
  linkOutlineChildren(rootRef, root, top);
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
export function recount(doc: PDFDocument, root: PDFDict, isRoot: boolean): number {
  const items = outlineItems(doc, root);
  const visible = new Array<number>(items.length).fill(0);
  let rootVisible = 0;
  // Children come after their parents in the list: backwards, each item is done before its parent.
  for (let i = items.length - 1; i >= 0; i--) {
    const { dict, parent } = items[i];
    setCount(dict, visible[i], isOpen(dict));
    const shown = 1 + (isOpen(dict) ? visible[i] : 0);
    if (parent >= 0) visible[parent] += shown;
    else rootVisible += shown;
  }
  setCount(root, rootVisible, isRoot || isOpen(root));
  return rootVisible;
}

function setCount(node: PDFDict, visible: number, open: boolean): void {
  if (visible === 0) node.delete(COUNT);
  else node.set(COUNT, PDFNumber.of(open ? visible : -visible));
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
export function pruneOutline(doc: PDFDocument, dropped: Pick<ReadonlySet<PDFRef>, 'has'>, named: NamedDestinations): void {
  const rootRef = doc.catalog.get(PDFName.of('Outlines'));
  const root = doc.context.lookup(rootRef);
  if (!(rootRef instanceof PDFRef) || !(root instanceof PDFDict)) return;
  const items = outlineItems(doc, root);
  // Backwards (children before parents): each item learns which of its children stay before it decides on itself.
  const keptChildren = items.map((): OutlineItem[] => []);
  const keptAtRoot: OutlineItem[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    const kept = keptChildren[i].reverse();
    linkOutlineChildren(item.ref, item.dict, kept);
    const target = targetPage(doc, item.dict, named);
    if (target && dropped.has(target)) {
      if (kept.length === 0) continue;
      retarget(item.dict, kept[0].dict);
    }
    (item.parent >= 0 ? keptChildren[item.parent] : keptAtRoot).push(item);
  }
  linkOutlineChildren(rootRef, root, keptAtRoot.reverse());
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
