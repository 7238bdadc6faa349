/**
 * The cross-reference table: where each object is. Read from `startxref`
 * back through every `/Prev` section (classic tables, cross-reference
 * streams and hybrids of both), newest first; or, when that chain is
 * damaged, rebuilt by scanning the file for `N G obj` and trailers, as qpdf
 * (`reconstruct_xref`) and pdf.js (`XRef.indexObjects`) do.
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFRef } from '../model/primitives.js';
import { decodeStructureStream } from './filters.js';
import { ObjectParser, parseIndirectObject, type ParseContext } from './parser.js';
import {
  CHAR_CLASS,
  OBJ,
  PdfSyntaxError,
  STARTXREF,
  TRAILER,
  XREF,
  ascii,
  indexOf,
  isDigit,
  isKeywordAt,
  isWhite,
  lastIndexOf,
  readObjectHeader,
  readUnsigned,
  unsignedEnd,
  lastUnsigned,
  skipWhite,
} from './syntax.js';

/** Makes bytes[start, end) readable (a lazily read file, core/lazy-file.ts); a no-op for bytes in memory. */
export type Ensure = (start: number, end: number) => void;

/** How much is read at a section's offset before parsing it (tables and streams are usually far smaller). */
const SECTION_WINDOW = 256 * 1024;

/** 0: free; 1: at a byte offset; 2: member `index` of object stream `stream`. */
export type XrefEntry = { type: 0 } | { type: 1; offset: number; gen: number } | { type: 2; stream: number; index: number };

/** How far past twice the entries held a number may lie and still be kept in the arrays (see XrefEntries). */
const NEAR_GAP = 1024;

// What XrefEntries holds at a number in its arrays. FREE, AT_OFFSET and IN_STREAM are XrefEntry's types
// (add() takes them as they are); AT_OFFSET and IN_STREAM keep their two numbers in the arrays.
const FREE = 0;
const AT_OFFSET = 1;
const IN_STREAM = 2;
/** An XrefEntry given to set(), or made by get(): in `held`. */
const HELD = 3;
const ABSENT = 4;

const FREE_ENTRY: XrefEntry = { type: 0 };
/** Numbers above this are held as entries (the arrays are of 32-bit integers). */
const MAX_IN_ARRAY = 0x7fffffff;

/**
 * The table's entries by object number. A real table numbers its objects
 * from 0 with few gaps, so they are kept in arrays indexed by number, and
 * the entries a table or stream reads as numbers, not objects: a Map of
 * small-objects' 18,969 entry objects took about 5 ms of the ~9 ms its
 * table took to read, at every opening and again in the check of an
 * encrypted output, which looks up a handful of them. An entry's object is
 * made when it is first asked for, and kept. A number far past the others
 * (a sparse /Index, a newest section read before the older ones, a hostile
 * table) goes to a Map, so that the arrays never hold more than about
 * twice the entries and NEAR_GAP.
 */
export class XrefEntries {
  /** FREE, AT_OFFSET, IN_STREAM, HELD or ABSENT, for each number below its length. */
  private states = new Uint8Array(0);
  /** AT_OFFSET: offset and generation; IN_STREAM: object stream and index. */
  private firsts = new Int32Array(0);
  private seconds = new Int32Array(0);
  /**
   * One past the largest number the arrays hold an entry at: the walks over
   * every entry stop there, not at the arrays' length (at least NEAR_GAP, so
   * a file of a dozen objects was walked over a thousand numbers, each walk
   * in code not yet optimized: 2 ms over merge-50's 50 openings).
   */
  private end = 0;
  // Made with one slot so that its elements are of one kind from the start: an empty array's kind changed at
  // the first entry, and the code optimized for it was thrown away at the next opening.
  private readonly held: Array<XrefEntry | undefined> = [undefined];
  /** Entries at numbers the arrays do not reach; none at a number they do. */
  private far: Map<number, XrefEntry> | undefined;
  size = 0;

