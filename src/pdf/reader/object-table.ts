/**
 * The lazy object table: a document's objects, parsed only when asked for.
 *
 * It is the object store of a document opened by the reader, so that every
 * `context.lookup(ref)` (and `PDFDict.lookup`) of the page operations and
 * the watermarks parses the one object it needs, from its offset or from
 * its object stream, and keeps it. An object nobody asks for is never
 * parsed; the writer copies it as its input bytes (`rawObject`), which it
 * skims for their references without building any value.
 *
 * Damage is met where it is found: an offset that does not lead to its
 * object makes the table rebuild itself by scanning the file, once.
 */
import { PDFArray, PDFContext, PDFDict, PDFHeader, PDFName, PDFNull, PDFNumber, PDFObject, PDFRawStream, PDFRef } from '../model/primitives.js';
import { LayeredObjects } from '../model/layered-objects.js';
import type { InputObjectStream, ObjectSource, RawOrigin, RawSource } from '../model/store.js';
import { decodeStructureStream } from './filters.js';
import { parseDictLeniently, parseIndirectObject, parseValue, type ParseContext } from './parser.js';
import { skimBody, type RawObject } from './skim.js';
import { PdfSyntaxError, STREAM, bodyStartAt, escapesSpellNoLetter, indexOf, readObjectHeader, skipWhite } from './syntax.js';
import { objectStreamPairs, reconstructCrossReference, readCrossReference, type CrossReference, type Ensure, XrefEntries } from './xref.js';
import { fileRangeOf, readerOf, type FileRange } from '../../core/lazy-file.js';

interface ObjectStream {
  data: Uint8Array;
  /** Each member's body, by index: [object number, start, end]. */
  members: Array<[number, number, number]>;
  /** Member index by object number (the last listing of a number), made when an index proves wrong. */
  byNumber?: Map<number, number>;
}

/** Decrypts an object stream's data before it is unpacked (security/decrypt.ts sets it). */
export type ObjectStreamDecryptor = (ref: PDFRef, stream: PDFRawStream) => Uint8Array;
/** Decrypts an object parsed from its offset: its strings and stream data, in place or as a new object. */
export type ObjectDecryptor = (ref: PDFRef, object: PDFObject) => PDFObject;

/** textSpans' marks: textAround gives no bytes; its bytes are not the file's (ask it). */
export const NO_TEXT = -1;
export const ASK_TEXT = -2;

/** An object this small is read whole when parsed (its bytes are a page or two of the file at most). */
const SMALL_OBJECT = 4096;

export class ObjectTable extends LayeredObjects {
  private entries_: XrefEntries;
  /** Skims of untouched objects, kept as the sources the graph walk hands around (graph.ts), so that a walk makes none. */
  private readonly raws = new Map<number, RawSource | null>();
  private readonly objectStreams = new Map<number, ObjectStream | null>();
  /** objectStreamOf's answers, by the object stream's number. */
  private readonly storable = new Map<number, InputObjectStream | null>();
  private readonly resolving = new Set<number>();
  private readonly parseContext: ParseContext;
  /** True when the bytes are a lazily read file (core/lazy-file.ts): stream data is then read only when used. */
  private readonly lazy: boolean;
  private everything = false;
  /** Offsets of the objects at an offset, ascending: where each one's bytes can end at the latest. */
  private offsets: Int32Array | Float64Array | undefined;
  recovered: boolean;
  trailer: PDFDict;
  private decryptObjectStream?: ObjectStreamDecryptor;
  private decryptObject?: ObjectDecryptor;
  /** Set with decryptObject (security/decrypt.ts): the writer asks it before parsing a stream (RawOrigin). */
  decryptRawStream?: RawOrigin['decryptRawStream'];
  decryptRawStrings?: RawOrigin['decryptRawStrings'];

  constructor(
    readonly bytes: Uint8Array,
    readonly context: PDFContext,
    xref: CrossReference,
    private readonly ensure: Ensure,
    lazy = false,
  ) {
    super();
    this.lazy = lazy;
    this.entries_ = xref.entries;
    this.recovered = xref.recovered;
    this.trailer = xref.trailer;
    this.parseContext = {
      context,
      exists: (num, gen) => this.exists(num, gen),
      lengthOf: (ref) => this.lengthOf(ref.objectNumber, ref.generationNumber),
    };
  }

  /** Object streams are decrypted with this before they are unpacked (from now on). */
  setObjectStreamDecryptor(decryptor: ObjectStreamDecryptor): void {
    this.decryptObjectStream = decryptor;
    this.objectStreams.clear();
    this.storable.clear();
    this.raws.clear();
  }

  /**
   * Decrypts every object parsed from its offset from now on, and those
   * already parsed. Their input bytes are ciphertext: the writer parses such
   * objects instead of copying them (`bytesAreClear`).
   */
  setObjectDecryptor(decryptor: ObjectDecryptor): void {
    this.decryptObject = decryptor;
    for (const [ref, object] of [...this.own.entries()]) {
      if (this.entries_.get(ref.objectNumber)?.type === 1 && this.exists(ref.objectNumber, ref.generationNumber)) this.own.set(ref, decryptor(ref, object));
    }
  }

  /**
   * What this table's raw sources name as their origin: the table itself,
   * or, once the document merged into another (model/merged-objects.ts), the
   * origin that renumbers its references. One source per object either way.
   */
  private origin: RawOrigin = this;

