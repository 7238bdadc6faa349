/**
 * The one object copier. Forks (fork.ts), duplicated pages and widgets
 * (duplicate-page.ts, forms.ts) and merged documents (merge.ts) all copy
 * objects the same way: dictionaries and arrays written inside the object
 * are copied, so editing the copy never touches the original; stream data
 * is shared, since nothing edits it in place; references are kept, or
 * mapped to other numbers (a merge) where `mapRef` says.
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFObject, PDFRawStream, PDFRef, PDFStream } from './lib.js';

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
    if (object instanceof PDFRawStream) {
      return PDFRawStream.of(dict, object.getContents(), (object as unknown as { transform?: never }).transform);
    }
    return PDFRawStream.of(dict, object.getContents());
  }
  // Names, numbers, strings, booleans and null are never edited in place.
  return object;
}