  get(num: number): XrefEntry | undefined {
    if (num >= this.states.length) return this.far?.get(num);
    const state = this.states[num];
    if (state === HELD) return this.held[num];
    if (state === FREE) return FREE_ENTRY;
    if (state === AT_OFFSET || state === IN_STREAM) return this.make(num, state);
    return undefined;
  }

  has(num: number): boolean {
    if (num >= this.states.length) return this.far?.has(num) === true;
    const state = this.states[num];
    return state !== undefined && state !== ABSENT;
  }

  /** True when `num` is an object the file has under generation `gen` (an object stream's member: 0). */
  exists(num: number, gen: number): boolean {
    // Read from the arrays where the entry is there: the reader asks this of every reference it meets.
    if (num < this.states.length) {
      const state = this.states[num];
      if (state === AT_OFFSET) return this.seconds[num] === gen;
      if (state === IN_STREAM) return gen === 0;
    }
    const entry = this.get(num);
    if (!entry || entry.type === 0) return false;
    return entry.type === 2 ? gen === 0 : entry.gen === gen;
  }

  set(num: number, entry: XrefEntry): void {
    if (!this.inArrays(num)) {
      const far = (this.far ??= new Map());
      if (!far.has(num)) this.size++;
      far.set(num, entry);
      return;
    }
    if (this.states[num] === ABSENT) this.size++;
    this.hold(num, entry);
  }

  /**
   * An entry of `type` for `num` (offset and generation, or object stream
   * and index), unless `num` has one already (newer sections are read
   * first). One call and no object: a table's loop runs once per object of
   * the file, mostly before V8 has optimized it, and most openings look at
   * a few of the entries.
   */
  add(num: number, type: 0 | 1 | 2, first: number, second: number): void {
    const states = this.states;
    if (!(num >= 0 && num < states.length) || first > MAX_IN_ARRAY || second > MAX_IN_ARRAY) {
      this.addElsewhere(num, type, first, second);
      return;
    }
    if (states[num] !== ABSENT) return;
    this.size++;
    states[num] = type;
    if (num >= this.end) this.end = num + 1;
    this.firsts[num] = first;
    this.seconds[num] = second;
  }

  /**
   * add() for a number the arrays do not reach yet, or numbers too large
   * for them: apart, so that the loops that call add() stay small to compile.
   */
  private addElsewhere(num: number, type: 0 | 1 | 2, first: number, second: number): void {
    if (this.inArrays(num) && first <= MAX_IN_ARRAY && second <= MAX_IN_ARRAY) this.add(num, type, first, second);
    else if (!this.has(num))
      this.set(num, type === 0 ? FREE_ENTRY : type === 1 ? { type, offset: first, gen: second } : { type, stream: first, index: second });
  }

  /** Adds the entries of `older` (an older section) that this lacks. */
  addMissing(older: XrefEntries): void {
    const states = older.states;
    for (let num = 0; num < older.end; num++) {
      const state = states[num];
      if (state === ABSENT) continue;
      if (state === HELD) {
        if (!this.has(num)) this.set(num, older.held[num]!);
      } else this.add(num, state as 0 | 1 | 2, older.firsts[num], older.seconds[num]);
    }
    older.far?.forEach((entry, num) => {
      if (!this.has(num)) this.set(num, entry);
    });
  }

  /** True when number `num` is kept in the arrays (grown to it when it is near enough). */
  private inArrays(num: number): boolean {
    if (num < this.states.length) return num >= 0;
    if (!Number.isSafeInteger(num) || num > 2 * this.size + NEAR_GAP) return false;
    this.grow(num);
    return true;
  }

  /** Makes the arrays reach `num`. */
  private grow(num: number): void {
    const length = Math.max(num + 1, 2 * this.states.length, NEAR_GAP);
    const states = new Uint8Array(length).fill(ABSENT);
    states.set(this.states);
    const firsts = new Int32Array(length);
    firsts.set(this.firsts);
    const seconds = new Int32Array(length);
    seconds.set(this.seconds);
    const old = this.states.length;
    this.states = states;
    this.firsts = firsts;
    this.seconds = seconds;
    // What the Map held at the numbers the arrays now reach moves into them.
    this.far?.forEach((entry, at) => {
      if (at >= old && at < length) {
        this.far!.delete(at);
        this.hold(at, entry);
      }
    });
  }