  renumberAs(origin: RawOrigin): void {
    this.origin = origin;
    // The skims made so far (a merge's input, opened: its pages' content streams) stay good: only their origin changes.
    for (const source of this.raws.values()) if (source) source.table = origin;
  }

  /**
   * Objects whose input bytes an action rewrote (rotate_pages sets a page's
   * /Rotate in them: structure/leaf-bytes.ts): skimmed, parsed and written
   * from these from now on, as if the file held them.
   */
  private readonly rewritten = new Map<number, RawObject>();

  /** Makes `raw` (no stream, and clear text: rotate takes no encrypted input) the input's bytes of the untouched object `ref`. */
  rewrite(ref: PDFRef, raw: RawObject): void {
    this.rewritten.set(ref.objectNumber, raw);
    // Its source at once: the writer's walk asks for every rewritten page (rotate: all of them).
    this.raws.set(ref.objectNumber, { kind: 'raw', raw, table: this.origin });
  }

  /** Whether an untouched object's input bytes can be written as they are (not ciphertext). */
  bytesAreClear(ref: PDFRef): boolean {
    return !this.decryptObject || this.entries_.get(ref.objectNumber)?.type !== 1;
  }

  /** The object parsed, and decrypted when it is ciphertext. */
  private parsePlain(ref: PDFRef): PDFObject | undefined {
    const object = this.parse(ref);
    return object !== undefined && !this.bytesAreClear(ref) ? this.decryptObject!(ref, object) : object;
  }

  /** True when the input has object `num gen` (a reference to anything else is null). */
  exists(num: number, gen: number): boolean {
    return this.entries_.exists(num, gen);
  }

  /** The input's own numbers are the output's. */
  refAt(num: number, gen: number): PDFRef | undefined {
    return this.exists(num, gen) ? PDFRef.of(num, gen) : undefined;
  }

  /** True when the input kept objects in object streams. */
  get hasObjectStreams(): boolean {
    return this.entries_.anyInStream();
  }

  /** Every object the input has, by reference, in number order (for a search that damage makes necessary). */
  inputRefs(): PDFRef[] {
    const refs: PDFRef[] = [];
    this.entries_.forEach((entry, num) => {
      if (entry.type !== 0) refs.push(PDFRef.of(num, entry.type === 1 ? entry.gen : 0));
    });
    return refs.sort((a, b) => a.objectNumber - b.objectNumber);
  }

  /** The reference object `num` exists under, whatever generation a damaged reference to it says (pdf.js falls back so too). */
  refOfNumber(num: number): PDFRef | undefined {
    const entry = this.entries_.get(num);
    return !entry || entry.type === 0 ? undefined : PDFRef.of(num, entry.type === 1 ? entry.gen : 0);
  }

  get largestNumber(): number {
    return this.entries_.largestNumber();
  }

  /**
   * Whether `ref` is in the input and has not been changed or deleted: not
   * parsed at all, or (once the table is frozen) parsed only for reading.
   */
  isUntouched(ref: PDFRef): boolean {
    if (this.removed.has(ref) || !this.exists(ref.objectNumber, ref.generationNumber)) return false;
    return !this.own.has(ref) || (this.frozen !== undefined && !this.frozen.has(ref));
  }

  /**
   * From now on the objects are only read (a split's forks copy what they
   * change): one parsed later is still written as its input bytes, so every
   * part writes each object the same way and split_by_size's weights hold.
   */
  freeze(): void {
    this.frozen ??= new Set(this.own.keys());
  }

  private frozen: Set<PDFRef> | undefined;

  /**
   * Runs `look`, which only reads the document, and forgets the objects it
   * parsed for the first time: nothing changed them, so they still go out as
   * their input bytes and cost no memory after. (The signature check parses
   * every form field of a document; on one with 3,000 widgets, keeping them
   * made every action re-serialize them all.) Whatever `look` returns must
   * not hold on to parsed objects.
   */
  readOnly<T>(look: () => T): T {
    const outer = this.parsedDuringLook;
    const parsed: Array<[PDFRef, PDFObject]> = [];
    this.parsedDuringLook = parsed;
    try {
      return look();
    } finally {
      this.parsedDuringLook = outer;
      for (const [ref, object] of parsed) {
        // Only if it is still the object parsed then (not replaced since); not marked removed: the input still has it.
        if (this.own.get(ref) === object) this.own.delete(ref);
      }
    }
  }

  private parsedDuringLook: Array<[PDFRef, PDFObject]> | undefined;

  /**
   * The object stream holding member `num`, when the writer may copy it as
   * its input bytes (RawOrigin.objectStreamOf): not from a decrypted input
   * (its bytes are ciphertext) nor a rebuilt table, unpacked cleanly, its
   * dictionary free of references (/Extends, an indirect /Length), and every
   * member listed once, at the index the cross-reference gives it (a writer
   * that listed the stream itself as a member shifted them all).
   */
  objectStreamOf(num: number): InputObjectStream | undefined {
    const entry = this.entries_.get(num);
    if (entry?.type !== 2 || this.decryptObjectStream || this.recovered) return undefined;
    let stored = this.storable.get(entry.stream);
    if (stored === undefined) {
      stored = this.storableStream(entry.stream) ?? null;
      this.storable.set(entry.stream, stored);
    }
    return stored ?? undefined;
  }

