/**
 * The object graph, walked from roots,
 * through references, each object once (cycles are common: /Parent, /P).
 *
 * An object is seen as what the output would write for it (`ObjectSource`):
 * its parsed form when something parsed, changed or created it, else its
 * input bytes, whose references come from skimming them. So walking a
 * document (for the writer, or to find what still points at a removed page)
 * parses nothing it does not have to.
 */
import { KIND_DICT, KIND_REF, kindOf, type PDFContext, PDFObject, PDFRef } from './primitives.js';
import { forEachChild } from './walk.js';
import { type ObjectSource, storeOf } from './store.js';
import { REF_FIELDS, REF_GEN, REF_NUM } from '../reader/skim.js';

export type { ObjectSource } from './store.js';

/** What the output has for `ref`, without parsing an untouched input object. */
export function sourceOf(context: PDFContext, ref: PDFRef): ObjectSource | undefined {
  return storeOf(context).source(ref);
}

/**
 * Calls `visit` with each reference an object holds, at any depth inside it,
 * in order. Raw references the input lacks are left out (they are null).
 * A callback rather than a list: a walk over 200,000 objects made a list for
 * each, 28 MB of garbage.
 */
function forEachReference(source: ObjectSource, visit: (ref: PDFRef) => void): void {
  if (source.kind === 'damaged') return;
  if (source.kind === 'raw') {
    const { raw, table } = source;
    const refs = raw.refs;
    for (let i = 0; i < refs.length; i += REF_FIELDS) {
      const num = refs[i + REF_NUM];
      const gen = refs[i + REF_GEN];
      const ref = table.refAt(num, gen);
      if (ref !== undefined) visit(ref);
    }
    return;
  }
  // One stack for every walk, from `base` up (a walk started inside `visit` works above this one's), and a
  // push made once: a stack and a closure per object were the largest share of what a rotate allocated.
  const base = refStack.length;
  refStack.push(source.object);
  try {
    while (refStack.length > base) {
      const obj = refStack.pop()!;
      if (kindOf(obj) === KIND_REF) visit(obj as PDFRef);
      else forEachChild(obj, pushOnStack);
    }
  } finally {
    refStack.length = base;
  }
}

const refStack: PDFObject[] = [];
/** Only what can hold or be a reference goes on the stack: names, numbers and strings lead nowhere. */
const pushOnStack = (child: PDFObject): void => {
  const kind = kindOf(child);
  if (kind === KIND_REF || kind >= KIND_DICT) refStack.push(child);
};

/** The references an object holds (forEachReference), as a list. */
function referencesIn(source: ObjectSource): PDFRef[] {
  const refs: PDFRef[] = [];
  forEachReference(source, (ref) => refs.push(ref));
  return refs;
}

export interface Walk {
  /** Every object reached, with what the output has for it. */
  reached: Map<PDFRef, ObjectSource>;
  /** The largest object number referenced anywhere, reached or not, but for those `enter` refuses. */
  largestReferenced: number;
  /** The objects reached that hold a reference `enter` refused, in the order reached (nullifyReached's). */
  holders: PDFRef[];
}

/**
 * Walks from `roots` (objects or references) through every reference.
 * `enter` may refuse a reference (return false): it is then neither
 * visited nor followed, and the object holding it is among the holders.
 */
export function walkGraph(context: PDFContext, roots: Array<PDFObject | undefined>, enter?: (ref: PDFRef) => boolean): Walk {
  const store = storeOf(context);
  const reached = new Map<PDFRef, ObjectSource>();
  const holders: PDFRef[] = [];
  let largestReferenced = 0;
  const pending: PDFRef[] = [];
  /** Whether the object being visited holds a reference `enter` refuses. */
  let holds = false;
  // Refused here, where the holder is known: a second look at every reference of every object reached for the
  // refused ones was most of nullifyReached, a tenth of the writer's time in each part of a split.
  const follow = (child: PDFRef) => {
    if (reached.has(child)) return;
    if (enter && !enter(child)) holds = true;
    else pending.push(child);
  };
  const push = (ref: PDFRef) => {
    if (!enter || enter(ref)) pending.push(ref);
  };
  for (const root of roots) {
    if (root === undefined) continue;
    if (root instanceof PDFRef) push(root);
    else for (const ref of referencesIn({ kind: 'parsed', object: root })) push(ref);
  }
  while (pending.length > 0) {
    const ref = pending.pop()!;
    if (reached.has(ref)) continue;
    if (ref.objectNumber > largestReferenced) largestReferenced = ref.objectNumber;
    const source = store.source(ref);
    if (!source) continue;
    reached.set(ref, source);
    holds = false;
    forEachReference(source, follow);
    if (holds) holders.push(ref);
  }
  return { reached, largestReferenced, holders };
}
