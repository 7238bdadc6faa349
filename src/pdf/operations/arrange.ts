/**
 * Rearranging pages in place: the one operation behind reorder, extract,
 * remove and reverse. The loaded document is edited rather than copied into
 * a new one, so that everything attached to surviving pages stays: form
 * fields, outline entries, named destinations, page labels, metadata,
 * attachments.
 */
import { PDFDict, type PDFDocument, PDFName, PDFObject, PDFRef } from '../model/primitives.js';
import { NamedDestinations, destinationPage, forEachNameTreeEntry, leadsToNoPage, targetPage } from '../structure/destinations.js';
import { duplicatePage } from '../structure/duplicate-page.js';
import { storeOf } from '../model/store.js';
import { pruneFields } from '../structure/forms.js';
import { arrayAt, dictAt, nullifyReferences, type RefTargets } from '../model/objects.js';
import { pruneOutline } from '../structure/outline.js';
import { readPageLabels, writePageLabels, type PageLabel } from '../structure/page-labels.js';
import { pageEntries, setPages, type PageEntry } from '../structure/page-tree.js';
import { settledLeaf } from '../structure/leaf-bytes.js';
import { objectTableOf, readOnly } from '../reader/object-table.js';
import { walkGraph } from '../model/graph.js';

const ANNOTS = PDFName.of('Annots');

/**
 * Makes the document's pages `order` (0-based indexes into the current
 * pages). An index may repeat: the repeat becomes an independent copy of the
 * page. Pages not listed are removed with everything that pointed to them.
 * `entries` may be given when the caller already has them (a split arranges
 * many forks of one document, fork.ts); with `known`, only the entries at
 * the places `order` names are read. With `leaveNulls`, the references to
 * the dropped pages and their annotations are handed to it rather than set
 * to null here: for a caller that writes the document next, with them as
 * the writer's `nullify` (the writer walks the document anyway). Returns the
 * pages, in their new order.
 */
export function arrangePages(
  doc: PDFDocument,
  order: number[],
  entries: PageEntry[] = pageEntries(doc),
  known?: PageFacts,
  leaveNulls?: (targets: RefTargets) => void,
): PDFRef[] {
  const labels = known ? known.labels : readPageLabels(doc, entries.length);
  const placed = new Set<number>();
  const output = order.map((index) => {
    if (!placed.has(index)) {
      placed.add(index);
      return entries[index].ref;
    }
    return duplicatePage(doc, entries[index].dict);
  });
  const dropped = new DroppedPages(known?.places ?? placesOf(entries), placed);
  setPages(doc, output);
  if (dropped.size > 0) forgetPages(doc, entries, output, dropped, known, leaveNulls);
  if (labels)
    writePageLabels(
      doc,
      order.map((index) => labels[index]),
    );
  return output;
}

/**
 * Removes what pointed at dropped pages: their widgets from the field tree,
 * outline entries, named destinations, links on surviving pages, an opening
 * action, then any remaining reference (structure tree, article threads).
 */
function forgetPages(
  doc: PDFDocument,
  entries: PageEntry[],
  output: PDFRef[],
  dropped: DroppedPages,
  known: PageFacts | undefined,
  leaveNulls: ((targets: RefTargets) => void) | undefined,
): void {
  const named = new NamedDestinations(doc);
  const droppedAnnotations = new Set<PDFRef>();
  const annotationsOf = known?.annotations ?? pageAnnotations(doc, droppedPagesToRead(doc, entries, dropped));
  // forEach: a for-of over the map makes an array per entry. In page order, as the pages are listed.
  annotationsOf.forEach((annotations, page) => {
    if (dropped.has(page)) for (const annot of annotations) droppedAnnotations.add(annot);
  });
  const written = new AnnotationsWritten(doc);
  if (droppedAnnotations.size > 0) keepAnnotationsOfKeptPages(doc, entries, dropped, droppedAnnotations, known, written);
  pruneFields(doc, droppedAnnotations);
  pruneOutline(doc, dropped, named);
  pruneNamedDestinations(doc, dropped, named);
  // Over the output pages, duplicates included: their links are copies too.
  for (const ref of output) removeDeadLinks(doc, ref, dropped, named, written);
  const open = doc.catalog.get(PDFName.of('OpenAction'));
  if (open !== undefined) {
    const openDict = doc.context.lookup(open);
    const page = openDict instanceof PDFDict ? targetPage(doc, wrapAction(doc, openDict), named) : destinationPage(doc, open, named);
    if (page && dropped.has(page)) doc.catalog.delete(PDFName.of('OpenAction'));
  }
  const targets: RefTargets = { has: (ref) => dropped.has(ref) || droppedAnnotations.has(ref), size: dropped.size + droppedAnnotations.size };
  if (leaveNulls) leaveNulls(targets);
  else nullifyReferences(doc.context, targets);
}