  private hold(num: number, entry: XrefEntry): void {
    if (num >= this.end) this.end = num + 1;
    if (entry.type === 0) {
      this.states[num] = FREE;
      return;
    }
    const held = this.held;
    while (held.length <= num) held.push(undefined);
    held[num] = entry;
    this.states[num] = HELD;
  }

  private make(num: number, state: typeof AT_OFFSET | typeof IN_STREAM): XrefEntry {
    const entry = this.entryOf(num, state);
    this.hold(num, entry);
    return entry;
  }

  /** A new object of the entry the arrays hold at `num`. */
  private entryOf(num: number, state: typeof AT_OFFSET | typeof IN_STREAM): XrefEntry {
    return state === AT_OFFSET
      ? { type: 1, offset: this.firsts[num], gen: this.seconds[num] }
      : { type: 2, stream: this.firsts[num], index: this.seconds[num] };
  }

  /**
   * Each entry with its number: those in the arrays in number order, then the
   * others. The objects made for it are not kept (a walk over every entry,
   * as materializeAll's, would keep one per object of the file).
   */
  forEach(each: (entry: XrefEntry, num: number) => void): void {
    const states = this.states;
    for (let num = 0; num < this.end; num++) {
      const state = states[num];
      if (state === AT_OFFSET || state === IN_STREAM) each(this.entryOf(num, state), num);
      else if (state === HELD) each(this.held[num]!, num);
      else if (state === FREE) each(FREE_ENTRY, num);
    }
    this.far?.forEach(each);
  }

  /** The offsets of the entries at an offset (in no order), without making their objects. */
  offsetList(): number[] {
    const list: number[] = [];
    const states = this.states;
    const end = this.end;
    for (let num = 0; num < end; num++) {
      const state = states[num];
      if (state === AT_OFFSET) list.push(this.firsts[num]);
      else if (state === HELD) {
        const entry = this.held[num]!;
        if (entry.type === 1) list.push(entry.offset);
      }
    }
    this.far?.forEach((entry) => {
      if (entry.type === 1) list.push(entry.offset);
    });
    return list;
  }

  /** True when an entry is of an object in an object stream. */
  anyInStream(): boolean {
    let found = false;
    const states = this.states;
    for (let num = 0; num < this.end && !found; num++) {
      found = states[num] === IN_STREAM || (states[num] === HELD && this.held[num]!.type === 2);
    }
    this.far?.forEach((entry) => {
      if (entry.type === 2) found = true;
    });
    return found;
  }

  /** The largest number with an entry (0 when none). */
  largestNumber(): number {
    let largest = Math.max(0, this.end - 1);
    this.far?.forEach((_, num) => {
      if (num > largest) largest = num;
    });
    return largest;
  }
}

export interface CrossReference {
  entries: XrefEntries;
  trailer: PDFDict;
  /** True when the table was rebuilt by scanning the file. */
  recovered: boolean;
  /** An older section's trailer names /Encrypt, the newest one's does not (see readCrossReference). */
  staleEncrypt?: boolean;
}

/** No real file has ten million objects; a table that lists more is hostile. */
const MAX_OBJECT_NUMBER = 10_000_000;

/**
 * When scanning a damaged file, object numbers above this are taken for
 * noise: every object takes at least three bytes ("impossibly large id" in
 * qpdf). A table may use sparse numbers (`/Index [0 1 9000 8]`), so this
 * holds for the scan only.
 */
function maxScannedNumber(fileLength: number): number {
  return Math.min(Math.floor(fileLength / 3), MAX_OBJECT_NUMBER);
}

/** Sections followed through /Prev before the chain is taken as hostile. */
const MAX_SECTIONS = 10_000;

/** Parsing structure: references are kept as written; nothing is resolved. */
function structureContext(context: PDFContext): ParseContext {
  return { context, exists: () => true, lengthOf: () => undefined };
}