  private storableStream(num: number): InputObjectStream | undefined {
    const at = this.entries_.get(num);
    if (at?.type !== 1) return undefined;
    const stream = this.objectStream(num);
    const ref = PDFRef.of(num, at.gen);
    const source = stream && this.rawSource(ref);
    // The xref stream's third field is two bytes wide: an index past them cannot be listed.
    if (!stream || !source?.raw.stream || source.raw.refs.length > 0 || stream.members.length > 0xffff) return undefined;
    const members = stream.members.map((member) => member[0]);
    const seen = new Set<number>();
    for (let index = 0; index < members.length; index++) {
      const member = this.entries_.get(members[index]);
      if (seen.has(members[index]) || member?.type !== 2 || member.stream !== num || member.index !== index) return undefined;
      seen.add(members[index]);
    }
    return { ref, source, data: stream.data, members, inputSize: this.largestNumber + 1 };
  }

  /** True when the object came out of an object stream (its strings were decrypted with the stream). */
  isCompressed(ref: PDFRef): boolean {
    return this.entries_.get(ref.objectNumber)?.type === 2;
  }

  get(ref: PDFRef): PDFObject | undefined {
    const own = this.own.get(ref);
    if (own !== undefined || this.removed.has(ref)) return own;
    if (!this.exists(ref.objectNumber, ref.generationNumber) || this.resolving.has(ref.objectNumber)) return undefined;
    this.resolving.add(ref.objectNumber);
    try {
      const object = this.parsePlain(ref);
      if (object !== undefined) {
        this.own.set(ref, object);
        this.parsedDuringLook?.push([ref, object]);
      }
      return object;
    } finally {
      this.resolving.delete(ref.objectNumber);
    }
  }

  /**
   * `ref` parsed afresh and not kept, for a writer that reads each object
   * once (encryption); the table's own object when it has one.
   */
  parseDetached(ref: PDFRef): PDFObject | undefined {
    const own = this.own.get(ref);
    if (own !== undefined || this.removed.has(ref)) return own;
    if (!this.exists(ref.objectNumber, ref.generationNumber)) return undefined;
    return this.parsePlain(ref);
  }

  protected below(ref: PDFRef): boolean {
    return this.exists(ref.objectNumber, ref.generationNumber);
  }

  /** Parses every object: for work that must see all of them (encryption, decryption). */
  materializeAll(): void {
    if (this.everything) return;
    for (const ref of this.inputRefs()) {
      if (this.removed.has(ref) || this.own.has(ref)) continue;
      // An object that cannot be parsed at all is dropped from a full enumeration; its bytes are lost to it anyway.
      this.get(ref);
    }
    this.everything = true;
  }

  /** Every object, parsed: for work that must see all of them (encryption, decryption, enumerateIndirectObjects). */
  entries(): Iterable<[PDFRef, PDFObject]> {
    this.materializeAll();
    return this.own.entries();
  }

  /** The reader's objects are only copied by a fork over it: reading is fetching. */
  peek(ref: PDFRef): PDFObject | undefined {
    return this.get(ref);
  }

  /** What the output has for `ref`: its input bytes while untouched, else its parsed form, else its damaged bytes. */
  source(ref: PDFRef): ObjectSource | undefined {
    const raw = this.rawSource(ref);
    if (raw) return raw;
    const object = this.get(ref);
    if (object !== undefined) return { kind: 'parsed', object };
    const bytes = this.isUntouched(ref) ? this.damagedBytes(ref) : undefined;
    return bytes ? { kind: 'damaged', bytes } : undefined;
  }

  /**
   * The input bytes of an untouched object and the references in them, or
   * undefined when they are not clean enough to copy (the writer then parses
   * the object).
   */
  rawObject(ref: PDFRef): RawObject | undefined {
    return this.rawSource(ref)?.raw;
  }

  /** The same as the source the graph walk takes (graph.ts: ObjectSource). */
  rawSource(ref: PDFRef): RawSource | undefined {
    if (!this.isUntouched(ref)) return undefined;
    const num = ref.objectNumber;
    let source = this.raws.get(num);
    if (source === undefined) {
      const raw = this.skim(num);
      source = raw ? { kind: 'raw', raw, table: this.origin } : null;
      this.raws.set(num, source);
    }
    return source ?? undefined;
  }

  /**
   * Bytes that hold an untouched object's input text whole, perhaps with
   * what lies between it and the next object; undefined when they are not at
   * hand or larger than `atMost`. For a quick look for a word, without
   * parsing or even skimming the object (see countSignatures): code that has
   * not run yet is slow, and a form can have thousands of fields.
   */
  textAround(ref: PDFRef, atMost: number): Uint8Array | undefined {
    const num = ref.objectNumber;
    if (!this.isUntouched(ref) || !this.exists(num, ref.generationNumber)) return undefined;
    const rewritten = this.rewritten.get(num);
    if (rewritten) return rewritten.end - rewritten.start <= atMost ? rewritten.data.subarray(rewritten.start, rewritten.end) : undefined;
    let entry = this.entries_.get(num)!;
    if (entry.type === 1) {
      // The header is checked (a wrong offset rebuilds the table): the bytes must be this object's.
      const bodyStart = this.header(num, entry);
      entry = this.entries_.get(num)!;
      if (bodyStart < 0 || entry.type !== 1) return undefined;
      const end = this.nextOffset(entry.offset);
      if (end - bodyStart > atMost) return undefined;
      this.ensure(bodyStart, end);
      return this.bytes.subarray(bodyStart, end);
    }
    if (entry.type !== 2) return undefined;
    const member = this.member(num, entry);
    return member && member.end - member.start <= atMost ? member.data.subarray(member.start, member.end) : undefined;
  }

