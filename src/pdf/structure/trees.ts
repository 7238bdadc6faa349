/**
 * The walks over PDF's trees, but for the page tree (page-tree.ts, whose
 * walk also repairs it) and the outline (outline.ts): name trees (named
 * destinations, attachments) and number trees (page labels), both nodes with
 * /Kids whose leaves hold key-value pairs (/Names or /Nums); a form's field
 * tree; and the /Parent chain up from a node. Each node is visited once
 * (damaged files loop), with a stack of its own rather than recursion, so a
 * deep tree costs no call stack.
 */
import { PDFDict, type PDFContext, PDFName, type PDFObject, PDFRef } from '../model/primitives.js';
import { arrayAt } from '../model/objects.js';

const PARENT = PDFName.of('Parent');

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

/** A node of a form's field tree as walkFieldTree meets it. */
export interface FieldNode {
  /** As its parent's /Kids (or /Fields) holds it: a reference, or a dictionary written in place. */
  item: PDFObject;
  node: PDFDict;
  /** The value of each inherited key (see walkFieldTree's `inherit`) from the nearest ancestor that sets it. */
  inherited: ReadonlyMap<string, PDFObject>;
}

/**
 * What to do with a field node: keep it as it is, drop it from its parent's
 * /Kids (or /Fields), or walk its kids (it is dropped when it had kids and
 * none of them stays).
 */
export type FieldVerdict = 'keep' | 'drop' | 'kids';

export interface FieldWalk {
  /** Keys whose values pass down to the kids (/FT, /Ff, /V, /DA, …), as a field inherits them. */
  inherit?: readonly string[];
  /** Called before `item` is looked up; true: the item stays and is not walked (a cheap test of its bytes). */
  skip?: (item: PDFObject, inherited: ReadonlyMap<string, PDFObject>) => boolean;
  decide: (field: FieldNode) => FieldVerdict;
  /** How an item becomes its node (default: the context's lookup, which on a fork copies the node). */
  fetch?: (item: PDFObject) => PDFObject | undefined;
  /** Told each item of a list the walk goes through, with the item whose /Kids lists it (undefined: the list given). */
  listed?: (item: PDFObject, under: PDFObject | undefined) => void;
  /**
   * Called for an item `skip` let through, before it is looked up: its kids
   * as its bytes list them when the walk needs nothing else of it (it would
   * be decided 'kids' and pass down what it inherited), so it is walked
   * without being parsed; undefined: it is looked up and decided. Only for a
   * walk whose `decide` drops nothing (such a node is in neither `changed`
   * nor `emptied`).
   */
  kidsInBytes?: (item: PDFRef, inherited: ReadonlyMap<string, PDFObject>) => readonly PDFObject[] | undefined;
}

export interface FieldWalkResult {
  /** The items of the list walked that stay. */
  survivors: PDFObject[];
  /** Nodes some of whose kids go, with the kids that stay: for the caller to set (the walk only looks). */
  changed: Array<{ field: FieldNode; kids: PDFObject[] }>;
  /** Nodes dropped because all of their kids went. */
  emptied: FieldNode[];
}

/** A field node whose kids are being walked. */
interface FieldFrame {
  item: PDFObject;
  /** The node as decided (undefined: walked from its bytes, kidsInBytes). */
  field: FieldNode | undefined;
  /** What its verdict is kept under: the reference it is reached by, else the dictionary. */
  key: PDFObject;
  kids: readonly PDFObject[];
  next: number;
  survivors: PDFObject[];
  /** What the kids inherit. */
  below: ReadonlyMap<string, PDFObject>;
}

/**
 * Walks the field tree under `items` (an AcroForm's /Fields, or some kids),
 * children after their parent, and says which items stay. Each node is
 * decided once: one reached again (under two parents) gets the verdict it
 * got first, and one reached again below itself (a /Kids loop) stays and is
 * not walked again, so damaged and hostile trees cost their size, not their
 * paths. The walk keeps its own stack (a tree may be 100,000 levels deep).
 * Items that are no dictionary stay.
 */
