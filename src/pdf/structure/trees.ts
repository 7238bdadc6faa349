/**
 * The walks over PDF's two kinds of lookup tree: name trees (named
 * destinations, attachments) and number trees (page labels). Both are
 * nodes with /Kids, whose leaves hold key-value pairs (/Names or /Nums).
 * Each node is visited once (damaged files loop), with a stack of its own
 * rather than recursion, so a deep tree costs no call stack.
 */
import { PDFDict, type PDFContext, type PDFObject } from '../model/lib.js';
import { arrayAt } from '../model/objects.js';

/**
 * Calls `visit` with each key and value of the tree under `root`, in tree
 * order (a node's own pairs, then its kids' in turn), as written: keys and
 * values may be references.
 */
export function forEachTreePair(context: PDFContext, root: PDFDict, pairs: 'Names' | 'Nums', visit: (key: PDFObject, value: PDFObject) => void): void {
  const seen = new Set<PDFDict>();
  const pending: PDFDict[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    const list = arrayAt(node, pairs);
    if (list) {
      const items = list.asArray();
      for (let i = 0; i + 1 < items.length; i += 2) visit(items[i], items[i + 1]);
    }
    const kids = arrayAt(node, 'Kids');
    if (!kids) continue;
    // Stacked last first, so the kids are walked in order.
    const items = kids.asArray();
    for (let i = items.length - 1; i >= 0; i--) {
      const kid = context.lookup(items[i]);
      if (kid instanceof PDFDict) pending.push(kid);
    }
  }
}
