/**
 * The page tree: listing pages as the reader sees them, and rebuilding the
 * tree in a new order. Attributes a page inherits from its ancestors
 * (/Resources, /MediaBox, /CropBox, /Rotate) are written onto the page itself
 * first, so a page keeps its look wherever it moves.
 */
import { duplicatePage } from './duplicate-page.js';
import { PDFArray, PDFContext, PDFDict, type PDFDocument, PDFName, PDFNumber, PDFRef } from './lib.js';

const INHERITABLE = ['Resources', 'MediaBox', 'CropBox', 'Rotate'] as const;
const LETTER = [0, 0, 612, 792];

export interface PageEntry {
  ref: PDFRef;
  dict: PDFDict;
}

/**
 * The leaves of the page tree in document order, with inherited attributes
 * pushed down onto each leaf. Robust to intermediate nodes missing /Type.
 *
 * A damaged tree is repaired, as qpdf and poppler read it: a node reached
 * again (a /Kids entry pointing back to an ancestor, a node listed as its
 * own kid, a node under two parents) is not walked again, a leaf that says
 * /Type /Pages becomes a /Page, and the tree is rebuilt flat with each page
 * once, in the order the walk met them.
 */
export function pageEntries(doc: PDFDocument, damage?: { missingKids: number; repaired?: boolean }): PageEntry[] {
  const { context } = doc;
  const rootRef = doc.catalog.get(PDFName.of('Pages'));
  const entries: PageEntry[] = [];
  const seen = new Set<PDFDict>();
  const leaves = new Set<PDFDict>();
  let repair = false;
  const walk = (ref: PDFRef, node: PDFDict, inherited: Map<string, unknown>, depth: number) => {
    if (seen.has(node)) {
      repair = true;
      return;
    }
    // Deeper than any real tree (qpdf's limit is 500 levels too): hostile input, not a document.
    if (depth > MAX_TREE_DEPTH) throw new PageTreeTooDeepError();
    seen.add(node);
    const kids = node.lookup(PDFName.of('Kids'));
    const type = node.lookup(PDFName.of('Type'));
    if (kids instanceof PDFArray && type !== PDFName.of('Page')) {
      const next = new Map(inherited);
      for (const key of INHERITABLE) {
        const value = node.get(PDFName.of(key));
        if (value !== undefined) next.set(key, value);
      }
      kids.asArray().forEach((kid, i) => {
        if (kid instanceof PDFDict) {
          // A page written directly into /Kids: give it an object of its own, as it needs to be referable.
          kid = context.register(kid);
          kids.set(i, kid);
        }
        const kidDict = context.lookup(kid);
        if (!(kid instanceof PDFRef) || !(kidDict instanceof PDFDict)) {
          if (damage) damage.missingKids++;
          return;
        }
        if (leaves.has(kidDict)) {
          // The same page object listed twice: the second place gets its own copy.
          const copy = duplicatePage(doc, { ref: kid, dict: kidDict });
          kids.set(i, copy);
          entries.push({ ref: copy, dict: context.lookup(copy) as PDFDict });
          return;
        }
        walk(kid, kidDict, next, depth + 1);
      });
      return;
    }
    if (type !== PDFName.of('Page')) {
      // A leaf is a page, whatever its /Type says (readers treat it as one).
      node.set(PDFName.of('Type'), PDFName.of('Page'));
      if (type === PDFName.of('Pages')) repair = true;
    }
    for (const key of INHERITABLE) {
      if (!node.has(PDFName.of(key)) && inherited.has(key)) node.set(PDFName.of(key), inherited.get(key) as never);
    }
    if (!node.has(PDFName.of('MediaBox'))) node.set(PDFName.of('MediaBox'), context.obj(LETTER));
    if (!node.has(PDFName.of('Resources'))) node.set(PDFName.of('Resources'), context.obj({}));
    leaves.add(node);
    entries.push({ ref, dict: node });
  };
  const root = context.lookup(rootRef);
  if (rootRef instanceof PDFRef && root instanceof PDFDict) walk(rootRef, root, new Map(), 0);
  if (repair) setPages(doc, entries.map((entry) => entry.ref));
  if (damage && repair) damage.repaired = true;
  return entries;
}

const MAX_TREE_DEPTH = 500;

/** A page tree nested deeper than any real document's. */
export class PageTreeTooDeepError extends Error {
  constructor() {
    super(`the page tree is nested more than ${MAX_TREE_DEPTH} levels deep`);
    this.name = 'PageTreeTooDeepError';
  }
}

/** Replaces the page tree by one flat node whose kids are `pages`, in order. */
export function setPages(doc: PDFDocument, pages: PDFRef[]): void {
  const { context } = doc;
  const rootRef = doc.catalog.get(PDFName.of('Pages'));
  let root = context.lookup(rootRef);
  let ref = rootRef;
  // A root that is itself one of the pages (a damaged tree whose /Pages node had no /Kids) cannot also be their parent.
  if (!(rootRef instanceof PDFRef) || !(root instanceof PDFDict) || pages.includes(rootRef)) {
    root = context.obj({ Type: 'Pages' });
    ref = context.register(root);
    doc.catalog.set(PDFName.of('Pages'), ref);
  }
  const node = root as PDFDict;
  for (const key of INHERITABLE) node.delete(PDFName.of(key));
  node.set(PDFName.of('Type'), PDFName.of('Pages'));
  node.set(PDFName.of('Kids'), context.obj(pages));
  node.set(PDFName.of('Count'), PDFNumber.of(pages.length));
  for (const page of pages) {
    const dict = context.lookup(page);
    if (dict instanceof PDFDict) dict.set(PDFName.of('Parent'), ref as PDFRef);
  }
}

/** The page's rotation as the reader applies it, normalised to 0, 90, 180 or 270. */
export function effectiveRotation(page: PDFDict): number {
  const value = page.lookup(PDFName.of('Rotate'));
  const degrees = value instanceof PDFNumber ? value.asNumber() : 0;
  return (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
}

export function setRotation(page: PDFDict, degrees: number): void {
  const normal = ((degrees % 360) + 360) % 360;
  // Without its own /Rotate a page inherits one from an ancestor /Pages node,
  // so an upright page under a rotated node needs an explicit 0.
  if (normal === 0 && !inheritsRotation(page)) page.delete(PDFName.of('Rotate'));
  else page.set(PDFName.of('Rotate'), PDFNumber.of(normal));
}

function inheritsRotation(page: PDFDict): boolean {
  const seen = new Set<PDFDict>();
  for (let node = page.lookup(PDFName.of('Parent')); node instanceof PDFDict && !seen.has(node); node = node.lookup(PDFName.of('Parent'))) {
    seen.add(node);
    if (node.has(PDFName.of('Rotate'))) return true;
  }
  return false;
}

export type { PDFContext };
