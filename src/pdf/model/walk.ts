/**
 * The one step from an object to what is written inside it, and the one
 * walk built on it. Everything that looks through objects (the graph walk's
 * references, replacing references to removed pages, decrypting strings,
 * finding attachments, weighing a page for split_by_size) goes through
 * these. The walk keeps a stack of its own rather than recursing: nesting is
 * bounded by the parser, but objects made in memory are not.
 */
import { itemsOf, KIND_ARRAY, KIND_DICT, KIND_STREAM, kindOf, type PDFArray, PDFDict, type PDFName, type PDFObject, type PDFStream } from './primitives.js';

/** Where a child is written: the dictionary or array that holds it, and its key or index there. */
export type Holder = PDFDict | PDFArray;
export type Visit = (child: PDFObject, holder: Holder, at: PDFName | number) => void;

/**
 * Calls `visit` with each direct child of `obj`, in order: a dictionary's
 * values, an array's items, a stream's dictionary's values. References are
 * children like any other value: they are not followed. `visit` may replace
 * the child in its holder (`holder.set(at, …)`), not add or remove one.
 */
export function forEachChild(obj: PDFObject, visit: Visit): void {
  // kindOf rather than instanceof (primitives.ts says why): a walk asks this of every object it meets.
  const container = kindOf(obj) === KIND_STREAM ? (obj as PDFStream).dict : obj;
  const kind = kindOf(container);
  if (kind === KIND_DICT) {
    const dict = container as PDFDict;
    // forEach: a for-of over the entries makes an array per entry, on every object of a walk. Its callback is
    // made once, with the visit and the holder in module variables (restored after: a visit may walk too).
    const outerVisit = entryVisit;
    const outerHolder = entryHolder;
    entryVisit = visit;
    entryHolder = dict;
    try {
      dict.forEach(visitEntry);
    } finally {
      entryVisit = outerVisit;
      entryHolder = outerHolder;
    }
  } else if (kind === KIND_ARRAY) {
    const array = container as PDFArray;
    const items = itemsOf(array);
    for (let i = 0; i < items.length; i++) visit(items[i], array, i);
  }
}

/** Whether forEachChild can find anything in `obj`: only dictionaries, arrays and streams hold values. */
export function holdsChildren(obj: PDFObject): boolean {
  // Dictionaries, arrays and streams are the kinds from KIND_DICT up.
  return kindOf(obj) >= KIND_DICT;
}

let entryVisit: Visit | undefined;
let entryHolder: PDFDict | undefined;

function visitEntry(value: PDFObject, key: PDFName): void {
  entryVisit!(value, entryHolder!, key);
}

/**
 * Calls `visit` with every object written inside `root`, at any depth, in
 * the order recursion would reach them (each before what it holds), and
 * with where it is written. `root` itself is not visited. When `visit`
 * returns false, what the object holds is not walked.
 */
export function walkInside(root: PDFObject, visit: (child: PDFObject, holder: Holder, at: PDFName | number) => boolean | void): void {
  // Three stacks side by side, not a tuple per child, shared by every walk from its base up (a walk started
  // inside `visit` works above this one's): stacks and closures of their own were made for every object an
  // encryption or decryption walks.
  const base = children.length;
  try {
    stackChildren(root);
    while (children.length > base) {
      const child = children.pop()!;
      if (visit(child, holders.pop()!, ats.pop()!) !== false && holdsChildren(child)) stackChildren(child);
    }
  } finally {
    children.length = base;
    holders.length = base;
    ats.length = base;
  }
}

const children: PDFObject[] = [];
const holders: Holder[] = [];
const ats: Array<PDFName | number> = [];

function stackChild(child: PDFObject, holder: Holder, at: PDFName | number): void {
  children.push(child);
  holders.push(holder);
  ats.push(at);
}

function stackChildren(obj: PDFObject): void {
  const start = children.length;
  forEachChild(obj, stackChild);
  // Last child on top would be reached first: reversed, they are reached in order.
  for (let i = start, j = children.length - 1; i < j; i++, j--) {
    const child = children[i];
    children[i] = children[j];
    children[j] = child;
    const holder = holders[i];
    holders[i] = holders[j];
    holders[j] = holder;
    const at = ats[i];
    ats[i] = ats[j];
    ats[j] = at;
  }
}

/** Replaces the child written at `at` in `holder`. */
export function setChild(holder: Holder, at: PDFName | number, value: PDFObject): void {
  if (holder instanceof PDFDict) holder.set(at as PDFName, value);
  else holder.set(at as number, value);
}
