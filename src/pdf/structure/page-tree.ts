/**
 * The page tree: listing pages as the reader sees them, and rebuilding the
 * tree in a new order. Attributes a page inherits from its ancestors
 * (/Resources, /MediaBox, /CropBox, /Rotate) are written onto the page itself
 * first, so a page keeps its look wherever it moves.
 */
import { duplicatePage } from './duplicate-page.js';
import { parentChain } from './trees.js';
import { sourceOf } from '../model/graph.js';
import { storeOf } from '../model/store.js';
import { ASK_TEXT, NO_TEXT, objectTableOf } from '../reader/object-table.js';
import { isKeywordAt, skipWhite } from '../reader/syntax.js';
import {
  type LeafScan,
  isNameAt,
  noteSettledLeaf,
  rectangleAt,
  refArrayAt,
  refAt,
  scanLeaf,
  setRotationInBytes,
  settledLeaf,
  settledSource,
  writtenRotation,
} from './leaf-bytes.js';
import { PDFArray, PDFContext, PDFDict, type PDFDocument, PDFName, PDFNumber, PDFObject, PDFRef, PDFStream } from '../model/primitives.js';

const INHERITABLE = ['Resources', 'MediaBox', 'CropBox', 'Rotate'] as const;
// Names made once, not looked up per page: the walk below asks for a dozen names per page (with pdf-lib's
// PDFName.of, which ran a regular expression per call, a sixth of parsing a 2,013-page tree: bench/README.md).
const INHERITABLE_NAMES = INHERITABLE.map((key) => [key, PDFName.of(key)] as const);
const LETTER = [0, 0, 612, 792];
const CONTENTS = PDFName.of('Contents');
const KIDS = PDFName.of('Kids');
const TYPE = PDFName.of('Type');
const PAGE = PDFName.of('Page');
const PAGES = PDFName.of('Pages');
const COUNT = PDFName.of('Count');
const PARENT = PDFName.of('Parent');
const MEDIA_BOX = PDFName.of('MediaBox');
const RESOURCES = PDFName.of('Resources');
const ROTATE = PDFName.of('Rotate');

export interface PageEntry {
  ref: PDFRef;
  dict: PDFDict;
  /**
   * True when the page's input bytes, looked at whole by the sound tree's
   * walk, hold no /Annots (and no `#`): while the page is untouched it has
   * no annotations, told without looking at its bytes again.
   */
  annotsUnwritten?: boolean;
}

/** What pageEntries found wrong with a page tree, for the warning (and the refusal) openDocument gives. */
export interface PageTreeDamage {
  /**
   * Kids that are no page-tree node (null, a number, a reference to an
   * object the file lacks or to a stream): dropped, as qpdf does.
   */
  droppedKids: number;
  /** What was wrong, in words; the tree was rebuilt flat when there is anything. */
  found: Set<string>;
  /** Items of /Contents arrays that are no stream (qpdf ignores them, and rejects an output that keeps them): dropped. */
  droppedContents: number;
}

export function newPageTreeDamage(): PageTreeDamage {
  return { droppedKids: 0, found: new Set(), droppedContents: 0 };
}

/**
 * Deeper trees are rebuilt flat. Real trees are a few levels deep (a
 * balanced tree of a million pages needs about ten); newer qpdf refuses to
 * read past 100 levels ("/Pages structure too deeply nested"), and code that
 * walks from a page up its /Parent chain costs the depth for every page.
 */
const MAX_KEPT_DEPTH = 100;

/** A /Pages node being walked: its kids, the next one to visit, and what its pages inherit. */
interface Frame {
  node: PDFDict;
  kids: PDFArray;
  next: number;
  inherited: Map<string, PDFObject>;
  /** How many pages were listed before this node's: the pages below it are those listed after. */
  pagesBefore: number;
}

/**
 * The leaves of the page tree in document order, with inherited attributes
 * pushed down onto each leaf.
 *
 * A damaged tree is repaired, as qpdf and poppler read it: a node reached
 * again (a /Kids entry pointing back to an ancestor, a node listed as its
 * own kid, a node under two parents) is not walked again, a leaf that says
 * /Type /Pages becomes a /Page, a node with kids is a /Pages node whatever
 * its /Type says, a kid that is no dictionary is dropped, and
 * the tree is rebuilt flat with each page once, in the order the walk met
 * them. So is a tree where a /Count is not the number of pages below it, or
 * that is nested deeper than MAX_KEPT_DEPTH: every /Count written is right.
 * The walk keeps its own stack (a tree may be 100,000 levels deep) and
 * visits each node once.
 */
