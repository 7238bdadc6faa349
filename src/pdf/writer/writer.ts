/**
 * Serializes a document: the objects it reaches from its trailer, each once,
 * under their own numbers. An object nothing parsed or changed goes out as
 * its input bytes (graph.ts), with references to objects the output lacks
 * turned into null; a parsed one is serialized (serialize.ts), its stream data
 * still a view of the input. Everything is joined once at the end: under a
 * classic cross-reference table, or (`objectStreams`) with the objects that
 * are not streams deflated by node:zlib into object streams under a
 * cross-reference stream; an input object stream whose members all go out
 * may go out as its input bytes instead (`storeObjectStreams`). New numbers
 * (object streams, the cross-reference stream) come after every number
 * referenced anywhere, so that a dangling reference can never come to mean
 * one of them.
 */
import { deflateSync } from '../../core/zlib-native.js';
import { unreadRange } from '../../core/lazy-file.js';
import { PieceList, type PdfPieces } from '../../core/pdf-data.js';
import type { Piece, Sink } from '../../core/sink.js';
import { PDFContext, PDFDict, PDFName, PDFNull, PDFNumber, PDFObject, PDFRef, PDFStream } from '../model/primitives.js';
import { storeOf, type InputObjectStream, type RawSource } from '../model/store.js';
import { nullifyReached, type RefTargets } from '../model/objects.js';
import { plainStrings, type Encryption } from '../security/encrypt.js';
import type { RawStrings } from '../security/raw-strings.js';
import { fileIdToWrite } from '../security/file-id.js';
import { PiecewiseStream } from '../security/file-crypto.js';
import { walkGraph, type ObjectSource } from '../model/graph.js';
import { serialize, writeTokens, type TokenWriter } from './serialize.js';
import { unloadedData } from '../reader/object-table.js';
import { plainView } from '../reader/syntax.js';
import { type RawObject, REF_END, REF_FIELDS, REF_GEN, REF_NUM, REF_START } from '../reader/skim.js';

const encoder = new TextEncoder();
const STREAM_START = encoder.encode('\nstream\n');
const STREAM_END = encoder.encode('\nendstream');
const OBJECT_END = encoder.encode('\nendobj\n');
const OBJ_LINE = encoder.encode(' obj\n');
const NULL = encoder.encode('null');
// A comment of bytes above 127 right after the header tells transfer tools the file is binary.
const BINARY_MARKER = new Uint8Array([0x25, 0xe2, 0xe3, 0xcf, 0xd3, 0x0a]);

export interface WriteOptions {
  /**
   * Put the objects that are not streams into compressed object streams,
   * under a cross-reference stream (PDF 1.5), as qpdf does for an input that
   * had them. A document of many small objects (a tagged PDF's structure
   * tree) would otherwise come out several times its input's size.
   */
  objectStreams?: boolean;
  /** Encrypt each object as it is written (security/encrypt.ts); object streams only with `storeObjectStreams` (writePlan). */
  encryption?: Encryption;
  /**
   * References to leave out, as nullifyReferences does, in the writer's own
   * walk: the output does not reach them, and the objects that held them
   * hold null instead. One walk of the document rather than two (remove_pages).
   */
  nullify?: RefTargets;
  /**
   * With `objectStreams`: an input object stream goes out as its input
   * bytes (not inflated to be written, nor deflated again) when every member
   * goes out, each as its input bytes or changed. A changed member is written
   * anew, and the cross-reference's entry for it supersedes the stale copy in
   * the stored stream, as an incremental update does: so only for actions
   * whose changes leave nothing in that stale copy that the action meant to
   * remove (see saveDocumentPieces' callers).
   */
  storeObjectStreams?: boolean;
}

/** The references an output holds (split_by_size weighs what a part already wrote). */
export type WrittenRefs = Pick<ReadonlySet<PDFRef>, 'has'>;

/**
 * What the output holds: its objects (the walk's own map, so that a
 * document of 200,000 objects does not keep a second list and set of them),
 * their references in number order, and the first number free for new ones.
 */
interface Plan {
  written: Map<PDFRef, ObjectSource>;
  order: PDFRef[];
  next: number;
}

/** True when the document as read keeps objects in object streams (look before unreachable objects are dropped). */
export function hasObjectStreams(context: PDFContext): boolean {
  return storeOf(context).hasObjectStreams;
}

/** The document as pieces: stream data stays as views of the bytes already in memory, or ranges of the input file. */
export function writeDocumentPieces(context: PDFContext, options: WriteOptions = {}): PdfPieces {
  return writeDocumentAndTell(context, options).pdf;
}

/** The same, with the references of the objects written (split_by_size reasons about them). */
export function writeDocumentAndTell(context: PDFContext, options: WriteOptions = {}): { pdf: PdfPieces; written: WrittenRefs } {
  const pieces = new PieceList();
  const written = writeDocumentTo(context, pieces, options);
  return { pdf: pieces.pdf(), written };
}

/** Writes the document into `sink`, in order; returns the references of the objects written. */
function writeDocumentTo(context: PDFContext, sink: Sink, options: WriteOptions = {}): WrittenRefs {
  const plan = planOutput(context, options.nullify);
  writePlan(context, plan, sink, options);
  return plan.written;
}

