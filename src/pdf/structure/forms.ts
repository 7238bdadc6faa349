/**
 * Interactive form fields and their widget annotations: keeping the field
 * tree in step with the pages that carry the widgets.
 */
import { copyObject } from '../model/copy.js';
import { PDFArray, PDFDict, type PDFDocument, PDFName, type PDFObject, PDFRef } from '../model/primitives.js';
import { type ObjectTable, objectTableOf, readOnly } from '../reader/object-table.js';
import { arrayAt, dictAt } from '../model/objects.js';
import { storeOf } from '../model/store.js';
import { skipLiteralString } from '../reader/skim.js';
import { CHAR_CLASS, ENDOBJ, escapesSpellNoLetter, isKeywordAt, skipWhite, tokenEnd } from '../reader/syntax.js';
import { walkFieldTree } from './trees.js';

const KIDS = PDFName.of('Kids');
const PARENT = PDFName.of('Parent');
const KIDS_WORD = ['Kids'];

/** Keys that belong to the field rather than the widget when both share one dictionary. */
const FIELD_KEYS = ['FT', 'T', 'TU', 'TM', 'Ff', 'V', 'DV', 'Opt', 'TI', 'I', 'MaxLen', 'DA', 'Q', 'DS', 'RV', 'AA', 'Lock', 'SV'];

export function isWidget(annotation: PDFDict): boolean {
  return annotation.lookup(SUBTYPE) === WIDGET;
}

// Made once, not looked up per call: split_by_size asks isWidget of every dictionary a page reaches.
const SUBTYPE = PDFName.of('Subtype');
const WIDGET = PDFName.of('Widget');

/**
 * Removes from the field tree every widget in `removed` and every field left
 * with no widget and no kids because of it. Fields that never had a widget
 * are kept.
 */
export function pruneFields(doc: PDFDocument, removed: Set<PDFRef>): void {
  const index = fieldTreeIndexes.get(doc);
  // Once: the tree changes below.
  fieldTreeIndexes.delete(doc);
  if (removed.size === 0) return;
  const acroForm = dictAt(doc.catalog, 'AcroForm');
  const fields = acroForm && arrayAt(acroForm, 'Fields');
  if (!acroForm || !fields) return;
  // The walk only looks, so the fields it leaves alone go out as their input bytes; the nodes whose kids change
  // are set after it. A field written in place in /Fields is no widget of a page: it stays as it is.
  // Nodes are peeked, not looked up: on a split's fork a lookup copies the node, and the walk would copy the
  // whole field tree for every part.
  // A field whose bytes hold no /Kids keeps every widget it has: kept unparsed (a form of 3,000 widgets was
  // parsed whole to drop page 1's few).
  const store = storeOf(doc.context);
  const table = objectTableOf(doc.context);
  const peek = (item: PDFObject): PDFObject | undefined => (item instanceof PDFRef ? store.peek(item) : item);
  const { survivors, changed } = readOnly(
    doc.context,
    () =>
      (table && index?.prune(fields.asArray(), removed, table, peek)) ??
      walkFieldTree(doc.context, fields.asArray(), {
        skip: (item) => item instanceof PDFRef && !removed.has(item) && table !== undefined && table.bytesLack(item, KIDS_WORD),
        fetch: peek,
        decide: ({ item }) => (!(item instanceof PDFRef) ? 'keep' : removed.has(item) ? 'drop' : 'kids'),
      }),
  );
  for (const { field, kids } of changed) (doc.context.lookup(field.item) as PDFDict).set(KIDS, doc.context.obj(kids));
  acroForm.set(PDFName.of('Fields'), doc.context.obj(survivors));
}

/** FieldTreeIndex's mark for an item of /Fields itself. */
const FIELDS = 0;

/** FieldTreeIndex made at opening (OpenOptions.indexFields), until pruneFields takes it. */
const fieldTreeIndexes = new WeakMap<PDFDocument, FieldTreeIndex>();

/**
 * The field tree as the signature check walked it at opening
 * (OpenOptions.indexFields): each item of every /Kids and of /Fields, with
 * the node that lists it. pruneFields goes up from the widgets it drops to
 * the nodes that list them, rather than walking the whole tree again
 * (small-objects: 3,500 field nodes looked at and 460 parsed, to drop page
 * 1's 16 widgets). Only for a tree where every item is listed once, by a
 * node given by reference, and while every item is still as the input has
 * it; else pruneFields walks the tree, as before.
 */
export class FieldTreeIndex {
  /** Each item listed (by reference), with the node that lists it, or FIELDS. */
  private readonly above = new Map<PDFRef, PDFRef | typeof FIELDS>();
  /** /Fields as walked. */
  private readonly fields: PDFObject[] = [];
  /** False when an item is listed twice (a loop, a shared kid) or by a node written in place. */
  private plain = true;

  constructor(private readonly doc: PDFDocument) {}