  /**
   * Where textAround's bytes for each of `refs` lie in the file's bytes, as
   * start and end pairs (made readable), for a look at many objects with
   * one search over the bytes they span rather than several per object.
   * A pair is NO_TEXT when textAround gives none, ASK_TEXT when its bytes
   * are not the file's (an object stream's member, rewritten bytes): ask
   * textAround. Undefined when an object's header is not where the table
   * says: textAround, one object at a time, rebuilds the table then.
   */
  textSpans(refs: readonly PDFRef[], atMost: number): number[] | undefined {
    // A plain array (small integers), not a Float64Array: see nextOffset.
    const spans: number[] = [];
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      const num = ref.objectNumber;
      const entry = this.entries_.get(num);
      if (!this.isUntouched(ref) || !entry) {
        spans.push(NO_TEXT, NO_TEXT);
        continue;
      }
      if (entry.type !== 1 || this.rewritten.has(num)) {
        spans.push(ASK_TEXT, ASK_TEXT);
        continue;
      }
      this.ensure(entry.offset, entry.offset + 256);
      const bodyStart = bodyStartAt(this.bytes, entry.offset, num, entry.gen);
      if (bodyStart < 0) return undefined;
      const end = this.nextOffset(entry.offset);
      if (end - bodyStart > atMost) spans.push(NO_TEXT, NO_TEXT);
      else {
        this.ensure(bodyStart, end);
        spans.push(bodyStart, end);
      }
    }
    return spans;
  }

  /**
   * True when an untouched object's input bytes (textAround, at most 64 KB)
   * hold none of `words` and no name escape that could spell one (a `#` but
   * for escapes past ASCII, which UTF-8 names are written in: radio buttons'
   * states): a dictionary written so has none of those keys, told without
   * parsing it. False when
   * the bytes are not at hand. Forms have thousands of fields: see
   * countSignatures and pruneFields.
   */
  bytesLack(ref: PDFRef, words: readonly string[]): boolean {
    const text = this.textAround(ref, 1 << 16);
    if (!text) return false;
    const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
    return words.every((word) => bytes.indexOf(word) < 0) && escapesSpellNoLetter(text);
  }

  /**
   * The references in the /Annots arrays written in an untouched object's
   * input bytes (at most 64 KB): none when the bytes hold no /Annots. For a
   * quick look at a page's annotations without parsing it. Undefined when
   * the bytes cannot tell: not at hand, a `#` (a name escape could spell
   * /Annots), an /Annots that refers to its array, or an array holding
   * anything but references.
   */
  annotationsWrittenIn(ref: PDFRef): PDFRef[] | undefined {
    const text = this.textAround(ref, 1 << 16);
    if (!text) return undefined;
    const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
    if (bytes.indexOf(0x23) >= 0) return undefined;
    const refs: PDFRef[] = [];
    for (let at = bytes.indexOf('/Annots'); at >= 0; at = bytes.indexOf('/Annots', at + 7)) {
      let i = skipWhite(text, at + 7, text.length);
      if (text[i] !== 0x5b) return undefined;
      const numbers: number[] = [];
      for (i = skipWhite(text, i + 1, text.length); text[i] !== 0x5d; i = skipWhite(text, i, text.length)) {
        if (text[i] === 0x52 && numbers.length === 2) {
          refs.push(PDFRef.of(numbers[0], numbers[1]));
          numbers.length = 0;
          i++;
          continue;
        }
        let value = 0;
        const start = i;
        for (; text[i] >= 0x30 && text[i] <= 0x39; i++) value = value * 10 + text[i] - 0x30;
        if (i === start || numbers.length === 2) return undefined;
        numbers.push(value);
      }
      if (numbers.length > 0) return undefined;
    }
    return refs;
  }

  /**
   * A dictionary that cannot be parsed whole, read as far as it goes
   * (parseDictLeniently), and this object from now on (written as parsed).
   * For the page tree: a damaged page is read, not lost with the file.
   */
  readDamagedDict(ref: PDFRef): PDFDict | undefined {
    const num = ref.objectNumber;
    if (!this.exists(num, ref.generationNumber) || this.own.get(ref) !== undefined || this.removed.has(ref)) return undefined;
    const entry = this.entries_.get(num)!;
    let dict: PDFDict | undefined;
    if (entry.type === 1) {
      const bodyStart = this.header(num, entry);
      const at = this.entries_.get(num);
      if (bodyStart < 0 || at?.type !== 1) return undefined;
      dict = parseDictLeniently(this.bytes, bodyStart, this.extent(at.offset), this.parseContext);
    } else if (entry.type === 2) {
      const member = this.member(num, entry);
      dict = member && parseDictLeniently(member.data, member.start, member.end, this.parseContext);
    }
    if (!dict) return undefined;
    const plain = this.bytesAreClear(ref) ? dict : this.decryptObject!(ref, dict);
    if (!(plain instanceof PDFDict)) return undefined;
    this.own.set(ref, plain);
    return plain;
  }

  /** An object's bytes as they are, for one that cannot be parsed: carried, never dropped. */
  damagedBytes(ref: PDFRef): Uint8Array | undefined {
    // Ciphertext that cannot be parsed cannot be decrypted either.
    if (!this.bytesAreClear(ref)) return undefined;
    const entry = this.entries_.get(ref.objectNumber);
    if (!entry || entry.type !== 1) return undefined;
    const end = this.extent(entry.offset);
    const header = readObjectHeader(this.bytes, entry.offset, end);
    if (!header || header.num !== ref.objectNumber) return undefined;
    const text = this.bytes.subarray(header.bodyStart, end);
    const close = Buffer.from(text.buffer, text.byteOffset, text.byteLength).indexOf('endobj');
    const body = close >= 0 ? text.subarray(0, close) : text;
    return body.byteLength > 0 ? body : undefined;
  }

  /** lengthOf as a function made once (the skim takes it on every object). */
  private readonly lengthOfNumber = (num: number, gen: number): number | undefined => this.lengthOf(num, gen);

  private skim(num: number): RawObject | undefined {
    const rewritten = this.rewritten.get(num);
    if (rewritten) return rewritten;
    const entry = this.entries_.get(num)!;
    const lengthOf = this.lengthOfNumber;
    if (entry.type === 1) {
      const bodyStart = this.header(num, entry);
      if (bodyStart < 0) return undefined;
      // The extent bounds the skim, but only what the skim looks at is read (not the stream data).
      return skimBody(this.bytes, bodyStart, this.nextOffset(entry.offset), true, lengthOf, this.ensure);
    }
    if (entry.type !== 2) return undefined;
    const member = this.member(num, entry);
    return member ? skimBody(member.data, member.start, member.end, false, lengthOf) : undefined;
  }

  private lengthOf(num: number, gen: number): number | undefined {
    const value = this.get(PDFRef.of(num, gen));
    return value instanceof PDFNumber ? value.asNumber() : undefined;
  }

  /** Where the body starts after the header at an entry's offset, checked (-1: none); a wrong offset rebuilds the table once. */
  private header(num: number, entry: { offset: number; gen: number }): number {
    this.ensure(entry.offset, entry.offset + 256);
    const bodyStart = bodyStartAt(this.bytes, entry.offset, num, entry.gen);
    if (bodyStart >= 0) return bodyStart;
    if (this.recover()) {
      const fresh = this.entries_.get(num);
      if (fresh?.type === 1) {
        const again = readObjectHeader(this.bytes, fresh.offset);
        if (again && again.num === num) return again.bodyStart;
      }
    }
    return -1;
  }

  /**
   * Where warnings about this document go (core/warnings.ts). A table already
   * rebuilt when the document was opened says so at once.
   */
  reportTo(warn: (message: string) => void): void {
    this.warn = warn;
    if (this.recovered) warn(REBUILT);
    for (const message of this.noted.splice(0)) warn(message);
  }

  private warn?: (message: string) => void;
  /** Warnings found before anyone listens (when the document is opened), for reportTo. */
  private readonly noted: string[] = [];

  /** Reports `message` as a warning about this document, now or when reportTo is called. */
  note(message: string): void {
    if (this.warn) this.warn(message);
    else this.noted.push(message);
  }

  /** The first reading limit an object passed (nesting deeper than the parser follows), if any. */
  limitPassed?: string;

  /** Rebuilds the table by scanning the file; false when it already was. */
  recover(): boolean {
    if (this.recovered) return false;
    const rebuilt = reconstructCrossReference(this.bytes, this.context, this.ensure, this.trailer);
    this.recovered = true;
    this.warn?.(REBUILT);
    // Objects already parsed keep their parsed form; the rest are read anew.
    this.entries_ = rebuilt.entries;
    this.trailer = rebuilt.trailer;
    this.raws.clear();
    this.objectStreams.clear();
    this.storable.clear();
    this.offsets = undefined;
    return true;
  }

  /**
   * Forgets the document: its objects, what it read of the file and where
   * everything is. For a document whose objects moved into another (a
   * merge's later inputs, merge.ts): otherwise the skims and positions of
   * every object it had stayed in memory while the merged document is
   * written, a quarter of the peak for a document of 200,000 small objects.
   * Every reference into it is null from now on.
   */
  release(): void {
    this.own.clear();
    this.rewritten.clear();
    this.entries_ = new XrefEntries();
    this.raws.clear();
    this.objectStreams.clear();
    this.storable.clear();
    this.offsets = undefined;
  }

  /** Where the object at `offset` ends at the latest: the next object's offset (objects do not overlap), else the end of the file. */
  private nextOffset(offset: number): number {
    if (!this.offsets) {
      const offsets = this.entries_.offsetList();
      // A typed array sorts numerically in native code; a comparator called from code not yet optimized
      // took 5-10 ms for the 4,700 offsets of the images shape, once per document. An Int32Array when every
      // offset fits one: what it gives is a small integer, where a Float64Array gives a boxed double
      // (HeapNumber) however whole, one per step of the search below in code not yet optimized.
      let fitsInt32 = true;
      for (let i = 0; i < offsets.length && fitsInt32; i++) fitsInt32 = offsets[i] >= 0 && offsets[i] <= 0x7fffffff;
      this.offsets = (fitsInt32 ? Int32Array.from(offsets) : Float64Array.from(offsets)).sort();
    }
    const list = this.offsets;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    // Math.floor: a whole number from a Float64Array is still a boxed double, and V8 threw away the optimized
    // code of skipWhite, unsignedEnd and the skim when one came as the end of what they read ("not a Smi").
    return lo < list.length ? Math.floor(list[lo]) : this.bytes.length;
  }

  /** The same, with the object's bytes up to there made readable. */
  private extent(offset: number): number {
    const end = this.nextOffset(offset);
    this.ensure(offset, end);
    return end;
  }

  private parse(ref: PDFRef): PDFObject | undefined {
    const num = ref.objectNumber;
    let entry = this.entries_.get(num)!;
    try {
      const rewritten = this.rewritten.get(num);
      if (rewritten) return parseValue(rewritten.data, rewritten.start, rewritten.end, this.parseContext);
      if (entry.type === 1) {
        if (this.header(num, entry) < 0) return undefined;
        entry = this.entries_.get(num)!;
        if (entry.type !== 1) return this.parse(ref);
        if (this.lazy) {
          // A clean stream: its dictionary is parsed, its data stays in the file until something reads it.
          // The skim is kept only for a look that forgets what it parsed (readOnly): a parsed object is
          // written from its parsed form, and a merge parses 200,000 objects.
          const known = this.parsedDuringLook ? this.rawObject(ref) : this.raws.get(num)?.raw;
          // An object with no `stream` in its bytes is no stream: parsed without skimming it first (each
          // page dictionary was skimmed, then parsed, at opening; a catalog with 600 page labels written in
          // it, 40 KB, took 5 ms to skim).
          if (!known && !this.parsedDuringLook) {
            const end = this.nextOffset(entry.offset);
            if (!this.holdsStreamWord(entry.offset, end)) return parseIndirectObject(this.bytes, entry.offset, this.parseContext, end).object;
          }
          const stream = this.streamOf(known ?? this.skim(num));
          if (stream) return stream;
        }
        return parseIndirectObject(this.bytes, entry.offset, this.parseContext, this.extent(entry.offset)).object;
      }
      if (entry.type === 2) {
        const member = this.member(num, entry);
        return member ? parseValue(member.data, member.start, member.end, this.parseContext) : undefined;
      }
    } catch (err) {
      if (!(err instanceof PdfSyntaxError)) throw err;
      // Kept to tell the user why an object the document needs could not be read.
      if (err.message.startsWith('objects nested')) this.limitPassed ??= err.message;
      // A syntax error at a listed offset can mean the table is off: rebuild once and try again.
      if (entry.type === 1 && this.recover() && this.exists(num, ref.generationNumber)) return this.parse(ref);
    }
    return undefined;
  }

  /**
   * Object `num`, member `index` of an object stream: the bytes it is written
   * in. When the stream lists another number at that index, the member is
   * found by its number, as qpdf does: writers have listed the object stream
   * itself as its first member, which moves every index by one.
   */
  private member(num: number, entry: { stream: number; index: number }): { data: Uint8Array; start: number; end: number } | undefined {
    const stream = this.objectStream(entry.stream);
    if (!stream) return undefined;
    let member: [number, number, number] | undefined = stream.members[entry.index];
    if (member?.[0] !== num) {
      stream.byNumber ??= new Map(stream.members.map((m, index) => [m[0], index]));
      const index = stream.byNumber.get(num);
      member = index === undefined ? undefined : stream.members[index];
    }
    return member && { data: stream.data, start: member[1], end: member[2] };
  }

  private objectStream(num: number): ObjectStream | undefined {
    let stream = this.objectStreams.get(num);
    if (stream === undefined) {
      stream = this.unpack(num) ?? null;
      this.objectStreams.set(num, stream);
    }
    return stream ?? undefined;
  }

  /**
   * Whether the bytes from `start` to `end` hold the word `stream`, read in
   * growing windows from `start`: a large stream's data is not read to find
   * the word after its dictionary. When false, all of them have been read.
   */
  private holdsStreamWord(start: number, end: number): boolean {
    for (let to = Math.min(end, start + SMALL_OBJECT); ; to = Math.min(end, start + 2 * (to - start))) {
      this.ensure(start, to);
      if (indexOf(this.bytes, STREAM, start, to) >= 0) return true;
      if (to === end) return false;
    }
  }

  /** A skimmed clean stream of a lazily read file: its dictionary parsed, its data left unread; else undefined. */
  private streamOf(raw: RawObject | undefined): PDFRawStream | undefined {
    if (!raw?.stream) return undefined;
    const dict = parseValue(this.bytes, raw.start, raw.dictEnd!, this.parseContext);
    return dict instanceof PDFDict ? lazyStream(dict, this.bytes.subarray(raw.dataStart, raw.dataEnd), this.ensure, raw.dataStart!) : undefined;
  }

  private unpack(num: number): ObjectStream | undefined {
    const entry = this.entries_.get(num);
    // An object stream must itself be at an offset; one listed as compressed is damage (recovery finds where it really is).
    if (entry?.type !== 1) {
      if (entry?.type === 2 && this.recover()) return this.unpack(num);
      return undefined;
    }
    if (this.header(num, entry) < 0) return undefined;
    const at = this.entries_.get(num);
    if (at?.type !== 1) return undefined;
    let object: PDFObject | undefined;
    try {
      object =
        (this.lazy ? this.streamOf(this.raws.get(num)?.raw ?? this.skim(num)) : undefined) ??
        parseIndirectObject(this.bytes, at.offset, this.parseContext, this.extent(at.offset)).object;
    } catch {
      return undefined;
    }
    if (!(object instanceof PDFRawStream)) return undefined;
    try {
      // Data still in a lazily read file is inflated from a copy: read into the file's
      // memory, an input's compressed object streams stayed resident to the end (3 MB
      // of a 52 MB input), though nothing reads them again once unpacked.
      const plain = this.decryptObjectStream ? this.decryptObjectStream(PDFRef.of(num, at.gen), object) : dataForOneLook(object);
      const data = decodeStructureStream(object.dict, plain);
      const n = object.dict.lookup(PDFName.of('N'));
      const first = object.dict.lookup(PDFName.of('First'));
      const count = n instanceof PDFNumber ? n.asNumber() : 0;
      const firstOffset = first instanceof PDFNumber ? first.asNumber() : 0;
      // Each member needs at least "n o " in the header: a larger /N is hostile.
      if (!(count >= 0 && count <= data.length / 4 && firstOffset >= 0 && firstOffset <= data.length)) return undefined;
      const offsets = objectStreamPairs(data, count).map(([member, offset]): [number, number] => [member, firstOffset + offset]);
      const sorted = offsets.map(([, start], index) => ({ start, index })).sort((a, b) => a.start - b.start);
      const ends = new Array<number>(offsets.length);
      for (let i = 0; i < sorted.length; i++) ends[sorted[i].index] = i + 1 < sorted.length ? sorted[i + 1].start : data.length;
      const members = offsets.map(
        ([memberNum, start], index) =>
          [memberNum, Math.min(start, data.length), Math.min(Math.max(start, ends[index]), data.length)] as [number, number, number],
      );
      return { data, members };
    } catch (err) {
      if (err instanceof PdfSyntaxError) return undefined;
      throw err;
    }
  }
}