/**
 * The pages an arrangement drops: those whose place among the pages is not
 * in `placed`, told from an index of every page's place (made once for all
 * parts of a split). A set of the dropped pages themselves, made anew for
 * every part of a split and spread again into the set of references to
 * nullify, was a third of splitting a 2,013-page document into 201 parts
 * (bench/README.md, "Long documents").
 */
class DroppedPages {
  readonly size: number;

  constructor(
    private readonly places: ReadonlyMap<PDFRef, number>,
    private readonly placed: ReadonlySet<number>,
  ) {
    this.size = places.size - placed.size;
  }

  has(ref: PDFRef): boolean {
    const place = this.places.get(ref);
    return place !== undefined && !this.placed.has(place);
  }
}

/** Each page's place (0-based) among `entries`. */
function placesOf(entries: PageEntry[]): Map<PDFRef, number> {
  const places = new Map<PDFRef, number>();
  entries.forEach((entry, place) => places.set(entry.ref, place));
  return places;
}

/**
 * The dropped pages whose annotations must be listed (to be taken out of the
 * form and nulled where the output refers to them). Read from the pages'
 * bytes where they tell (ObjectTable.annotationsWrittenIn): a page without
 * annotations is not parsed, nor one whose annotations the output does not
 * reach (the walk from the catalog that stops at the dropped pages does not
 * meet them), so that extract 5 of 500 parses 5 pages, not 500. With a form
 * or a structure tree, which reach most annotations, every page that has
 * annotations is read. So is every one when they are few against the
 * document's objects: listing annotations the output does not reach changes
 * nothing, and reading a page costs less than walking the whole document
 * (a removal of page 1 of 500 walked 4,700 objects for it; the walk of
 * nullifyReferences follows anyway).
 */
function droppedPagesToRead(doc: PDFDocument, entries: PageEntry[], dropped: DroppedPages): PageEntry[] {
  const { context, catalog } = doc;
  const table = objectTableOf(context);
  const everyAnnotated = catalog.has(PDFName.of('AcroForm')) || catalog.has(PDFName.of('StructTreeRoot'));
  const read = new Set<PageEntry>();
  const ifReached: Array<{ entry: PageEntry; annotations: PDFRef[] }> = [];
  for (const entry of entries) {
    if (!dropped.has(entry.ref)) continue;
    // A page the sound tree's walk saw without /Annots (the bytes annotationsWrittenIn would look at): none.
    if (entry.annotsUnwritten && table?.isUntouched(entry.ref)) continue;
    const annotations = table?.annotationsWrittenIn(entry.ref);
    if (annotations === undefined || (everyAnnotated && annotations.length > 0)) read.add(entry);
    else if (annotations.length > 0) ifReached.push({ entry, annotations });
  }
  if (ifReached.length * READ_RATHER_THAN_WALK > context.largestObjectNumber) {
    const { reached } = walkGraph(context, [context.trailerInfo.Root, context.trailerInfo.Info], (ref) => !dropped.has(ref));
    for (const { entry, annotations } of ifReached) if (annotations.some((ref) => reached.has(ref))) read.add(entry);
  } else for (const { entry } of ifReached) read.add(entry);
  // In page order, as the pages are listed.
  return entries.filter((entry) => read.has(entry));
}

