/**
 * pdfsvc's PDF objects: names, numbers, strings, references, dictionaries,
 * arrays, streams, and the context (one document's objects) they resolve
 * references through. They are ours, as pdf.js's are: reading and writing
 * files is ours too (reader/, writer/), and owning the objects lets their
 * storage be what the walks over large documents need (a dictionary's map
 * and an array's items read in place, one reference per object number).
 *
 * The method names and the written forms are those of pdf-lib's object
 * classes, which pdfsvc used before, so outputs stayed byte for byte the
 * same. pdf-lib itself is only the drawing side's (watermark/drawing-lib.ts),
 * whose embedded fonts and images come across through that adapter.
 */
import { deflateSync } from '../../core/zlib-native.js';
import type { ObjectStore } from './store.js';

/**
 * What an object is, for the type tests that run on every object a walk or
 * the writer meets (objectKind). Containers last: `>= KIND_DICT` holds values.
 */
const KIND_OTHER = 0;
export const KIND_NAME = 1;
export const KIND_NUMBER = 2;
export const KIND_REF = 3;
export const KIND_DICT = 4;
export const KIND_ARRAY = 5;
export const KIND_STREAM = 6;

/** Any PDF object. */
export abstract class PDFObject {
  /**
   * What the class's objects are (KIND_…; kindOf reads it; subclasses of
   * PDFStream inherit it). In code V8 has not optimized (most of a short
   * run), `x instanceof PDFDict` looks PDFDict's Symbol.hasInstance up
   * through its constructors at each test, about 300 instructions (merge-50
   * made 270,000 such tests); two property reads cost a fraction of that.
   */
  static readonly objectKind: number = KIND_OTHER;

  /** The object's written form. */
  abstract toString(): string;

  /** The length of its written form, in bytes. */
  sizeInBytes(): number {
    return this.toString().length;
  }
}

/** What `object` is (KIND_…), for the hot type tests: see PDFObject.objectKind. */
export function kindOf(object: PDFObject): number {
  return (object.constructor as typeof PDFObject).objectKind;
}

// Characters a name writes as #xx: outside ! to ~, white space, delimiters and # itself.
const IRREGULAR = new Uint8Array(256);
for (const ch of '\0\t\n\f\r ()<>[]{}/%#') IRREGULAR[ch.charCodeAt(0)] = 1;

const namePool = new Map<string, PDFName>();

/** A name, one instance per name (compare with ===). */
export class PDFName extends PDFObject {
  static override readonly objectKind: number = KIND_NAME;

  /** The written form: a slash, then the name with irregular characters as #xx. */
  private readonly encoded: string;

  private constructor(name: string) {
    super();
    let encoded = '/';
    for (let i = 0; i < name.length; i++) {
      const code = name.charCodeAt(i);
      encoded += code >= 0x21 && code <= 0x7e && !IRREGULAR[code] ? name[i] : `#${code.toString(16).padStart(2, '0').toUpperCase()}`;
    }
    this.encoded = encoded;
  }