const REBUILT =
  'its cross-reference table is damaged or does not match the file: it was rebuilt by scanning the file for objects, as qpdf does; check the output';

/**
 * A stream whose data is a view of a lazily read file, read in when first
 * used (getContents). Until then the writer and the encryption take it from
 * `unloadedData` and copy it from the file.
 */
class FileStream extends PDFRawStream {
  private unread: { view: Uint8Array; ensure: Ensure; start: number } | undefined;

  constructor(dict: PDFDict, view: Uint8Array, ensure: Ensure, start: number) {
    super(dict, view);
    this.unread = { view, ensure, start };
  }

  override getContents(): Uint8Array {
    const unread = this.unread;
    if (unread) {
      this.unread = undefined;
      unread.ensure(unread.start, unread.start + unread.view.byteLength);
    }
    return super.getContents();
  }

  /** The size, without reading the data in. */
  override getContentsSize(): number {
    return this.unread?.view.byteLength ?? super.getContents().byteLength;
  }

  override setContents(contents: Uint8Array): void {
    this.unread = undefined;
    super.setContents(contents);
  }

  /** The view of the file, while nothing has read the data. */
  get unreadView(): Uint8Array | undefined {
    return this.unread?.view;
  }

  /** A stream with `dict` over the same unread data; undefined once the data was read. */
  withDict(dict: PDFDict): PDFRawStream | undefined {
    const unread = this.unread;
    return unread && new FileStream(dict, unread.view, unread.ensure, unread.start);
  }
}