export function pageEntries(doc: PDFDocument, damage: PageTreeDamage = newPageTreeDamage()): PageEntry[] {
  const again = flatWalkStanding(doc);
  if (again) return again;
  const { context } = doc;
  const rootRef = doc.catalog.get(PDFName.of('Pages'));
  const entries: PageEntry[] = [];
  const seen = new Set<PDFDict>();
  const leaves = new Set<PDFDict>();
  const seenKids = new Set<PDFArray>();
  const found = damage.found;
  const stack: Frame[] = [];
  /** Walks into a node: a /Pages node goes on the stack; a leaf is a page. */
  const enter = (ref: PDFRef, node: PDFDict, inherited: Map<string, PDFObject>) => {
    if (seen.has(node)) {
      found.add('a node reached twice');
      return;
    }
    seen.add(node);
    const kids = node.lookup(KIDS);
    const type = node.lookup(TYPE);
    if (kids instanceof PDFArray && type !== PAGE) {
      // Two nodes that share one /Kids array (an indirect one) list its pages twice, and qpdf and poppler show
      // them twice: the second listing gets copies (below), and the shared array, edited for them, is replaced.
      if (seenKids.has(kids)) found.add('two nodes that share one /Kids array');
      seenKids.add(kids);
      // qpdf --check warns of it ("/Type key should be /Pages"); the rebuilt tree has its one node typed.
      if (type !== PAGES) found.add('a /Pages node without /Type /Pages');
      const next = new Map(inherited);
      for (const [key, name] of INHERITABLE_NAMES) {
        const value = node.get(name);
        if (value !== undefined) next.set(key, value);
      }
      stack.push({ node, kids, next: 0, inherited: next, pagesBefore: entries.length });
      if (stack.length > MAX_KEPT_DEPTH) found.add(`nested more than ${MAX_KEPT_DEPTH} levels deep`);
      return;
    }
    settleLeaf(context, node, type, inherited, damage);
    leaves.add(node);
    entries.push({ ref, dict: node });
  };
  const root = context.lookup(rootRef);
  if (rootRef instanceof PDFRef && root instanceof PDFDict) {
    // qpdf takes a root's /Parent for the way to the real root ("doesn't point to the root of the page tree").
    if (root.has(PDFName.of('Parent'))) found.add('a root node with a /Parent');
    enter(rootRef, root, new Map());
  }
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next >= frame.kids.size()) {
      stack.pop();
      const count = frame.node.lookup(COUNT);
      if (!(count instanceof PDFNumber) || count.asNumber() !== entries.length - frame.pagesBefore)
        found.add('a /Count that is not the number of pages below it');
      continue;
    }
    const i = frame.next++;
    let kid = frame.kids.get(i);
    if (kid instanceof PDFDict) {
      // A page written directly into /Kids: give it an object of its own, as it needs to be referable.
      kid = context.register(kid);
      frame.kids.set(i, kid);
    }
    let kidDict = context.lookup(kid);
    if (kid instanceof PDFRef && kidDict === undefined) {
      // An object the file has that cannot be parsed whole: read as far as it goes, as qpdf and pdf.js read it.
      kidDict = objectTableOf(context)?.readDamagedDict(kid);
      if (kidDict) found.add('a page or node whose dictionary is damaged (read as far as it goes)');
    }
    if (!(kid instanceof PDFRef) || !(kidDict instanceof PDFDict)) {
      damage.droppedKids++;
      found.add('kids that are no page (null, or objects the file lacks)');
      continue;
    }
    if (leaves.has(kidDict)) {
      // The same page object listed twice: the second place gets its own copy.
      const copy = duplicatePage(doc, kidDict);
      frame.kids.set(i, copy);
      entries.push({ ref: copy, dict: context.lookup(copy) as PDFDict });
      continue;
    }
    enter(kid, kidDict, frame.inherited);
  }
  if (found.size > 0)
    setPages(
      doc,
      entries.map((entry) => entry.ref),
    );
  rememberFlatWalk(doc, entries);
  return entries;
}