  /** The name `name` (without the slash; #xx escapes in upper-case hex are decoded). */
  static of(name: string): PDFName {
    return PDFName.ofDecoded(name.includes('#') ? name.replace(/#([\dA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : name);
  }

  /** The name whose bytes are `decoded`, a character per byte: a `#` in it is that character, never an escape. */
  static ofDecoded(decoded: string): PDFName {
    let found = namePool.get(decoded);
    if (!found) {
      found = new PDFName(decoded);
      namePool.set(decoded, found);
    }
    return found;
  }

  /** The name's bytes, #xx escapes decoded. */
  asBytes(): Uint8Array {
    const text = this.encoded.slice(1).replace(/#([0-9A-Fa-f]{1,2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(text, 'latin1');
  }

  /** The name as text, a character per byte. */
  decodeText(): string {
    return Buffer.from(this.asBytes()).toString('latin1');
  }

  /** The written form (with its slash). */
  asString(): string {
    return this.encoded;
  }

  toString(): string {
    return this.encoded;
  }

  override sizeInBytes(): number {
    return this.encoded.length;
  }
}

const SHARED_NUMBERS = 1024;
const sharedNumbers: Array<PDFNumber | undefined> = new Array(SHARED_NUMBERS).fill(undefined);

/** A number; written without an exponent (numberText). */
export class PDFNumber extends PDFObject {
  static override readonly objectKind: number = KIND_NUMBER;

  /** Made when first written: most numbers a reader parses are only looked at. */
  private written: string | undefined;

  private constructor(private readonly number: number) {
    super();
  }

  /**
   * Small whole numbers are shared (a number is never changed in place): a
   * page dictionary's box, counts and lengths were objects of their own,
   * kept as long as the page and copied by every scavenge of the collector.
   */
  static of(value: number): PDFNumber {
    if (value >= 0 && value < SHARED_NUMBERS && Number.isInteger(value) && !Object.is(value, -0)) {
      let shared = sharedNumbers[value];
      if (shared === undefined) {
        shared = new PDFNumber(value);
        sharedNumbers[value] = shared;
      }
      return shared;
    }
    return new PDFNumber(value);
  }

  /**
   * A whole number of 32 bits comes back as a small integer (-0 stays -0).
   * Reals share the field, so V8 keeps it as a double and a plain read makes
   * a boxed one; in code not yet optimized every offset computed from it
   * (/Length, /Prev, /First) was another box, and so was every position
   * derived from those, each object's extent and every step of a skim.
   */
  asNumber(): number {
    const value = this.number;
    return (value | 0) === value && (value !== 0 || 1 / value > 0) ? value | 0 : value;
  }

  toString(): string {
    this.written ??= numberText(this.number);
    return this.written;
  }

  override sizeInBytes(): number {
    return this.toString().length;
  }
}

/**
 * Significant digits kept of a number that is not a safe whole number: 15 is
 * the most for which every decimal reads back from a double as itself, so a
 * number read from a file with up to 15 digits is written back unchanged, and
 * only the binary noise of arithmetic goes (0.1 + 0.2 is written 0.3, not
 * 0.30000000000000004). Fewer digits (qpdf writes the reals it computes with 6
 * decimal places, pdf.js its own with 2) would alter what a file says: ours
 * writes the numbers it read as well as those it made.
 */
const NUMBER_DIGITS = 15;

/**
 * A number's written form: the shortest decimal that reads back as the number
 * (rounded to NUMBER_DIGITS significant digits), without an exponent, which
 * PDF does not have: 1e-7 is 0.0000001 and 1e21 is written out in full. Past
 * the exact whole numbers it is written as a real (1e20 is
 * 100000000000000000000.0): qpdf reads an integer into 64 bits and drops the
 * whole object that holds a longer one.
 */
function numberText(value: number): string {
  if (Number.isSafeInteger(value)) return String(value);
  let text = String(value);
  // Up to 16 characters holding a point and no exponent: at most 15 digits.
  if (text.length <= 16 && text.includes('.') && !text.includes('e')) return text;
  if (!Number.isFinite(value)) return '0';
  const rounded = Number(value.toPrecision(NUMBER_DIGITS));
  text = String(rounded);
  if (Number.isSafeInteger(rounded)) return text;
  const e = text.indexOf('e');
  if (e >= 0) text = withoutExponent(text.slice(0, e), Number(text.slice(e + 1)));
  return text.includes('.') ? text : `${text}.0`;
}

/** `mantissa` (as JavaScript writes it: -d.ddd) times 10 to the `exponent`, written out in full. */
function withoutExponent(mantissa: string, exponent: number): string {
  const sign = mantissa[0] === '-' ? '-' : '';
  const digits = mantissa.slice(sign.length).replace('.', '');
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = exponent + 1;
  return whole >= digits.length ? `${sign}${digits}${'0'.repeat(whole - digits.length)}` : `${sign}${digits.slice(0, whole)}.${digits.slice(whole)}`;
}

/** A literal string, kept in its written form between the parentheses (escapes as they were). */
export class PDFString extends PDFObject {
  private constructor(private readonly written: string) {
    super();
  }

  /** The string whose written form (between the parentheses) is `written`. */
  static of(written: string): PDFString {
    return new PDFString(written);
  }

  /** The string's bytes, escapes decoded. */
  asBytes(): Uint8Array {
    const text = this.written;
    const bytes: number[] = [];
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 0x0d) {
        // A line break written in the string is one line feed, whether CR, LF or CR LF (ISO 32000-1, 7.3.4.2).
        bytes.push(0x0a);
        if (text.charCodeAt(i + 1) === 0x0a) i++;
        continue;
      }
      if (code !== 0x5c) {
        bytes.push(code & 0xff);
        continue;
      }
      const next = text[++i];
      if (next === undefined) break;
      const escape = ESCAPES[next];
      if (escape !== undefined) {
        if (escape >= 0) bytes.push(escape);
        // A backslash before CR LF continues the string past both.
        else if (next === '\r' && text[i + 1] === '\n') i++;
      } else if (next >= '0' && next <= '7') {
        let octal = next;
        while (octal.length < 3 && text[i + 1] >= '0' && text[i + 1] <= '7') octal += text[++i];
        bytes.push(Number.parseInt(octal, 8) & 0xff);
      } else {
        bytes.push(next.charCodeAt(0) & 0xff);
      }
    }
    return Uint8Array.from(bytes);
  }

  decodeText(): string {
    const text = this.written;
    // Most strings (destination names, titles) are their own text: read byte by byte into an array, then
    // decoded a character at a time, the name trees of merge-50 cost 1.7 MB of short-lived objects.
    return isOwnText(text) ? text : decodeTextBytes(this.asBytes());
  }

  /** The written form between the parentheses. */
  asString(): string {
    return this.written;
  }

  toString(): string {
    return `(${this.written})`;
  }

  override sizeInBytes(): number {
    return this.written.length + 2;
  }
}

// What follows a backslash in a literal string; -1 for a line break (the string continues on the next line).
const ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92, '\n': -1, '\r': -1 };

