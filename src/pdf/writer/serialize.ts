/**
 * Serializes a parsed object (not a stream's data: the writer handles that)
 * in the same form as pdf-lib's copyBytesInto, so sizes pdf-lib reports
 * (split_by_size's estimates) still match what is written. pdf-lib's own
 * serializer copies every dictionary's entries into a fresh array twice (to
 * measure, then to copy): on a document of 20,000 objects that was most of
 * the garbage of a save. This walks the dictionary's map and the array's
 * items where they are and encodes each object once.
 */
import { entriesOf, itemsOf, PDFArray, PDFDict, PDFObject, PDFStream } from '../model/lib.js';

export function serialize(object: PDFObject): Uint8Array {
  const parts: string[] = [];
  writeTokens(object, (token) => parts.push(token));
  return Buffer.from(parts.join(''), 'latin1');
}

/** Hands the object's written form to `token` in order, a token or a separator at a time. */
export function writeTokens(object: PDFObject, token: (text: string) => void): void {
  if (object instanceof PDFDict) {
    token('<<\n');
    // forEach: a for-of over the map makes an array per entry.
    entriesOf(object).forEach((value, key) => {
      token(key.toString());
      token(' ');
      writeTokens(value, token);
      token('\n');
    });
    token('>>');
  } else if (object instanceof PDFArray) {
    token('[ ');
    for (const item of itemsOf(object)) {
      writeTokens(item, token);
      token(' ');
    }
    token(']');
  } else if (object instanceof PDFStream) {
    // Only a stream's dictionary is ever serialized here; its data goes out as pieces.
    writeTokens(object.dict, token);
  } else {
    // Names, numbers, strings, references, booleans, null: pdf-lib keeps their written form.
    token(object.toString());
  }
}