/** Reads the table through the `startxref` chain; throws PdfSyntaxError where it is damaged. */
export function readCrossReference(bytes: Uint8Array, context: PDFContext, ensure: Ensure): CrossReference {
  const tail = Math.max(0, bytes.length - 1054);
  ensure(tail, bytes.length);
  const at = lastIndexOf(bytes, STARTXREF, tail, bytes.length);
  if (at < 0) throw new PdfSyntaxError('no startxref near the end of the file');
  const start = readUnsigned(bytes, skipWhite(bytes, at + STARTXREF.length));
  if (!start || start.value >= bytes.length) throw new PdfSyntaxError('startxref points past the end of the file');
  let entries: XrefEntries | undefined;
  const limit = MAX_OBJECT_NUMBER;
  let trailer: PDFDict | undefined;
  let staleEncrypt = false;
  const visited = new Set<number>();
  for (let offset: number | undefined = start.value; offset !== undefined; ) {
    // A /Prev loop is damage: the chain may have skipped sections (an update whose /Prev is itself hides
    // the original table), so the table is rebuilt by scanning, as qpdf does ("loop detected following xref tables").
    if (visited.has(offset)) throw new PdfSyntaxError('loop in the /Prev chain of cross-reference sections', offset);
    if (visited.size >= MAX_SECTIONS) break;
    visited.add(offset);
    const section = readSection(bytes, offset, context, limit, ensure);
    if (!trailer) trailer = section.trailer;
    else {
      // An update's trailer repeats every entry it keeps (ISO 32000-1, 7.5.6), so an /Info or /ID it lacks was
      // dropped, not forgotten: qpdf, pdf.js, poppler and MuPDF take those (and /Encrypt) from the newest trailer
      // alone. A /Root it lacks is damage; the older one is what pdf.js's and poppler's recovery find.
      if (!trailer.has(ROOT) && section.trailer.has(ROOT)) trailer.set(ROOT, section.trailer.get(ROOT)!);
      // qpdf, poppler and MuPDF open a file whose stale /Encrypt the newest trailer left out without a password.
      if (!trailer.has(ENCRYPT) && section.trailer.has(ENCRYPT)) staleEncrypt = true;
    }
    // Newest first: an entry an older section also has stays as the newer one says. The newest section's
    // map is taken as it is: copying it (a for-of makes an array per entry) was 1.5 MB of garbage on a
    // table of 4,700 objects, most files have one section.
    if (!entries) entries = section.entries;
    else entries.addMissing(section.entries);
    const prev = section.trailer.get(PDFName.of('Prev'));
    offset = prev instanceof PDFNumber && prev.asNumber() >= 0 && prev.asNumber() < bytes.length ? prev.asNumber() : undefined;
  }
  return { entries: entries!, trailer: trailer!, recovered: false, ...(staleEncrypt ? { staleEncrypt } : {}) };
}

const ENCRYPT = PDFName.of('Encrypt');
const ROOT = PDFName.of('Root');

function readSection(bytes: Uint8Array, offset: number, context: PDFContext, limit: number, ensure: Ensure): { entries: XrefEntries; trailer: PDFDict } {
  ensure(offset, offset + SECTION_WINDOW);
  const pos = skipWhite(bytes, offset);
  if (isKeywordAt(bytes, pos, XREF)) {
    const section = readTable(bytes, pos + XREF.length, context, limit, ensure);
    // A hybrid file: the stream lists what the table leaves free for older readers.
    const stm = section.trailer.get(PDFName.of('XRefStm'));
    if (stm instanceof PDFNumber && stm.asNumber() < bytes.length) {
      try {
        ensure(stm.asNumber(), stm.asNumber() + SECTION_WINDOW);
        const extra = readXrefStream(bytes, stm.asNumber(), context, limit, bytes.length, ensure);
        extra.entries.forEach((entry, num) => {
          if (entry.type !== 0 && section.entries.get(num)?.type !== 1) section.entries.set(num, entry);
        });
      } catch {
        // The table alone still describes the file for a pre-1.5 reader.
      }
    }
    return section;
  }
  return readXrefStream(bytes, offset, context, limit, bytes.length, ensure);
}