  /** walkFieldTree's `listed`: `item` is in the /Kids of `under`, or in /Fields when undefined. */
  list(item: PDFObject, under: PDFObject | undefined): void {
    if (!this.plain) return;
    if (under === undefined) this.fields.push(item);
    else if (!(under instanceof PDFRef)) {
      this.plain = false;
      return;
    }
    if (!(item instanceof PDFRef)) return;
    if (this.above.has(item)) this.plain = false;
    else this.above.set(item, under ?? FIELDS);
  }

  /** Kept for pruneFields when the tree is plain. */
  keep(): void {
    if (this.plain) fieldTreeIndexes.set(this.doc, this);
  }

  /**
   * What walkFieldTree gives pruneFields (the items of /Fields that stay, the
   * nodes whose kids change), found from the nodes above the removed widgets.
   * Undefined when this index cannot tell: the tree changed since, or it
   * does not list what it should.
   */
  prune(
    fields: readonly PDFObject[],
    removed: ReadonlySet<PDFRef>,
    table: ObjectTable,
    peek: (item: PDFObject) => PDFObject | undefined,
  ): { survivors: PDFObject[]; changed: Array<{ field: { item: PDFObject }; kids: PDFObject[] }> } | undefined {
    if (!this.plain || !this.unchanged(fields, table)) return undefined;
    const dropped = new Set<PDFObject>();
    // The nodes whose kids lose one, by depth (1: listed in /Fields), deepest handled first: one left with no kid goes too.
    const byDepth: PDFRef[][] = [];
    for (const widget of removed) {
      const chain = this.chainAbove(widget, removed);
      if (!chain) continue;
      dropped.add(widget);
      if (chain.length > 0) (byDepth[chain.length] ??= []).push(chain[0]);
    }
    const changed: Array<{ field: { item: PDFObject }; kids: PDFObject[] }> = [];
    const handled = new Set<PDFRef>();
    for (let depth = byDepth.length - 1; depth > 0; depth--) {
      for (const node of byDepth[depth] ?? []) {
        if (handled.has(node)) continue;
        handled.add(node);
        const dict = peek(node);
        const kids = dict instanceof PDFDict ? arrayAt(dict, 'Kids') : undefined;
        if (!kids) return undefined;
        const items = kids.asArray();
        const survivors = items.filter((kid) => !dropped.has(kid));
        if (survivors.length === items.length) return undefined;
        if (survivors.length > 0) {
          changed.push({ field: { item: node }, kids: survivors });
          continue;
        }
        dropped.add(node);
        const parent = this.above.get(node);
        if (parent !== undefined && parent !== FIELDS) (byDepth[depth - 1] ??= []).push(parent);
      }
    }
    const survivors = fields.filter((item) => !dropped.has(item));
    return { survivors, changed };
  }

  /**
   * The nodes above `widget`, nearest first, up to the one in /Fields;
   * undefined when the walk would not reach it: not in the tree, or below a
   * removed item (dropped without its kids being walked).
   */
  private chainAbove(widget: PDFRef, removed: ReadonlySet<PDFRef>): PDFRef[] | undefined {
    const chain: PDFRef[] = [];
    let at = this.above.get(widget);
    while (at !== FIELDS) {
      if (at === undefined || removed.has(at)) return undefined;
      chain.push(at);
      at = this.above.get(at);
    }
    return chain;
  }

  /** True when /Fields and every item listed are as they were walked: not parsed since (so not changed). */
  private unchanged(fields: readonly PDFObject[], table: ObjectTable): boolean {
    if (fields.length !== this.fields.length) return false;
    for (let i = 0; i < fields.length; i++) if (fields[i] !== this.fields[i]) return false;
    let untouched = true;
    // forEach: a for-of over the map makes an array per entry.
    this.above.forEach((_, item) => {
      if (untouched && !table.isUntouched(item) && table.exists(item.objectNumber, item.generationNumber)) untouched = false;
    });
    return untouched;
  }
}

/**
 * A copy of a widget for a duplicated page, registered as another widget of
 * the same field (a field may show on several pages, sharing one value).
 * A widget merged into its field's dictionary is split first into field and
 * widget, so the field can have two kids.
 */
export function duplicateWidget(doc: PDFDocument, widgetRef: PDFRef, widget: PDFDict, replaceOnPage: (from: PDFRef, to: PDFRef) => void): PDFRef {
  const { context } = doc;
  let parentRef = widget.get(PARENT);
  let original = widgetRef;
  if (!(parentRef instanceof PDFRef) && widget.has(PDFName.of('T'))) {
    // Merged field and widget: the dictionary stays the field (its reference
    // is what /Fields and other pages point at); its widget part moves out.
    const split = context.obj({}) as PDFDict;
    for (const [key, value] of widget.entries()) {
      if (!FIELD_KEYS.includes(key.decodeText()) && key !== PARENT) split.set(key, value);
    }
    for (const key of split.keys()) widget.delete(key);
    split.set(PARENT, widgetRef);
    original = context.register(split);
    widget.set(KIDS, context.obj([original]));
    replaceOnPage(widgetRef, original);
    parentRef = widgetRef;
  }
  const source = context.lookup(original) as PDFDict;
  const copy = copyObject(source, context);
  const copyRef = context.register(copy);
  const parent = parentRef instanceof PDFRef ? context.lookup(parentRef) : undefined;
  if (parent instanceof PDFDict) {
    const kids = arrayAt(parent, 'Kids') ?? (context.obj([]) as PDFArray);
    kids.push(copyRef);
    parent.set(KIDS, kids);
  }
  return copyRef;
}