/**
 * Takes out of `droppedAnnotations` those a kept page lists too: some files
 * share one /Annots array, or its annotations, among pages, and dropping
 * one of those pages must not take them from the others (qpdf's
 * rotated-shared-annotations-1.pdf: extracting pages 1 and 4 left page 4 an
 * /Annots of nulls and its form fields out of the form). A split knows the
 * shared ones (PageFacts.shared); otherwise the kept pages are read as
 * droppedPagesToRead reads the dropped ones, from their bytes where they
 * tell, and only while an annotation is left to find.
 */
function keepAnnotationsOfKeptPages(
  doc: PDFDocument,
  entries: PageEntry[],
  dropped: DroppedPages,
  droppedAnnotations: Set<PDFRef>,
  known: PageFacts | undefined,
  written: AnnotationsWritten,
): void {
  if (known) {
    known.shared.forEach((pages, annot) => {
      if (droppedAnnotations.has(annot) && pages.some((page) => !dropped.has(page))) droppedAnnotations.delete(annot);
    });
    return;
  }
  const table = objectTableOf(doc.context);
  for (const entry of entries) {
    if (droppedAnnotations.size === 0) return;
    if (dropped.has(entry.ref) || (entry.annotsUnwritten && table?.isUntouched(entry.ref))) continue;
    for (const annot of written.of(entry.ref) ?? annotationsRead(doc, entry)) droppedAnnotations.delete(annot);
  }
}

/**
 * The annotations written in each kept page's input bytes
 * (ObjectTable.annotationsWrittenIn), read once: keepAnnotationsOfKeptPages
 * reads every kept page's when the dropped annotations are not shared, and
 * removeDeadLinks reads them again (images: 500 pages, read twice).
 * Pages are not changed between the two.
 */
class AnnotationsWritten {
  private readonly read = new Map<PDFRef, PDFRef[] | undefined>();
  private readonly table: ReturnType<typeof objectTableOf>;

  constructor(doc: PDFDocument) {
    this.table = objectTableOf(doc.context);
  }

  of(page: PDFRef): PDFRef[] | undefined {
    if (this.read.has(page)) return this.read.get(page);
    const annotations = this.table?.annotationsWrittenIn(page);
    this.read.set(page, annotations);
    return annotations;
  }
}

/** Dropped pages with annotations are read rather than the document walked while they are at most one per this many objects. */
const READ_RATHER_THAN_WALK = 64;

/**
 * What arrangePages reads of every page before it changes anything. A split
 * arranges one fork per part of the same document: it reads these once
 * (readPageFacts) instead of once per part.
 */
export interface PageFacts {
  labels: PageLabel[] | undefined;
  /** Each page's annotations (by reference). */
  annotations: Map<PDFRef, PDFRef[]>;
  /** Each page's place (0-based) among the pages. */
  places: Map<PDFRef, number>;
  /** The annotations more than one page lists, with those pages (mostly none). */
  shared: Map<PDFRef, PDFRef[]>;
}

export function readPageFacts(doc: PDFDocument, entries: PageEntry[] = pageEntries(doc)): PageFacts {
  const annotations = pageAnnotations(doc, entries);
  return { labels: readPageLabels(doc, entries.length), annotations, places: placesOf(entries), shared: sharedAnnotations(annotations) };
}

function sharedAnnotations(annotations: Map<PDFRef, PDFRef[]>): Map<PDFRef, PDFRef[]> {
  const pagesOf = new Map<PDFRef, PDFRef[]>();
  annotations.forEach((annots, page) => {
    for (const annot of annots) {
      const pages = pagesOf.get(annot);
      if (pages) pages.push(page);
      else pagesOf.set(annot, [page]);
    }
  });
  pagesOf.forEach((pages, annot) => {
    if (pages.length < 2) pagesOf.delete(annot);
  });
  return pagesOf;
}

