/**
 * An object store in two layers: the objects this store holds itself
 * (parsed, copied, created, replaced) over the ones a layer below provides
 * on demand, with deletions remembered so the layer below cannot bring a
 * deleted object back. The lazy reader's table (reader/object-table.ts) and
 * a fork's (fork.ts) are both this, over the file and over the loaded
 * document.
 */
import type { PDFObject, PDFRef } from './primitives.js';
import type { ObjectSource, ObjectStore } from './store.js';

export abstract class LayeredObjects implements ObjectStore {
  /** The objects this store holds itself. */
  protected readonly own = new Map<PDFRef, PDFObject>();
  protected readonly removed = new Set<PDFRef>();

  abstract get(ref: PDFRef): PDFObject | undefined;
  abstract peek(ref: PDFRef): PDFObject | undefined;
  abstract source(ref: PDFRef): ObjectSource | undefined;
  abstract readonly hasObjectStreams: boolean;
  abstract entries(): Iterable<[PDFRef, PDFObject]>;

  /** Whether the layer below has `ref`. */
  protected abstract below(ref: PDFRef): boolean;

  has(ref: PDFRef): boolean {
    return this.own.has(ref) || (!this.removed.has(ref) && this.below(ref));
  }

  set(ref: PDFRef, object: PDFObject): void {
    this.removed.delete(ref);
    this.own.set(ref, object);
  }

  delete(ref: PDFRef): boolean {
    const had = this.has(ref);
    this.removed.add(ref);
    this.own.delete(ref);
    return had;
  }
}
