/**
 * pdfsvc's object store: where a document's indirect objects live, by
 * reference. Three kinds implement it: the reader's lazy table over an input
 * file (reader/object-table.ts), a fork's copies over a loaded document
 * (fork.ts), and a plain store for objects made in memory (MemoryStore).
 * A context (StoreContext, below) reads and writes through one, so that
 * pdf-lib's `lookup` and ours see the same objects; the graph walk and the
 * writer ask the store, never which kind it is.
 */
import { deflateSync } from 'node:zlib';
import { ContextBase, type PDFContext, PDFNull, PDFObject, type PDFRawStream, PDFRef, UnexpectedObjectTypeError } from './lib.js';
import type { RawObject } from '../reader/skim.js';

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

type LookupKey = PDFRef | PDFObject | undefined;
type Literal = Parameters<PDFContext['stream']>[1];

/**
 * A pdf-lib context whose indirect objects are an object store of ours
 * (store.ts): pdf-lib's code (dictionary look-ups, the font and image
 * embedders) and ours then read and write the same objects, and the store
 * decides what a look-up costs (a parse, a fork's copy). The methods below
 * are every one of pdf-lib's that touches its own table of objects, which
 * stays empty.
 */
export class StoreContext extends ContextBase {
  /** A field, not a getter: every look-up of every object goes through it. */
  store: ObjectStore;

  constructor(store?: ObjectStore) {
    super();
    this.store = store ?? NO_STORE;
  }

  /** Gives the context its store, once: the reader parses the trailer with the context before its table exists. */
  attach(store: ObjectStore): void {
    if (this.store !== NO_STORE) throw new Error('the context already has an object store');
    this.store = store;
  }

  override assign(ref: PDFRef, object: PDFObject): void {
    this.store.set(ref, object);
    if (ref.objectNumber > this.largestObjectNumber) this.largestObjectNumber = ref.objectNumber;
  }

  override delete(ref: PDFRef): boolean {
    return this.store.delete(ref);
  }

  // pdf-lib's lookup and lookupMaybe, reading the store: the same type checks and errors.
  override lookup(ref: LookupKey, ...types: unknown[]): any {
    const result = ref instanceof PDFRef ? this.store.get(ref) : ref;
    if (types.length === 0) return result;
    return checked(result, types);
  }

  override lookupMaybe(ref: LookupKey, ...types: unknown[]): any {
    const result = ref instanceof PDFRef ? this.store.get(ref) : ref;
    if (!result || (result === PDFNull && !types.includes(PDFNull))) return undefined;
    return checked(result, types);
  }

  override getObjectRef(object: PDFObject): PDFRef | undefined {
    for (const [ref, held] of this.store.entries()) if (held === object) return ref;
    return undefined;
  }

  override enumerateIndirectObjects(): [PDFRef, PDFObject][] {
    return Array.from(this.store.entries()).sort(([a], [b]) => a.objectNumber - b.objectNumber);
  }

  /**
   * Streams pdf-lib compresses itself (an embedded PNG's colour and alpha
   * channels, font files) go through Node's native zlib instead of fflate's
   * JavaScript deflate: on the image-watermark bench that was 60 ms of a
   * 0.9 s run.
   */
  override flateStream(contents: string | Uint8Array, dict: Literal = {}): PDFRawStream {
    return this.stream(deflateSync(contents), { ...dict, Filter: 'FlateDecode' });
  }
}

/** The store of a context that has none yet: it holds nothing and takes nothing. */
const NO_STORE: ObjectStore = {
  get: () => undefined,
  peek: () => undefined,
  source: () => undefined,
  has: () => false,
  set: () => {
    throw new Error('the context has no object store yet');
  },
  delete: () => false,
  hasObjectStreams: false,
  entries: () => [],
};

function checked(result: PDFObject | undefined, types: unknown[]): PDFObject | undefined {
  for (const type of types) {
    if (type === PDFNull ? result === PDFNull : result instanceof (type as typeof PDFObject)) return result;
  }
  throw new UnexpectedObjectTypeError(types, result);
}

/** The store a context reads through. */
export function storeOf(context: PDFContext): ObjectStore {
  if (context instanceof StoreContext) return context.store;
  throw new TypeError('the context was not made by pdfsvc (StoreContext)');
}