function writePlan(context: PDFContext, plan: Plan, sink: Sink, options: WriteOptions): void {
  const { encryption } = options;
  const store = options.storeObjectStreams === true;
  // An encrypted output has object streams only when input ones go out
  // stored, each encrypted whole: packing every object anew (deflate, then
  // AES) costs more than the classic layout's objects encrypted one by one.
  // A document with /Encrypt but no encryption asked for keeps the classic layout.
  if (options.objectStreams && (encryption ? store : !context.trailerInfo.Encrypt)) return writeWithObjectStreams(context, plan, sink, store, encryption);
  const out = new Output(context.header.getVersionString(), sink);
  // Indexed: a for-of made an iterator result per object in code not yet optimized.
  const { order, written } = plan;
  // Where each object of plan.order starts (made at its length: grown by push, it was copied a dozen times).
  const offsets = new Array<number>(order.length);
  for (let i = 0; i < order.length; i++) {
    const ref = order[i];
    offsets[i] = out.offset;
    writeTopLevel(out, ref, written.get(ref)!, encryption, written);
  }

  // The classic table adds no objects: /Size is one past the highest written.
  const size = plan.order.length > 0 ? plan.order[plan.order.length - 1].objectNumber + 1 : 1;
  const xrefOffset = out.offset;
  out.push(crossReferenceTable(plan.order, offsets));
  out.text('trailer\n');
  writeTrailer(out, context, size);
  out.text(`\nstartxref\n${xrefOffset}\n%%EOF\n`);
  out.end();
}

/** One object at the top level, its strings and stream data encrypted or decrypted as the output asks. */
function writeTopLevel(out: Output, ref: PDFRef, source: ObjectSource, encryption: Encryption | undefined, written: WrittenRefs): void {
  const encrypted = encryption ? encryptedRawStream(ref, source, encryption) : decryptedRawStream(ref, source);
  const strings = !encrypted && replacedRawStrings(ref, source, encryption);
  if (encrypted) out.rawStream(ref, source as RawSource, encrypted, written);
  else if (strings) out.rawWithStrings(ref, source as RawSource, strings, written);
  else out.object(ref, toWrite(ref, source, encryption), written);
}

/**
 * What to write for an object. Its input bytes, unless they are ciphertext
 * (a decrypted input) or the output is encrypted: then the object is parsed
 * afresh, decrypted by the reader, encrypted when asked, and not kept, so the
 * objects are never all in memory at once. An object that cannot be parsed
 * is null there: its bytes can be neither decrypted nor encrypted. An object
 * with neither a string nor stream data is the same in both: its bytes go
 * out as they are (a chain of 200,000 such objects was parsed for nothing,
 * a second of an add_password).
 */
function toWrite(ref: PDFRef, source: ObjectSource, encryption: Encryption | undefined): ObjectSource {
  if (source.kind === 'damaged') return encryption ? { kind: 'parsed', object: PDFNull } : source;
  if (source.kind === 'raw' && !source.raw.stream && !source.raw.strings) return source;
  if (!encryption && (source.kind === 'parsed' || source.table.bytesAreClear(ref))) return source;
  const object = source.kind === 'parsed' ? source.object : source.table.parseDetached(ref);
  if (object === undefined) return { kind: 'parsed', object: PDFNull };
  return { kind: 'parsed', object: encryption ? encryption.encrypt(ref, object) : object };
}

/**
 * The encrypted data of a stream whose dictionary holds no string, read
 * from its input bytes without parsing the object; undefined when the
 * object must be parsed (encrypt.ts's encryptRawStream says when). Only its
 * data and /Length change: the dictionary's bytes are written as they are
 * (Output.rawStream), where parsing and serializing them was a third of
 * what the writer spent on a document of small streams.
 */
function encryptedRawStream(ref: PDFRef, source: ObjectSource, encryption: Encryption): Piece[] | undefined {
  if (source.kind !== 'raw') return undefined;
  const { raw } = source;
  // Bytes that are ciphertext (a decrypted input) are parsed, and decrypted, instead.
  if (!raw.stream || raw.strings || raw.lengthAt === undefined || !source.table.bytesAreClear(ref)) return undefined;
  const start = raw.dataStart!;
  const end = raw.dataEnd!;
  return encryption.encryptRawStream(ref, unreadRange(raw.data, start, end) ?? raw.data.subarray(start, end));
}

/**
 * The plaintext of a stream of a decrypted input whose dictionary holds no
 * string, from its input bytes without parsing the object (security/decrypt.ts
 * says when it must be parsed instead): its dictionary's bytes hold no
 * ciphertext, only its data and /Length change.
 */
function decryptedRawStream(ref: PDFRef, source: ObjectSource): Piece[] | undefined {
  if (source.kind !== 'raw') return undefined;
  const { raw, table } = source;
  if (!raw.stream || raw.strings || raw.lengthAt === undefined || !table.decryptRawStream || table.bytesAreClear(ref)) return undefined;
  const start = raw.dataStart!;
  const end = raw.dataEnd!;
  return table.decryptRawStream(ref, raw, unreadRange(raw.data, start, end) ?? raw.data.subarray(start, end));
}