function lazyStream(dict: PDFDict, view: Uint8Array, ensure: Ensure, start: number): PDFRawStream {
  return new FileStream(dict, view, ensure, start);
}

/**
 * A stream's data for a look that drops it after (an object stream's, while
 * its members are read): data still in a lazily read file is copied out
 * without loading it, so it does not stay in memory and the writer still
 * copies it from the file;
 * into `scratch` when it is large enough (valid until the caller's next look).
 */
function dataForOneLook(stream: PDFRawStream, scratch?: Buffer): Uint8Array {
  const range = unloadedData(stream);
  return range ? range.readCopy(0, range.byteLength, scratch) : stream.getContents();
}

/** The data of a stream that nothing has used yet: the range of the lazily read file it is in; else undefined. */
export function unloadedData(stream: PDFObject): FileRange | undefined {
  const view = stream instanceof FileStream ? stream.unreadView : undefined;
  return view && fileRangeOf(view);
}

/**
 * A stream with `dict` and the data of `stream`, shared; data still in a
 * lazily read file stays there (a merge copies every stream of its inputs,
 * and the writer copies their data from the files).
 */
export function streamWithDataOf(stream: PDFRawStream, dict: PDFDict): PDFRawStream {
  const lazy = stream instanceof FileStream ? stream.withDict(dict) : undefined;
  return lazy ?? PDFRawStream.of(dict, stream.getContents());
}