/** A hexadecimal string, kept in its written form between the angle brackets. */
export class PDFHexString extends PDFObject {
  private constructor(private readonly hex: string) {
    super();
  }

  static of(hex: string): PDFHexString {
    return new PDFHexString(hex);
  }

  /** `text` as UTF-16BE with a byte-order mark. */
  static fromText(text: string): PDFHexString {
    return new PDFHexString(`FEFF${Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()}`);
  }

  static fromBytes(bytes: Uint8Array): PDFHexString {
    return new PDFHexString(Buffer.from(bytes).toString('hex').toUpperCase());
  }

  /** The bytes: white space is ignored and an odd last digit counts as followed by 0. */
  asBytes(): Uint8Array {
    const digits = this.hex.replace(/[\0\t\n\f\r ]/g, '');
    const even = digits.length % 2 === 1 ? `${digits}0` : digits;
    const bytes = new Uint8Array(even.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(even.slice(2 * i, 2 * i + 2), 16);
    return bytes;
  }

  decodeText(): string {
    return decodeTextBytes(this.asBytes());
  }

  /** The digits as written. */
  asString(): string {
    return this.hex;
  }

  toString(): string {
    return `<${this.hex}>`;
  }

  override sizeInBytes(): number {
    return this.hex.length + 2;
  }
}

// PDFDocEncoding where it differs from Latin-1 (the PDF specification's Annex D); U+FFFD where it has no character.
const PDF_DOC_ENCODING = new Map<number, string>([
  [0x16, '\u0017'],
  ...[...'\u02D8\u02C7\u02C6\u02D9\u02DD\u02DB\u02DA\u02DC'].map((ch, i): [number, string] => [0x18 + i, ch]),
  [0x7f, '\uFFFD'],
  ...[
    ...'\u2022\u2020\u2021\u2026\u2014\u2013\u0192\u2044\u2039\u203A\u2212\u2030\u201E\u201C\u201D\u2018\u2019\u201A\u2122\uFB01\uFB02\u0141\u0152\u0160\u0178\u017D\u0131\u0142\u0153\u0161\u017E\uFFFD\u20AC',
  ].map((ch, i): [number, string] => [0x80 + i, ch]),
  [0xad, '\uFFFD'],
]);

/** 1 for each byte PDFDocEncoding reads otherwise than Latin-1. */
const DIFFERS_FROM_LATIN1 = new Uint8Array(256);
for (const byte of PDF_DOC_ENCODING.keys()) DIFFERS_FROM_LATIN1[byte] = 1;

const PDF_DOC_BYTE = new Map<string, number>([...PDF_DOC_ENCODING].filter(([, ch]) => ch !== '\uFFFD').map(([byte, ch]) => [ch, byte]));

/** `text` in PDFDocEncoding, or undefined when it has a character PDFDocEncoding lacks. */
export function encodePdfDoc(text: string): Uint8Array | undefined {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const byte = code <= 0xff && DIFFERS_FROM_LATIN1[code] === 0 ? code : PDF_DOC_BYTE.get(text[i]);
    if (byte === undefined) return undefined;
    bytes[i] = byte;
  }
  return bytes;
}

/**
 * Whether a literal string's written form is its text: no escape, no
 * carriage return (read as a line feed), no byte-order mark, and only bytes
 * PDFDocEncoding reads as Latin-1.
 */
