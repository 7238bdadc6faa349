/**
 * An object table in two layers: the objects this table holds itself
 * (parsed, copied, created, replaced) over the ones a layer below provides
 * on demand, with deletions remembered so the layer below cannot bring a
 * deleted object back. The lazy reader's table (reader/object-table.ts) and
 * a fork's (fork.ts) are both this, over the file and over the loaded
 * document. It stands where pdf-lib keeps its Map of indirect objects.
 */
import type { PDFObject, PDFRef } from './lib.js';

export abstract class LayeredObjects extends Map<PDFRef, PDFObject> {
  protected readonly removed = new Set<PDFRef>();

  /** Whether the layer below has `ref`. */
  protected abstract below(ref: PDFRef): boolean;

  /** Whether this table holds `ref` itself (not through the layer below). */
  protected owns(ref: PDFRef): boolean {
    return Map.prototype.has.call(this, ref);
  }

  /** This table's own object for `ref` (not the layer below's). */
  ownObject(ref: PDFRef): PDFObject | undefined {
    return super.get(ref);
  }

  /** Whether this table deleted `ref`. */
  hasRemoved(ref: PDFRef): boolean {
    return this.removed.has(ref);
  }

  override has(ref: PDFRef): boolean {
    return super.has(ref) || (!this.removed.has(ref) && this.below(ref));
  }

  override set(ref: PDFRef, object: PDFObject): this {
    this.removed.delete(ref);
    return super.set(ref, object);
  }

  override delete(ref: PDFRef): boolean {
    const had = this.has(ref);
    this.removed.add(ref);
    super.delete(ref);
    return had;
  }
}
