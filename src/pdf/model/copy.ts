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
  PDFArray,
  PDFCatalog,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFObject,
  PDFPageLeaf,
  PDFPageTree,
  PDFRawStream,
  PDFRef,
  PDFStream,
  moveInto,
} from './lib.js';
import { streamWithDataOf } from '../reader/object-table.js';

/** A copy of `object` owned by `context`; `mapRef` rewrites each reference inside it (default: kept). */
export function copyObject<T extends PDFObject>(object: T, context: PDFContext, mapRef?: (ref: PDFRef) => PDFObject): T {
  return copy(object, context, mapRef) as T;
}

/**
 * The copy, made with a stack of its own rather than by recursion, however
 * deeply the object is nested: each container is made at once with its
 * entries in place, and filled as the walk reaches them. Children are
 * stacked last first, so they are reached in the order recursion would
 * reach them (`mapRef` may number what it meets in that order).
 */
function copy(object: PDFObject, context: PDFContext, mapRef?: (ref: PDFRef) => PDFObject): PDFObject {
  let result: PDFObject = object;
  const pending: Array<[PDFObject, (copied: PDFObject) => void]> = [[object, (copied) => (result = copied)]];
  while (pending.length > 0) {
    const [from, put] = pending.pop()!;
    if (from instanceof PDFRef) put(mapRef ? mapRef(from) : from);
    else if (from instanceof PDFDict) put(copyDict(from, context, pending));
    else if (from instanceof PDFArray) {
      const array = PDFArray.withContext(context);
      const items = from.asArray();
      for (const value of items) array.push(value);
      for (let i = items.length - 1; i >= 0; i--) pending.push([items[i], (copied) => array.set(i, copied)]);
      put(array);
    } else if (from instanceof PDFStream) {
      const dict = copyDict(from.dict, context, pending);
      put(from instanceof PDFRawStream ? streamWithDataOf(from, dict) : PDFRawStream.of(dict, from.getContents()));
    } else {
      // Names, numbers, strings, booleans and null are never edited in place.
      put(from);
    }
  }
  return result;
}

/** A new dictionary with `from`'s keys in their order; its values are copied as the walk in `copy` reaches them. */
function copyDict(from: PDFDict, context: PDFContext, pending: Array<[PDFObject, (copied: PDFObject) => void]>): PDFDict {
  const map = new Map<PDFName, PDFObject>();
  const entries = from.entries();
  for (const [key, value] of entries) map.set(key, value);
  for (let i = entries.length - 1; i >= 0; i--) {
    const [key, value] = entries[i];
    pending.push([value, (copied) => map.set(key, copied)]);
  }
  // Keep the class (pdf-lib's three kinds of dictionary): it serializes the same, and pdf-lib checks it in places.
  if (from instanceof PDFPageLeaf) return PDFPageLeaf.fromMapWithContext(map, context);
  if (from instanceof PDFPageTree) return PDFPageTree.fromMapWithContext(map, context);
  if (from instanceof PDFCatalog) return PDFCatalog.fromMapWithContext(map, context);
  return PDFDict.fromMapWithContext(map, context);
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
    const container = item instanceof PDFStream ? item.dict : item;
    if (!(container instanceof PDFDict || container instanceof PDFArray) || moved.has(container)) continue;
    moved.add(container);
    moveInto(container, context);
    if (container instanceof PDFDict) {
      for (const [key, value] of container.entries()) {
        if (value instanceof PDFRef) container.set(key, mapRef(value));
        else pending.push(value);
      }
    } else {
      container.asArray().forEach((value, i) => {
        if (value instanceof PDFRef) container.set(i, mapRef(value));
        else pending.push(value);
      });
    }
  }
}
