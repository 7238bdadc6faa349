/**
 * Copying a page: for a page listed twice in a new order, and for a page
 * tree that lists the same page object twice.
 */
import { copyObject } from '../model/copy.js';
import { PDFDict, type PDFDocument, PDFName, PDFRef } from '../model/primitives.js';
import { duplicateWidget, isWidget } from './forms.js';
import { arrayAt, dictAt } from '../model/objects.js';
import { walkFieldTree } from './trees.js';

const ANNOTS = PDFName.of('Annots');

/**
 * An independent copy of a page: its own dictionary and its own annotations
 * (links, notes, widgets). Content streams and resources are shared, since
 * they are never edited in place.
 */
export function duplicatePage(doc: PDFDocument, page: PDFDict): PDFRef {
  const { context } = doc;
  const copy = copyObject(page, context);
  const copyRef = context.register(copy);
  const annots = arrayAt(page, 'Annots');
  if (annots) {
    const mapping = new Map<PDFRef, PDFRef>();
    const replaceOnPage = (from: PDFRef, to: PDFRef) => {
      const list = arrayAt(page, 'Annots');
      const i = list ? list.indexOf(from) : undefined;
      if (list && i !== undefined && i >= 0) list.set(i, to);
    };
    const copies = annots.asArray().map((item) => {
      const annot = context.lookup(item);
      if (!(item instanceof PDFRef) || !(annot instanceof PDFDict)) return item;
      const annotCopy =
        isWidget(annot) && (annot.has(PDFName.of('Parent')) || annot.has(PDFName.of('T')) || adoptByListingField(doc, item, annot))
          ? duplicateWidget(doc, item, annot, replaceOnPage)
          : context.register(copyObject(annot, context));
      mapping.set(item, annotCopy);
      return annotCopy;
    });
    for (const ref of mapping.values()) {
      const annot = context.lookup(ref) as PDFDict;
      annot.set(PDFName.of('P'), copyRef);
      // Popups and replies point at annotations of the same page: point them at the copies.
      for (const key of ['Popup', 'Parent', 'IRT']) {
        const target = annot.get(PDFName.of(key));
        const mapped = target instanceof PDFRef ? mapping.get(target) : undefined;
        if (mapped && !isWidget(annot)) annot.set(PDFName.of(key), mapped);
      }
    }
    copy.set(ANNOTS, context.obj(copies));
  }
  // A structure-tree link belongs to the original page only.
  copy.delete(PDFName.of('StructParents'));
  return copyRef;
}

/**
 * A widget without /Parent or /T that a field's /Kids lists (qpdf's damaged
 * test files) belongs to that field: it gets the /Parent it lacks, so its
 * copy becomes another widget of the field rather than a plain annotation
 * no field lists. The field tree is walked only for such a widget.
 */
function adoptByListingField(doc: PDFDocument, widgetRef: PDFRef, widget: PDFDict): boolean {
  const form = dictAt(doc.catalog, 'AcroForm');
  const fields = (form && arrayAt(form, 'Fields')?.asArray()) ?? [];
  let field: PDFRef | undefined;
  walkFieldTree(doc.context, fields, {
    listed: (item, under) => {
      if (field === undefined && item === widgetRef && under instanceof PDFRef) field = under;
    },
    decide: () => (field === undefined ? 'kids' : 'keep'),
  });
  if (field === undefined) return false;
  widget.set(PDFName.of('Parent'), field);
  return true;
}