/**
 * The strings of an object that is not a stream, replaced in its input bytes:
 * encrypted for an encrypted output (bytes read in the clear), decrypted for
 * a plain one (ciphertext); undefined when it must be parsed (encrypt.ts's
 * encryptRawStrings and decrypt.ts say when). Parsing and serializing such an
 * object (3,480 of small-objects') to change only its strings was most of
 * what it cost.
 */
function replacedRawStrings(ref: PDFRef, source: ObjectSource, encryption: Encryption | undefined): RawStrings | undefined {
  if (source.kind !== 'raw') return undefined;
  const { raw, table } = source;
  if (raw.stream || !raw.strings || raw.end <= raw.start) return undefined;
  if (encryption) return table.bytesAreClear(ref) ? encryption.encryptRawStrings(ref, raw) : undefined;
  return table.decryptRawStrings && !table.bytesAreClear(ref) ? table.decryptRawStrings(ref, raw) : undefined;
}

/**
 * A stream's data as pieces, with its /Length set to their size. Data read
 * from a lazily read file that nothing has used stays unread (a FileRange:
 * the sink copies it from the file); data held in several pieces (encrypted: IV, then
 * ciphertext) is not joined.
 */
function streamData(object: PDFStream): readonly Piece[] {
  // Data held in several pieces (encrypted: the IV, then the ciphertext) is written piece by piece.
  const pieces = object instanceof PiecewiseStream ? object.pieces : [unloadedData(object) ?? object.getContents()];
  // Every stream tells its size without reading or joining its data (a lazily read one, a piecewise one).
  object.updateDict();
  return pieces;
}

/**
 * Writes `value` (a whole number, not negative) in decimal at `at`; returns
 * where it ends. Its length is found by comparisons and each digit taken in
 * the loop, not by a call per digit: this runs for every object header and
 * reference written, mostly before V8 optimizes it. The remainder is taken
 * off before dividing so that the division is exact: in code not yet
 * optimized, an inexact one makes a boxed double (and Math.floor a call).
 */
function writeDigits(block: Uint8Array, at: number, value: number): number {
  if (value < 10) {
    block[at] = 0x30 + value;
    return at + 1;
  }
  // Largest first, to 10 digits: every comparison has type feedback from the first numbers written. Smallest first,
  // the one for 5 digits had none until object 10000 (or a /Length of 7 digits, in the loop), and TurboFan's code
  // of writeDigits and its callers was thrown away there.
  let digits =
    value >= 1e9 ? 10 : value >= 1e8 ? 9 : value >= 1e7 ? 8 : value >= 1e6 ? 7 : value >= 1e5 ? 6 : value >= 1e4 ? 5 : value >= 1e3 ? 4 : value >= 100 ? 3 : 2;
  for (let limit = 1e10; value >= limit; limit *= 10) digits++;
  let n = value;
  for (let i = at + digits - 1; i >= at; i--) {
    const digit = n % 10;
    block[i] = 0x30 + digit;
    n = (n - digit) / 10;
  }
  return at + digits;
}

/** Writes a reference's `N G` (object and generation numbers) at `at`; returns where it ends. */
function writeNumbers(block: Uint8Array, at: number, ref: PDFRef): number {
  at = writeDigits(block, at, ref.objectNumber);
  block[at++] = 0x20;
  return writeDigits(block, at, ref.generationNumber);
}

/** Pieces smaller than this are copied into the current block instead of being kept as views. */
const SMALL_PIECE = 4096;
const BLOCK = 1 << 16;
/** An output's first block: a split's part of a few KB made a 64 KB block each (blocks double up to BLOCK). */
const FIRST_BLOCK = 1 << 13;

/**
 * The output as it grows, handed to the sink in order, and the offset of the
 * next byte. Headers, dictionaries and small input objects are copied into
 * 64 KB blocks: kept as a view each, a document of 20,000 objects made 80,000
 * small buffers (and a split, that for every part it kept until the end).
 * Large pieces, unread input (FileRange) and deferred pieces go as they are.
 */
class Output implements TokenWriter {
  private block: Buffer | undefined;
  private blockStart = 0;
  private blockUsed = 0;
  private nextBlock = FIRST_BLOCK;
  offset = 0;

  constructor(
    version: string,
    private readonly sink: Sink,
  ) {
    this.text(`%PDF-${version}\n`);
    this.push(BINARY_MARKER);
  }

  /**
   * A token of a parsed object, copied into the block by hand: serialized
   * into a string and a buffer of its own first, the objects a split
   * changes were 5.5 of its 122 MB of allocations (images shape). Chars
   * keep their low byte, as latin1 does.
   */
  token(text: string): void {
    const length = text.length;
    if (length > SMALL_PIECE) return this.push(Buffer.from(text, 'latin1'));
    this.room(length);
    const block = this.block!;
    const at = this.blockUsed;
    for (let i = 0; i < length; i++) block[at + i] = text.charCodeAt(i);
    this.blockUsed += length;
    this.offset += length;
  }

