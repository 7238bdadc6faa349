/**
 * Forks of a loaded document: independent working copies that cost nothing
 * until they are used. A split makes one output per part from a document it
 * parsed once; each part is a fork that the page operations (arrangePages and
 * the pruning behind it) edit as if it were the document, while the loaded
 * document stays untouched for the next part.
 *
 * A fork shares the loaded document's object table. The first time an object
 * is looked up through the fork (context.lookup, or PDFDict.lookup on one of
 * the fork's objects), it is copied into the fork: the object and its direct
 * children (dictionaries and arrays written inside it), with the fork as
 * their context, so that editing it, or anything reached from it, never
 * touches the original. Stream data is never copied: a stream's copy shares
 * its bytes, which nothing edits in place. Objects the fork only reads while
 * writing (`peekObject`) are not copied at all.
 */
import { copyObject } from './copy.js';
import { LayeredObjects } from './layered-objects.js';
import { PDFContext, type PDFDocument, PDFObject, PDFRef } from './lib.js';

/** The object table of a fork: its own copies over the shared originals. */
export class ForkedObjects extends LayeredObjects {
  constructor(
    readonly base: Map<PDFRef, PDFObject>,
    private readonly context: PDFContext,
  ) {
    super();
  }

  /** The fork's own copy, made on first access (what pdf-lib's lookup calls). */
  override get(ref: PDFRef): PDFObject | undefined {
    const own = super.get(ref);
    if (own !== undefined || this.removed.has(ref)) return own;
    const original = this.base.get(ref);
    if (original === undefined) return undefined;
    const copy = copyObject(original, this.context);
    super.set(ref, copy);
    return copy;
  }

  /** The object as the fork sees it, without copying it: for reading only. */
  peek(ref: PDFRef): PDFObject | undefined {
    const own = super.get(ref);
    if (own !== undefined || this.removed.has(ref)) return own;
    return this.base.get(ref);
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
  const context = PDFContext.create();
  context.header = base.header;
  context.trailerInfo = { ...base.trailerInfo };
  context.largestObjectNumber = base.largestObjectNumber;
  const shared = (base as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects;
  (context as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects = new ForkedObjects(shared, context);
  return { context, catalog: context.lookup(base.trailerInfo.Root) as PDFDocument['catalog'], isEncrypted: false };
}

/** Reads an object without making the fork copy it (a plain context just looks it up). */
export function peekObject(context: PDFContext, ref: PDFRef): PDFObject | undefined {
  const objects = (context as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects;
  return objects instanceof ForkedObjects ? objects.peek(ref) : context.lookup(ref);
}