/** A classic table section and its trailer dictionary. */
function readTable(bytes: Uint8Array, pos: number, context: PDFContext, limit: number, ensure: Ensure): { entries: XrefEntries; trailer: PDFDict } {
  const entries = new XrefEntries();
  for (;;) {
    pos = skipWhite(bytes, pos);
    if (isKeywordAt(bytes, pos, TRAILER)) break;
    const first = readUnsigned(bytes, pos);
    if (!first) throw new PdfSyntaxError('damaged cross-reference table', pos);
    const count = readUnsigned(bytes, skipWhite(bytes, first.end));
    if (!count) throw new PdfSyntaxError('damaged cross-reference subsection', pos);
    pos = count.end;
    // Each entry takes at least "0 0 n" and a separator; a count larger than that is hostile.
    if (count.value > (bytes.length - pos) / 6) throw new PdfSyntaxError('cross-reference subsection longer than the file', pos);
    // Entries are 20 bytes; a few more for sloppy writers, and the trailer after them.
    ensure(pos, pos + count.value * 21 + SECTION_WINDOW);
    pos = readSubsection(bytes, pos, first.value, count.value, limit, entries);
  }
  const parser = new ObjectParser(bytes, pos + TRAILER.length, bytes.length, structureContext(context));
  const trailer = parser.value();
  if (!(trailer instanceof PDFDict)) throw new PdfSyntaxError('trailer is not a dictionary', pos);
  return { entries, trailer };
}

/**
 * Reads `count` entries numbered from `first` at `pos` into `entries`;
 * returns where they end. A function of its own, and small: V8 compiles a
 * long table's loop while it runs (on-stack replacement), and compiling
 * readTable with the trailer's parser inlined took ~10 ms, during which the
 * loop ran unoptimized.
 */
function readSubsection(bytes: Uint8Array, pos: number, first: number, count: number, limit: number, entries: XrefEntries): number {
  for (let i = 0; i < count; i++) {
    if (!isDigit(bytes[pos])) pos = skipWhite(bytes, pos);
    // The form writers use, "oooooooooo ggggg n" and a two-byte end of line, is read in two calls; any
    // other spelling (one-byte ends of line, short numbers, comments) the general way below, which reads
    // the same numbers from this form.
    const fixedOffset = pos + 20 <= bytes.length && bytes[pos + 10] === 0x20 && bytes[pos + 16] === 0x20 ? fixedDigits(bytes, pos, 10) : -1;
    const fixedGen = fixedOffset < 0 ? -1 : fixedDigits(bytes, pos + 11, 5);
    let offset: number;
    let gen: number;
    let kindAt: number;
    if (fixedGen >= 0) {
      offset = fixedOffset;
      gen = fixedGen;
      kindAt = pos + 17;
    } else {
      // Read without result objects: two per entry, for every entry of the table.
      const offsetEnd = unsignedEnd(bytes, skipWhite(bytes, pos), bytes.length);
      offset = lastUnsigned();
      const genEnd = offsetEnd < 0 ? -1 : unsignedEnd(bytes, skipWhite(bytes, offsetEnd), bytes.length);
      gen = lastUnsigned();
      kindAt = genEnd >= 0 ? skipWhite(bytes, genEnd) : -1;
    }
    const kind = kindAt >= 0 ? bytes[kindAt] : 0;
    if (kind !== 0x6e && kind !== 0x66) throw new PdfSyntaxError('damaged cross-reference entry', pos);
    // Past a two-byte end of line; anything else is skipped by skipWhite above (a call per entry less).
    pos = kindAt + 1;
    if (CHAR_CLASS[bytes[pos]] === 1 && CHAR_CLASS[bytes[pos + 1]] === 1) pos += 2;
    const num = first + i;
    if (num > limit) continue;
    // Object 0 is always free, whatever the entry says.
    entries.add(num, kind === 0x6e && num !== 0 && offset > 0 ? 1 : 0, offset, gen);
  }
  return pos;
}

