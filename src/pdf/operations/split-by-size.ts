/**
 * split_by_size: consecutive parts, each at most `limit` bytes as written,
 * each packed (adding its next page would pass the limit), except that a
 * page too large on its own is a part of its own.
 *
 * Saving a growing candidate after every page would be quadratic. Instead:
 *
 * 1. Weigh the pages once. A page's weight is the written size of the
 *    objects it reaches (its dictionary, content streams, fonts, images,
 *    annotations, its form fields), each object with its header and its
 *    cross-reference entry; outline items and named destinations that lead
 *    to it are added to it. Objects shared by pages (a font) are counted
 *    once per part: a part's estimate is the size of the union of its pages'
 *    objects, plus what every part carries (catalog, metadata, …).
 * 2. Choose the longest run of pages whose estimate fits, save it, and
 *    correct. The difference between a saved part and its estimate (the page
 *    tree, labels, rebuilt name trees, …) calibrates the next choice; a part
 *    that came out too large is cut back and saved again, one that came out
 *    small enough is grown. The search keeps the largest run known to fit and
 *    the shortest known not to, so it ends after a few saves even when the
 *    estimate is poor, and usually after one.
 * 3. Packing is proven, not guessed: adding the next page to a saved part
 *    adds at least the objects only that page reaches and that the part does
 *    not hold yet (everything else a part holds only grows with more pages).
 *    When even that lower bound passes the limit, the part is final without
 *    another save; otherwise the part with the next page is saved to see.
 */
import { NamedDestinations, destinationPage, forEachNameTreeEntry, leadsToNoPage, targetPage } from '../structure/destinations.js';
import { isWidget } from '../structure/forms.js';
import { PDFDict, type PDFDocument, PDFName, PDFObject, PDFRef, PDFStream } from '../model/primitives.js';
import { arrayAt, dictAt } from '../model/objects.js';
import { outlineChildren, outlineItems } from '../structure/outline.js';
import { pageEntries, type PageEntry } from '../structure/page-tree.js';
import type { PdfPieces } from '../../core/pdf-data.js';
import type { KeepPart } from '../../core/action.js';
import { buildPart, pagesAndFacts, pagesToSplit, prepareForSplit } from './split.js';
import { continuesRange, rangeDict, type PageLabel } from '../structure/page-labels.js';
import { forEachChild } from '../model/walk.js';
import { sourceOf, type ObjectSource } from '../model/graph.js';
import { type ObjectTable, objectTableOf, unloadedData } from '../reader/object-table.js';
import { REF_FIELDS, REF_GEN, REF_NUM, type RawObject } from '../reader/skim.js';
import { isRegular } from '../reader/syntax.js';
import type { WrittenRefs } from '../writer/writer.js';

export interface SizedPart {
  /** 0-based page indexes, consecutive. */
  pages: number[];
  pdf: PdfPieces;
}

export interface SplitBySizeOptions {
  /** Called after every save (for tests and measurements: how many saves a split took). */
  onSave?: (pages: number[], size: number) => void;
  /** Takes each part once it is decided (TransformContext.keepPart). */
  keep?: KeepPart;
}

const PARENT = PDFName.of('Parent');
const KIDS = PDFName.of('Kids');
const ANNOTS = PDFName.of('Annots');
const STRUCT_PARENTS = PDFName.of('StructParents');
const FT = PDFName.of('FT');
const T = PDFName.of('T');
const SUBTYPE = PDFName.of('Subtype');
const LINK = PDFName.of('Link');

