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
import type { PDFContext, PDFDocument, PDFObject, PDFRef } from './lib.js';
import { type ObjectSource, type ObjectStore, StoreContext, storeOf } from './store.js';

/** The object store of a fork: its own copies over the shared originals. */
class ForkedObjects extends LayeredObjects {
  constructor(
    private readonly base: ObjectStore,
    private readonly context: PDFContext,
  ) {
    super();
  }

  /** The fork's own copy, made on first access (what pdf-lib's lookup calls). */
  get(ref: PDFRef): PDFObject | undefined {
    const own = this.own.get(ref);
    if (own !== undefined || this.removed.has(ref)) return own;
    const original = this.base.peek(ref);
    if (original === undefined) return undefined;
    const copy = copyObject(original, this.context);
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

/**
 * A working copy of `doc` (see the module comment).
 */
export function forkDocument(doc: PDFDocument): PDFDocument {
  const base = doc.context;
  const context = new StoreContext();
  context.attach(new ForkedObjects(storeOf(base), context));
  context.header = base.header;
  context.trailerInfo = { ...base.trailerInfo };
  context.largestObjectNumber = base.largestObjectNumber;
  return { context, catalog: context.lookup(base.trailerInfo.Root) as PDFDocument['catalog'], isEncrypted: false };
}