  /** A reference of a parsed object, `N G R` written as digits (its text would be a string per reference). */
  ref(ref: PDFRef): void {
    // Only whole numbers are written as digits here; anything else (made in memory, never parsed) as its text.
    if (!(Number.isSafeInteger(ref.objectNumber) && ref.objectNumber >= 0 && Number.isSafeInteger(ref.generationNumber) && ref.generationNumber >= 0)) {
      return this.token(ref.tag);
    }
    this.room(48);
    const block = this.block!;
    const start = this.blockUsed;
    let at = writeNumbers(block, start, ref);
    block[at++] = 0x20;
    block[at++] = 0x52;
    this.blockUsed = at;
    this.offset += at - start;
  }

  /** ASCII text (headers, numbers, keywords), written into the current block. */
  text(text: string): void {
    if (text.length > SMALL_PIECE) {
      this.push(encoder.encode(text));
      return;
    }
    // Copied by hand as token() does: Buffer's write is a call into C++ for a few bytes (three per part of a split).
    this.token(text);
  }

  push(bytes: Piece): void {
    // A view of input nothing read goes as the range of the file it stands for.
    const unread = bytes instanceof Uint8Array ? unreadRange(bytes) : undefined;
    if (!(bytes instanceof Uint8Array) || unread || bytes.byteLength >= SMALL_PIECE) {
      this.flush();
      this.sink.write(unread ?? bytes);
    } else {
      this.room(bytes.byteLength);
      this.block!.set(bytes, this.blockUsed);
      this.blockUsed += bytes.byteLength;
    }
    this.offset += bytes.byteLength;
  }

  /**
   * data[start, end): copied into the current block when small and in
   * memory, else kept as a view (as push does), without making a view of
   * every small piece (a document of 200,000 objects made 50 MB of them).
   */
  range(data: Uint8Array, start: number, end: number): void {
    const length = end - start;
    const unread = unreadRange(data, start, end);
    if (unread || length >= SMALL_PIECE) {
      this.flush();
      this.sink.write(unread ?? data.subarray(start, end));
      this.offset += length;
      return;
    }
    this.room(length);
    const block = this.block!;
    // A few bytes (most objects) are copied by hand: a native copy costs more in the call than in the copy.
    if (length <= 64) for (let i = 0; i < length; i++) block[this.blockUsed + i] = data[start + i];
    else block.set(plainView(data, start, length), this.blockUsed);
    this.blockUsed += length;
    this.offset += length;
  }

  /** range() as a function made once, not a closure per object. */
  private readonly bodyRange = (data: Uint8Array, start: number, end: number): void => this.range(data, start, end);

  /** `N G obj` and a line break, written as digits into the block (a string for each was garbage). */
  header(ref: PDFRef): void {
    this.room(32);
    const block = this.block!;
    const start = this.blockUsed;
    const at = writeNumbers(block, start, ref);
    block.set(OBJ_LINE, at);
    this.blockUsed = at + OBJ_LINE.length;
    this.offset += this.blockUsed - start;
  }

  /** One indirect object; a stream's data goes out as the pieces already in memory. */
  object(ref: PDFRef, source: ObjectSource, written: WrittenRefs): void {
    if (source.kind !== 'parsed') {
      this.header(ref);
      eachBodyRange(source, written, this.bodyRange);
      this.push(OBJECT_END);
      return;
    }
    const object = source.object;
    if (object instanceof PDFStream) {
      // The data first: it sets /Length, which the dictionary then carries.
      const data = streamData(object);
      this.stream(ref, object.dict, data);
    } else {
      this.header(ref);
      writeTokens(object, this);
      this.push(OBJECT_END);
    }
  }

  /**
   * A stream whose dictionary goes out as its input bytes (references the
   * output lacks written as null), /Length the size of `data`: its data changed, nothing else.
   */
  rawStream(ref: PDFRef, source: RawSource, data: readonly Piece[], written: WrittenRefs): void {
    this.header(ref);
    const { raw } = source;
    // The dictionary, without the line break before its `stream` keyword (STREAM_START has one).
    let dictEnd = raw.dictEnd!;
    while (dictEnd > raw.start && isWhite(raw.data[dictEnd - 1])) dictEnd--;
    let size = 0;
    for (const piece of data) size += piece.byteLength;
    eachRange(source, dictEnd, written, this.bodyRange, size);
    this.push(STREAM_START);
    for (const piece of data) this.push(piece);
    this.push(STREAM_END);
    this.push(OBJECT_END);
  }

  /** An object that is not a stream as its input bytes (references the output lacks written as null), its strings replaced. */
  rawWithStrings(ref: PDFRef, source: RawSource, replaced: RawStrings, written: WrittenRefs): void {
    this.header(ref);
    const { spans, strings } = replaced;
    const input = source.raw.data;
    let next = 0;
    // Strings lie in the runs of input bytes between references, never across one.
    eachRange(source, source.raw.end, written, (data, start, end) => {
      for (; data === input && next < spans.length && spans[next] < end; next += 2) {
        this.range(data, start, spans[next]);
        const string = strings[next >> 1];
        this.range(string, 0, string.length);
        start = spans[next + 1];
      }
      this.range(data, start, end);
    });
    this.push(OBJECT_END);
  }

  /** A stream object from its dictionary (serialized, or to serialize) and its data. */
  stream(ref: PDFRef, dict: Uint8Array | PDFDict, data: readonly Piece[]): void {
    this.header(ref);
    if (dict instanceof PDFDict) writeTokens(dict, this);
    else this.push(dict);
    this.push(STREAM_START);
    for (const piece of data) this.push(piece);
    this.push(STREAM_END);
    this.push(OBJECT_END);
  }