function pageAnnotations(doc: PDFDocument, entries: PageEntry[]): Map<PDFRef, PDFRef[]> {
  const annotations = new Map<PDFRef, PDFRef[]>();
  const table = objectTableOf(doc.context);
  for (const entry of entries) {
    // A page whose input bytes hold no /Annots has none: not parsed.
    if (table?.annotationsWrittenIn(entry.ref)?.length === 0) continue;
    const refs = annotationsRead(doc, entry);
    if (refs.length > 0) annotations.set(entry.ref, refs);
  }
  return annotations;
}

/** The annotations a page lists, from the page as parsed; read only: a fork need not copy the pages it drops. */
function annotationsRead(doc: PDFDocument, entry: PageEntry): PDFRef[] {
  const page = storeOf(doc.context).peek(entry.ref);
  return (arrayAt(page instanceof PDFDict ? page : entry.dict, 'Annots')?.asArray() ?? []).filter((annot): annot is PDFRef => annot instanceof PDFRef);
}

/** An /OpenAction is either a destination or an action dictionary; targetPage reads both from /A. */
function wrapAction(doc: PDFDocument, action: PDFDict): PDFDict {
  return doc.context.obj({ A: action }) as PDFDict;
}

function pruneNamedDestinations(doc: PDFDocument, dropped: DroppedPages, named: NamedDestinations): void {
  const old = dictAt(doc.catalog, 'Dests');
  if (old) {
    for (const [key, value] of old.entries()) {
      const page = destinationPage(doc, value, named);
      if (page && dropped.has(page)) old.delete(key);
    }
  }
  const names = dictAt(doc.catalog, 'Names');
  const tree = names && dictAt(names, 'Dests');
  if (!names || !tree) return;
  // Rebuilt as a single sorted leaf: simpler than repairing /Limits of a pruned tree.
  const kept: Array<{ name: string; key: PDFObject; value: PDFObject }> = [];
  forEachNameTreeEntry(doc, tree, (name, value, key) => {
    const page = destinationPage(doc, value, named);
    if (!(page && dropped.has(page))) kept.push({ name, key, value });
  });
  kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const leaf = doc.context.obj({}) as PDFDict;
  leaf.set(PDFName.of('Names'), doc.context.obj(kept.flatMap(({ key, value }) => [key, value])));
  names.set(PDFName.of('Dests'), doc.context.register(leaf));
}

/** Links on a surviving page that lead to a removed page lead nowhere: they go. */
function removeDeadLinks(doc: PDFDocument, pageRef: PDFRef, dropped: DroppedPages, named: NamedDestinations, annotationsWritten: AnnotationsWritten): void {
  // Only looks at the page and its annotations: those it keeps go out as their input bytes.
  // Peeked: on a split's fork a lookup would copy the page and every annotation it reads.
  const store = storeOf(doc.context);
  // A page left as its input bytes, which hold no annotations: not parsed to find none.
  const settled = settledLeaf(store, pageRef);
  if (settled?.annotated === false) return;
  const keeps = (item: PDFObject): boolean => {
    if (item instanceof PDFRef) {
      const source = store.source(item);
      if (source?.kind === 'raw' && leadsToNoPage(source.raw)) return true;
    }
    const annot = item instanceof PDFRef ? store.peek(item) : item;
    if (!(annot instanceof PDFDict) || annot.lookup(PDFName.of('Subtype')) !== PDFName.of('Link')) return true;
    const target = targetPage(doc, annot, named);
    return !(target && dropped.has(target));
  };
  // A page left as its input bytes whose /Annots, read from those bytes, keeps every link: neither parsed nor
  // re-serialized (images: 500 pages with 1,700 links, parsed only to find that none leads to page 1).
  const written = settled && annotationsWritten.of(pageRef);
  if (written && readOnly(doc.context, () => written.every(keeps))) return;
  const page = store.peek(pageRef);
  const annots = page instanceof PDFDict ? arrayAt(page, 'Annots') : undefined;
  if (!annots) return;
  const kept = readOnly(doc.context, () => annots.asArray().filter(keeps));
  if (kept.length !== annots.size()) (doc.context.lookup(pageRef) as PDFDict).set(ANNOTS, doc.context.obj(kept));
}
