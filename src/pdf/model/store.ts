/**
 * pdfsvc's object store: where a document's indirect objects live, by
 * reference. The reader's lazy table over an input file
 * (reader/object-table.ts), a fork's copies over a loaded document (fork.ts)
 * and a merge's inputs under one numbering (merged-objects.ts) implement it.
 * A context (primitives.ts) reads and writes through one; the graph walk
 * and the writer ask the store, never which kind it is.
 */
import type { PDFContext, PDFObject, PDFRef } from './primitives.js';
import type { RawObject } from '../reader/skim.js';
import type { FileRange } from '../../core/lazy-file.js';
import type { Piece } from '../../core/sink.js';
import type { RawStrings } from '../security/raw-strings.js';

/** What a raw source's bytes came from: an input table that can say which references lead somewhere. */
export interface RawOrigin {
  /** True when the input has object `num gen` (a reference to anything else is null). */
  exists(num: number, gen: number): boolean;
  /**
   * The output's reference for the input's `num gen`: itself, or its new
   * number when the object moved into another document (a merge); undefined
   * when the input has no such object.
   */
  refAt(num: number, gen: number): PDFRef | undefined;
  /** Whether an untouched object's input bytes can be written as they are (not ciphertext). */
  bytesAreClear(ref: PDFRef): boolean;
  /** The object parsed afresh and not kept (a writer that reads each object once). */
  parseDetached(ref: PDFRef): PDFObject | undefined;
  /**
   * For a decrypted input (security/decrypt.ts): the plaintext of a stream
   * whose dictionary holds no string, from its input bytes (data: in memory,
   * or a range of the input file), the dictionary unparsed; undefined when
   * the object must be parsed and decrypted instead.
   */
  decryptRawStream?: (ref: PDFRef, raw: RawObject, data: Uint8Array | FileRange) => Piece[] | undefined;
  /** The same for an object with strings and no stream: where its strings lie and their plaintext, as literals. */
  decryptRawStrings?: (ref: PDFRef, raw: RawObject) => RawStrings | undefined;
  /**
   * The input object stream that holds member `num` (an object of the
   * input's own numbering), when it may go out as its input bytes: clear
   * text, no /Extends, no reference in its dictionary, every member listed
   * once at the index the cross-reference gives it. Undefined otherwise.
   */
  objectStreamOf?: (num: number) => InputObjectStream | undefined;
}

/** An input object stream that the writer may copy as its input bytes (writer.ts, writeWithObjectStreams). */
export interface InputObjectStream {
  ref: PDFRef;
  /** The stream as its input bytes (dictionary and compressed data). */
  source: RawSource;
  /** The unpacked members' bytes: an untouched member's skim is a view of these. */
  data: Uint8Array;
  /** The members' object numbers, by index. */
  members: readonly number[];
  /** One past the input's largest object number: a stale member copy may refer to any of them. */
  inputSize: number;
}

/** An untouched input object as its input bytes, with the table it is in. */
export interface RawSource {
  kind: 'raw';
  raw: RawObject;
  table: RawOrigin;
}

/**
 * What the output has for an object: its parsed form when something parsed,
 * changed or created it, else its input bytes (skimmed for references).
 */
export type ObjectSource =
  | { kind: 'parsed'; object: PDFObject }
  | RawSource
  /** An input object that cannot be parsed: its bytes go out as they are. */
  | { kind: 'damaged'; bytes: Uint8Array };

export interface ObjectStore {
  /** The object under `ref`, parsed (and, in a fork, copied) on first use. */
  get(ref: PDFRef): PDFObject | undefined;
  /** The object for reading only: a fork does not copy it. */
  peek(ref: PDFRef): PDFObject | undefined;
  /** What the output has for `ref`, without parsing an untouched input object. */
  source(ref: PDFRef): ObjectSource | undefined;
  has(ref: PDFRef): boolean;
  set(ref: PDFRef, object: PDFObject): void;
  delete(ref: PDFRef): boolean;
  /** True when the input kept objects in object streams (asked before unreachable objects are dropped). */
  readonly hasObjectStreams: boolean;
  /** Every object, parsed: an input table parses all of them first. */
  entries(): Iterable<[PDFRef, PDFObject]>;
}

/** The store a context reads through. */
export function storeOf(context: PDFContext): ObjectStore {
  return context.store;
}
