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
  write(object, parts);
  return Buffer.from(parts.join(''), 'latin1');
}

function write(object: PDFObject, parts: string[]): void {
  if (object instanceof PDFDict) {
    parts.push('<<\n');
    for (const [key, value] of entriesOf(object)) {
      parts.push(key.toString(), ' ');
      write(value, parts);
      parts.push('\n');
    }
    parts.push('>>');
  } else if (object instanceof PDFArray) {
    parts.push('[ ');
    for (const item of itemsOf(object)) {
      write(item, parts);
      parts.push(' ');
    }
    parts.push(']');
  } else if (object instanceof PDFStream) {
    // Only a stream's dictionary is ever serialized here; its data goes out as pieces.
    write(object.dict, parts);
  } else {
    // Names, numbers, strings, references, booleans, null: pdf-lib keeps their written form.
    parts.push(object.toString());
  }
}
