/**
 * The one object copier. Forks (fork.ts), duplicated pages and widgets
 * (duplicate-page.ts, forms.ts) copy objects the same way: dictionaries and
 * arrays written inside the object are copied, so editing the copy never
 * touches the original; stream data is shared, since nothing edits it in
 * place (and data still in the input file is not read in); references are
 * kept, or mapped to other numbers where `mapRef` says. A merge, whose later
 * inputs are dropped once moved, moves their objects instead (moveObject).
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFObject, PDFRawStream, PDFRef, PDFStream } from './lib.js';
import { streamWithDataOf } from './reader/object-table.js';

type DictClass = { fromMapWithContext(map: Map<PDFName, PDFObject>, context: PDFContext): PDFDict };

/** A copy of `object` owned by `context`; `mapRef` rewrites each reference inside it (default: kept). */
export function copyObject<T extends PDFObject>(object: T, context: PDFContext, mapRef?: (ref: PDFRef) => PDFObject): T {
  return copy(object, context, mapRef) as T;
}

function copy(object: PDFObject, context: PDFContext, mapRef?: (ref: PDFRef) => PDFObject): PDFObject {
  if (object instanceof PDFRef) return mapRef ? mapRef(object) : object;
  if (object instanceof PDFDict) {
    const map = new Map<PDFName, PDFObject>();
    for (const [key, value] of object.entries()) map.set(key, copy(value, context, mapRef));
    // Keep the class (PDFCatalog, PDFPageLeaf, …): it serializes the same, and pdf-lib checks it in places.
    const kind = object.constructor as unknown as DictClass;
    return (typeof kind.fromMapWithContext === 'function' ? kind : PDFDict).fromMapWithContext(map, context);
  }
  if (object instanceof PDFArray) {
    const array = PDFArray.withContext(context);
    for (const value of object.asArray()) array.push(copy(value, context, mapRef));
    return array;
  }
  if (object instanceof PDFStream) {
    const dict = copy(object.dict, context, mapRef) as PDFDict;
    if (object instanceof PDFRawStream) return streamWithDataOf(object, dict);
    return PDFRawStream.of(dict, object.getContents());
  }
  // Names, numbers, strings, booleans and null are never edited in place.
  return object;
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
  const container = object instanceof PDFStream ? object.dict : object;
  if (!(container instanceof PDFDict || container instanceof PDFArray) || moved.has(container)) return;
  moved.add(container);
  (container as unknown as { context: PDFContext }).context = context;
  if (container instanceof PDFDict) {
    for (const [key, value] of container.entries()) {
      if (value instanceof PDFRef) container.set(key, mapRef(value));
      else moveObject(value, context, mapRef, moved);
    }
  } else {
    container.asArray().forEach((value, i) => {
      if (value instanceof PDFRef) container.set(i, mapRef(value));
      else moveObject(value, context, mapRef, moved);
    });
  }
}