  /** Hands the rest to the sink. */
  end(): void {
    this.flush();
  }

  /** Makes the current block hold `length` more bytes. */
  private room(length: number): void {
    if (this.block && this.blockUsed + length <= this.block.length) return;
    this.flush();
    this.block = Buffer.allocUnsafe(Math.max(this.nextBlock, length));
    this.nextBlock = Math.min(2 * this.nextBlock, BLOCK);
    this.blockStart = this.blockUsed = 0;
  }

  /** Ends the current block's run of bytes: what it holds becomes a piece; the rest of it stays for later text. */
  private flush(): void {
    if (!this.block || this.blockUsed === this.blockStart) return;
    this.sink.write(this.block.subarray(this.blockStart, this.blockUsed));
    this.blockStart = this.blockUsed;
  }
}

const OBJSTM = PDFName.of('ObjStm');
const XREF = PDFName.of('XRef');

/** PDF white-space (ISO 32000-2, 7.2.3). */
const isWhite = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;

function streamType(object: PDFObject): PDFObject | undefined {
  return object instanceof PDFStream ? object.dict.get(PDFName.of('Type')) : undefined;
}

/**
 * The objects to write, by number: those the trailer reaches. Object
 * streams and cross-reference streams of the input are left out: their
 * members are written on their own, and this writer makes its own streams.
 */
function planOutput(context: PDFContext, nullify: RefTargets | undefined): Plan {
  const { Root, Info, Encrypt } = context.trailerInfo;
  const leave = nullify && nullify.size > 0 ? nullify : undefined;
  const walk = walkGraph(context, [Root, Info, Encrypt], leave && ((ref) => !leave.has(ref)));
  let largest = walk.largestReferenced;
  const written = walk.reached;
  if (leave) nullifyReached(context, walk, leave);
  const refs: PDFRef[] = [];
  // forEach: a for-of over the entries makes an array per entry. Deleting the entry being visited is safe.
  written.forEach((source, ref) => {
    const type = source.kind === 'parsed' ? streamType(source.object) : undefined;
    if (type === OBJSTM || type === XREF) written.delete(ref);
    else {
      refs.push(ref);
      if (ref.objectNumber > largest) largest = ref.objectNumber;
    }
  });
  return { written, order: byNumber(refs), next: largest + 1 };
}

/** How many refs byNumber sorts through its typed array at most: its keys are a number above an index. */
const INDEX_SPAN = 2 ** 24;
/** Numbers below this keep those keys exact (under 2^53); a table lists at most ten million objects. */
const KEYED_NUMBERS = 2 ** 29;

/**
 * `refs` by object number, those of one number in the order given (as a
 * stable sort would). Sorted as keys in a typed array, natively: a
 * comparator called from code not yet optimized took 5-10 ms for the 4,700
 * objects of the images shape.
 */
function byNumber(refs: PDFRef[]): PDFRef[] {
  const count = refs.length;
  const keys = new Float64Array(count < INDEX_SPAN ? count : 0);
  for (let i = 0; i < count; i++) {
    const num = refs[i].objectNumber;
    // A number made in memory may be anything: those refs are sorted as before.
    if (count >= INDEX_SPAN || !(Number.isInteger(num) && num >= 0 && num < KEYED_NUMBERS)) return refs.sort((a, b) => a.objectNumber - b.objectNumber);
    keys[i] = num * INDEX_SPAN + i;
  }
  keys.sort();
  const order = new Array<PDFRef>(count);
  for (let i = 0; i < count; i++) order[i] = refs[keys[i] % INDEX_SPAN];
  return order;
}

/**
 * An unparsed object's body, as ranges of bytes handed to `range` in order:
 * its input bytes, with references the output lacks written as null.
 */
function eachBodyRange(
  source: Exclude<ObjectSource, { kind: 'parsed' }>,
  written: WrittenRefs,
  range: (data: Uint8Array, start: number, end: number) => void,
): void {
  if (source.kind === 'damaged') return range(source.bytes, 0, source.bytes.length);
  const { raw } = source;
  // `N 0 obj endobj`: an empty object is null (as qpdf reads it).
  if (raw.end <= raw.start) return range(NULL, 0, NULL.length);
  eachRange(source, raw.end, written, range);
}

/**
 * Bytes [raw.start, end) of a skimmed object as ranges, references the
 * output lacks written as null; with `length`, the value of /Length
 * (raw.lengthAt to raw.lengthEnd, `N G R` included) written as that number.
 */