function isOwnText(written: string): boolean {
  const length = written.length;
  if (length >= 2) {
    const first = written.charCodeAt(0);
    const second = written.charCodeAt(1);
    if ((first === 0xfe && second === 0xff) || (first === 0xff && second === 0xfe)) return false;
  }
  for (let i = 0; i < length; i++) {
    const code = written.charCodeAt(i);
    if (code === 0x5c || code === 0x0d || code > 0xff || DIFFERS_FROM_LATIN1[code] === 1) return false;
  }
  return true;
}

/** A text string's bytes as text: UTF-16 with a byte-order mark, else PDFDocEncoding. */
function decodeTextBytes(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    text += DIFFERS_FROM_LATIN1[byte] === 1 ? PDF_DOC_ENCODING.get(byte)! : String.fromCharCode(byte);
  }
  return text;
}

/** `true` or `false`. */
export class PDFBool extends PDFObject {
  static readonly True = new PDFBool(true);
  static readonly False = new PDFBool(false);

  private constructor(private readonly value: boolean) {
    super();
  }

  asBoolean(): boolean {
    return this.value;
  }

  toString(): string {
    return String(this.value);
  }
}

class PDFNullObject extends PDFObject {
  toString(): string {
    return 'null';
  }
}

/** The null object (one instance). */
export const PDFNull = new PDFNullObject();

// References of generation 0 by number: an array while the numbers come about in order (V8 keeps it a flat
// array when a new number leaves a gap of at most 1024), a map for numbers far past the others.
const refsInOrder: PDFRef[] = [];
const refsFar = new Map<number, PDFRef>();
const refsByText = new Map<string, PDFRef>();
const MAX_GAP = 1024;

/**
 * An indirect reference, one instance per object number and generation
 * (compare with ===). The pool is keyed by number (by text only for a
 * generation other than 0), and a reference makes its text only when
 * written: a document of 200,000 objects has as many references, and a
 * merge of it twice that. The pool keeps every reference made for the life
 * of the process; weak references would let a server worker give them back,
 * but cost as much memory as the text while a document is open (measured:
 * 17 MB more peak on that document).
 */
export class PDFRef extends PDFObject {
  static override readonly objectKind: number = KIND_REF;

  private constructor(
    readonly objectNumber: number,
    readonly generationNumber: number,
  ) {
    super();
  }

  static of(objectNumber: number, generationNumber = 0): PDFRef {
    if (generationNumber === 0 && Number.isSafeInteger(objectNumber) && objectNumber >= 0) {
      if (objectNumber < refsInOrder.length + MAX_GAP) {
        let ref = refsInOrder[objectNumber];
        if (!ref) {
          ref = refsFar.get(objectNumber) ?? new PDFRef(objectNumber, 0);
          refsInOrder[objectNumber] = ref;
        }
        return ref;
      }
      let ref = refsFar.get(objectNumber);
      if (!ref) {
        ref = new PDFRef(objectNumber, 0);
        refsFar.set(objectNumber, ref);
      }
      return ref;
    }
    const key = `${objectNumber} ${generationNumber}`;
    let ref = refsByText.get(key);
    if (!ref) {
      ref = new PDFRef(objectNumber, generationNumber);
      refsByText.set(key, ref);
    }
    return ref;
  }

  /** The written form, `12 0 R`. */
  get tag(): string {
    return `${this.objectNumber} ${this.generationNumber} R`;
  }

  toString(): string {
    return this.tag;
  }
}

/** A class of object a look-up may ask for, or the null object itself. */
type ObjectType = abstract new (...args: never[]) => PDFObject;
type TypeArg = ObjectType | typeof PDFNull;
type Instance<T extends TypeArg> = T extends ObjectType ? InstanceType<T> : T;
type LookupKey = PDFObject | undefined;

/** A look-up found an object of another type than the caller asked for. */
export class UnexpectedObjectTypeError extends Error {
  constructor(expected: readonly TypeArg[], found: PDFObject | undefined) {
    const names = expected.map((type) => (type === PDFNull ? 'PDFNull' : (type as ObjectType).name));
    super(`Expected instance of ${names.join(' or ')}, but got instance of ${found ? found.constructor.name : found}`);
    this.name = 'UnexpectedObjectTypeError';
  }
}

/**
 * Entries a dictionary keeps as key/value pairs in one array; beyond, a Map. A Map with its hash table is ~180
 * bytes more than the pairs for a few entries, and a document has a few dictionaries a page (long-text at the
 * end of a watermark's save: 8,645 dictionaries, 1.8 MB of Maps). Scanning up to this many keys costs no more
 * than hashing one.
 */