/** The number the `count` digits at `at` spell, or -1 when one is not a digit. */
function fixedDigits(bytes: Uint8Array, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = bytes[i] - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A cross-reference stream section (PDF 1.5); its dictionary is the trailer.
 * `ensure` reads in its data, which may go on past the window read at its
 * offset: the stream of 200,000 objects takes 500 KB, and read as zeros it
 * had the table rebuilt by scanning, with a warning that the file is damaged.
 */
function readXrefStream(
  bytes: Uint8Array,
  offset: number,
  context: PDFContext,
  limit: number,
  end = bytes.length,
  ensure: Ensure = () => {},
): { entries: XrefEntries; trailer: PDFDict } {
  const header = readObjectHeader(bytes, offset, end);
  if (!header) throw new PdfSyntaxError('no object header', offset);
  const parser = new ObjectParser(bytes, header.bodyStart, end, structureContext(context));
  const value = parser.value();
  const length = value instanceof PDFDict ? value.get(PDFName.of('Length')) : undefined;
  if (length instanceof PDFNumber && length.asNumber() > 0) ensure(offset, offset + SECTION_WINDOW + Math.min(length.asNumber(), bytes.length));
  const object = value instanceof PDFDict ? parser.streamAfter(value) : value;
  if (!(object instanceof PDFRawStream)) throw new PdfSyntaxError('startxref does not lead to a cross-reference stream', offset);
  const dict = object.dict;
  const w = dict.lookup(PDFName.of('W'));
  const widths = w instanceof PDFArray ? w.asArray().map((n) => (n instanceof PDFNumber ? n.asNumber() : -1)) : [];
  if (widths.length !== 3 || widths.some((n) => !(n >= 0 && n <= 8))) throw new PdfSyntaxError('cross-reference stream with a bad /W', offset);
  const data = decodeStructureStream(dict, object.getContents());
  const size = dict.lookup(PDFName.of('Size'));
  const index = dict.lookup(PDFName.of('Index'));
  const ranges =
    index instanceof PDFArray ? index.asArray().map((n) => (n instanceof PDFNumber ? n.asNumber() : 0)) : [0, size instanceof PDFNumber ? size.asNumber() : 0];
  const entries = new XrefEntries();
  let row = 0;
  for (let r = 0; r + 1 < ranges.length && row >= 0; r += 2) row = readStreamRows(data, row, ranges[r], ranges[r + 1], widths, limit, bytes.length, entries);
  return { entries, trailer: dict };
}

/**
 * Reads `count` rows of a cross-reference stream's `data` from row `row`,
 * numbered from `first`, into `entries`; returns the next row, or -1 where
 * the data ends first. A small function of its own, as readSubsection is.
 */
function readStreamRows(
  data: Uint8Array,
  row: number,
  first: number,
  count: number,
  widths: number[],
  limit: number,
  fileLength: number,
  entries: XrefEntries,
): number {
  const typeWidth = widths[0];
  const secondWidth = widths[1];
  const rowLength = typeWidth + secondWidth + widths[2];
  for (let i = 0; i < count; i++, row++) {
    const at = row * rowLength;
    // Rows past the data are damage; a huge /Size costs nothing here.
    if (rowLength === 0 || at + rowLength > data.length) return -1;
    const num = first + i;
    if (num > limit) continue;
    const type = typeWidth === 0 ? 1 : bigEndian(data, at, typeWidth);
    const second = bigEndian(data, at + typeWidth, secondWidth);
    const third = bigEndian(data, at + typeWidth + secondWidth, widths[2]);
    if (type === 1 && num !== 0 && second > 0 && second < fileLength) entries.add(num, 1, second, third);
    else if (type === 2 && second <= limit) entries.add(num, 2, second, third);
    else if (type === 0 || type === 1) entries.add(num, 0, 0, 0);
    // Other types are reserved: a reader treats them as null.
  }
  return row;
}

/** The `width` bytes at `at` as a big-endian number. */
function bigEndian(data: Uint8Array, at: number, width: number): number {
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + data[at + i];
  return value;
}

const CATALOG = ascii('/Catalog');
const XREF_TYPE = ascii('/XRef');
const OBJSTM_TYPE = ascii('/ObjStm');

/**
 * Rebuilds the table by scanning the whole file (see the module comment).
 * The last `N G obj` of each number wins; object-stream members come from
 * the cross-reference streams found, or from the object streams themselves.
 */
export function reconstructCrossReference(bytes: Uint8Array, context: PDFContext, ensure: Ensure, previous?: PDFDict): CrossReference {
  ensure(0, bytes.length);
  const limit = maxScannedNumber(bytes.length);
  const found = new Map<number, { offset: number; gen: number }>();
  for (let at = indexOf(bytes, OBJ, 0); at !== -1; at = indexOf(bytes, OBJ, at + 3)) {
    const start = headerStart(bytes, at);
    if (start < 0) continue;
    const header = readObjectHeader(bytes, start);
    if (!header || header.num === 0 || header.num > limit || header.gen > 65535) continue;
    found.set(header.num, { offset: start, gen: header.gen });
  }
  const entries = new XrefEntries();
  for (const [num, { offset, gen }] of found) entries.set(num, { type: 1, offset, gen });

  const ctx = structureContext(context);
  // Trailers: the last dictionary after `trailer` that names a /Root. Each is read no further than
  // the next `trailer`: thousands of them, each with a string that never closes, would otherwise
  // each be read to the end of the file.
  let trailer: PDFDict | undefined;
  const trailers: number[] = [];
  for (let at = indexOf(bytes, TRAILER, 0); at !== -1; at = indexOf(bytes, TRAILER, at + TRAILER.length)) trailers.push(at);
  trailers.forEach((at, i) => {
    try {
      const value = new ObjectParser(bytes, at + TRAILER.length, trailers[i + 1] ?? bytes.length, ctx).value();
      if (value instanceof PDFDict && value.has(PDFName.of('Root'))) trailer = value;
    } catch {
      // A damaged trailer is one candidate less.
    }
  });

  // Cross-reference and object streams: what they say of compressed objects. Each object is read
  // no further than where the next one begins (objects do not overlap), so the scan stays linear.
  const byOffset = [...found.entries()].sort((a, b) => a[1].offset - b[1].offset);
  let xrefTrailer: PDFDict | undefined;
  for (let i = 0; i < byOffset.length; i++) {
    const [num, { offset }] = byOffset[i];
    const objectEnd = i + 1 < byOffset.length ? byOffset[i + 1][1].offset : bytes.length;
    const windowEnd = Math.min(offset + 2048, objectEnd);
    if (indexOf(bytes, XREF_TYPE, offset, windowEnd) >= 0) {
      try {
        const section = readXrefStream(bytes, offset, context, limit, objectEnd);
        section.entries.forEach((entry, member) => {
          if (entry.type === 2 && !found.has(member)) entries.set(member, entry);
        });
        if (section.trailer.has(PDFName.of('Root'))) xrefTrailer = section.trailer;
      } catch {
        // Not a readable cross-reference stream after all.
      }
    } else if (indexOf(bytes, OBJSTM_TYPE, offset, windowEnd) >= 0) {
      try {
        for (const [member, index] of objectStreamMembers(bytes, offset, context, objectEnd)) {
          if (!found.has(member) && !entries.has(member) && member <= limit) entries.set(member, { type: 2, stream: num, index });
        }
      } catch {
        // An unreadable object stream loses its own members only.
      }
    }
  }
  trailer ??= xrefTrailer ?? previous ?? (context.obj({}) as PDFDict);
  if (!rootIsCatalog(trailer, entries, bytes)) {
    const root = findCatalog(bytes, byOffset, ctx);
    if (root) trailer.set(PDFName.of('Root'), root);
  }
  return { entries, trailer, recovered: true };
}

/** Where `N G` begins before the `obj` at `at`, or -1 when what precedes is not `int int`. */
function headerStart(bytes: Uint8Array, at: number): number {
  if (
    at + 3 < bytes.length &&
    !isWhite(bytes[at + 3]) &&
    bytes[at + 3] !== 0x3c &&
    bytes[at + 3] !== 0x5b &&
    bytes[at + 3] !== 0x2f &&
    bytes[at + 3] !== 0x25 &&
    bytes[at + 3] !== 0x28
  )
    return -1;
  let i = at - 1;
  if (i < 0 || !isWhite(bytes[i])) return -1;
  while (i >= 0 && isWhite(bytes[i])) i--;
  const genEnd = i;
  while (i >= 0 && isDigit(bytes[i]) && genEnd - i < 6) i--;
  if (i === genEnd || i < 0 || !isWhite(bytes[i])) return -1;
  while (i >= 0 && isWhite(bytes[i])) i--;
  const numEnd = i;
  while (i >= 0 && isDigit(bytes[i]) && numEnd - i < 11) i--;
  if (i === numEnd) return -1;
  if (i >= 0 && !isWhite(bytes[i]) && bytes[i] !== 0x3e && bytes[i] !== 0x5d && bytes[i] !== 0x29 && bytes[i] !== 0x25) {
    // `endobj12 0 obj` and the like: the number starts right after a keyword.
    if (!(bytes[i] >= 0x61 && bytes[i] <= 0x7a)) return -1;
  }
  return i + 1;
}

/**
 * The `object-number offset` pairs at the head of an object stream's decoded
 * data, at most `count` of them; the list stops at the first pair that is
 * not two numbers.
 */
export function objectStreamPairs(data: Uint8Array, count: number): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  let pos = 0;
  for (let i = 0; i < count; i++) {
    const num = readUnsigned(data, skipWhite(data, pos));
    const offset = num && readUnsigned(data, skipWhite(data, num.end));
    if (!num || !offset) break;
    pairs.push([num.value, offset.value]);
    pos = offset.end;
  }
  return pairs;
}