function eachRange(source: RawSource, end: number, written: WrittenRefs, range: (data: Uint8Array, start: number, end: number) => void, length?: number): void {
  const { raw, table } = source;
  let at = raw.start;
  const refs = raw.refs;
  // Where /Length's value is still to be written (Infinity: nowhere).
  let lengthAt = length === undefined ? Infinity : raw.lengthAt!;
  for (let i = 0; i < refs.length; i += REF_FIELDS) {
    const refStart = refs[i + REF_START];
    if (refStart >= lengthAt) {
      at = writeLength(raw, at, length!, range);
      lengthAt = Infinity;
    }
    // A reference that was /Length's value is gone with it; none lies past the dictionary.
    if (refStart < at) continue;
    if (refStart >= end) break;
    const num = refs[i + REF_NUM];
    const gen = refs[i + REF_GEN];
    const ref = table.refAt(num, gen);
    const kept = ref !== undefined && written.has(ref);
    if (kept && ref.objectNumber === num && ref.generationNumber === gen) continue;
    range(raw.data, at, refStart);
    // A reference the output lacks is null; one into a merged input has that input's new number.
    if (kept) range(REF_TEXT, 0, writeRefText(ref));
    else range(NULL, 0, NULL.length);
    at = refs[i + REF_END];
  }
  if (lengthAt !== Infinity) at = writeLength(raw, at, length!, range);
  range(raw.data, at, end);
}

/** The bytes from `at` to /Length's value, then `length` in its place; returns where the bytes go on. */
function writeLength(raw: RawObject, at: number, length: number, range: (data: Uint8Array, start: number, end: number) => void): number {
  range(raw.data, at, raw.lengthAt!);
  range(REF_TEXT, 0, writeDigits(REF_TEXT, 0, length));
  return raw.lengthEnd!;
}

/** Where a renumbered reference is written, reused: range() copies what it is given, body() copies it out. */
const REF_TEXT = new Uint8Array(48);

/** Writes `N G R` for `ref` into REF_TEXT; returns its length. */
function writeRefText(ref: PDFRef): number {
  let at = writeDigits(REF_TEXT, 0, ref.objectNumber);
  REF_TEXT[at++] = 0x20;
  at = writeDigits(REF_TEXT, at, ref.generationNumber);
  REF_TEXT[at++] = 0x20;
  REF_TEXT[at++] = 0x52;
  return at;
}

/** The same as pieces (views of the input). */
function body(source: Exclude<ObjectSource, { kind: 'parsed' }>, written: WrittenRefs): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  eachBodyRange(source, written, (data, start, end) => pieces.push(data === REF_TEXT ? data.slice(start, end) : data.subarray(start, end)));
  return pieces;
}

/** The serialized body of an object that is not a stream. */
function bodyBytes(source: ObjectSource, written: WrittenRefs): Uint8Array[] {
  return source.kind === 'parsed' ? [serialize(source.object)] : body(source, written);
}

function isStreamSource(source: ObjectSource): boolean {
  return source.kind === 'parsed' ? source.object instanceof PDFStream : source.kind === 'raw' ? source.raw.stream : true;
}

const FREE_HEAD = encoder.encode('0000000000 65535 f\r\n');
const XREF_HEAD = encoder.encode('xref\n');

/**
 * One subsection per run of consecutive object numbers; object 0 heads the
 * free list. `order`: the objects written, ascending; `offsets`: where each
 * starts. Written straight into bytes: as a line of text each, the table of
 * 200,000 objects held 12 MB of strings at the peak of the write.
 */
function crossReferenceTable(order: readonly PDFRef[], offsets: readonly number[]): Uint8Array {
  // Entries: object 0 then the objects (20 bytes each); a subsection header per run (at most 22 bytes each).
  let runs = 2;
  for (let i = 1; i < order.length; i++) if (order[i].objectNumber !== order[i - 1].objectNumber + 1) runs++;
  const table = Buffer.allocUnsafe(5 + (order.length + 1) * 20 + runs * 23);
  table.set(XREF_HEAD, 0);
  let at = XREF_HEAD.length;
  // Zero-padded, the digits taken in the loop (no call per digit: 15 per entry, 90,000 for merge-50's table).
  const digits = (value: number, width: number) => {
    let i = at + width - 1;
    for (; value > 0 && i >= at; i--) {
      const digit = value % 10;
      table[i] = 0x30 + digit;
      value = (value - digit) / 10;
    }
    for (; i >= at; i--) table[i] = 0x30;
    at += width;
  };
  for (let i = -1; i < order.length; ) {
    // i = -1 stands for object 0, which starts the first run when object 1 is written.
    const first = i < 0 ? 0 : order[i].objectNumber;
    let j = i + 1;
    while (j < order.length && order[j].objectNumber === (j === 0 ? 0 : order[j - 1].objectNumber) + 1) j++;
    // By hand, not a template string written by Buffer's write: a split's part has a dozen runs. A number made
    // in memory may be anything (see byNumber): that one as its text.
    if (Number.isSafeInteger(first) && first >= 0) {
      at = writeDigits(table, at, first);
      table[at++] = 0x20;
      at = writeDigits(table, at, j - i);
      table[at++] = 0x0a;
    } else at += table.write(`${first} ${j - i}\n`, at, 'latin1');
    for (let k = i; k < j; k++) {
      if (k < 0) {
        table.set(FREE_HEAD, at);
        at += FREE_HEAD.length;
        continue;
      }
      digits(offsets[k], 10);
      table[at++] = 0x20;
      digits(order[k].generationNumber, 5);
      table[at++] = 0x20;
      table[at++] = 0x6e;
      table[at++] = 0x0d;
      table[at++] = 0x0a;
    }
    i = j;
  }
  return table.subarray(0, at);
}