const SMALL_DICT = 12;

/** A dictionary: its entries in the order they were set. */
export class PDFDict extends PDFObject {
  static override readonly objectKind: number = KIND_DICT;

  /** Up to SMALL_DICT entries: [key0, value0, key1, value1, …]; undefined once the entries are in `map`. */
  private pairs: PDFObject[] | undefined;
  private map: Map<PDFName, PDFObject> | undefined;

  /** Through withContext or fromMapWithContext (public for look-ups typed by class). */
  constructor(
    pairs: PDFObject[] | undefined,
    map: Map<PDFName, PDFObject> | undefined,
    /** The document whose references the dictionary's look-ups resolve. */
    public context: PDFContext,
  ) {
    super();
    this.pairs = pairs;
    this.map = map;
  }

  static withContext(context: PDFContext): PDFDict {
    return new PDFDict([], undefined, context);
  }

  /** A dictionary of `map`'s entries (`map` itself when it is large: not to be changed after). */
  static fromMapWithContext(map: Map<PDFName, PDFObject>, context: PDFContext): PDFDict {
    if (map.size > SMALL_DICT) return new PDFDict(undefined, map, context);
    const pairs: PDFObject[] = new Array(map.size * 2);
    let i = 0;
    map.forEach((value, key) => {
      pairs[i++] = key;
      pairs[i++] = value;
    });
    return new PDFDict(pairs, undefined, context);
  }

  /**
   * A dictionary of `pairs` as read ([key0, value0, …]; a key met again replaces the earlier value in its place,
   * as set does). `pairs` itself is not kept: it was grown by push, with room to spare.
   */
  static fromPairsWithContext(pairs: readonly PDFObject[], context: PDFContext): PDFDict {
    if (pairs.length <= SMALL_DICT * 2 && distinctKeys(pairs)) return new PDFDict(pairs.slice(), undefined, context);
    const dict = new PDFDict([], undefined, context);
    for (let i = 0; i < pairs.length; i += 2) dict.set(pairs[i] as PDFName, pairs[i + 1]);
    return dict;
  }

  /** A new dictionary of the same entries, in the same order, in `context`. */
  copyIn(context: PDFContext): PDFDict {
    return new PDFDict(this.pairs?.slice(), this.map && new Map(this.map), context);
  }

  get size(): number {
    return this.pairs ? this.pairs.length / 2 : this.map!.size;
  }

  /** Calls `visit(value, key)` for each entry in order, with `thisArg` as its this (as Map's forEach). */
  forEach<T>(visit: (this: T, value: PDFObject, key: PDFName) => void, thisArg?: T): void {
    const pairs = this.pairs;
    if (!pairs) {
      this.map!.forEach(visit as (value: PDFObject, key: PDFName) => void, thisArg);
      return;
    }
    for (let i = 0; i < pairs.length; i += 2) visit.call(thisArg as T, pairs[i + 1], pairs[i] as PDFName);
  }

  keys(): PDFName[] {
    const pairs = this.pairs;
    if (!pairs) return [...this.map!.keys()];
    const keys: PDFName[] = [];
    for (let i = 0; i < pairs.length; i += 2) keys.push(pairs[i] as PDFName);
    return keys;
  }

  values(): PDFObject[] {
    const pairs = this.pairs;
    if (!pairs) return [...this.map!.values()];
    const values: PDFObject[] = [];
    for (let i = 1; i < pairs.length; i += 2) values.push(pairs[i]);
    return values;
  }

  entries(): [PDFName, PDFObject][] {
    const pairs = this.pairs;
    if (!pairs) return [...this.map!.entries()];
    const entries: [PDFName, PDFObject][] = [];
    for (let i = 0; i < pairs.length; i += 2) entries.push([pairs[i] as PDFName, pairs[i + 1]]);
    return entries;
  }

  /** Replaces the value of a key present (in its place), else adds the entry last. */
  set(key: PDFName, value: PDFObject): void {
    const pairs = this.pairs;
    if (!pairs) {
      this.map!.set(key, value);
      return;
    }
    for (let i = 0; i < pairs.length; i += 2) {
      if (pairs[i] === key) {
        pairs[i + 1] = value;
        return;
      }
    }
    if (pairs.length < SMALL_DICT * 2) {
      // An array of exactly the entries: push would leave room for 8 more, kept as long as the dictionary is.
      this.pairs = pairs.concat(key, value);
      return;
    }
    const map = new Map<PDFName, PDFObject>();
    for (let i = 0; i < pairs.length; i += 2) map.set(pairs[i] as PDFName, pairs[i + 1]);
    map.set(key, value);
    this.map = map;
    this.pairs = undefined;
  }