/** The members an object stream lists: object number → index. */
function objectStreamMembers(bytes: Uint8Array, offset: number, context: PDFContext, end: number): Map<number, number> {
  const { object } = parseIndirectObject(bytes, offset, structureContext(context), end);
  if (!(object instanceof PDFRawStream)) return new Map();
  const data = decodeStructureStream(object.dict, object.getContents());
  const n = object.dict.lookup(PDFName.of('N'));
  const count = n instanceof PDFNumber ? Math.min(n.asNumber(), data.length / 4) : 0;
  return new Map(objectStreamPairs(data, count).map(([num], index) => [num, index]));
}

function rootIsCatalog(trailer: PDFDict, entries: XrefEntries, bytes: Uint8Array): boolean {
  const root = trailer.get(PDFName.of('Root'));
  if (root instanceof PDFDict) return true;
  if (!(root instanceof PDFRef)) return false;
  const entry = entries.get(root.objectNumber);
  if (!entry || entry.type === 0) return false;
  if (entry.type === 2) return true;
  const header = readObjectHeader(bytes, entry.offset);
  return header !== undefined && header.num === root.objectNumber;
}

/** The last object whose dictionary says /Type /Catalog, as a reference. */
function findCatalog(bytes: Uint8Array, byOffset: Array<[number, { offset: number; gen: number }]>, ctx: ParseContext): PDFRef | undefined {
  for (let i = byOffset.length - 1; i >= 0; i--) {
    const [num, { offset, gen }] = byOffset[i];
    const objectEnd = i + 1 < byOffset.length ? byOffset[i + 1][1].offset : bytes.length;
    if (indexOf(bytes, CATALOG, offset, Math.min(offset + 4096, objectEnd)) < 0) continue;
    try {
      const { object } = parseIndirectObject(bytes, offset, ctx, objectEnd);
      if (object instanceof PDFDict && object.get(PDFName.of('Type'))?.toString() === '/Catalog') {
        return PDFRef.of(num, gen);
      }
    } catch {
      // Keep looking.
    }
  }
  return undefined;
}
