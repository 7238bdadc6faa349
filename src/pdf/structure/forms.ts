/**
 * Interactive form fields and their widget annotations: keeping the field
 * tree in step with the pages that carry the widgets.
 */
import { copyObject } from '../model/copy.js';
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFRef } from '../model/primitives.js';
import { objectTableOf, readOnly } from '../reader/object-table.js';
import { arrayAt, dictAt } from '../model/objects.js';
import { storeOf } from '../model/store.js';
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
  const { survivors, changed } = readOnly(doc.context, () =>
    walkFieldTree(doc.context, fields.asArray(), {
      skip: (item) => item instanceof PDFRef && !removed.has(item) && table !== undefined && table.bytesLack(item, KIDS_WORD),
      fetch: (item) => (item instanceof PDFRef ? store.peek(item) : item),
      decide: ({ item }) => (!(item instanceof PDFRef) ? 'keep' : removed.has(item) ? 'drop' : 'kids'),
    }),
  );
  for (const { field, kids } of changed) (doc.context.lookup(field.item) as PDFDict).set(KIDS, doc.context.obj(kids));
  acroForm.set(PDFName.of('Fields'), doc.context.obj(survivors));
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
