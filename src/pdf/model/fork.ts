/**
 * Forks of a loaded document: independent working copies that cost nothing
 * until they are used. A split makes one output per part from a document it
 * parsed once; each part is a fork that the page operations (arrangePages and
 * the pruning behind it) edit as if it were the document, while the loaded
 * document stays untouched for the next part.
 *
 * A fork's store is over the loaded document's. The first time an object
 * is looked up through the fork (context.lookup, or PDFDict.lookup on one of
 * the fork's objects), it is copied into the fork: the object and its direct
 * children (dictionaries and arrays written inside it), with the fork as
 * their context, so that editing it, or anything reached from it, never
 * touches the original. Stream data is never copied: a stream's copy shares
 * its bytes, which nothing edits in place. Objects the fork only reads while
 * writing (`peek`) are not copied at all.
 */
import { copyObject } from './copy.js';
import { LayeredObjects } from './layered-objects.js';
import { PDFContext, PDFDict, type PDFDocument, type PDFName, PDFNull, type PDFObject, type PDFRef } from './primitives.js';
import { type ObjectSource, type ObjectStore, storeOf } from './store.js';

/** The object store of a fork: its own copies over the shared originals. */
class ForkedObjects extends LayeredObjects {
  constructor(
    private readonly base: ObjectStore,
    private readonly context: PDFContext,
  ) {
    super();
  }

  /** Entries of objects that the fork's user replaces before reading them (see forkDocument). */
  replaced: ReadonlyMap<PDFRef, readonly PDFName[]> | undefined;

  /** The fork's own copy, made on first access (what a context's lookup calls). */
  get(ref: PDFRef): PDFObject | undefined {
    const own = this.own.get(ref);
    if (own !== undefined || this.removed.has(ref)) return own;
    const original = this.base.peek(ref);
    if (original === undefined) return undefined;
    const keys = this.replaced?.get(ref);
    const copy = copyObject(keys && original instanceof PDFDict ? withNullAt(original, keys) : original, this.context);
    this.own.set(ref, copy);
    return copy;
  }

  /** The object as the fork sees it, without copying it: for reading only. */
  peek(ref: PDFRef): PDFObject | undefined {
    const own = this.own.get(ref);
    if (own !== undefined || this.removed.has(ref)) return own;
    return this.base.peek(ref);
  }

  source(ref: PDFRef): ObjectSource | undefined {
    const own = this.own.get(ref);
    if (own !== undefined) return { kind: 'parsed', object: own };
    if (this.removed.has(ref)) return undefined;
    return this.base.source(ref);
  }

  get hasObjectStreams(): boolean {
    return this.base.hasObjectStreams;
  }

  /** The fork's own objects, then the originals it has neither copied nor deleted. */
  *entries(): Iterable<[PDFRef, PDFObject]> {
    yield* this.own.entries();
    for (const [ref, object] of this.base.entries()) if (!this.own.has(ref) && !this.removed.has(ref)) yield [ref, object];
  }

  protected below(ref: PDFRef): boolean {
    return this.base.has(ref);
  }
}

/** `dict` with null at `keys` (those present), in the same order: what the fork copies instead of values it would throw away. */
function withNullAt(dict: PDFDict, keys: readonly PDFName[]): PDFDict {
  const copy = dict.copyIn(dict.context);
  for (const key of keys) if (copy.get(key, true) !== undefined) copy.set(key, PDFNull);
  return copy;
}

/**
 * A working copy of `doc` (see the module comment). `replaced` names, per
 * object, entries the caller sets anew before it reads them (a split part's
 * /PageLabels and page tree /Kids): the fork's copy has null there, keeping
 * the key's place, rather than a copy of values that would be thrown away
 * (on a 2,000-page document, the 2,000 /Kids and the direct /PageLabels
 * tree, for each of 200 parts).
 */
export function forkDocument(doc: PDFDocument, replaced?: ReadonlyMap<PDFRef, readonly PDFName[]>): PDFDocument {
  const base = doc.context;
  const context = new PDFContext();
  const objects = new ForkedObjects(storeOf(base), context);
  objects.replaced = replaced;
  context.attach(objects);
  context.header = base.header;
  context.trailerInfo = { ...base.trailerInfo };
  context.largestObjectNumber = base.largestObjectNumber;
  return { context, catalog: context.lookup(base.trailerInfo.Root) as PDFDocument['catalog'], isEncrypted: false };
}