/**
 * The last walk of a page tree that is one node over all its pages (most
 * trees, and every tree pageEntries or setPages rebuilt). Actions ask for
 * the pages again after openDocument walked them (rotate, reverse, reorder,
 * the splits: up to four walks), and a walk settles every page again: on a
 * 2,013-page document each took 15-20 ms (bench/README.md, "Long documents").
 */
interface FlatWalk {
  rootRef: PDFRef;
  root: PDFDict;
  kids: PDFArray;
  entries: PageEntry[];
}

const flatWalks = new WeakMap<PDFDocument, FlatWalk>();

function rememberFlatWalk(doc: PDFDocument, entries: PageEntry[]): void {
  const { context } = doc;
  const rootRef = doc.catalog.get(PAGES);
  const root = context.lookup(rootRef);
  const kids = root instanceof PDFDict ? root.lookup(KIDS) : undefined;
  if (!(rootRef instanceof PDFRef) || !(root instanceof PDFDict) || !(kids instanceof PDFArray) || kids.size() !== entries.length) return;
  for (let i = 0; i < entries.length; i++) if (kids.get(i) !== entries[i].ref) return;
  flatWalks.set(doc, { rootRef, root, kids, entries });
}

/**
 * The pages of the last flat walk, when the tree still stands as it was
 * walked: the same root and /Kids array listing the same pages, each still
 * the dictionary the walk settled (not replaced, nor forgotten by a
 * read-only look). A walk of such a tree would find nothing to repair.
 * A copy: callers may reorder what they are given.
 */
function flatWalkStanding(doc: PDFDocument): PageEntry[] | undefined {
  const walk = flatWalks.get(doc);
  if (!walk) return undefined;
  const { context } = doc;
  const { rootRef, root, kids, entries } = walk;
  if (doc.catalog.get(PAGES) !== rootRef || context.lookup(rootRef) !== root || root.lookup(KIDS) !== kids || kids.size() !== entries.length) return undefined;
  for (let i = 0; i < entries.length; i++) {
    const { ref, dict } = entries[i];
    if (kids.get(i) !== ref || context.lookup(ref) !== dict) return undefined;
  }
  return entries.slice();
}

/** The warnings that the damage pageEntries found (and repaired) calls for, in words. */
export function damageWarnings(damage: PageTreeDamage): string[] {
  const warnings: string[] = [];
  if (damage.found.size > 0)
    warnings.push(
      `its page tree is damaged (${[...damage.found].join('; ')}): it was rebuilt with each page once, in the order qpdf and poppler list them, and every /Count right`,
    );
  if (damage.droppedContents > 0) {
    const items = damage.droppedContents > 1 ? `${damage.droppedContents} items that lead` : 'an item that leads';
    warnings.push(
      `its pages' /Contents held ${items} to no content stream (null, or objects the file lacks or that cannot be read): dropped, as qpdf ignores them`,
    );
  }
  return warnings;
}

/**
 * A page tree found sound without parsing its pages: every page's reference
 * in order, and what each inherits from its ancestors.
 */
interface SoundTree {
  refs: PDFRef[];
  inherited: Map<string, PDFObject>[];
  /** Leaves whose bytes the walk looked at and found without /Annots (PageEntry.annotsUnwritten). */
  annotsUnwritten: Set<PDFRef>;
}

/** Per document, its sound tree (null: not sound); forgotten when the tree is rebuilt (setPages). */
const soundTrees = new WeakMap<PDFDocument, SoundTree | null>();

/**
 * The pages of a sound page tree, found from its /Pages nodes and the bytes
 * of its leaves, without parsing a page: so that an action that keeps 5
 * pages of 500 parses 5 (issue 22). Sound means what pageEntries would find
 * nothing wrong with and nothing to repair in the tree's shape: every node
 * typed /Pages with a /Kids array of references and a right /Count, every
 * object once, no deeper than MAX_KEPT_DEPTH, a root without /Parent, and
 * each leaf a dictionary whose bytes show no /Kids (or that parses as a
 * /Page). Anything else, undefined: the caller takes pageEntries' full walk,
 * with every repair it makes. What pageEntries repairs on a page itself
 * (inherited attributes, page size, /Resources, /Contents) is done for the
 * pages an action keeps (pageEntriesKeeping).
 */
export function soundPageTree(doc: PDFDocument): SoundTree | undefined {
  let tree = soundTrees.get(doc);
  if (tree === undefined) {
    tree = readSoundTree(doc) ?? null;
    soundTrees.set(doc, tree);
  }
  return tree ?? undefined;
}

