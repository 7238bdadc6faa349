/**
 * Finding the document catalog and the root of its page tree where damage
 * hid them, as pdf.js and qpdf look for them: a /Root whose generation is
 * wrong (pdf.js falls back to the object of that number), a /Root that leads
 * to some other dictionary (the last /Type /Catalog object of the file is
 * taken, as qpdf does when it rebuilds a table), a catalog whose /Pages leads
 * to a page or an inner node (qpdf climbs its /Parent chain), or to nothing
 * (the last page-tree root of the file is taken). Run only when the catalog
 * the trailer names has no page tree: it may parse every object.
 */
import { PDFArray, PDFDict, type PDFDocument, PDFName, type PDFObject, PDFRef } from '../model/primitives.js';
import { type ObjectTable, objectTableOf, readOnly } from '../reader/object-table.js';
import { parentChain } from './trees.js';

const TYPE = PDFName.of('Type');
const PAGES = PDFName.of('Pages');
const PARENT = PDFName.of('Parent');
const KIDS = PDFName.of('Kids');
const CATALOG = PDFName.of('Catalog');
/** Objects larger than this are not looked at: no catalog or page-tree root is (a node of 10,000 kids is 120 KB). */
const LARGEST_LOOKED_AT = 1 << 20;

export interface FoundCatalog {
  doc: PDFDocument;
  /** What was wrong and what was taken instead, for the warning. */
  repair: string;
}

/** The catalog the trailer names, when it is one and its /Pages leads to the root of a page tree. */
export function hasPageTree(doc: PDFDocument): boolean {
  const pages = doc.catalog instanceof PDFDict ? doc.catalog.lookup(PAGES) : undefined;
  return pages instanceof PDFDict && isTreeNode(pages) && treeRootAbove(pages).dict === pages;
}

/**
 * The document with its catalog and page tree found, or undefined when the
 * file has neither a catalog nor a page-tree root to be found.
 */
export function findCatalog(doc: PDFDocument): FoundCatalog | undefined {
  const { context } = doc;
  const table = objectTableOf(context);
  if (!table) return undefined;
  const repairs: string[] = [];
  let catalogRef = context.trailerInfo.Root instanceof PDFRef ? context.trailerInfo.Root : undefined;
  let catalog: PDFDict | undefined = doc.catalog instanceof PDFDict ? doc.catalog : undefined;
  const named = table.trailer.get(PDFName.of('Root'));
  if (!catalog && named instanceof PDFRef) {
    // A catalog that cannot be parsed whole, read as far as it goes.
    const dict = table.readDamagedDict(named);
    if (dict && (dict.lookup(TYPE) === CATALOG || dict.has(PAGES))) {
      catalog = dict;
      repairs.push('its catalog is damaged: it was read as far as it goes');
    }
  }
  if (!catalog) {
    // The trailer's /Root, with the generation the file has for that number.
    const ref = named instanceof PDFRef ? table.refOfNumber(named.objectNumber) : undefined;
    const dict = ref && context.lookup(ref);
    if (ref && dict instanceof PDFDict && dict.lookup(TYPE) === CATALOG) {
      [catalogRef, catalog] = [ref, dict];
      repairs.push(`its trailer names the catalog ${named} but the file has it as ${ref}`);
    }
  }
  if (!catalog || catalog.lookup(TYPE) !== CATALOG) {
    const found = lastOfType(doc, table, 'Catalog', (dict) => dict.lookup(TYPE) === CATALOG && dict.lookup(PAGES) instanceof PDFDict);
    if (found) {
      repairs.push(
        `its ${catalog ? '/Root leads to no catalog' : 'catalog is not where its trailer says'}: object ${found.objectNumber}, the last /Type /Catalog of the file, was taken`,
      );
      catalogRef = found;
      catalog = context.lookup(found) as PDFDict;
    }
  }
  // A dictionary that neither says it is a catalog nor has /Pages (an /Info, a font) is no catalog to repair.
  if (catalog && catalog.lookup(TYPE) !== CATALOG && !catalog.has(PAGES)) catalog = catalogRef = undefined;
  const pages = catalog?.lookup(PAGES);
  let root: { dict: PDFDict; ref?: PDFRef } | undefined = pages instanceof PDFDict && isTreeNode(pages) ? treeRootAbove(pages) : undefined;
  if (root && root.dict !== pages) {
    repairs.push("its catalog's /Pages leads into the page tree, not to its root: the root above was taken, as qpdf does");
  } else if (!root) {
    const ref = lastOfType(
      doc,
      table,
      'Pages',
      (dict) => dict.lookup(TYPE) === PAGES && dict.lookup(KIDS) instanceof PDFArray && !(dict.lookup(PARENT) instanceof PDFDict),
    );
    if (!ref) return undefined;
    root = { dict: context.lookup(ref) as PDFDict, ref };
    repairs.push(
      `${catalog ? "its catalog's /Pages leads to no page tree" : 'it has no catalog'}: object ${ref.objectNumber}, the last page-tree root of the file, was taken`,
    );
  }
  if (repairs.length === 0) return undefined;
  if (!catalog) {
    catalog = context.obj({ Type: 'Catalog' }) as PDFDict;
    catalogRef = context.register(catalog);
  }
  if (root.dict !== pages) catalog.set(PAGES, root.ref ?? context.register(root.dict));
  context.trailerInfo.Root = catalogRef;
  return { doc: { ...doc, catalog }, repair: repairs.join('; ') };
}

/** A dictionary that can head a page tree: a /Pages node, or a page (the tree of one page that damaged files have). */
function isTreeNode(dict: PDFDict): boolean {
  const type = dict.lookup(TYPE);
  return dict.lookup(KIDS) instanceof PDFArray || type === PAGES || type === PDFName.of('Page');
}

/**
 * The root of the tree `node` is in: up its /Parent chain while the parent
 * is a node whose /Kids lists the one below it (each once). A /Parent that
 * does not list its child is damage of its own, not the way to the root.
 */
function treeRootAbove(node: PDFDict): { dict: PDFDict; ref?: PDFRef } {
  let top: { dict: PDFDict; ref?: PDFRef } = { dict: node };
  for (const { node: parent, ref } of parentChain(node)) {
    const kids = parent.lookup(KIDS);
    const child = top.dict;
    if (!(kids instanceof PDFArray) || !kids.asArray().some((kid) => kid === child || (kid instanceof PDFRef && parent.context.lookup(kid) === child)))
      return top;
    top = { dict: parent, ref };
  }
  return top;
}

/**
 * The last object of the file (by number) that says `/Type /<type>` and
 * passes `accept`. Only objects whose bytes hold the word are parsed, and
 * those not taken are forgotten again.
 */
function lastOfType(doc: PDFDocument, table: ObjectTable, type: string, accept: (dict: PDFDict) => boolean): PDFRef | undefined {
  const refs = table.inputRefs();
  return readOnly(doc.context, () => {
    for (let i = refs.length - 1; i >= 0; i--) {
      // No text: too large or damaged (skipped), or already parsed (looked at as parsed).
      const text = table.textAround(refs[i], LARGEST_LOOKED_AT);
      if (text ? Buffer.from(text.buffer, text.byteOffset, text.byteLength).indexOf(type) < 0 : table.isUntouched(refs[i])) continue;
      const object: PDFObject | undefined = doc.context.lookup(refs[i]);
      if (object instanceof PDFDict && accept(object)) return refs[i];
    }
    return undefined;
  });
}