  /** The value at `key`, null included. */
  private find(key: PDFName): PDFObject | undefined {
    const pairs = this.pairs;
    if (!pairs) return this.map!.get(key);
    for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === key) return pairs[i + 1];
    return undefined;
  }

  /** The entry as written (a reference is not followed); null counts as absent unless `keepNull`. */
  get(key: PDFName, keepNull = false): PDFObject | undefined {
    const value = this.find(key);
    return value === PDFNull && !keepNull ? undefined : value;
  }

  has(key: PDFName): boolean {
    const value = this.find(key);
    return value !== undefined && value !== PDFNull;
  }

  delete(key: PDFName): boolean {
    const pairs = this.pairs;
    if (!pairs) return this.map!.delete(key);
    for (let i = 0; i < pairs.length; i += 2) {
      if (pairs[i] === key) {
        pairs.splice(i, 2);
        return true;
      }
    }
    return false;
  }

  /** The entry with its reference followed. With types, it must be one of them (else UnexpectedObjectTypeError). */
  lookup(key: PDFName): PDFObject | undefined;
  lookup<T extends TypeArg[]>(key: PDFName, ...types: T): Instance<T[number]>;
  lookup(key: PDFName, ...types: TypeArg[]): PDFObject | undefined {
    // Untyped (nearly every call): no spread of the types into the context's look-up, which made two arrays a call.
    if (types.length === 0) return present(resolved(this.context, this.find(key)));
    const keepNull = types.includes(PDFNull);
    const value = this.context.lookup(this.get(key, keepNull), ...types);
    return value === PDFNull && !keepNull ? undefined : value;
  }

  /** As lookup, but an absent entry is undefined rather than an error. */
  lookupMaybe<T extends TypeArg[]>(key: PDFName, ...types: T): Instance<T[number]> | undefined {
    const keepNull = types.includes(PDFNull);
    const value = this.context.lookupMaybe(this.get(key, keepNull), ...types);
    return value === PDFNull && !keepNull ? undefined : value;
  }

  toString(): string {
    let text = '<<\n';
    this.forEach((value, key) => {
      text += `${key.toString()} ${value.toString()}\n`;
    });
    return `${text}>>`;
  }

  override sizeInBytes(): number {
    let size = 5;
    this.forEach((value, key) => {
      size += key.sizeInBytes() + value.sizeInBytes() + 2;
    });
    return size;
  }
}

function distinctKeys(pairs: readonly PDFObject[]): boolean {
  for (let i = 2; i < pairs.length; i += 2) for (let j = 0; j < i; j += 2) if (pairs[i] === pairs[j]) return false;
  return true;
}

/** An array. */
export class PDFArray extends PDFObject {
  static override readonly objectKind: number = KIND_ARRAY;

  constructor(
    public context: PDFContext,
    /** The items, read and replaced in place. */
    public items: PDFObject[] = [],
  ) {
    super();
  }

  static withContext(context: PDFContext): PDFArray {
    return new PDFArray(context);
  }

  size(): number {
    return this.items.length;
  }

  push(object: PDFObject): void {
    this.items.push(object);
  }

  insert(index: number, object: PDFObject): void {
    this.items.splice(index, 0, object);
  }

  remove(index: number): void {
    this.items.splice(index, 1);
  }

  set(index: number, object: PDFObject): void {
    this.items[index] = object;
  }

  get(index: number): PDFObject {
    return this.items[index];
  }

  /** Where `object` is, or undefined. */
  indexOf(object: PDFObject): number | undefined {
    const index = this.items.indexOf(object);
    return index === -1 ? undefined : index;
  }

  /** A copy of the items. */
  asArray(): PDFObject[] {
    return this.items.slice();
  }

  lookup(index: number): PDFObject | undefined;
  lookup<T extends TypeArg[]>(index: number, ...types: T): Instance<T[number]>;
  lookup(index: number, ...types: TypeArg[]): PDFObject | undefined {
    if (types.length === 0) return resolved(this.context, this.items[index]);
    return this.context.lookup(this.items[index], ...types);
  }

  lookupMaybe<T extends TypeArg[]>(index: number, ...types: T): Instance<T[number]> | undefined {
    return this.context.lookupMaybe(this.items[index], ...types);
  }