const KIDS_NAME = Uint8Array.from('Kids', (c) => c.charCodeAt(0));

/**
 * The kids of the field node `ref` as its input bytes list them, when those
 * bytes hold no `Sig`: the node is then no signature field and gives its
 * kids no /FT /Sig, so the signature check needs nothing else of it and does
 * not parse it (countSignatures: small-objects' 460 field nodes with kids
 * were parsed for their /Kids alone). Its top-level /Kids, written once, an
 * array of references. Undefined when the bytes cannot tell: not at hand, a
 * `Sig` or a name escape that could spell one, no such /Kids, anything else
 * in the array, unbalanced bytes; the caller then parses the node.
 */
export function unsignedKidsInBytes(table: ObjectTable, ref: PDFRef): PDFRef[] | undefined {
  const text = table.textAround(ref, 1 << 16);
  if (!text) return undefined;
  const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  if (bytes.indexOf('Sig') >= 0 || !escapesSpellNoLetter(text)) return undefined;
  const end = text.length;
  let pos = skipWhite(text, 0, end);
  if (text[pos] !== 0x3c || text[pos + 1] !== 0x3c) return undefined;
  pos += 2;
  let kids: PDFRef[] | undefined;
  let depth = 1;
  /** At the top level, after a key: a name there is its value, not the next key. */
  let afterKey = false;
  for (;;) {
    pos = skipWhite(text, pos, end);
    if (pos >= end) return undefined;
    const c = text[pos];
    if (c === 0x2f) {
      const nameEnd = tokenEnd(text, pos + 1, end);
      if (depth === 1 && !afterKey && isKeywordAt(text, pos + 1, KIDS_NAME, nameEnd)) {
        if (kids) return undefined;
        const list = referenceArrayAt(text, skipWhite(text, nameEnd, end), end);
        if (!list) return undefined;
        kids = list.refs;
        pos = list.end;
        continue;
      }
      if (depth === 1) afterKey = !afterKey;
      pos = nameEnd;
      continue;
    }
    if (depth === 1) afterKey = false;
    if (c === 0x28) {
      pos = skipLiteralString(text, pos, end);
      if (pos < 0) return undefined;
    } else if (c === 0x3c && text[pos + 1] === 0x3c) {
      depth++;
      pos += 2;
    } else if (c === 0x3c) {
      const close = text.indexOf(0x3e, pos);
      if (close < 0) return undefined;
      pos = close + 1;
    } else if (c === 0x3e) {
      if (text[pos + 1] !== 0x3e) return undefined;
      pos += 2;
      if (--depth === 0) break;
    } else if (c === 0x5b) {
      depth++;
      pos++;
    } else if (c === 0x5d) {
      if (--depth < 1) return undefined;
      pos++;
    } else if (CHAR_CLASS[c] === 0) pos = tokenEnd(text, pos, end);
    else return undefined;
  }
  // Then the object ends: `endobj`, or the end of an object stream's member (a stream is no field node).
  pos = skipWhite(text, pos, end);
  if (pos < end && !isKeywordAt(text, pos, ENDOBJ, end)) return undefined;
  return kids;
}

/** The references of the array at `pos` when it holds nothing else, and where it ends. */
function referenceArrayAt(text: Uint8Array, pos: number, end: number): { refs: PDFRef[]; end: number } | undefined {
  if (text[pos] !== 0x5b) return undefined;
  const refs: PDFRef[] = [];
  for (pos = skipWhite(text, pos + 1, end); pos < end && text[pos] !== 0x5d; pos = skipWhite(text, pos, end)) {
    const num = digitsAt(text, pos, end);
    if (num < 0) return undefined;
    pos = skipWhite(text, tokenEnd(text, pos, end), end);
    const gen = digitsAt(text, pos, end);
    if (gen < 0) return undefined;
    pos = skipWhite(text, tokenEnd(text, pos, end), end);
    if (text[pos] !== 0x52 || tokenEnd(text, pos, end) !== pos + 1) return undefined;
    refs.push(PDFRef.of(num, gen));
    pos++;
  }
  return pos < end ? { refs, end: pos + 1 } : undefined;
}

/** The value of the token at `pos` when it is digits alone (at most 9: a plain object number), else -1. */
function digitsAt(text: Uint8Array, pos: number, end: number): number {
  const stop = tokenEnd(text, pos, end);
  if (stop === pos || stop - pos > 9) return -1;
  let value = 0;
  for (let i = pos; i < stop; i++) {
    const d = text[i] - 0x30;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}