export function walkFieldTree(context: PDFContext, items: readonly PDFObject[], walk: FieldWalk): FieldWalkResult {
  // Kept under the reference a node is reached by (the same object each time: PDFRef.of), else under the dictionary
  // written in place: a node walked from its bytes has no dictionary.
  const verdicts = new Map<PDFObject, 'keep' | 'drop' | 'walking'>();
  const changed: FieldWalkResult['changed'] = [];
  const emptied: FieldNode[] = [];
  const top: FieldFrame = { item: undefined!, field: undefined, key: undefined!, kids: [...items], next: 0, survivors: [], below: new Map() };
  const stack: FieldFrame[] = [top];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next < frame.kids.length) {
      const item = frame.kids[frame.next++];
      walk.listed?.(item, frame === top ? undefined : frame.item);
      const inherited = frame.below;
      if (walk.skip?.(item, inherited)) {
        frame.survivors.push(item);
        continue;
      }
      const unparsedKids = walk.kidsInBytes && item instanceof PDFRef && !verdicts.has(item) ? walk.kidsInBytes(item, inherited) : undefined;
      if (unparsedKids) {
        if (unparsedKids.length === 0) verdicts.set(item, 'keep');
        else {
          verdicts.set(item, 'walking');
          stack.push({ item, field: undefined, key: item, kids: unparsedKids, next: 0, survivors: [], below: inherited });
        }
        frame.survivors.push(item);
        continue;
      }
      const node = walk.fetch ? walk.fetch(item) : context.lookup(item);
      const key = item instanceof PDFRef ? item : node;
      const known = node instanceof PDFDict ? verdicts.get(key!) : 'keep';
      if (known !== undefined) {
        if (known !== 'drop') frame.survivors.push(item);
        continue;
      }
      const field: FieldNode = { item, node: node as PDFDict, inherited };
      const verdict = walk.decide(field);
      const kids = verdict === 'kids' ? arrayAt(field.node, 'Kids') : undefined;
      if (kids && kids.size() > 0) {
        verdicts.set(key!, 'walking');
        stack.push({ item, field, key: key!, kids: kids.asArray(), next: 0, survivors: [], below: inheritedBelow(field, walk.inherit) });
        continue;
      }
      verdicts.set(key!, verdict === 'drop' ? 'drop' : 'keep');
      if (verdict !== 'drop') frame.survivors.push(item);
      continue;
    }
    stack.pop();
    if (frame === top) break;
    const parent = stack[stack.length - 1];
    const { field, key, kids, survivors } = frame;
    // A node walked from its bytes was listed among its parent's survivors when its walk began: its walk drops nothing.
    if (!field) {
      verdicts.set(key, 'keep');
      continue;
    }
    if (survivors.length === 0) {
      verdicts.set(key, 'drop');
      emptied.push(field);
      continue;
    }
    verdicts.set(key, 'keep');
    if (survivors.length !== kids.length) changed.push({ field, kids: survivors });
    parent.survivors.push(field.item);
  }
  return { survivors: top.survivors, changed, emptied };
}

/** What the kids of `field` inherit: its own values of the `inherit` keys, else its ancestors'. */
function inheritedBelow(field: FieldNode, inherit: readonly string[] | undefined): ReadonlyMap<string, PDFObject> {
  if (!inherit) return field.inherited;
  let below: Map<string, PDFObject> | undefined;
  for (const key of inherit) {
    const own = field.node.lookup(PDFName.of(key));
    if (own === undefined || own === field.inherited.get(key)) continue;
    below ??= new Map(field.inherited);
    below.set(key, own);
  }
  return below ?? field.inherited;
}

/**
 * The ancestors of `node` up its /Parent chain (field trees, page trees),
 * nearest first, each once: a chain that loops ends where it comes back.
 */
export function* parentChain(node: PDFDict): Generator<{ node: PDFDict; ref?: PDFRef }> {
  const seen = new Set<PDFDict>([node]);
  for (let at = node; ; ) {
    const held = at.get(PARENT);
    const parent = at.lookup(PARENT);
    if (!(parent instanceof PDFDict) || seen.has(parent)) return;
    seen.add(parent);
    yield { node: parent, ref: held instanceof PDFRef ? held : undefined };
    at = parent;
  }
}