  toString(): string {
    let text = '[ ';
    for (const item of this.items) text += `${item.toString()} `;
    return `${text}]`;
  }

  override sizeInBytes(): number {
    let size = 3;
    for (const item of this.items) size += item.sizeInBytes() + 1;
    return size;
  }
}

/** A stream: a dictionary and data. */
export abstract class PDFStream extends PDFObject {
  static override readonly objectKind: number = KIND_STREAM;

  constructor(public dict: PDFDict) {
    super();
  }

  /** The data as stored (encoded by the stream's filters). */
  abstract getContents(): Uint8Array;

  getContentsSize(): number {
    return this.getContents().length;
  }

  /** Sets /Length to the data's size. */
  updateDict(): void {
    this.dict.set(LENGTH, PDFNumber.of(this.getContentsSize()));
  }

  toString(): string {
    this.updateDict();
    return `${this.dict.toString()}\nstream\n${Buffer.from(this.getContents()).toString('latin1')}\nendstream`;
  }

  override sizeInBytes(): number {
    this.updateDict();
    return this.dict.sizeInBytes() + this.getContentsSize() + 18;
  }
}

const LENGTH = PDFName.of('Length');

/** A stream whose data is held (or, in a subclass, served) as bytes. */
export class PDFRawStream extends PDFStream {
  constructor(
    dict: PDFDict,
    private data: Uint8Array,
  ) {
    super(dict);
  }

  static of(dict: PDFDict, contents: Uint8Array): PDFRawStream {
    return new PDFRawStream(dict, contents);
  }

  getContents(): Uint8Array {
    return this.data;
  }

  /** Replaces the data (the dictionary's /Length is the caller's). */
  setContents(contents: Uint8Array): void {
    this.data = contents;
  }
}

/** The %PDF-x.y line and the binary comment that follows it. */
export class PDFHeader {
  private constructor(
    readonly major: number,
    readonly minor: number,
  ) {}

  static forVersion(major: number, minor: number): PDFHeader {
    return new PDFHeader(major, minor);
  }

  getVersionString(): string {
    return `${this.major}.${this.minor}`;
  }
}

/** The trailer's entries a document keeps. */
export interface TrailerInfo {
  Root?: PDFObject;
  Encrypt?: PDFObject;
  Info?: PDFObject;
  ID?: PDFObject;
}

/** A value `obj` turns into an object: names from strings, numbers, booleans, arrays and dictionaries from their likes. */
export type Literal = PDFObject | string | number | boolean | null | undefined | Uint8Array | Literal[] | { [key: string]: Literal };

/**
 * One document's objects: its header, its trailer's entries, and its
 * indirect objects, which live in an object store (store.ts) that decides
 * what a look-up costs (a parse, a fork's copy).
 */
export class PDFContext {
  header = PDFHeader.forVersion(1, 7);
  trailerInfo: TrailerInfo = {};
  largestObjectNumber = 0;
  /** A field, not a getter: every look-up of every object goes through it. */
  store: ObjectStore;

  constructor(store?: ObjectStore) {
    this.store = store ?? NO_STORE;
  }

  /** Gives the context its store, once: the reader parses the trailer with the context before its table exists. */
  attach(store: ObjectStore): void {
    if (this.store !== NO_STORE) throw new Error('the context already has an object store');
    this.store = store;
  }

  assign(ref: PDFRef, object: PDFObject): void {
    this.store.set(ref, object);
    if (ref.objectNumber > this.largestObjectNumber) this.largestObjectNumber = ref.objectNumber;
  }

  /** A reference to a number no object of the document has. */
  nextRef(): PDFRef {
    this.largestObjectNumber += 1;
    return PDFRef.of(this.largestObjectNumber);
  }

  /** Makes `object` an indirect object under a new number. */
  register(object: PDFObject): PDFRef {
    const ref = this.nextRef();
    this.assign(ref, object);
    return ref;
  }

  delete(ref: PDFRef): boolean {
    return this.store.delete(ref);
  }

  /** `key` with a reference followed. With types, the result must be one of them (else UnexpectedObjectTypeError). */
  lookup(key: LookupKey): PDFObject | undefined;
  lookup<T extends TypeArg[]>(key: LookupKey, ...types: T): Instance<T[number]>;
  lookup(key: LookupKey, ...types: TypeArg[]): PDFObject | undefined {
    const result = key !== undefined && kindOf(key) === KIND_REF ? this.store.get(key as PDFRef) : key;
    return types.length === 0 ? result : checked(result, types);
  }

