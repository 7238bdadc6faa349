/**
 * Serializes a parsed object (not a stream's data: the writer handles that)
 * in the same form as the objects' toString, so the sizes they report
 * (sizeInBytes: split_by_size's estimates) match what is written. It walks
 * the dictionary's map and the array's items where they are, handing out
 * tokens rather than building each container's text (nested containers
 * would be built once per level).
 */
import { entriesOf, itemsOf, PDFArray, PDFDict, PDFObject, PDFStream } from '../model/primitives.js';

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
    // Names, numbers, strings, references, booleans, null: each keeps its written form.
    token(object.toString());
  }
}