/** The trailer's entries, in the order written: one list for the table's trailer and the stream's dictionary. */
function trailerEntries(context: PDFContext, size: number): Array<[key: string, value: PDFObject]> {
  const { Root, Info, ID, Encrypt } = context.trailerInfo;
  const entries: Array<[string, PDFObject]> = [['Size', PDFNumber.of(size)]];
  if (Root) entries.push(['Root', Root as PDFRef]);
  if (Info) entries.push(['Info', Info as PDFObject]);
  const id = fileIdToWrite(context, ID as PDFObject | undefined);
  if (id) entries.push(['ID', id]);
  if (Encrypt) entries.push(['Encrypt', Encrypt as PDFObject]);
  return entries;
}

/**
 * The trailer as writeTokens writes a dictionary, straight into the block:
 * made as a dictionary and serialized into strings and a buffer of its own,
 * it was a tenth of the write of a split's small part.
 */
function writeTrailer(out: Output, context: PDFContext, size: number): void {
  out.token('<<\n');
  for (const [key, value] of trailerEntries(context, size)) {
    out.token('/');
    out.token(key);
    out.token(' ');
    writeTokens(value, out);
    out.token('\n');
  }
  out.token('>>');
}

function trailerDict(context: PDFContext, size: number): PDFDict {
  const trailer = context.obj({}) as PDFDict;
  for (const [key, value] of trailerEntries(context, size)) trailer.set(PDFName.of(key), value);
  return trailer;
}

/**
 * Whether an input object stream can go out as its input bytes: every
 * member goes out (a member the output drops must not survive in the
 * stream's bytes), and each member that goes out as its input bytes does so
 * unchanged (no reference written as null or renumbered). A member parsed,
 * rewritten or otherwise changed is written anew; the stored copy of it is
 * stale and unlisted. At least one member must still be listed from it.
 */
function storesAsInput(input: InputObjectStream, written: ReadonlyMap<PDFRef, ObjectSource>): boolean {
  let listed = 0;
  for (const member of input.members) {
    const source = written.get(PDFRef.of(member, 0));
    if (source === undefined) return false;
    if (!isStoredMember(source, input)) continue;
    if (!bytesUnchanged(source as RawSource, written)) return false;
    listed++;
  }
  return listed > 0;
}

/** True when `source` is the untouched skim of a member of `input` (a view of its unpacked data). */
function isStoredMember(source: ObjectSource, input: InputObjectStream): boolean {
  return source.kind === 'raw' && source.raw.data === input.data;
}

/** True when eachRange would write a skimmed object's bytes as they are: every reference kept under its own number. */
function bytesUnchanged(source: RawSource, written: WrittenRefs): boolean {
  const { raw, table } = source;
  const refs = raw.refs;
  for (let i = 0; i < refs.length; i += REF_FIELDS) {
    const num = refs[i + REF_NUM];
    const gen = refs[i + REF_GEN];
    const ref = table.refAt(num, gen);
    if (ref === undefined || !written.has(ref) || ref.objectNumber !== num || ref.generationNumber !== gen) return false;
  }
  return true;
}

/**
 * Keeps the plaintext strings of a member of an object stream as a probe of
 * the output check (check-output.ts), which then reads it back through its
 * decrypted object stream: the streams' encryption is proved as the
 * top-level objects' is. False when the member has no string.
 */
function probeMember(encryption: Encryption, ref: PDFRef, source: ObjectSource): boolean {
  if (source.kind === 'damaged' || (source.kind === 'raw' && !source.raw.strings)) return false;
  const object = source.kind === 'parsed' ? source.object : source.table.parseDetached(ref);
  const strings = object === undefined ? [] : plainStrings(object);
  if (strings.length === 0) return false;
  encryption.expected.probes.push({ ref, strings });
  return true;
}

/**
 * zlib's level for object streams: its fastest. A page action rewrote every
 * object stream before input streams could go out stored (10 MB of objects
 * in object-streams.pdf): level 6 (the default) was 0.35 s of a 1.2 s
 * rotate; level 4 half of that; level 1
 * deflates those 10 MB in 90 ms of CPU against level 4's 165 ms, and writes
 * 13 % more of them (3.70 MB against 3.27 MB: +0.8 % of that file).
 * bench/README.md, "Profiles: object streams" and "Remove pages, object
 * streams (branch remove)".
 */
const OBJECT_STREAM_LEVEL = 1;

/** Objects per object stream: small enough that a reader unpacking one for one object does little extra work. */
const OBJECTS_PER_STREAM = 100;
const SPACE = encoder.encode(' ');

/**
 * The same document with its non-stream objects in object streams and a
 * cross-reference stream. With `store`, input object streams that may go
 * out as their input bytes do (storesAsInput); the other objects are packed
 * into new object streams. With `encryption` (and `store`), a stored stream
 * is encrypted whole under its own number, its members' strings not on their
 * own (PDF 2.0 7.6.2); every other object goes out at the top level as in the
 * classic layout (the catalog, read before a reader knows the key; the
 * /Encrypt dictionary; a signature's plain /Contents), none packed anew; the
 * cross-reference stream is never encrypted.
 */