  /** As lookup, but nothing found (or null, unless asked for) is undefined rather than an error. */
  lookupMaybe<T extends TypeArg[]>(key: LookupKey, ...types: T): Instance<T[number]> | undefined;
  lookupMaybe(key: LookupKey, ...types: TypeArg[]): PDFObject | undefined {
    const result = key instanceof PDFRef ? this.store.get(key) : key;
    if (!result || (result === PDFNull && !types.includes(PDFNull))) return undefined;
    return types.length === 0 ? result : checked(result, types);
  }

  /** Every indirect object by ascending number (the store parses all of them first). */
  enumerateIndirectObjects(): [PDFRef, PDFObject][] {
    return Array.from(this.store.entries()).sort(([a], [b]) => a.objectNumber - b.objectNumber);
  }

  /** The object `literal` describes. */
  obj(literal: string): PDFName;
  obj(literal: number): PDFNumber;
  obj(literal: Literal[]): PDFArray;
  obj(literal: { [key: string]: Literal }): PDFDict;
  obj(literal: Literal): PDFObject;
  obj(literal: Literal): PDFObject {
    if (literal instanceof PDFObject) return literal;
    if (literal === null || literal === undefined) return PDFNull;
    if (typeof literal === 'string') return PDFName.of(literal);
    if (typeof literal === 'number') return PDFNumber.of(literal);
    if (typeof literal === 'boolean') return literal ? PDFBool.True : PDFBool.False;
    if (literal instanceof Uint8Array) return PDFHexString.fromBytes(literal);
    if (Array.isArray(literal))
      return new PDFArray(
        this,
        literal.map((item) => this.obj(item)),
      );
    const dict = PDFDict.withContext(this);
    for (const [key, value] of Object.entries(literal)) if (value !== undefined) dict.set(PDFName.of(key), this.obj(value));
    return dict;
  }

  /** A stream of `contents` (text as Latin-1) with the dictionary `dict` describes. */
  stream(contents: string | Uint8Array, dict: { [key: string]: Literal } = {}): PDFRawStream {
    return PDFRawStream.of(this.obj(dict), typeof contents === 'string' ? Buffer.from(contents, 'latin1') : contents);
  }

  /** As stream, compressed with Flate (by Node's native zlib). */
  flateStream(contents: string | Uint8Array, dict: { [key: string]: Literal } = {}): PDFRawStream {
    const bytes = typeof contents === 'string' ? Buffer.from(contents, 'latin1') : contents;
    return this.deflatedStream(deflateSync(bytes), dict);
  }

  /** A stream of contents already deflated (as flateStream deflates them), its dictionary saying so. */
  deflatedStream(deflated: Uint8Array, dict: { [key: string]: Literal } = {}): PDFRawStream {
    return this.stream(deflated, { ...dict, Filter: 'FlateDecode' });
  }
}

/** The store of a context that has none yet: it holds nothing and takes nothing. */
const NO_STORE: ObjectStore = {
  get: () => undefined,
  peek: () => undefined,
  source: () => undefined,
  has: () => false,
  set: () => {
    throw new Error('the context has no object store yet');
  },
  delete: () => false,
  hasObjectStreams: false,
  entries: () => [],
};

/** `key` with a reference followed through the context's store. */
function resolved(context: PDFContext, key: LookupKey): PDFObject | undefined {
  return key !== undefined && kindOf(key) === KIND_REF ? context.store.get(key as PDFRef) : key;
}

/** Null as absent. */
function present(value: PDFObject | undefined): PDFObject | undefined {
  return value === PDFNull ? undefined : value;
}

function checked(result: PDFObject | undefined, types: readonly TypeArg[]): PDFObject | undefined {
  for (const type of types) {
    if (type === PDFNull ? result === PDFNull : result instanceof (type as ObjectType)) return result;
  }
  throw new UnexpectedObjectTypeError(types, result);
}

/**
 * An open document as the page operations see it: its objects and its
 * catalog.
 */
export interface PDFDocument {
  readonly context: PDFContext;
  readonly catalog: PDFDict;
  readonly isEncrypted: boolean;
}

/** An array's items where they are kept, for reading only. */
export function itemsOf(array: PDFArray): readonly PDFObject[] {
  return array.items;
}

/** An array of exactly `items` (taken, not copied). */
export function arrayOf(context: PDFContext, items: PDFObject[]): PDFArray {
  return new PDFArray(context, items);
}
