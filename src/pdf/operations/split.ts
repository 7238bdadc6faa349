/**
 * Splitting a document into parts, each its own PDF, from one parse of the
 * input. Every part is built on a fork of the loaded document (fork.ts) by
 * the same page arrangement that extract_pages uses (arrange.ts), so a part
 * keeps exactly what an extraction of its pages keeps: annotations and
 * links (a link to a page outside the part goes), the form fields of its
 * pages, the outline cut down to its pages, the named destinations it still
 * uses, page labels, Info and XMP metadata. Then only the objects the part
 * reaches are written.
 *
 * Every part keeps the document's attachments (/EmbeddedFiles), as every
 * output keeps what the reader had (docs/contract.md, "Inputs and outputs"). Two things of the
 * whole document are not copied into the parts, because they describe the
 * whole document and would be wrong for a part: the logical structure tree
 * (/StructTreeRoot, tagging) and XFA form data.
 */
import { PdfError } from '../errors.js';
import { arrangePages, readPageFacts, type PageFacts } from './arrange.js';
import { forkDocument } from '../model/fork.js';
import { type PDFContext, PDFDict, type PDFDocument, PDFName, PDFRef } from '../model/primitives.js';
import { dictAt, type RefTargets } from '../model/objects.js';
import { pageEntries, type PageEntry } from '../structure/page-tree.js';
import type { PdfPieces } from '../../core/pdf-data.js';
import type { KeepPart } from '../../core/action.js';
import { writeDocumentAndTell, type WrittenRefs } from '../writer/writer.js';
import { objectTableOf } from '../reader/object-table.js';
import { storeOf } from '../model/store.js';

/** The document's page count; a document without pages cannot be split. */
export function pagesToSplit(doc: PDFDocument): number {
  const count = pageEntries(doc).length;
  if (count === 0) throw new PdfError('no_pages', 'has no pages, so there is nothing to split');
  return count;
}

/**
 * One PDF per part; each part lists its pages (0-based) in output order.
 * Parts come as pieces whose stream data are views of the input's bytes, so
 * that all parts together cost little more memory than the input itself.
 */
export function splitDocument(doc: PDFDocument, parts: number[][], keep: KeepPart = (part) => part): PdfPieces[] {
  prepareForSplit(doc);
  return parts.map((pages, index) => keep(writePart(doc, pages), index));
}

/** The pages of the loaded document and what is read of them, found once for all of its parts. */
const pagesOf = new WeakMap<PDFDocument, { refs: PDFRef[]; facts: PageFacts }>();

export function pagesAndFacts(doc: PDFDocument): { refs: PDFRef[]; facts: PageFacts } {
  let known = pagesOf.get(doc);
  if (!known) {
    const entries = pageEntries(doc);
    known = { refs: entries.map((entry) => entry.ref), facts: readPageFacts(doc, entries) };
    pagesOf.set(doc, known);
  }
  return known;
}

/** Readies a loaded document for being split: its pages and what is read of them, once for all parts. */
export function prepareForSplit(doc: PDFDocument): void {
  pagesAndFacts(doc);
  objectTableOf(doc.context)?.freeze();
}

/** The part made of the pages `order` (0-based, in output order; a page may repeat). */
function writePart(doc: PDFDocument, order: number[]): PdfPieces {
  return buildPart(doc, order).pdf;
}

/** The same, with the references of the objects written (for split_by_size's reasoning about sizes). */
export function buildPart(doc: PDFDocument, order: number[]): { pdf: PdfPieces; written: WrittenRefs } {
  const { refs, facts } = pagesAndFacts(doc);
  const part = forkDocument(doc, replacedByArrangement(doc, order, refs, facts));
  dropDocumentLevelData(part);
  // The fork's own copy of a page is made only when the arrangement edits it (a page it keeps or repeats).
  // Given the facts, arrangePages reads only the entries of the part's pages: an entry for every page of the
  // document in every part was a fifth of the bytes a 201-part split of a 2,013-page document allocated.
  const { context } = part;
  const entries: PageEntry[] = [];
  for (const index of order) entries[index] ??= new PartPage(refs[index], context);
  // The references to the dropped pages are left out by the writer's walk, as remove_pages does: one walk
  // of the part from its catalog, not two (nullifyReferences' and the writer's), for each of the parts.
  let nullify: RefTargets | undefined;
  const pages = arrangePages(part, order, entries, facts, (targets) => {
    nullify = targets;
  });
  forgetStructureKeys(part, pages);
  return writeDocumentAndTell(part.context, { nullify });
}

/**
 * What arrangePages sets anew in every part without reading it first: the
 * page tree root's /Kids (setPages, unless the root is one of the part's
 * pages: a damaged tree it rebuilds) and the catalog's /PageLabels (when the
 * document has labels, rewritten for the part's pages).
 */
function replacedByArrangement(doc: PDFDocument, order: number[], refs: PDFRef[], facts: PageFacts): Map<PDFRef, PDFName[]> {
  const replaced = new Map<PDFRef, PDFName[]>();
  const root = doc.context.trailerInfo.Root;
  if (facts.labels && root instanceof PDFRef) replaced.set(root, [PDFName.of('PageLabels')]);
  const pagesRef = doc.catalog.get(PDFName.of('Pages'));
  if (pagesRef instanceof PDFRef && pagesRef !== root && !order.some((index) => refs[index] === pagesRef)) replaced.set(pagesRef, [PDFName.of('Kids')]);
  return replaced;
}

/**
 * A page of a part, its dictionary the part's own copy, made when first
 * asked for. A class, not an object literal with a getter: the literal made
 * a closure and an accessor per page per part (10 MB of a 50-part split's
 * 122 MB of allocations on the images shape).
 */
class PartPage implements PageEntry {
  constructor(
    readonly ref: PDFRef,
    private readonly context: PDFContext,
  ) {}

  get dict(): PDFDict {
    return this.context.lookup(this.ref) as PDFDict;
  }
}

/** Removes from a part what belongs to the whole document and to no page (see the module comment). */
function dropDocumentLevelData(part: PDFDocument): void {
  const { catalog } = part;
  catalog.delete(PDFName.of('StructTreeRoot'));
  // /Marked true promises a structure tree that the part no longer has.
  catalog.delete(PDFName.of('MarkInfo'));
  const acroForm = dictAt(catalog, 'AcroForm');
  if (acroForm?.has(PDFName.of('XFA'))) {
    // An XFA-aware reader would show the whole document's form instead of the part's fields.
    acroForm.delete(PDFName.of('XFA'));
    catalog.delete(PDFName.of('NeedsRendering'));
  }
}

/** Pages' keys into the structure tree's parent tree point nowhere once the tree is gone. */
function forgetStructureKeys(part: PDFDocument, pages: PDFRef[]): void {
  const store = storeOf(part.context);
  for (const ref of pages) {
    // Peeked first: a lookup copies the page into the part.
    const held = store.peek(ref);
    if (!(held instanceof PDFDict && held.has(STRUCT_PARENTS))) continue;
    const page = part.context.lookup(ref);
    if (page instanceof PDFDict) page.delete(STRUCT_PARENTS);
  }
}

const STRUCT_PARENTS = PDFName.of('StructParents');