function readSoundTree(doc: PDFDocument): SoundTree | undefined {
  const { context } = doc;
  const table = objectTableOf(context);
  const rootRef = doc.catalog.get(PDFName.of('Pages'));
  const root = context.lookup(rootRef);
  if (!table || !(rootRef instanceof PDFRef) || !(root instanceof PDFDict) || root.has(PDFName.of('Parent'))) return undefined;
  const tree: SoundTree = { refs: [], inherited: [], annotsUnwritten: new Set() };
  const seen = new Set<PDFRef>([rootRef]);
  /** Adds the pages below `node`; false when the tree is not sound there. */
  const walk = (node: PDFDict, above: Map<string, PDFObject>, depth: number): boolean => {
    const kids = node.lookup(PDFName.of('Kids'));
    const count = node.lookup(PDFName.of('Count'));
    if (depth > MAX_KEPT_DEPTH || !(kids instanceof PDFArray) || node.lookup(PDFName.of('Type')) !== PDFName.of('Pages') || !(count instanceof PDFNumber))
      return false;
    const inherited = new Map(above);
    for (const key of INHERITABLE) {
      const value = node.get(PDFName.of(key));
      if (value !== undefined) inherited.set(key, value);
    }
    const pagesBefore = tree.refs.length;
    // What looksLikeLeaf would say of each kid, unless a nested node's walk rebuilds the table meanwhile.
    const kinds = leavesAmong(table, kids);
    const recovered = table.recovered;
    for (let i = 0; i < kids.size(); i++) {
      const kid = kids.get(i);
      if (!(kid instanceof PDFRef) || seen.has(kid)) return false;
      seen.add(kid);
      const kind = kinds !== undefined && table.recovered === recovered ? kinds[i] : ASK_BYTES;
      const leaf = kind === ASK_BYTES ? looksLikeLeaf(table, kid) : kind;
      if (leaf === LEAF_WITHOUT_ANNOTS) tree.annotsUnwritten.add(kid);
      else if (leaf === NOT_A_LEAF) {
        const dict = context.lookup(kid);
        if (!(dict instanceof PDFDict)) return false;
        const type = dict.lookup(PDFName.of('Type'));
        if (type === PDFName.of('Pages')) {
          if (!walk(dict, inherited, depth + 1)) return false;
          continue;
        }
        if (type !== PDFName.of('Page')) return false;
      }
      tree.refs.push(kid);
      tree.inherited.push(inherited);
    }
    return count.asNumber() === tree.refs.length - pagesBefore;
  };
  return walk(root, new Map(), 1) ? tree : undefined;
}

// As bytes: a string needle is encoded anew by every search, one per leaf of the tree.
const KIDS_WORD = Buffer.from('Kids', 'latin1');
const PAGES_WORD = Buffer.from('Pages', 'latin1');
const STREAM_WORD = Buffer.from('stream', 'latin1');
const ANNOTS_WORD = Buffer.from('Annots', 'latin1');
/** Words whose presence (`#`: a name escape could spell any) tells an object is no leaf (looksLikeLeaf). */
const LEAF_WORDS = [KIDS_WORD, PAGES_WORD, Buffer.from('#', 'latin1'), STREAM_WORD];
const NOT_A_LEAF = 0;
const LEAF = 1;
const LEAF_WITHOUT_ANNOTS = 2;

/**
 * Whether an object's input bytes show a dictionary with no /Kids that is not
 * typed /Pages: a leaf, one page (LEAF_WITHOUT_ANNOTS when they hold no
 * /Annots either: looked for here, so that an arrangement that drops the
 * page need not look at its bytes again). No `#` (a name escape could spell
 * either word) and no `stream` (a stream is no page).
 */
function looksLikeLeaf(table: NonNullable<ReturnType<typeof objectTableOf>>, ref: PDFRef): number {
  const text = table.textAround(ref, 1 << 16);
  if (!text) return NOT_A_LEAF;
  const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  const at = skipWhite(text, 0, text.length);
  if (text[at] !== 0x3c || text[at + 1] !== 0x3c) return NOT_A_LEAF;
  for (const word of LEAF_WORDS) if (bytes.indexOf(word) >= 0) return NOT_A_LEAF;
  return bytes.indexOf(ANNOTS_WORD) < 0 ? LEAF_WITHOUT_ANNOTS : LEAF;
}

