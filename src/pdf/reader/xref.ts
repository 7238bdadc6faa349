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

export interface CrossReference {
  entries: Map<number, XrefEntry>;
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
  let entries: Map<number, XrefEntry> | undefined;
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
    else mergeOlder(entries, section.entries);
    const prev = section.trailer.get(PDFName.of('Prev'));
    offset = prev instanceof PDFNumber && prev.asNumber() >= 0 && prev.asNumber() < bytes.length ? prev.asNumber() : undefined;
  }
  return { entries: entries!, trailer: trailer!, recovered: false, ...(staleEncrypt ? { staleEncrypt } : {}) };
}

/** Adds an older section's entries that the newer ones lack. */
function mergeOlder(entries: Map<number, XrefEntry>, older: Map<number, XrefEntry>): void {
  older.forEach((entry, num) => {
    if (!entries.has(num)) entries.set(num, entry);
  });
}

const ENCRYPT = PDFName.of('Encrypt');
const ROOT = PDFName.of('Root');

function readSection(
  bytes: Uint8Array,
  offset: number,
  context: PDFContext,
  limit: number,
  ensure: Ensure,
): { entries: Map<number, XrefEntry>; trailer: PDFDict } {
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
        for (const [num, entry] of extra.entries) {
          if (entry.type !== 0 && section.entries.get(num)?.type !== 1) section.entries.set(num, entry);
        }
      } catch {
        // The table alone still describes the file for a pre-1.5 reader.
      }
    }
    return section;
  }
  return readXrefStream(bytes, offset, context, limit, bytes.length, ensure);
}

/** A classic table section and its trailer dictionary. */
function readTable(bytes: Uint8Array, pos: number, context: PDFContext, limit: number, ensure: Ensure): { entries: Map<number, XrefEntry>; trailer: PDFDict } {
  const entries = new Map<number, XrefEntry>();
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
    for (let i = 0; i < count.value; i++) {
      // Read without result objects: two per entry, for every entry of the table.
      const offsetEnd = unsignedEnd(bytes, skipWhite(bytes, pos), bytes.length);
      const offset = lastUnsigned();
      const genEnd = offsetEnd < 0 ? -1 : unsignedEnd(bytes, skipWhite(bytes, offsetEnd), bytes.length);
      const gen = lastUnsigned();
      const kindAt = genEnd >= 0 ? skipWhite(bytes, genEnd) : -1;
      const kind = kindAt >= 0 ? bytes[kindAt] : 0;
      if (kind !== 0x6e && kind !== 0x66) throw new PdfSyntaxError('damaged cross-reference entry', pos);
      pos = kindAt + 1;
      const num = first.value + i;
      if (num > limit || entries.has(num)) continue;
      // Object 0 is always free, whatever the entry says.
      entries.set(num, kind === 0x6e && num !== 0 && offset > 0 ? { type: 1, offset, gen } : { type: 0 });
    }
  }
  const parser = new ObjectParser(bytes, pos + TRAILER.length, bytes.length, structureContext(context));
  const trailer = parser.value();
  if (!(trailer instanceof PDFDict)) throw new PdfSyntaxError('trailer is not a dictionary', pos);
  return { entries, trailer };
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
): { entries: Map<number, XrefEntry>; trailer: PDFDict } {
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
  const rowLength = widths[0] + widths[1] + widths[2];
  const entries = new Map<number, XrefEntry>();
  let row = 0;
  const field = (start: number, width: number) => {
    let value = 0;
    for (let i = 0; i < width; i++) value = value * 256 + data[start + i];
    return value;
  };
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    const first = ranges[r];
    const count = ranges[r + 1];
    for (let i = 0; i < count; i++, row++) {
      const at = row * rowLength;
      // Rows past the data are damage; a huge /Size costs nothing here.
      if (rowLength === 0 || at + rowLength > data.length) return { entries, trailer: dict };
      const num = first + i;
      if (num > limit || entries.has(num)) continue;
      const type = widths[0] === 0 ? 1 : field(at, widths[0]);
      const second = field(at + widths[0], widths[1]);
      const third = field(at + widths[0] + widths[1], widths[2]);
      if (type === 1 && num !== 0 && second > 0 && second < bytes.length) entries.set(num, { type: 1, offset: second, gen: third });
      else if (type === 2 && second <= limit) entries.set(num, { type: 2, stream: second, index: third });
      else if (type === 0 || type === 1) entries.set(num, { type: 0 });
      // Other types are reserved: a reader treats them as null.
    }
  }
  return { entries, trailer: dict };
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
  const entries = new Map<number, XrefEntry>();
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
        for (const [member, entry] of section.entries) if (entry.type === 2 && !found.has(member)) entries.set(member, entry);
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

function rootIsCatalog(trailer: PDFDict, entries: Map<number, XrefEntry>, bytes: Uint8Array): boolean {
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
