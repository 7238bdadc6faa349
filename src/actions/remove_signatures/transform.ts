import type { Transform } from '../../core/action.js';
import { openInput } from '../inputs.js';
import { saveDocumentPieces } from '../../pdf/document.js';
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFRef } from '../../pdf/model/primitives.js';
import { arrayAt, dictAt } from '../../pdf/model/objects.js';
import { pageEntries } from '../../pdf/structure/page-tree.js';
import { type FieldNode, parentChain, walkFieldTree } from '../../pdf/structure/trees.js';
import type { fields } from './action.js';

const SIG = PDFName.of('Sig');
const FT = PDFName.of('FT');
const KIDS = PDFName.of('Kids');

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

  /** Marks `field` and every node below it removed: their widgets leave the pages below. */
  const markRemoved = (field: FieldNode) => {
    walkFieldTree(context, [field.item], {
      decide: ({ item, node }) => {
        if (removedDicts.has(node)) return 'keep';
        removedDicts.add(node);
        if (item instanceof PDFRef) removedRefs.add(item);
        return 'kids';
      },
    });
  };

  const acroForm = dictAt(catalog, 'AcroForm');
  const fieldList = acroForm && arrayAt(acroForm, 'Fields');
  if (acroForm && fieldList) {
    const signatures: FieldNode[] = [];
    const { survivors, changed, emptied } = walkFieldTree(context, fieldList.asArray(), {
      inherit: ['FT'],
      decide: (field) => {
        if ((field.node.lookup(FT) ?? field.inherited.get('FT')) !== SIG) return 'kids';
        signatures.push(field);
        return 'drop';
      },
    });
    fieldsRemoved = signatures.length;
    // Fields whose only kids were signatures go too.
    for (const field of [...signatures, ...emptied]) markRemoved(field);
    for (const { field, kids } of changed) field.node.set(KIDS, context.obj(kids));
    acroForm.set(PDFName.of('Fields'), context.obj(survivors));
  }
  acroForm?.delete(PDFName.of('SigFlags'));

  /** Whether a node is or belongs to a signature field: undefined when it does not say (neither removed nor typed). */
  const signatureNode = (node: PDFDict): boolean | undefined =>
    removedDicts.has(node) ? true : node.get(FT) !== undefined ? node.lookup(FT) === SIG : undefined;
  /** A widget of a signature field that the field tree did not list (or a dictionary shared with one). */
  const isSignatureWidget = (annot: PDFDict): boolean => {
    const own = signatureNode(annot);
    if (own !== undefined) return own;
    for (const { node } of parentChain(annot)) {
      const found = signatureNode(node);
      if (found !== undefined) return found;
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