/** leavesAmong's mark for a kid whose bytes it cannot look at: looksLikeLeaf must. */
const ASK_BYTES = 3;

/**
 * looksLikeLeaf for every kid of a node (ASK_BYTES where it must be asked),
 * from one search per word over the bytes the kids span: five searches per
 * leaf were most of a sound tree's walk over the 2,013 pages of a long
 * document. Undefined when a kid is no reference, when a header is not
 * where the table says (looksLikeLeaf then rebuilds the table, in the
 * walk's order), or when the kids' bytes lie too far apart to read the
 * bytes between them.
 */
function leavesAmong(table: NonNullable<ReturnType<typeof objectTableOf>>, kids: PDFArray): Uint8Array | undefined {
  const refs: PDFRef[] = [];
  for (let i = 0; i < kids.size(); i++) {
    const kid = kids.get(i);
    if (!(kid instanceof PDFRef)) return undefined;
    refs.push(kid);
  }
  const spans = table.textSpans(refs, 1 << 16);
  if (!spans) return undefined;
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  let total = 0;
  for (let i = 0; i < spans.length; i += 2) {
    if (spans[i] < 0) continue;
    lo = Math.min(lo, spans[i]);
    hi = Math.max(hi, spans[i + 1]);
    total += spans[i + 1] - spans[i];
  }
  if (total > 0 && hi - lo > 2 * total + (1 << 16)) return undefined;
  const { bytes } = table;
  // Only the kids' own bytes are read in (textSpans), and the gap bound keeps the search short: a word
  // found between them is within no kid.
  const span = total > 0 ? Buffer.from(bytes.buffer, bytes.byteOffset + lo, hi - lo) : undefined;
  /** Where each word starts in the span, ascending (in the file's bytes). */
  const found = (word: Buffer): number[] => {
    const at: number[] = [];
    if (span) for (let i = span.indexOf(word); i >= 0; i = span.indexOf(word, i + 1)) at.push(lo + i);
    return at;
  };
  const lacking = LEAF_WORDS.map(found);
  const annots = found(ANNOTS_WORD);
  const kinds = new Uint8Array(refs.length);
  for (let k = 0; k < refs.length; k++) {
    const start = spans[2 * k];
    const end = spans[2 * k + 1];
    if (start === ASK_TEXT) kinds[k] = ASK_BYTES;
    else if (start === NO_TEXT) kinds[k] = NOT_A_LEAF;
    else {
      const at = skipWhite(bytes, start, end);
      let leaf = at + 1 < end && bytes[at] === 0x3c && bytes[at + 1] === 0x3c;
      for (let w = 0; leaf && w < LEAF_WORDS.length; w++) if (wordWithin(lacking[w], LEAF_WORDS[w].length, start, end)) leaf = false;
      kinds[k] = !leaf ? NOT_A_LEAF : wordWithin(annots, ANNOTS_WORD.length, start, end) ? LEAF : LEAF_WITHOUT_ANNOTS;
    }
  }
  return kinds;
}

/** Whether a word of `length` bytes found at the ascending positions `at` lies wholly within [start, end). */
function wordWithin(at: readonly number[], length: number, start: number, end: number): boolean {
  if (at.length === 0) return false;
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid] < start) lo = mid + 1;
    else hi = mid;
  }
  return lo < at.length && at[lo] + length <= end;
}

/** The number of pages, from a sound tree without parsing its pages, else from the full walk. */
export function pageCount(doc: PDFDocument): number {
  return soundPageTree(doc)?.refs.length ?? pageEntries(doc).length;
}

/**
 * Every page, for an arrangement that keeps the pages `kept` (0-based):
 * those are read and repaired as pageEntries does; the others, on a sound
 * tree, are known by reference only and parsed only if asked for (their
 * dictionaries as the input has them). So is a kept page whose bytes show
 * nothing to repair (settledInBytes): it goes out as its input bytes unless
 * something changes it. On a tree that is not sound: pageEntries.
 * Damage repaired on a kept page is reported as the document's warnings.
 */