export function splitBySize(doc: PDFDocument, limit: number, options: SplitBySizeOptions = {}): SizedPart[] {
  const count = pagesToSplit(doc);
  prepareForSplit(doc);
  const weights = new PageWeights(doc);
  const parts: SizedPart[] = [];
  const keep = options.keep ?? ((part) => part);
  // What a saved part has beyond its estimate (page tree, labels, rebuilt trees, cross-reference
  // table and trailer); learnt from every save, first guessed.
  let residual = 256;
  const save = (first: number, last: number) => {
    const pages = range(first, last);
    const part = buildPart(doc, pages);
    options.onSave?.(pages, part.pdf.byteLength);
    return { ...part, pages };
  };

  let first = 0;
  while (first < count) {
    const estimate = weights.partFrom(first);
    // lo: the last page of the longest run known to fit (first - 1: none yet);
    // hi: the last page of the shortest run known not to fit (count: none known).
    let lo = first - 1;
    let hi = count;
    let fits: ReturnType<typeof save> | undefined;
    let alone: ReturnType<typeof save> | undefined;
    let step = 1;
    for (let round = 0; lo + 1 < hi && lo + 1 < count; round++) {
      let last: number;
      if (round < 3) {
        last = estimate.lastWithin(limit - residual);
      } else if (hi < count) {
        // The estimate keeps missing: bisect.
        last = Math.floor((lo + hi) / 2);
      } else {
        // No upper bound known yet: gallop.
        step *= 2;
        last = lo + step;
      }
      last = Math.min(Math.max(last, lo + 1), hi - 1, count - 1);
      const part = save(first, last);
      const size = part.pdf.byteLength;
      residual = size - estimate.upTo(last);
      if (size <= limit) {
        lo = last;
        fits = part;
        if (lo + 1 < hi && lo + 1 < count && size + weights.leastGrowth(lo + 1, first, part.written) > limit) hi = lo + 1;
      } else {
        hi = last;
        if (last === first) alone = part;
      }
    }
    if (fits && lo >= first) {
      parts.push({ pages: fits.pages, pdf: keep(fits.pdf, parts.length) });
      first = lo + 1;
    } else {
      // Not even the first page fits: it is a part of its own.
      parts.push({ pages: alone!.pages, pdf: keep(alone!.pdf, parts.length) });
      first += 1;
    }
    weights.forgetBefore(first);
  }
  return parts;
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/**
 * The weights of a document's pages: which objects each page reaches, and
 * what each object costs in the output.
 */
class PageWeights {
  private readonly entries: PageEntry[];
  private readonly pageIndex = new Map<PDFRef, number>();
  private readonly annotationPage = new Map<PDFRef, number>();
  private readonly costs = new Map<PDFRef, number>();
  private readonly closures: Array<PageClosure | undefined> = [];
  /** Outline items and named destinations leading to each page: in the estimate, not in the lower bound. */
  private readonly extras: number[];
  /** Pages that an outline item with children leads to: adding one may retarget that item (see leastGrowth). */
  private readonly retargets = new Set<number>();
  /**
   * Adding a page's outline items relinks their neighbours (/Next, /Prev, /First, /Last),
   * whose references may be written shorter: at most four per item.
   */
  private readonly navigationSlack: number[];
  private readonly base: Set<PDFRef>;
  private readonly baseCost: number;
  /** The longest line a cross-reference subsection header can take. */
  private readonly subsectionLine: number;
  /** The input's objects (headersSaved asks which numbers it has). */
  private readonly table: ObjectTable | undefined;
  /** Each page's label (split.ts reads them once for all parts), when the document has labels. */
  private readonly labels: PageLabel[] | undefined;
  /** rangeSizes[page]: the size of the /PageLabels range dictionary that starts at `page`, once asked. */
  private readonly rangeSizes: number[] = [];

  constructor(private readonly doc: PDFDocument) {
    this.entries = pageEntries(doc);
    this.entries.forEach((entry, i) => {
      this.pageIndex.set(entry.ref, i);
      for (const annot of arrayAt(entry.dict, 'Annots')?.asArray() ?? []) {
        if (annot instanceof PDFRef && !this.annotationPage.has(annot)) this.annotationPage.set(annot, i);
      }
    });
    this.extras = new Array<number>(this.entries.length).fill(0);
    this.navigationSlack = new Array<number>(this.entries.length).fill(0);
    this.subsectionLine = 2 * String(doc.context.largestObjectNumber + 1).length + 2;
    // Bounded: a damaged table can claim a number in the billions; objects past it are scanned every time.
    this.fieldKeys = new Uint8Array(Math.min(doc.context.largestObjectNumber + 1, 1 << 20));
    this.table = objectTableOf(doc.context);
    this.labels = pagesAndFacts(doc).facts.labels;
    this.weighNavigation();
    this.base = this.reachBase();
    let baseCost = 0;
    for (const ref of this.base) baseCost += this.cost(ref);
    this.baseCost = baseCost;
  }

  /** An estimate of parts starting at page `first`, grown page by page as asked. */
  partFrom(first: number): PartEstimate {
    return new PartEstimate(this, first, this.base, this.baseCost);
  }

  closure(page: number): PageClosure {
    let closure = this.closures[page];
    if (!closure) {
      closure = this.reachPage(page);
      this.closures[page] = closure;
    }
    return closure;
  }

  /** Lets go of the closures of pages before `page`: parts only grow forwards, so they are not asked for again. */
  forgetBefore(page: number): void {
    for (let i = this.forgotten; i < page; i++) this.closures[i] = undefined;
    this.forgotten = page;
  }

  private forgotten = 0;

  extra(page: number): number {
    return this.extras[page];
  }

  /**
   * What listing `page` in a part that starts at `first` adds besides its
   * objects: its reference in the part's /Kids, and an entry of the part's
   * /PageLabels where a range of labels starts (the part's first page always
   * has one). Left out, the residual grew with a part's pages and its labels,
   * and the estimate missed: 28 of long-text's 306 saves (2,013 pages, 480
   * label ranges) were saved again.
   */
  listing(page: number, first: number): number {
    const kid = this.entries[page].ref.sizeInBytes() + 1;
    const { labels } = this;
    if (!labels || (page !== first && continuesRange(labels[page - 1], labels[page]))) return kid;
    this.rangeSizes[page] ??= rangeDict(this.doc, labels[page]).sizeInBytes();
    // `index <<…>> ` in /Nums.
    return kid + String(page - first).length + this.rangeSizes[page] + 2;
  }

  get pageCount(): number {
    return this.entries.length;
  }

  /**
   * A lower bound of what adding `page` to a part from `first` that wrote
   * `written` adds to its size: its listing (its /Kids entry and page label
   * entry are written whatever else changes), and the objects only this page
   * reaches that the part does not hold, each at least its size, less the
   * cross-reference subsection headers they may save (headersSaved). Links
   * are left out (a link whose target is outside the part is removed), and so
   * are outline items and named destinations. An outline item with children
   * that leads to `page` may change its destination when the page joins, so
   * for such a page there is no bound (0: save to see).
   */
  leastGrowth(page: number, first: number, written: WrittenRefs): number {
    if (this.retargets.has(page)) return 0;
    const closure = this.closure(page);
    const least = (closure.least ??= this.leastOf(page, closure));
    let growth = this.listing(page, first) - this.navigationSlack[page];
    const added: number[] = [];
    for (let i = 0; i < closure.certain; i++) {
      const ref = closure.refs[i];
      if (written.has(ref)) continue;
      growth += least[i];
      added.push(ref.objectNumber);
    }
    return growth - this.headersSaved(added, written);
  }

  /**
   * The most the classic cross-reference table can shrink when the objects
   * numbered `added` join the part's `written` ones: one subsection header
   * (`first count`) for each run of added numbers that joins two runs of
   * the table, the digits the first number loses for a run that a run of
   * the table continues; a run that continues one or starts its own makes
   * the table no shorter. Anything else the page brings costs more than a
   * header. Each object was taken to save a whole header before: on
   * long-text, where a page's objects follow the page before's in number,
   * 7 of 278 parts were saved once more than their pages needed.
   */
  private headersSaved(added: number[], written: WrittenRefs): number {
    added.sort((a, b) => a - b);
    let saved = 0;
    for (let i = 0; i < added.length; ) {
      const start = added[i];
      let end = start;
      while (i < added.length && added[i] <= end + 1) end = Math.max(end, added[i++]);
      if (!this.mayBeWritten(end + 1, written)) continue;
      saved += this.mayBeWritten(start - 1, written) ? this.subsectionLine : String(end + 1).length - String(start).length;
    }
    return saved;
  }

  /** Whether the table may list object number `num`: written under generation 0, or not known to be absent. */
  private mayBeWritten(num: number, written: WrittenRefs): boolean {
    if (num <= 0 || written.has(PDFRef.of(num))) return true;
    // An object of another generation, or no table to tell: taken as written, which can only lower the bound.
    return this.table?.exists(num, 0) !== true;
  }

  /** What one object adds to a file: `n g obj`, its body, `endobj`, a cross-reference entry. */
  cost(ref: PDFRef, source: ObjectSource | undefined = sourceOf(this.doc.context, ref)): number {
    let cost = this.costs.get(ref);
    if (cost !== undefined) return cost;
    // As the writer will write it: its input bytes when untouched, else serialized (graph.ts).
    // A reference to a missing object is written as the reference alone (readers take it as null).
    // `n g obj\n`, counted rather than written out: a string per object weighed.
    const header = decimalDigits(ref.objectNumber) + decimalDigits(ref.generationNumber) + ' obj\n'.length + 1;
    cost = source === undefined ? 0 : header + writtenBodySize(source) + '\nendobj\n'.length + 20;
    this.costs.set(ref, cost);
    return cost;
  }

  /**
   * The objects a page brings into a part. The walk stops at other pages
   * and at other pages' annotations (links and outline entries point at
   * pages; a part holds only its own), and leaves the page tree (/Parent of
   * the page). A widget's field and the field's ancestors come along, but not
   * their other widgets (/Kids). Link annotations come last, as uncertain.
   */
  private reachPage(page: number): PageClosure {
    const { ref: pageRef, dict: pageDict } = this.entries[page];
    const seen = new Set<PDFRef>([pageRef]);
    const refs: PDFRef[] = [pageRef];
    // Each object's cost, weighed where the walk has its source at hand: asked again by every estimate that
    // grows through this page, it was a second look-up of the source and of the cost per object.
    const costs: number[] = [this.cost(pageRef)];
    const fieldNodes = new Set<PDFRef>();
    const links: PDFRef[] = [];
    const { context } = this.doc;
    const named = this.named();
    const visit = (start: PDFObject, collectLinks: boolean) => {
      const stack: Array<{ object: PDFObject; fieldLevel: boolean }> = [{ object: start, fieldLevel: false }];
      while (stack.length > 0) {
        const { object, fieldLevel } = stack.pop()!;
        if (object instanceof PDFRef) {
          if (seen.has(object) || this.pageIndex.has(object)) continue;
          const owner = this.annotationPage.get(object);
          if (owner !== undefined && owner !== page) continue;
          // An input object that no field key can be in is followed through its skimmed references,
          // unparsed: a chain of 200,000 objects behind one page was parsed whole to weigh it. So is
          // an annotation of this page whose bytes show it leads to no page (a URI link: the images
          // shape's 1,700 were parsed only to learn that they are not internal links).
          const source = sourceOf(context, object);
          if (source?.kind === 'raw' && !this.mayHoldFieldKeys(object, source.raw) && (owner === undefined || leadsToNoPage(source.raw))) {
            seen.add(object);
            refs.push(object);
            costs.push(this.cost(object, source));
            const { raw, table } = source;
            for (let i = 0; i < raw.refs.length; i += REF_FIELDS) {
              const num = raw.refs[i + REF_NUM];
              const gen = raw.refs[i + REF_GEN];
              if (table.exists(num, gen)) stack.push({ object: PDFRef.of(num, gen), fieldLevel: false });
            }
            continue;
          }
          const target = context.lookup(object);
          if (collectLinks && owner === page && target instanceof PDFDict && isInternalLink(this.doc, target, named)) {
            links.push(object);
            continue;
          }
          seen.add(object);
          refs.push(object);
          costs.push(this.cost(object, source));
          if (target !== undefined) stack.push({ object: target, fieldLevel: false });
          continue;
        }
        const dict = object instanceof PDFStream ? object.dict : object instanceof PDFDict ? object : undefined;
        const formNode = dict !== undefined && (isWidget(dict) || dict.has(FT) || dict.has(T));
        forEachChild(object, (value, _holder, key) => {
          if (key === PARENT) {
            // A widget's field, and that field's parents: needed, but not the field's other kids.
            if (formNode && value instanceof PDFRef && !seen.has(value)) {
              const parent = context.lookup(value);
              if (parent instanceof PDFDict) {
                seen.add(value);
                refs.push(value);
                costs.push(this.cost(value));
                fieldNodes.add(value);
                stack.push({ object: parent, fieldLevel: true });
              }
            }
          } else if (!(fieldLevel && key === KIDS)) stack.push({ object: value, fieldLevel: false });
        });
      }
    };
    visit(pageDict, true);
    const certain = refs.length;
    for (const link of links) visit(link, false);
    return { refs, costs, certain, fieldNodes: fieldNodes.size > 0 ? fieldNodes : undefined, hasLinks: links.length > 0 };
  }

  /**
   * The least each certain object of a page's closure adds (see leastGrowth), but for the
   * cross-reference headers it may save (headersSaved): its cost, less every reference to another page or
   * another page's annotation in it (the part writes null there when that page is not in it),
   * less the /Kids of a field (the part lists only its own widgets there). Asked only for the
   * page after a saved part, not for every page weighed: on long-text it was a third of the
   * weighing.
   */
  private leastOf(page: number, { refs, certain, fieldNodes, hasLinks }: PageClosure): number[] {
    const { context } = this.doc;
    const pageDict = this.entries[page].dict;
    const least = refs.slice(0, certain).map((ref) => {
      const source = sourceOf(context, ref);
      const fieldNode = fieldNodes?.has(ref) === true;
      if (source?.kind === 'raw' && !fieldNode) return this.cost(ref) - this.nullableRaw(source, page);
      const object = context.lookup(ref);
      let bytes = this.cost(ref) - (object ? this.nullable(object, page) : 0);
      if (fieldNode && object instanceof PDFDict) bytes -= entrySize(object, KIDS);
      return bytes;
    });
    // The part's copy of the page loses /StructParents (split.ts); and when a link on it leads
    // out of the part, its /Annots is rewritten without that link: count neither.
    least[0] -= entrySize(pageDict, STRUCT_PARENTS);
    const annots = pageDict.get(ANNOTS);
    if (hasLinks && annots !== undefined) {
      least[0] -= entrySize(pageDict, ANNOTS);
      const at = annots instanceof PDFRef ? refs.indexOf(annots, 1) : -1;
      if (at >= 0 && at < certain) least[at] = 0;
    }
    return least;
  }

  /** Bytes of references to other pages and their annotations written in an object (they may become null). */
  private nullable(object: PDFObject, page: number): number {
    let bytes = 0;
    const stack: PDFObject[] = [object];
    const push = (child: PDFObject) => {
      stack.push(child);
    };
    while (stack.length > 0) {
      const item = stack.pop()!;
      if (item instanceof PDFRef) {
        const onPage = this.pageIndex.get(item) ?? this.annotationPage.get(item);
        if (onPage !== undefined && onPage !== page) bytes += item.sizeInBytes();
        continue;
      }
      forEachChild(item, push);
    }
    return bytes;
  }

  /** The same for an object still as its input bytes. */
  private nullableRaw({ raw, table }: Extract<ObjectSource, { kind: 'raw' }>, page: number): number {
    let bytes = 0;
    for (let i = 0; i < raw.refs.length; i += REF_FIELDS) {
      const num = raw.refs[i + REF_NUM];
      const gen = raw.refs[i + REF_GEN];
      if (!table.exists(num, gen)) continue;
      const ref = PDFRef.of(num, gen);
      const onPage = this.pageIndex.get(ref) ?? this.annotationPage.get(ref);
      if (onPage !== undefined && onPage !== page) bytes += ref.sizeInBytes();
    }
    return bytes;
  }

  /**
   * mayHoldFieldKeys of each object number (generation 0) once asked: 0 not yet, 1 no, 2 yes. The pages'
   * walks reach an object once for each page that uses it: on long-text, 8,921 scans of 3,661 objects.
   */
  private readonly fieldKeys: Uint8Array;

  private mayHoldFieldKeys(ref: PDFRef, raw: RawObject): boolean {
    const num = ref.objectNumber;
    if (ref.generationNumber !== 0 || num >= this.fieldKeys.length) return mayHoldFieldKeys(raw);
    let known = this.fieldKeys[num];
    if (known === 0) this.fieldKeys[num] = known = mayHoldFieldKeys(raw) ? 2 : 1;
    return known === 2;
  }

  private namedCache?: NamedDestinations;
  private named(): NamedDestinations {
    return (this.namedCache ??= new NamedDestinations(this.doc));
  }

  /** Outline items and named destinations: weighed with the page they lead to. */
  private weighNavigation(): void {
    const { doc } = this;
    const named = this.named();
    const outlines = dictAt(doc.catalog, 'Outlines');
    if (outlines) {
      for (const item of outlineItems(doc, outlines)) {
        const target = targetPage(doc, item.dict, named);
        const page = target ? this.pageIndex.get(target) : undefined;
        if (page !== undefined) {
          this.extras[page] += this.cost(item.ref);
          this.navigationSlack[page] += 4 * String(doc.context.largestObjectNumber).length;
          if (outlineChildren(doc, item.dict).length > 0) this.retargets.add(page);
        }
      }
    }
    const weighName = (name: string, value: PDFObject) => {
      const target = destinationPage(doc, value, named);
      const page = target ? this.pageIndex.get(target) : undefined;
      if (page !== undefined) this.extras[page] += name.length + 4 + value.sizeInBytes();
    };
    const old = dictAt(doc.catalog, 'Dests');
    if (old) for (const [key, value] of old.entries()) weighName(key.decodeText(), value);
    const tree = dictAt(doc.catalog, 'Names');
    const dests = tree && dictAt(tree, 'Dests');
    if (dests) forEachNameTreeEntry(doc, dests, (name, value) => weighName(name, value));
  }

  /**
   * What every part carries whatever its pages: the objects reached from the
   * trailer other than through the page tree, the outline, named
   * destinations, page labels, the form's field list, and what split.ts
   * leaves out of every part.
   */
  private reachBase(): Set<PDFRef> {
    const { context, catalog } = this.doc;
    const seen = new Set<PDFRef>();
    const skipCatalog = new Set(['Pages', 'Outlines', 'Dests', 'PageLabels', 'StructTreeRoot', 'MarkInfo', 'Names', 'AcroForm']);
    const stack: PDFObject[] = [];
    const push = (child: PDFObject) => {
      stack.push(child);
    };
    const { Root, Info } = context.trailerInfo;
    if (Root instanceof PDFRef) seen.add(Root);
    if (Info) stack.push(Info);
    for (const [key, value] of catalog.entries()) if (!skipCatalog.has(key.decodeText())) stack.push(value);
    const names = dictAt(catalog, 'Names');
    if (names) for (const [key, value] of names.entries()) if (!['Dests', 'EmbeddedFiles'].includes(key.decodeText())) stack.push(value);
    const acroForm = dictAt(catalog, 'AcroForm');
    if (acroForm) for (const [key, value] of acroForm.entries()) if (!['Fields', 'XFA'].includes(key.decodeText())) stack.push(value);
    while (stack.length > 0) {
      const object = stack.pop()!;
      if (object instanceof PDFRef) {
        if (seen.has(object) || this.pageIndex.has(object) || this.annotationPage.has(object)) continue;
        seen.add(object);
        const target = context.lookup(object);
        if (target !== undefined) stack.push(target);
        continue;
      }
      forEachChild(object, push);
    }
    if (Root instanceof PDFRef) seen.delete(Root);
    return seen;
  }
}

interface PageClosure {
  /** The page's own reference first, then what it reaches; links and what only they reach last. */
  refs: PDFRef[];
  /** costs[i]: what refs[i] adds to a file (PageWeights.cost). */
  costs: number[];
  /** refs[0 … certain) are written whenever the page is. */
  certain: number;
  /** The form's field nodes among refs (a widget's field and its parents), if any. */
  fieldNodes: Set<PDFRef> | undefined;
  /** Whether the page has links to other pages (they are last in refs, after `certain`). */
  hasLinks: boolean;
  /** least[i]: the least refs[i] adds to a part that does not hold it yet (i < certain); made when first asked. */
  least?: number[];
}

const FIELD_KEYS = ['Parent', 'FT', 'T', 'Widget'].map((key) => Uint8Array.from(key, (c) => c.charCodeAt(0)));

/**
 * Whether an object's input bytes may hold a key the walk of a page treats
 * apart (reachPage: /Parent, a field's /FT and /T, a widget): then it is
 * parsed. A match inside a string only costs that parse.
 */
function mayHoldFieldKeys(raw: RawObject): boolean {
  const { data } = raw;
  const end = raw.stream ? raw.dictEnd! : raw.end;
  // A name ends where the next one starts at the latest, so each '/' is compared with the keys and a
  // name that is none of them is not scanned to its end (isRegular per byte: on long-text, 15M of the
  // 50M instructions this scan took).
  for (let at = raw.start; at < end; at++) {
    if (data[at] !== 0x2f) continue;
    // The keys' first letters (P, F, T, W): most names are none of them.
    const first = data[at + 1];
    if (first !== 0x50 && first !== 0x46 && first !== 0x54 && first !== 0x57) continue;
    for (let f = 0; f < FIELD_KEYS.length; f++) {
      const key = FIELD_KEYS[f];
      const stop = at + 1 + key.length;
      if (stop > end) continue;
      let k = 0;
      while (k < key.length && data[at + 1 + k] === key[k]) k++;
      if (k === key.length && (stop === end || !isRegular(data[stop]))) return true;
    }
  }
  return false;
}

/** Bytes a dictionary entry takes as written (`/Key value` and its separators); 0 when absent. */
function entrySize(dict: PDFDict, key: PDFName): number {
  const value = dict.get(key);
  return value === undefined ? 0 : key.sizeInBytes() + value.sizeInBytes() + 2;
}

/** The estimated size of the parts that start at one page, page by page. */
class PartEstimate {
  private readonly held: Set<PDFRef>;
  /** sizes[i]: the estimate of pages first … first + i. */
  private readonly sizes: number[] = [];
  private total: number;

  constructor(
    private readonly weights: PageWeights,
    private readonly first: number,
    base: Set<PDFRef>,
    baseCost: number,
  ) {
    this.held = new Set(base);
    this.total = baseCost;
  }

  /** The estimate of pages first … last. */
  upTo(last: number): number {
    while (this.first + this.sizes.length <= last) this.grow();
    return this.sizes[last - this.first];
  }

  /** The last page of the longest run from `first` whose estimate is within `budget` (at least `first`). */
  lastWithin(budget: number): number {
    let last = this.first;
    while (last + 1 < this.weights.pageCount && this.upTo(last + 1) <= budget) last++;
    return last;
  }

  private grow(): void {
    const page = this.first + this.sizes.length;
    const { refs, costs } = this.weights.closure(page);
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      if (this.held.has(ref)) continue;
      this.held.add(ref);
      this.total += costs[i];
    }
    this.total += this.weights.extra(page) + this.weights.listing(page, this.first);
    this.sizes.push(this.total);
  }
}

/** How many digits a non-negative integer takes in decimal. */
function decimalDigits(n: number): number {
  let digits = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}

/** Bytes an object's body takes when written (a stream: dictionary, keywords and data). */
function writtenBodySize(source: ObjectSource): number {
  if (source.kind === 'raw') return source.raw.end - source.raw.start;
  if (source.kind === 'damaged') return source.bytes.byteLength;
  const object = source.object;
  if (object instanceof PDFStream) {
    const size = unloadedData(object)?.byteLength ?? object.getContentsSize();
    return object.dict.sizeInBytes() + '\nstream\n'.length + size + '\nendstream'.length;
  }
  return object.sizeInBytes();
}

/** A link annotation that leads to a page of this document (it goes when that page is not in the part). */
function isInternalLink(doc: PDFDocument, annotation: PDFDict, named: NamedDestinations): boolean {
  if (annotation.lookup(SUBTYPE) !== LINK) return false;
  return targetPage(doc, annotation, named) !== undefined;
}
