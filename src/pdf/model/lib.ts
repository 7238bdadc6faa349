/**
 * The one door to @cantoo/pdf-lib's object model (dictionaries, arrays,
 * names, references, streams, the object table), which the page operations
 * work with. Reading and writing files is ours (reader/, writer/); pdf-lib's
 * drawing API, fonts and images are imported by the watermark code alone
 * (watermark/drawing-lib.ts).
 *
 * The classes come from pdf-lib's own module files rather than its index:
 * the index loads the whole library (fonts, forms, drawing: 1.3 MB bundled,
 * about 0.1 s of every run), and an action that only moves pages needs a
 * fifth of it. They are the same modules the index re-exports, so the
 * classes are the same ones the drawing code sees; their types are the
 * index's (the module files' own declarations do not resolve on their own).
 */
import type * as PdfLib from '@cantoo/pdf-lib';
import PDFArrayModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFArray.js';
import PDFBoolModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFBool.js';
import PDFDictModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFDict.js';
import PDFHexStringModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFHexString.js';
import PDFNameModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFName.js';
import PDFNullModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFNull.js';
import PDFNumberModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFNumber.js';
import PDFObjectModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFObject.js';
import PDFRawStreamModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFRawStream.js';
import PDFRefModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFRef.js';
import PDFStreamModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFStream.js';
import PDFStringModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFString.js';
import PDFCatalogModule from '../../../node_modules/@cantoo/pdf-lib/es/core/structures/PDFCatalog.js';
import PDFPageLeafModule from '../../../node_modules/@cantoo/pdf-lib/es/core/structures/PDFPageLeaf.js';
import PDFPageTreeModule from '../../../node_modules/@cantoo/pdf-lib/es/core/structures/PDFPageTree.js';
import PDFContextModule from '../../../node_modules/@cantoo/pdf-lib/es/core/PDFContext.js';
import PDFHeaderModule from '../../../node_modules/@cantoo/pdf-lib/es/core/document/PDFHeader.js';
import { UnexpectedObjectTypeError } from '../../../node_modules/@cantoo/pdf-lib/es/core/errors.js';

export const PDFArray = PDFArrayModule as unknown as typeof PdfLib.PDFArray;
export type PDFArray = PdfLib.PDFArray;
export const PDFBool = PDFBoolModule as unknown as typeof PdfLib.PDFBool;
export type PDFBool = PdfLib.PDFBool;
export const PDFDict = PDFDictModule as unknown as typeof PdfLib.PDFDict;
export type PDFDict = PdfLib.PDFDict;
export const PDFHexString = PDFHexStringModule as unknown as typeof PdfLib.PDFHexString;
export type PDFHexString = PdfLib.PDFHexString;
export const PDFName = PDFNameModule as unknown as typeof PdfLib.PDFName;
export type PDFName = PdfLib.PDFName;
export const PDFNull = PDFNullModule as unknown as typeof PdfLib.PDFNull;
export const PDFNumber = PDFNumberModule as unknown as typeof PdfLib.PDFNumber;
export type PDFNumber = PdfLib.PDFNumber;
export const PDFObject = PDFObjectModule as unknown as typeof PdfLib.PDFObject;
export type PDFObject = PdfLib.PDFObject;
export const PDFRawStream = PDFRawStreamModule as unknown as typeof PdfLib.PDFRawStream;
export type PDFRawStream = PdfLib.PDFRawStream;
export const PDFRef = PDFRefModule as unknown as typeof PdfLib.PDFRef;
export type PDFRef = PdfLib.PDFRef;
export const PDFStream = PDFStreamModule as unknown as typeof PdfLib.PDFStream;
export type PDFStream = PdfLib.PDFStream;
export const PDFString = PDFStringModule as unknown as typeof PdfLib.PDFString;
export type PDFString = PdfLib.PDFString;
export const PDFCatalog = PDFCatalogModule as unknown as typeof PdfLib.PDFCatalog;
export type PDFCatalog = PdfLib.PDFCatalog;
export const PDFPageLeaf = PDFPageLeafModule as unknown as typeof PdfLib.PDFPageLeaf;
export type PDFPageLeaf = PdfLib.PDFPageLeaf;
export const PDFPageTree = PDFPageTreeModule as unknown as typeof PdfLib.PDFPageTree;
export type PDFPageTree = PdfLib.PDFPageTree;
export const PDFContext = PDFContextModule as unknown as typeof PdfLib.PDFContext;
export type PDFContext = PdfLib.PDFContext;
export const PDFHeader = PDFHeaderModule as unknown as typeof PdfLib.PDFHeader;
export type PDFHeader = PdfLib.PDFHeader;