export function pageEntriesKeeping(doc: PDFDocument, kept: Iterable<number>): PageEntry[] {
  // Pages the document's opening walked and settled already (an action that reads every page): those.
  const walked = flatWalkStanding(doc);
  if (walked) return walked;
  const tree = soundPageTree(doc);
  if (!tree) return pageEntries(doc);
  const { context } = doc;
  const entries: PageEntry[] = tree.refs.map((ref) => new PageByRef(ref, context, tree.annotsUnwritten.has(ref)));
  const table = objectTableOf(context);
  const keptPages: number[] = [];
  for (const i of new Set(kept)) {
    if (!(i >= 0 && i < entries.length)) continue;
    // A page whose bytes lack, even as a word, what its ancestors give it is parsed without skimming and scanning
    // it first: in a tree whose root gives every page its /MediaBox, they made rotate a quarter slower.
    if (table && lacksInherited(table, tree.refs[i], tree.inherited[i])) {
      keptPages.push(i);
      continue;
    }
    // Its skim, which the writer takes for a page it copies: a page whose bytes are not clean enough to copy is parsed.
    const source = table?.rawSource(tree.refs[i]);
    const raw = source?.raw;
    const scan = raw && !raw.stream ? scanLeaf(raw.data.subarray(raw.start, raw.end)) : undefined;
    const parent = scan && settledInBytes(context, scan, tree.inherited[i]);
    if (source && scan && parent) noteSettledLeaf(source.table, tree.refs[i], scan, parent);
    else keptPages.push(i);
  }
  const dicts = keptPages.map((i) => context.lookup(tree.refs[i]));
  const damage = newPageTreeDamage();
  // A page whose bytes looked whole but do not parse: the full walk reads it as far as it goes, and says so.
  if (!dicts.every((dict) => dict instanceof PDFDict)) {
    soundTrees.set(doc, null);
    const all = pageEntries(doc, damage);
    for (const warning of damageWarnings(damage)) table?.note(warning);
    return all;
  }
  keptPages.forEach((i, k) => {
    const dict = dicts[k] as PDFDict;
    settleLeaf(context, dict, dict.lookup(PDFName.of('Type')), tree.inherited[i], damage);
    entries[i] = { ref: tree.refs[i], dict };
  });
  for (const warning of damageWarnings(damage)) table?.note(warning);
  return entries;
}

/** Each inheritable attribute's key as bytes, for lacksInherited. */
const INHERITABLE_KEYS = new Map<string, Buffer>(INHERITABLE.map((key) => [key, Buffer.from(`/${key}`, 'latin1')]));

/**
 * Whether a page's input bytes lack the key of an attribute its ancestors
 * give it: then it is not settled in them (settledInBytes), told by a native
 * search rather than a skim and a scan. False when the bytes are not at
 * hand, or hold every key (perhaps only nested, which the scan then tells).
 */
function lacksInherited(table: NonNullable<ReturnType<typeof objectTableOf>>, ref: PDFRef, inherited: Map<string, PDFObject>): boolean {
  if (inherited.size === 0) return false;
  const text = table.textAround(ref, 1 << 16);
  if (!text) return false;
  const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  for (const key of inherited.keys()) if (bytes.indexOf(INHERITABLE_KEYS.get(key)!) < 0) return true;
  return false;
}

/**
 * The /Parent of a page whose input bytes show it as settleLeaf leaves a
 * page (so it need not be parsed), else undefined: typed /Page, every
 * attribute it inherits its own already, a /MediaBox of four numbers, its
 * /Resources a dictionary, its /Contents nothing but streams, and a /Parent.
 */
function settledInBytes(context: PDFContext, scan: LeafScan, inherited: Map<string, PDFObject>): PDFRef | undefined {
  const { text } = scan;
  if (scan.type < 0 || !isNameAt(text, scan.type)) return undefined;
  // Asked first: the keys' iterator and its result cost an object each per page, for most trees nothing to iterate.
  if (inherited.size > 0)
    for (const key of inherited.keys()) {
      const at = key === 'Resources' ? scan.resources : key === 'MediaBox' ? scan.mediaBox : key === 'CropBox' ? scan.cropBox : scan.rotate;
      if (at < 0 || isNullAt(text, at)) return undefined;
    }
  if (scan.mediaBox < 0 || !rectangleAt(text, scan.mediaBox)) return undefined;
  if (scan.resources < 0) return undefined;
  if (!(text[scan.resources] === 0x3c && text[scan.resources + 1] === 0x3c)) {
    const ref = refAt(text, scan.resources);
    if (!ref || !leadsToDict(context, PDFRef.of(ref[0], ref[1]))) return undefined;
  }
  if (scan.contents >= 0) {
    const one = refAt(text, scan.contents);
    const refs = one ? [one] : refArrayAt(text, scan.contents);
    // Indexed, not destructured: a destructuring runs the array iterator in code not yet optimized, once a page.
    if (!refs?.every((ref) => leadsToStream(context, PDFRef.of(ref[0], ref[1])))) return undefined;
  }
  const parent = scan.parent >= 0 ? refAt(text, scan.parent) : undefined;
  return parent && PDFRef.of(parent[0], parent[1]);
}