function writeWithObjectStreams(context: PDFContext, plan: Plan, sink: Sink, store: boolean, encryption?: Encryption): void {
  const version = context.header.getVersionString();
  const out = new Output(Number(version) >= 1.5 ? version : '1.5', sink);
  // Type 1 entries: [offset, generation]; type 2: [object stream, index].
  const entries = new Map<number, [1 | 2, number, number]>();
  let next = plan.next;
  // The input object streams weighed for storing so far, and the object numbers the output has (a stored stream keeps its own).
  const weighed = store ? new Set<InputObjectStream>() : undefined;
  let numbers: Set<number> | undefined;

  // Whether a member with strings was kept as a probe for the output check (encrypted output only).
  let probed = encryption === undefined;
  const packed: PDFRef[] = [];
  for (const ref of plan.order) {
    const source = plan.written.get(ref)!;
    // Streams cannot be inside object streams, nor objects of a generation other than 0.
    if (!isStreamSource(source) && ref.generationNumber === 0) {
      const input = weighed && source.kind === 'raw' && !entries.has(ref.objectNumber) ? source.table.objectStreamOf?.(ref.objectNumber) : undefined;
      if (input && !weighed!.has(input)) {
        weighed!.add(input);
        numbers ??= new Set(plan.order.map((r) => r.objectNumber));
        if (!numbers.has(input.ref.objectNumber) && storesAsInput(input, plan.written)) {
          input.members.forEach((member, index) => {
            const memberRef = PDFRef.of(member, 0);
            const memberSource = plan.written.get(memberRef)!;
            if (!isStoredMember(memberSource, input)) return;
            entries.set(member, [2, input.ref.objectNumber, index]);
            if (!probed) probed = probeMember(encryption!, memberRef, memberSource);
          });
          entries.set(input.ref.objectNumber, [1, out.offset, input.ref.generationNumber]);
          if (encryption) writeTopLevel(out, input.ref, input.source, encryption, plan.written);
          else out.object(input.ref, input.source, plan.written);
          // New numbers come after the stored stream's, and after any its stale copies refer to.
          next = Math.max(next, input.ref.objectNumber + 1, input.inputSize);
        }
      }
      // A member of a stored stream that goes out as its input bytes has its entry there; the rest are packed anew,
      // or, encrypted, go out as top-level objects (each string encrypted on its own, as in the classic layout).
      if (entries.get(ref.objectNumber)?.[0] === 2) continue;
      if (!encryption) {
        packed.push(ref);
        continue;
      }
    }
    entries.set(ref.objectNumber, [1, out.offset, ref.generationNumber]);
    if (encryption) writeTopLevel(out, ref, source, encryption, plan.written);
    else out.object(ref, toWrite(ref, source, undefined), plan.written);
  }

  for (let start = 0; start < packed.length; start += OBJECTS_PER_STREAM) {
    const group = packed.slice(start, start + OBJECTS_PER_STREAM);
    const number = next++;
    const bodies: Uint8Array[] = [];
    const header: string[] = [];
    let within = 0;
    group.forEach((ref, index) => {
      header.push(`${ref.objectNumber} ${within}`);
      for (const piece of bodyBytes(toWrite(ref, plan.written.get(ref)!, undefined), plan.written)) {
        bodies.push(piece);
        within += piece.byteLength;
      }
      bodies.push(SPACE);
      within += 1;
      entries.set(ref.objectNumber, [2, number, index]);
    });
    const head = encoder.encode(`${header.join(' ')}\n`);
    const data = deflateSync(Buffer.concat([head, ...bodies]), { level: OBJECT_STREAM_LEVEL });
    const dict = `<< /Type /ObjStm /N ${group.length} /First ${head.byteLength} /Filter /FlateDecode /Length ${data.byteLength} >>`;
    entries.set(number, [1, out.offset, 0]);
    out.stream(PDFRef.of(number), encoder.encode(dict), [data]);
  }

  // The cross-reference stream lists itself too.
  const xrefNumber = next++;
  const xrefOffset = out.offset;
  entries.set(xrefNumber, [1, xrefOffset, 0]);
  const size = next;
  let widest = 0;
  for (const [, second] of entries.values()) widest = Math.max(widest, second);
  const w = [1, Math.max(1, Math.ceil(Math.log2(widest + 1) / 8)), 2];
  const rows = new Uint8Array(size * (w[0] + w[1] + w[2]));
  let at = 0;
  const put = (value: number, width: number) => {
    for (let i = width - 1; i >= 0; i--) rows[at + i] = Math.floor(value / 256 ** (width - 1 - i)) & 0xff;
    at += width;
  };
  for (let n = 0; n < size; n++) {
    const entry = entries.get(n);
    // Free entries: object 0 heads the free list with generation 65535.
    const [type, second, third] = entry ?? [0, 0, n === 0 ? 65535 : 0];
    put(type, w[0]);
    put(second, w[1]);
    put(third, w[2]);
  }
  const data = deflateSync(rows);
  const trailer = trailerDict(context, size);
  trailer.set(PDFName.of('Type'), XREF);
  trailer.set(PDFName.of('W'), context.obj(w));
  trailer.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
  trailer.set(PDFName.of('Length'), PDFNumber.of(data.byteLength));
  out.stream(PDFRef.of(xrefNumber), serialize(trailer), [data]);
  out.text(`startxref\n${xrefOffset}\n%%EOF\n`);
  out.end();
}
