/**
 * The one object copier. Forks (fork.ts), duplicated pages and widgets
 * (duplicate-page.ts, forms.ts) copy objects the same way: dictionaries and
 * arrays written inside the object are copied, so editing the copy never
 * touches the original; stream data is shared, since nothing edits it in
 * place (and data still in the input file is not read in); references are
 * kept, or mapped to other numbers where `mapRef` says. A merge, whose later
 * inputs are dropped once moved, moves their objects instead (moveObject).
 */
import {
  KIND_ARRAY,
  KIND_DICT,
  KIND_REF,
  KIND_STREAM,
  kindOf,
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFObject,
  PDFRawStream,
  PDFRef,
  PDFStream,
  arrayOf,
  itemsOf,
} from './primitives.js';
import { streamWithDataOf } from '../reader/object-table.js';
import { holdsChildren } from './walk.js';

/** A copy of `object` owned by `context`; `mapRef` rewrites each reference inside it (default: kept). */
export function copyObject<T extends PDFObject>(object: T, context: PDFContext, mapRef?: (ref: PDFRef) => PDFObject): T {
  return copy(object, context, mapRef) as T;
}

/**
 * A container of the copy whose values are still the originals: the walk
 * in `copy` replaces them in order. A dictionary's keys go with its values;
 * an array's values are its own items.
 */
interface Unfilled {
  readonly values: PDFObject[];
  readonly keys: PDFName[] | undefined;
  readonly dict: PDFDict | undefined;
  next: number;
}

/**
 * The copy, made with a stack of its own rather than by recursion, however
 * deeply the object is nested: each container is made at once with the
 * original values in place, and its values are replaced by their copies as
 * the walk reaches them, depth first in order, as recursion would
 * (`mapRef` may number what it meets in that order). One stack entry per
 * container, not a tuple and a closure per value: a split's forks copy
 * every object they edit, and those were a fifth of a split's garbage.
 */
function copy(object: PDFObject, context: PDFContext, mapRef?: (ref: PDFRef) => PDFObject): PDFObject {
  const stack: Unfilled[] = [];
  const result = begin(object, context, mapRef, stack);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next === top.values.length) {
      stack.pop();
      continue;
    }
    const i = top.next++;
    const value = top.values[i];
    const copied = begin(value, context, mapRef, stack);
    if (copied === value) continue;
    if (top.dict) top.dict.set(top.keys![i], copied);
    else top.values[i] = copied;
  }
  return result;
}

/** The copy of `from` with its children not yet copied (stacked for `copy` to fill); a leaf as it is. */
function begin(from: PDFObject, context: PDFContext, mapRef: ((ref: PDFRef) => PDFObject) | undefined, stack: Unfilled[]): PDFObject {
  if (from instanceof PDFRef) return mapRef ? mapRef(from) : from;
  if (from instanceof PDFDict) return copyDict(from, context, stack);
  if (from instanceof PDFArray) {
    const values = itemsOf(from).slice();
    if (values.length > 0) stack.push({ values, keys: undefined, dict: undefined, next: 0 });
    return arrayOf(context, values);
  }
  if (from instanceof PDFStream) {
    const dict = copyDict(from.dict, context, stack);
    return from instanceof PDFRawStream ? streamWithDataOf(from, dict) : PDFRawStream.of(dict, from.getContents());
  }
  // Names, numbers, strings, booleans and null are never edited in place.
  return from;
}

/** A new dictionary with `from`'s entries in their order, stacked for `copy` to replace its values by copies. */
function copyDict(from: PDFDict, context: PDFContext, stack: Unfilled[]): PDFDict {
  const dict = from.copyIn(context);
  if (dict.size > 0) stack.push({ values: dict.values(), keys: dict.keys(), dict, next: 0 });
  return dict;
}

/**
 * Moves `object` into `context` rather than copying it: its references are
 * replaced where they stand (a PDFRef is one interned instance for every
 * document, so it is never changed), and its dictionaries and arrays answer
 * to the new context. For objects whose document is dropped after (a merge's later
 * inputs): copying them all made a merge a quarter slower, all of it garbage.
 * `moved` holds the containers already rewritten, since a direct dictionary
 * can be shared (inherited page attributes pushed onto each leaf) and
 * rewriting it twice would map new numbers again.
 */
export function moveObject(object: PDFObject, context: PDFContext, mapRef: (ref: PDFRef) => PDFObject, moved: Set<PDFObject>): void {
  // A stack of its own, not recursion: direct objects can be nested deeply.
  const pending: PDFObject[] = [object];
  while (pending.length > 0) {
    const item = pending.pop()!;
    // kindOf rather than instanceof (primitives.ts says why): a merge moves every page and what it holds.
    const container = kindOf(item) === KIND_STREAM ? (item as PDFStream).dict : item;
    const kind = kindOf(container);
    if (!(kind === KIND_DICT || kind === KIND_ARRAY) || moved.has(container)) continue;
    moved.add(container);
    (container as PDFDict | PDFArray).context = context;
    // In place, without copying the entries or items first: replacing a key's value keeps a map's order.
    if (kind === KIND_DICT) {
      const dict = container as PDFDict;
      dict.forEach((value, key) => {
        if (kindOf(value) === KIND_REF) dict.set(key, mapRef(value as PDFRef));
        else if (holdsChildren(value)) pending.push(value);
      });
    } else {
      const items = (container as PDFArray).items;
      for (let i = 0; i < items.length; i++) {
        const value = items[i];
        if (kindOf(value) === KIND_REF) items[i] = mapRef(value as PDFRef);
        else if (holdsChildren(value)) pending.push(value);
      }
    }
  }
}
