/**
 * Serializes a parsed object (not a stream's data: the writer handles that)
 * in the same form as the objects' toString, so the sizes they report
 * (sizeInBytes: split_by_size's estimates) match what is written. It walks
 * the dictionary's map and the array's items where they are, handing out
 * tokens rather than building each container's text (nested containers
 * would be built once per level).
 */
import {
  itemsOf,
  KIND_ARRAY,
  KIND_DICT,
  KIND_NAME,
  KIND_NUMBER,
  KIND_REF,
  KIND_STREAM,
  kindOf,
  type PDFArray,
  type PDFDict,
  type PDFName,
  type PDFObject,
  type PDFRef,
  type PDFStream,
} from '../model/primitives.js';

/**
 * Where the written form goes, a token at a time. A reference is handed over
 * as itself, so that a writer of bytes can write its digits without making
 * its `N G R` text (a string per reference written).
 */
export interface TokenWriter {
  token(text: string): void;
  ref(ref: PDFRef): void;
}

export function serialize(object: PDFObject): Uint8Array {
  const parts: string[] = [];
  writeTokens(object, { token: (text) => parts.push(text), ref: (ref) => parts.push(ref.tag) });
  return Buffer.from(parts.join(''), 'latin1');
}

/**
 * Hands the object's written form to `out` in order. The common classes are
 * told apart here, so each call below goes to one method (toString on any
 * object was one call site for every class, the serializer's largest cost).
 */
export function writeTokens(object: PDFObject, out: TokenWriter): void {
  // kindOf rather than instanceof (primitives.ts says why): every value of every parsed object written comes here.
  const kind = kindOf(object);
  if (kind === KIND_NAME) out.token((object as PDFName).asString());
  else if (kind === KIND_REF) out.ref(object as PDFRef);
  else if (kind === KIND_NUMBER) out.token(object.toString());
  else if (kind === KIND_DICT) {
    out.token('<<\n');
    // forEach with `out` as its this: neither an array per entry (for-of) nor a closure per dictionary.
    (object as PDFDict).forEach(writeEntry, out);
    out.token('>>');
  } else if (kind === KIND_ARRAY) {
    out.token('[ ');
    const items = itemsOf(object as PDFArray);
    for (let i = 0; i < items.length; i++) {
      writeTokens(items[i], out);
      out.token(' ');
    }
    out.token(']');
  } else if (kind === KIND_STREAM) {
    // Only a stream's dictionary is ever serialized here; its data goes out as pieces.
    writeTokens((object as PDFStream).dict, out);
  } else {
    // Strings, booleans, null: each keeps its written form.
    out.token(object.toString());
  }
}

function writeEntry(this: TokenWriter, value: PDFObject, key: PDFName): void {
  this.token(key.asString());
  this.token(' ');
  writeTokens(value, this);
  this.token('\n');
}