/** The table a context reads through, when it was opened by this reader (not a fork, not made in memory). */
export function objectTableOf(context: PDFContext): ObjectTable | undefined {
  return context.store instanceof ObjectTable ? context.store : undefined;
}

/** Runs `look` under ObjectTable.readOnly when the context reads through this reader; plainly otherwise. */
export function readOnly<T>(context: PDFContext, look: () => T): T {
  const table = objectTableOf(context);
  return table ? table.readOnly(look) : look();
}

/**
 * A context whose objects come lazily from `bytes`. Throws PdfSyntaxError
 * when neither the cross-reference chain nor a scan of the file finds a
 * document in it.
 */
export function openContext(bytes: Uint8Array): { context: PDFContext; table: ObjectTable } {
  const reader = readerOf(bytes);
  const ensure: Ensure = reader.ensure;
  const context = new PDFContext();
  let xref: CrossReference;
  try {
    xref = readCrossReference(bytes, context, ensure);
    if (!xref.trailer.has(PDFName_Root)) throw new PdfSyntaxError('trailer without /Root');
  } catch (err) {
    if (!(err instanceof PdfSyntaxError)) throw err;
    xref = reconstructCrossReference(bytes, context, ensure);
  }
  const table = new ObjectTable(bytes, context, xref, ensure, reader.lazy);
  context.attach(table);
  // A table that reads but points at the wrong bytes for the catalog is rebuilt now, before anything is parsed.
  const root = xref.trailer.get(PDFName_Root);
  // In an encrypted file a catalog inside an object stream cannot be read before the key is known: not damage.
  const unreadableYet = root instanceof PDFRef && table.isCompressed(root) && xref.trailer.has(PDFName_Encrypt);
  if (!unreadableYet && !(root instanceof PDFRef && table.get(root) instanceof PDFDict) && !(root instanceof PDFDict)) table.recover();
  setTrailerInfo(context, table.trailer, table);
  const notApplying = encryptionThatDoesNotApply(table, !table.recovered && xref.staleEncrypt === true);
  if (notApplying) {
    delete context.trailerInfo.Encrypt;
    table.note(`its encryption dictionary does not apply to it (${notApplying}): it was read as not encrypted, as qpdf and poppler read it`);
  }
  ensure(0, 1024);
  context.header = headerOf(bytes);
  context.largestObjectNumber = table.largestNumber;
  const catalog = context.trailerInfo.Root;
  if (catalog instanceof PDFDict) {
    // A catalog written into the trailer (`/Root << … >>`): qpdf reads it, poppler finds no catalog there at all.
    // As an object of its own it is where every reader looks. It was parsed before the table could tell which
    // references lead somewhere: those that do not are null, as everywhere else.
    context.trailerInfo.Root = context.register(withoutDangling(catalog, table) as PDFDict);
  }
  return { context, table };
}