const NULL = Uint8Array.from('null', (c) => c.charCodeAt(0));

const isNullAt = (text: Uint8Array, at: number): boolean => isKeywordAt(text, at, NULL, text.length);

/** A page known by reference, its dictionary parsed when first asked for. */
class PageByRef implements PageEntry {
  constructor(
    readonly ref: PDFRef,
    private readonly context: PDFContext,
    readonly annotsUnwritten: boolean,
  ) {}

  get dict(): PDFDict {
    return this.context.lookup(this.ref) as PDFDict;
  }
}

/**
 * Makes a leaf of the page tree a page as readers show it: typed /Page, with
 * what it inherits written onto it, a page size, /Resources, and only
 * streams in /Contents. What was wrong goes into `damage`.
 */
function settleLeaf(context: PDFContext, node: PDFDict, type: PDFObject | undefined, inherited: Map<string, PDFObject>, damage: PageTreeDamage): void {
  const found = damage.found;
  if (type !== PAGE) {
    // A leaf is a page, whatever its /Type says (readers treat it as one).
    node.set(TYPE, PAGE);
    if (type === PAGES) found.add('a /Pages node where a page belongs');
  }
  if (inherited.size > 0) {
    for (const [key, name] of INHERITABLE_NAMES) {
      if (!node.has(name) && inherited.has(key)) node.set(name, inherited.get(key)!);
    }
  }
  // No page size, or one that is not four numbers: the inherited one, else letter size, as qpdf gives ("MediaBox is undefined").
  if (!isRectangle(context, node.lookup(MEDIA_BOX))) {
    const above = inherited.get('MediaBox');
    node.set(MEDIA_BOX, above !== undefined && isRectangle(context, context.lookup(above)) ? above : context.obj(LETTER));
  }
  const resources = node.get(RESOURCES);
  if (resources === undefined) node.set(RESOURCES, context.obj({}));
  else if (!leadsToDict(context, resources)) {
    // Resources that cannot be parsed: read as far as they go, else none (qpdf: "Resources is missing or invalid;
    // repairing"). Carried as their bytes, they made qpdf warn about the output.
    const read = resources instanceof PDFRef ? objectTableOf(context)?.readDamagedDict(resources) : undefined;
    if (!read) node.set(RESOURCES, context.obj({}));
    found.add('a page whose /Resources cannot be read whole');
  }
  damage.droppedContents += dropNonStreamContents(context, node);
}

/**
 * Drops what a page's /Contents holds that is no stream (null, a reference
 * to an object the file lacks or cannot parse, a dictionary): qpdf ignores such items with a
 * warning, and an output that keeps them fails `qpdf --check`. Streams are
 * told apart without parsing them (their input bytes are skimmed). Returns
 * how many items were dropped.
 */
function dropNonStreamContents(context: PDFContext, page: PDFDict): number {
  const value = page.get(CONTENTS);
  if (value === undefined) return 0;
  if (value instanceof PDFRef && leadsToStream(context, value)) return 0;
  const array = value instanceof PDFRef ? context.lookup(value) : value;
  if (!(array instanceof PDFArray)) {
    // Neither a stream nor an array of them: the page draws nothing (as readers show it).
    page.delete(CONTENTS);
    return 1;
  }
  const items = array.asArray();
  const streams = items.filter((item) => leadsToStream(context, item));
  if (streams.length === items.length) return 0;
  page.set(CONTENTS, context.obj(streams));
  return items.length - streams.length;
}

function isRectangle(context: PDFContext, box: PDFObject | undefined): boolean {
  return box instanceof PDFArray && box.size() === 4 && box.asArray().every((n) => context.lookup(n) instanceof PDFNumber);
}

