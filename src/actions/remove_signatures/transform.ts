import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFObject, PDFRef } from '../../pdf/model/lib.js';
import { arrayAt, dictAt } from '../../pdf/model/objects.js';
import { pageEntries } from '../../pdf/structure/page-tree.js';
import type { fields } from './action.js';

const SIG = PDFName.of('Sig');
const FT = PDFName.of('FT');
const KIDS = PDFName.of('Kids');
const PARENT = PDFName.of('Parent');

/**
 * Removes every signature field (a field whose own or inherited /FT is /Sig,
 * at any depth), its widgets from the pages, the catalog's /Perms (DocMDP,
 * UR3) and /DSS, and /SigFlags. Signature dictionaries (/V) are no longer
 * reached and are not written; the output is a full rewrite, so earlier
 * revisions (and their /Contents) are gone too. Returns how many fields went.
 */
export function removeSignatures(doc: PDFDocument): number {
  const { context, catalog } = doc;
  const removedRefs = new Set<PDFRef>();
  const removedDicts = new Set<PDFDict>();
  let fieldsRemoved = 0;

  const markRemoved = (item: PDFObject, node: PDFDict) => {
    const stack: Array<[PDFObject, PDFDict]> = [[item, node]];
    while (stack.length > 0) {
      const [obj, dict] = stack.pop()!;
      if (removedDicts.has(dict)) continue;
      removedDicts.add(dict);
      if (obj instanceof PDFRef) removedRefs.add(obj);
      for (const kid of arrayAt(dict, 'Kids')?.asArray() ?? []) {
        const kidDict = context.lookup(kid);
        if (kidDict instanceof PDFDict) stack.push([kid, kidDict]);
      }
    }
  };

  const visiting = new Set<PDFDict>();
  /** The items of `list` that stay; signature fields and fields left empty by their removal go. */
  const prune = (list: PDFArray, inherited: PDFObject | undefined): PDFObject[] => {
    const survivors: PDFObject[] = [];
    for (const item of list.asArray()) {
      const node = context.lookup(item);
      if (!(node instanceof PDFDict) || visiting.has(node)) {
        survivors.push(item);
        continue;
      }
      const type = node.lookup(FT) ?? inherited;
      if (type === SIG) {
        markRemoved(item, node);
        fieldsRemoved++;
        continue;
      }
      const kids = arrayAt(node, 'Kids');
      if (kids) {
        visiting.add(node);
        const kept = prune(kids, type);
        visiting.delete(node);
        if (kept.length !== kids.size()) {
          if (kept.length === 0) {
            // A field whose only kids were signatures.
            markRemoved(item, node);
            continue;
          }
          node.set(KIDS, context.obj(kept));
        }
      }
      survivors.push(item);
    }
    return survivors;
  };

  const acroForm = dictAt(catalog, 'AcroForm');
  const fieldList = acroForm && arrayAt(acroForm, 'Fields');
  if (acroForm && fieldList) acroForm.set(PDFName.of('Fields'), context.obj(prune(fieldList, undefined)));
  acroForm?.delete(PDFName.of('SigFlags'));

  /** A widget of a signature field that the field tree did not list (or a dictionary shared with one). */
  const isSignatureWidget = (annot: PDFDict): boolean => {
    const seen = new Set<PDFDict>();
    for (let node: PDFDict | undefined = annot; node && !seen.has(node); ) {
      seen.add(node);
      if (removedDicts.has(node)) return true;
      const type = node.get(FT);
      if (type !== undefined) return node.lookup(FT) === SIG;
      const parent: PDFObject | undefined = node.lookup(PARENT);
      node = parent instanceof PDFDict ? parent : undefined;
    }
    return false;
  };

  for (const page of pageEntries(doc)) {
    const annots = page.dict.lookup(PDFName.of('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    const kept = annots.asArray().filter((item) => {
      if (item instanceof PDFRef && removedRefs.has(item)) return false;
      const annot = context.lookup(item);
      return !(annot instanceof PDFDict && annot.lookup(PDFName.of('Subtype')) === PDFName.of('Widget') && isSignatureWidget(annot));
    });
    if (kept.length === annots.size()) continue;
    if (kept.length === 0) page.dict.delete(PDFName.of('Annots'));
    else page.dict.set(PDFName.of('Annots'), context.obj(kept));
  }

  catalog.delete(PDFName.of('Perms'));
  catalog.delete(PDFName.of('DSS'));
  return fieldsRemoved;
}

const removeSignaturesTransform: Transform<typeof fields, 'document'> = async (values, context) => {
  const doc = await openInput(values.file, context, { allowSigned: true });
  removeSignatures(doc);
  return saveDocumentPieces(doc);
};

export default removeSignaturesTransform;