const PDFName_Root = PDFName.of('Root');
const PDFName_Encrypt = PDFName.of('Encrypt');

/** `value` with every reference to an object the file lacks made null, in place (nesting is bounded by the parser). */
function withoutDangling(value: PDFObject, table: ObjectTable): PDFObject {
  if (value instanceof PDFRef) return table.exists(value.objectNumber, value.generationNumber) ? value : PDFNull;
  if (value instanceof PDFDict) for (const [key, item] of value.entries()) value.set(key, withoutDangling(item, table));
  else if (value instanceof PDFArray) value.asArray().forEach((item, i) => value.set(i, withoutDangling(item, table)));
  return value;
}

function setTrailerInfo(context: PDFContext, trailer: PDFDict, table: ObjectTable): void {
  // A reference to an object the file lacks is null: left out, so that no new object of the output can come to answer it.
  const get = (key: string) => {
    const value = trailer.get(PDFName.of(key));
    return value instanceof PDFRef && !table.exists(value.objectNumber, value.generationNumber) ? undefined : value;
  };
  context.trailerInfo = { Root: get('Root'), Encrypt: get('Encrypt'), Info: get('Info'), ID: get('ID'), Size: get('Size') } as PDFContext['trailerInfo'];
}

/**
 * Why the trailer's /Encrypt does not apply to the document, when it does
 * not: qpdf (QPDF_encryption.cc), poppler and MuPDF then open the file
 * without a password. An /Encrypt they refuse (not a dictionary, a handler
 * other than /Standard) is refused later, as they do.
 */
function encryptionThatDoesNotApply(table: ObjectTable, staleEncrypt: boolean): string | undefined {
  const value = table.trailer.get(PDFName.of('Encrypt'));
  if (value === undefined) return staleEncrypt ? "only an older revision's trailer names one, and readers take the newest trailer's" : undefined;
  if (!(value instanceof PDFRef)) return undefined;
  if (!table.exists(value.objectNumber, value.generationNumber)) return `the trailer names object ${value.objectNumber}, which the file does not have`;
  const object = table.get(value);
  if (object === undefined) return `the trailer names object ${value.objectNumber}, which cannot be read`;
  return object === PDFNull ? `the trailer names object ${value.objectNumber}, which is null` : undefined;
}

/** The version the header states (`%PDF-1.7`), 1.7 when it cannot be read. */
function headerOf(bytes: Uint8Array): PDFHeader {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString('latin1');
  const match = /%PDF-(\d+)\.(\d+)/.exec(head);
  return match ? PDFHeader.forVersion(Number(match[1]), Number(match[2])) : PDFHeader.forVersion(1, 7);
}
