/**
 * The trailer's file identifier, /ID: an array of two byte strings (ISO
 * 32000-2, 14.4). Encryption of revisions 2 to 4 hashes its first string into
 * the file key, so a reader derives the key from the /ID it sees in the
 * trailer; an /ID a reader cannot see as two strings (a reference to an
 * object that is not written, a malformed array) locks the owner out.
 */
import { PDFArray, PDFContext, PDFHexString, PDFObject, PDFRef, PDFString } from '../model/primitives.js';
import { stringBytes } from './decrypt.js';

const isString = (value: PDFObject | undefined): value is PDFString | PDFHexString => value instanceof PDFString || value instanceof PDFHexString;

/**
 * The two strings of `value` when it is written as the standard has it: an
 * array, not a reference, of exactly two strings, not references, neither
 * empty. Undefined for anything else.
 */
export function directFileId(value: PDFObject | undefined): [Uint8Array, Uint8Array] | undefined {
  if (!(value instanceof PDFArray) || value.size() !== 2) return undefined;
  const [first, second] = [value.get(0), value.get(1)];
  if (!isString(first) || !isString(second)) return undefined;
  const ids: [Uint8Array, Uint8Array] = [stringBytes(first), stringBytes(second)];
  return ids[0].length > 0 && ids[1].length > 0 ? ids : undefined;
}

/**
 * Whether directFileId would find two strings, told without decoding them:
 * every output written asks (each of a split's 202 parts decoded the same
 * two hex strings into buffers). A hex string has bytes when it has a digit
 * that is not white space (stringBytes: a lone digit counts as followed by 0).
 */
function isDirectFileId(value: PDFObject): boolean {
  if (!(value instanceof PDFArray) || value.size() !== 2) return false;
  return hasBytes(value.get(0)) && hasBytes(value.get(1));
}

function hasBytes(item: PDFObject): boolean {
  if (item instanceof PDFHexString) return NOT_WHITE.test(item.asString());
  return item instanceof PDFString && stringBytes(item).length > 0;
}

const NOT_WHITE = /[^\0\t\n\f\r ]/;

/**
 * The /ID to write for an output that is not encrypted: the input's as it
 * is when it is direct; when it is a reference (or holds references) to two
 * strings, those strings, written direct, as qpdf reads them; else none
 * (optional without encryption), rather than a reference to an object the
 * output may not have.
 */
export function fileIdToWrite(context: PDFContext, value: PDFObject | undefined): PDFObject | undefined {
  if (value === undefined || isDirectFileId(value)) return value;
  const array = context.lookup(value);
  if (!(array instanceof PDFArray) || array.size() !== 2) return undefined;
  const strings = [array.get(0), array.get(1)].map((item) => (item instanceof PDFRef ? context.lookup(item) : item));
  const resolved = context.obj(strings.filter(isString));
  return directFileId(resolved) ? resolved : undefined;
}

/** Bytes as a hex string object. */
export const hexString = (bytes: Uint8Array): PDFHexString => PDFHexString.of(Buffer.from(bytes).toString('hex'));

/** A direct /ID array of two byte strings, written in hex. */
export function fileIdArray(context: PDFContext, ids: [Uint8Array, Uint8Array]): PDFArray {
  return context.obj(ids.map(hexString)) as PDFArray;
}