/** Whether `value` is or leads to a dictionary, told without parsing an untouched object (its bytes are skimmed). */
function leadsToDict(context: PDFContext, value: PDFObject): boolean {
  if (!(value instanceof PDFRef)) return value instanceof PDFDict;
  const source = sourceOf(context, value);
  if (source?.kind === 'parsed') return source.object instanceof PDFDict;
  if (source?.kind !== 'raw' || source.raw.stream) return false;
  const { data, start, end } = source.raw;
  const at = skipWhite(data, start, end);
  return data[at] === 0x3c && data[at + 1] === 0x3c;
}

function leadsToStream(context: PDFContext, item: PDFObject): boolean {
  const source = item instanceof PDFRef ? sourceOf(context, item) : undefined;
  // An object that cannot be parsed (carried as its bytes by the writer) is no stream either: qpdf ignores it
  // too, and reads the bytes written for it as a stream whose data runs on into what follows.
  return source?.kind === 'parsed' ? source.object instanceof PDFStream : source?.kind === 'raw' && source.raw.stream;
}

/** Replaces the page tree by one flat node whose kids are `pages`, in order. */
export function setPages(doc: PDFDocument, pages: PDFRef[]): void {
  const { context } = doc;
  soundTrees.delete(doc);
  flatWalks.delete(doc);
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
  for (const key of [...INHERITABLE, 'Parent']) node.delete(PDFName.of(key));
  node.set(PDFName.of('Type'), PDFName.of('Pages'));
  node.set(PDFName.of('Kids'), context.obj(pages));
  node.set(PDFName.of('Count'), PDFNumber.of(pages.length));
  const store = storeOf(context);
  for (const page of pages) {
    // A page already under this node is left as it is: peeked, not looked up, since a lookup through a
    // split part's fork copies the page (each part copied every page it keeps only to set the same /Parent).
    if (settledLeaf(store, page)?.parent === ref) continue;
    const held = store.peek(page);
    if (held instanceof PDFDict && held.get(PARENT) === ref) continue;
    const dict = context.lookup(page);
    if (dict instanceof PDFDict) dict.set(PARENT, ref as PDFRef);
  }
}

/** The page's rotation as the reader applies it, normalised to 0, 90, 180 or 270. */
export function effectiveRotation(page: PDFDict): number {
  const value = page.lookup(ROTATE);
  return quarterTurns(value instanceof PDFNumber ? value.asNumber() : 0);
}

const quarterTurns = (degrees: number): number => (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
const normalised = (degrees: number): number => ((degrees % 360) + 360) % 360;

/**
 * Turns a page by `angle` degrees, added to the rotation the reader
 * applies. A page left as its input bytes (pageEntriesKeeping) whose bytes
 * tell its rotation is turned in them (leaf-bytes.ts, setRotationInBytes),
 * not parsed: parsing and re-serializing every page was most of rotating a
 * long document. Any other page is parsed and turned as before.
 */
export function turnPage(doc: PDFDocument, entry: PageEntry, angle: number): void {
  const table = objectTableOf(doc.context);
  // Found once for both the reading and the setting: two look-ups of each of 2,013 pages showed in a rotate's profile.
  const settled = table?.bytesAreClear(entry.ref) ? settledSource(table, entry.ref) : undefined;
  const written = settled && writtenRotation(settled);
  if (table && settled && written !== undefined) {
    const normal = normalised(quarterTurns(written) + angle);
    if (normal !== 0) return setRotationInBytes(table, entry.ref, settled, normal);
    // Upright: an explicit 0 only under an ancestor with a /Rotate (setRotation), told without parsing the page
    // when its /Parent is the root (which has none: the tree is sound).
    const rootRef = doc.catalog.get(PAGES);
    const root = doc.context.lookup(rootRef);
    if (settled.leaf.parent === rootRef && root instanceof PDFDict && !root.has(PARENT))
      return setRotationInBytes(table, entry.ref, settled, root.has(ROTATE) ? 0 : undefined);
  }
  setRotation(entry.dict, effectiveRotation(entry.dict) + angle);
}

function setRotation(page: PDFDict, degrees: number): void {
  const normal = normalised(degrees);
  // Without its own /Rotate a page inherits one from an ancestor /Pages node,
  // so an upright page under a rotated node needs an explicit 0.
  if (normal === 0 && !inheritsRotation(page)) page.delete(ROTATE);
  else page.set(ROTATE, PDFNumber.of(normal));
}

function inheritsRotation(page: PDFDict): boolean {
  for (const { node } of parentChain(page)) if (node.has(PDFName.of('Rotate'))) return true;
  return false;
}

export type { PDFContext };