/**
 * pdf-lib's raw stream, to subclass (its constructor is declared private:
 * its streams come from PDFRawStream.of). The second is the same class typed
 * without `contents`, so that a subclass may serve the data from an accessor
 * (reader/object-table.ts).
 */
export const RawStream = PDFRawStreamModule as unknown as new (dict: PDFDict, contents: Uint8Array) => PdfLib.PDFRawStream;
export const RawStreamServingContents = PDFRawStreamModule as unknown as new (dict: PDFDict, contents: Uint8Array) => Omit<PdfLib.PDFRawStream, 'contents'>;

// pdf-lib declares its constructor private (its contexts come from PDFContext.create); ours subclass it (store.ts).
export const ContextBase = PDFContextModule as unknown as new () => PdfLib.PDFContext;
export { UnexpectedObjectTypeError };

/**
 * An open document as the page operations see it: its object table and its
 * catalog. (pdf-lib's PDFDocument is a drawing API over the same two; none
 * of our code needs the rest of it.)
 */
export interface PDFDocument {
  readonly context: PDFContext;
  readonly catalog: PDFDict;
  readonly isEncrypted: boolean;
}

/**
 * A dictionary's entries and an array's items where pdf-lib keeps them, for
 * reading only. pdf-lib's own `entries()`, `values()` and `asArray()` copy
 * them into a new array on every call, which walks over every object of a
 * large document pay for many times over.
 */
export function entriesOf(dict: PDFDict): ReadonlyMap<PDFName, PDFObject> {
  return (dict as unknown as { dict: Map<PDFName, PDFObject> }).dict;
}
export function itemsOf(array: PDFArray): readonly PDFObject[] {
  return (array as unknown as { array: PDFObject[] }).array;
}

/**
 * An array of exactly `items` (taken, not copied). One grown by push keeps
 * room for 17 items, 130 bytes too many for the typical `[12 0 R]` (26 MB
 * over a chain of 200,000 of them).
 */
export function arrayOf(context: PDFContext, items: PDFObject[]): PDFArray {
  const array = PDFArray.withContext(context);
  (array as unknown as { array: PDFObject[] }).array = items;
  return array;
}

/**
 * Makes a dictionary or array answer to `context` (its look-ups, the
 * objects it makes): for objects moved into another document rather than
 * copied (copy.ts, moveObject).
 */
export function moveInto(container: PDFDict | PDFArray, context: PDFContext): void {
  (container as unknown as { context: PDFContext }).context = context;
}

/**
 * PDFRef.of on a pool of our own. pdf-lib's is keyed by the reference's
 * text (`"12 0 R"`, built anew on every call) and holds that text twice:
 * about 150 bytes per object number, 28 MB for a document of 200,000
 * objects and twice that for a merge of it (renumbered), and a tenth of the
 * CPU time of walking it. Here the pool is keyed by number (by text only for
 * a generation other than 0), and a reference makes its text only when
 * asked. Like pdf-lib's, the pool keeps every reference made, so each number
 * has one reference for the life of the process. (Weak references would let
 * a server worker give them back, but cost as much memory as the text while
 * a document is open: measured, 17 MB more peak on that document.)
 *
 * Patched when this module loads, before any reference exists: every
 * reference is made here (pdf-lib's own code calls PDFRef.of too).
 */
const refsByNumber = new Map<number, PDFRef>();
const refsByText = new Map<string, PDFRef>();

Object.defineProperty(PDFRef.prototype, 'tag', {
  configurable: true,
  get(this: PDFRef) {
    return `${this.objectNumber} ${this.generationNumber} R`;
  },
});

PDFRef.of = (objectNumber: number, generationNumber = 0): PDFRef => {
  const byNumber = generationNumber === 0 && Number.isSafeInteger(objectNumber);
  const found = byNumber ? refsByNumber.get(objectNumber) : refsByText.get(`${objectNumber} ${generationNumber}`);
  if (found) return found;
  const ref = Object.create(PDFRef.prototype) as { objectNumber: number; generationNumber: number };
  ref.objectNumber = objectNumber;
  ref.generationNumber = generationNumber;
  if (byNumber) refsByNumber.set(objectNumber, ref as PDFRef);
  else refsByText.set(`${objectNumber} ${generationNumber}`, ref as PDFRef);
  return ref as PDFRef;
};
