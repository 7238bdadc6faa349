/**
 * Object helpers: reference rewriting and typed look-ups.
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNull, PDFObject, PDFRef, PDFStream } from './primitives.js';
import { type Walk, walkGraph } from './graph.js';
import { storeOf } from './store.js';
import { setChild, walkInside } from './walk.js';

/**
 * Replaces every reference to one of `targets` by null in all reachable
 * objects (except the targets themselves), so nothing keeps a removed page
 * alive: structure-tree /Pg entries, article beads, stray /P entries.
 * Only the objects that hold such a reference are parsed (and, in a fork,
 * copied); the rest are looked at through their input bytes.
 */
export function nullifyReferences(context: PDFContext, targets: RefTargets): void {
  if (targets.size === 0) return;
  const { Root, Info } = context.trailerInfo;
  const walk = walkGraph(context, [Root, Info], (ref) => !targets.has(ref));
  nullifyReached(context, walk, targets);
}

/** References to remove: a set of them, or anything that answers `has` and knows its size. */
export type RefTargets = Pick<ReadonlySet<PDFRef>, 'has' | 'size'>;

/**
 * The second half of nullifyReferences, over a walk whose `enter` refused
 * exactly the targets: each object it reached holding a reference to a
 * target (its `holders`) is parsed and has it set to null, and its entry in
 * `reached` becomes what the output has for it now (the writer walks once
 * for both: writer.ts).
 */
export function nullifyReached(context: PDFContext, { reached, holders }: Walk, targets: RefTargets): void {
  const store = storeOf(context);
  for (const ref of holders) {
    const object = context.lookup(ref);
    if (!object) continue;
    replaceReferences(object, targets);
    const now = store.source(ref);
    if (now) reached.set(ref, now);
  }
}

/** Sets every reference to one of `targets` inside `obj` (at any depth) to null. */
function replaceReferences(obj: PDFObject, targets: Pick<ReadonlySet<PDFRef>, 'has'>): void {
  walkInside(obj, (child, holder, at) => {
    if (child instanceof PDFRef && targets.has(child)) setChild(holder, at, PDFNull);
  });
}

/** Looks a key up, following references, and returns it only if it is a dictionary. */
export function dictAt(holder: PDFDict, key: string): PDFDict | undefined {
  const value = holder.lookup(PDFName.of(key));
  if (value instanceof PDFDict) return value;
  if (value instanceof PDFStream) return value.dict;
  return undefined;
}

export function arrayAt(holder: PDFDict, key: string): PDFArray | undefined {
  const value = holder.lookup(PDFName.of(key));
  return value instanceof PDFArray ? value : undefined;
}
