/**
 * Parses one object from bytes into pdfsvc's objects (model/primitives.ts). The reader decides which
 * object to parse and when (object-table.ts); this module only reads syntax,
 * leniently where real files are sloppy: a missing value, a stray token, a
 * wrong /Length.
 */
import {
  PDFArray,
  PDFBool,
  PDFContext,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNull,
  PDFNumber,
  PDFObject,
  PDFRawStream,
  PDFRef,
  PDFString,
  arrayOf,
} from '../model/primitives.js';
import { CHAR_CLASS, ENDOBJ, ENDSTREAM, PdfSyntaxError, STREAM, indexOf, isDigit, isKeywordAt, readObjectHeader, skipWhite, tokenEnd } from './syntax.js';

/** Nesting deeper than this is hostile input, not a document (qpdf stops at 500). */
const MAX_DEPTH = 256;

export interface ParseContext {
  context: PDFContext;
  /** Whether the document has an object `num gen`; a reference to one it lacks becomes null. */
  exists(num: number, gen: number): boolean;
  /** The value of an indirect /Length, when it can be had without reading this object again. */
  lengthOf(ref: PDFRef): number | undefined;
}

const LENGTH = PDFName.of('Length');

const names = new Map<string, PDFName>();

/**
 * Names met before, by their token's bytes (open addressing, a few probes):
 * a name is found again without making its text, which was a string built a
 * character at a time and then hashed for the map, for each of the dozen
 * names of every page dictionary. Short tokens only, and a full table just
 * stops taking more, so hostile input cannot grow it.
 */
const NAME_SLOTS = 4096;
const NAME_PROBES = 8;
const MAX_SLOT_NAME = 32;
const slotBytes: Array<Uint8Array | undefined> = new Array(NAME_SLOTS).fill(undefined);
const slotNames: Array<PDFName | undefined> = new Array(NAME_SLOTS).fill(undefined);

/** A name token's text (without the slash), #xx escapes decoded, as one PDFName per distinct token. */
function nameOf(bytes: Uint8Array, start: number, end: number): PDFName {
  const length = end - start;
  if (length > MAX_SLOT_NAME) return nameFromText(bytes, start, end);
  let hash = 0x811c9dc5 ^ length;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  for (let probe = 0; probe < NAME_PROBES; probe++) {
    const slot = (hash + probe) & (NAME_SLOTS - 1);
    const known = slotBytes[slot];
    if (known === undefined) {
      const name = nameFromText(bytes, start, end);
      // A copy: a view would keep the whole buffer it was read from (an object stream's data) alive.
      const copy = new Uint8Array(length);
      for (let i = 0; i < length; i++) copy[i] = bytes[start + i];
      slotBytes[slot] = copy;
      slotNames[slot] = name;
      return name;
    }
    if (known.length === length) {
      let same = true;
      for (let i = 0; i < length; i++) {
        if (known[i] !== bytes[start + i]) {
          same = false;
          break;
        }
      }
      if (same) return slotNames[slot]!;
    }
  }
  return nameFromText(bytes, start, end);
}

function nameFromText(bytes: Uint8Array, start: number, end: number): PDFName {
  let token = '';
  for (let i = start; i < end; i++) token += String.fromCharCode(bytes[i]);
  let name = names.get(token);
  if (!name) {
    // Decoded here, so not by PDFName.of, which would decode again the escapes an escaped # spells (#2388 is #88, not byte 0x88).
    name = token.includes('#')
      ? PDFName.ofDecoded(token.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))))
      : PDFName.of(token);
    if (names.size < 100_000) names.set(token, name);
  }
  return name;
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= 16) {
    let text = '';
    for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i]);
    return text;
  }
  // One flat string: appending byte by byte builds a rope of one node per byte (a font's hex data cost 250 MB of garbage).
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
}

/**
 * `[+-]digits[.digits]` of at most 15 digits, read without making a string
 * (page dictionaries are full of reals). Digits and the power of ten are
 * exact doubles, so the one rounding of the division gives what parseFloat
 * gives. Anything else: undefined.
 */
function plainReal(bytes: Uint8Array, start: number, end: number): number | undefined {
  let i = start;
  let negative = false;
  if (bytes[i] === 0x2b || bytes[i] === 0x2d) negative = bytes[i++] === 0x2d;
  let mantissa = 0;
  let digits = 0;
  let scale = 1;
  let dot = false;
  for (; i < end; i++) {
    const c = bytes[i];
    if (c === 0x2e) {
      if (dot) return undefined;
      dot = true;
    } else if (c >= 0x30 && c <= 0x39) {
      mantissa = mantissa * 10 + (c - 0x30);
      if (dot) scale *= 10;
      if (++digits > 15) return undefined;
    } else return undefined;
  }
  if (digits === 0) return undefined;
  const value = mantissa / scale;
  return negative ? -value : value;
}

export class ObjectParser {
  pos: number;

  /**
   * `lenient`: data that ends inside a dictionary, an array or a string
   * closes them with what was read (pdf.js does so at the end of a file),
   * an array still open at `>>` closes there, and a stray delimiter where a
   * value belongs is null (qpdf: "treating … as null"), instead of failing
   * the whole object.
   */
  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly end: number,
    private readonly ctx: ParseContext,
    private readonly lenient = false,
  ) {
    this.pos = start;
  }

  /** One value at the current position. */
  value(depth = 0): PDFObject {
    if (depth > MAX_DEPTH) throw new PdfSyntaxError(`objects nested more than ${MAX_DEPTH} deep`, this.pos);
    const { bytes, end } = this;
    this.pos = skipWhite(bytes, this.pos, end);
    if (this.pos >= end) throw new PdfSyntaxError('unexpected end of data', this.pos);
    const c = bytes[this.pos];
    if (c === 0x2f) {
      const start = this.pos + 1;
      this.pos = tokenEnd(bytes, start, end);
      return nameOf(bytes, start, this.pos);
    }
    if (c === 0x3c) return bytes[this.pos + 1] === 0x3c ? this.dict(depth) : this.hexString();
    if (c === 0x28) return this.literalString();
    if (c === 0x5b) return this.array(depth);
    if (isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e) return this.numberOrRef();
    const tokenStart = this.pos;
    const stop = tokenEnd(bytes, tokenStart, end);
    if (stop === tokenStart) {
      // A delimiter that starts nothing (`)`, `>`, `{`): skip it, as qpdf does, and read on (leniently: as null).
      this.pos++;
      if (this.lenient) return PDFNull;
      throw new PdfSyntaxError(`unexpected '${String.fromCharCode(c)}'`, tokenStart);
    }
    this.pos = stop;
    const word = latin1(bytes, tokenStart, stop);
    if (word === 'true') return PDFBool.True;
    if (word === 'false') return PDFBool.False;
    if (word === 'null') return PDFNull;
    // A keyword where a value belongs: the object ended early (`endobj`, `endstream`, the next `obj`).
    if (word === 'endobj' || word === 'endstream' || word === 'obj' || word === 'stream') throw new PdfSyntaxError(`unexpected '${word}'`, tokenStart);
    // Any other bare word is read as a string, as qpdf does ("unknown token … treating as string").
    return PDFString.of(word.replace(/[\\()]/g, (ch) => `\\${ch}`));
  }

  private numberOrRef(): PDFObject {
    const { bytes, end } = this;
    const start = this.pos;
    let i = start;
    let integer = true;
    let value = 0;
    if (bytes[i] === 0x2b || bytes[i] === 0x2d) i++;
    // Each byte read once and tested in place: this runs unoptimized for most of a short run (a page's numbers
    // and references), where each element read and each call is a trip through V8's generic code.
    for (; i < end; i++) {
      const b = bytes[i];
      if (b >= 0x30 && b <= 0x39) {
        if (integer) value = value * 10 + (b - 0x30);
      } else if (b === 0x2e || b === 0x2d) integer = false;
      else break;
    }
    if (i < end && CHAR_CLASS[bytes[i]] === 0) {
      // Digits run on into letters (`1e308`, `0M`, `1406…006C00…`): one token, and no number. qpdf reads it as a
      // string; read as a number, its digits once made a 36-digit integer that qpdf cannot read back.
      this.pos = tokenEnd(bytes, start, end);
      return PDFString.of(latin1(bytes, start, this.pos).replace(/[\\()]/g, (ch) => `\\${ch}`));
    }
    this.pos = i;
    if (integer && bytes[start] !== 0x2b && bytes[start] !== 0x2d && i - start <= 10) {
      // `N G R`: look ahead without committing.
      const g = skipWhite(bytes, i, end);
      if (g > i && isDigit(bytes[g])) {
        let gen = 0;
        let k = g;
        for (; k < end; k++) {
          const b = bytes[k];
          if (b < 0x30 || b > 0x39) break;
          gen = gen * 10 + (b - 0x30);
        }
        const r = skipWhite(bytes, k, end);
        if (r > k && k - g <= 5 && bytes[r] === 0x52 && (r + 1 >= end || CHAR_CLASS[bytes[r + 1]] !== 0)) {
          this.pos = r + 1;
          return this.ctx.exists(value, gen) ? PDFRef.of(value, gen) : PDFNull;
        }
      }
      return PDFNumber.of(value);
    }
    const real = plainReal(bytes, start, i);
    if (real !== undefined) return PDFNumber.of(real);
    // Lenient like qpdf and pdf.js: `--5`, `1.2.3` and `-` read as what parses of them.
    const text = latin1(bytes, start, i).replace(/^([+-])[+-]+/, '$1');
    const number = parseFloat(text);
    return PDFNumber.of(Number.isFinite(number) ? number : 0);
  }

  private literalString(): PDFString {
    const { bytes, end } = this;
    const start = this.pos + 1;
    let depth = 1;
    let i = start;
    while (i < end) {
      const c = bytes[i];
      if (c === 0x5c) i += 2;
      else {
        if (c === 0x28) depth++;
        else if (c === 0x29 && --depth === 0) break;
        i++;
      }
    }
    if (i >= end) {
      this.pos = end;
      if (this.lenient) return PDFString.of(latin1(bytes, start, end));
      throw new PdfSyntaxError('unterminated string', start - 1);
    }
    this.pos = i + 1;
    // A literal string is kept as written, escapes and all (PDFString).
    return PDFString.of(latin1(bytes, start, Math.min(i, end)));
  }

  private hexString(): PDFHexString {
    const { bytes, end } = this;
    const start = this.pos + 1;
    let i = start;
    let clean = true;
    while (i < end && bytes[i] !== 0x3e) {
      const c = bytes[i++];
      if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))) clean = false;
    }
    this.pos = i + 1;
    // Line breaks and other non-digits are dropped, as readers do.
    const text = latin1(bytes, start, i);
    return PDFHexString.of(clean ? text : text.replace(/[^0-9A-Fa-f]/g, ''));
  }

  private array(depth: number): PDFArray {
    const { bytes, end } = this;
    const items: PDFObject[] = [];
    this.pos++;
    for (;;) {
      this.pos = skipWhite(bytes, this.pos, end);
      if (this.pos >= end) {
        if (this.lenient) break;
        throw new PdfSyntaxError('unterminated array', this.pos);
      }
      if (bytes[this.pos] === 0x5d) {
        this.pos++;
        break;
      }
      // An array left open where its dictionary closes (`/A [1 2 >>`) ends there.
      if (this.lenient && bytes[this.pos] === 0x3e && bytes[this.pos + 1] === 0x3e) break;
      items.push(this.value(depth + 1));
    }
    // An exact copy: `items` grew by push.
    return arrayOf(this.ctx.context, items.slice());
  }

  private dict(depth: number): PDFDict {
    const { bytes, end } = this;
    const pairs: PDFObject[] = [];
    this.pos += 2;
    for (;;) {
      this.pos = skipWhite(bytes, this.pos, end);
      if (this.pos >= end) {
        if (this.lenient) break;
        throw new PdfSyntaxError('unterminated dictionary', this.pos);
      }
      const c = bytes[this.pos];
      if (c === 0x3e && bytes[this.pos + 1] === 0x3e) {
        this.pos += 2;
        break;
      }
      if (c !== 0x2f) {
        // Not a key: a stray token. Skip it, as qpdf does with a warning.
        const before = this.pos;
        try {
          this.value(depth + 1);
        } catch (err) {
          if (this.pos >= end || (err instanceof PdfSyntaxError && err.message.startsWith('objects nested'))) throw err;
          // Whatever failed, the next try starts further on: the loop always ends.
          if (this.pos <= before) this.pos = before + 1;
        }
        continue;
      }
      const key = this.value(depth + 1) as PDFName;
      const at = skipWhite(bytes, this.pos, end);
      // A key with no value before `>>` (or the end of lenient data) is null.
      if ((bytes[at] === 0x3e && bytes[at + 1] === 0x3e) || (this.lenient && at >= end)) {
        pairs.push(key, PDFNull);
        continue;
      }
      pairs.push(key, this.value(depth + 1));
    }
    return PDFDict.fromPairsWithContext(pairs, this.ctx.context);
  }

  /**
   * The rest of an indirect object whose value was a dictionary: a stream
   * when `stream` follows. Its data is a view of the input, never a copy.
   */
  streamAfter(dict: PDFDict): PDFDict | PDFRawStream {
    const { bytes, end } = this;
    const at = skipWhite(bytes, this.pos, end);
    if (!isKeywordAt(bytes, at, STREAM, end)) return dict;
    let start = at + STREAM.length;
    // `stream` ends with CRLF or LF; tolerate a lone CR and spaces before the EOL (seen in real files).
    while (bytes[start] === 0x20) start++;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] === 0x0a) start++;
    const length = dict.get(LENGTH);
    const declared = length instanceof PDFNumber ? length.asNumber() : length instanceof PDFRef ? this.ctx.lengthOf(length) : undefined;
    let dataEnd = -1;
    if (declared !== undefined && Number.isInteger(declared) && declared >= 0 && start + declared <= end) {
      const after = skipWhite(bytes, start + declared, end);
      if (isKeywordAt(bytes, after, ENDSTREAM, end)) dataEnd = start + declared;
    }
    if (dataEnd < 0) {
      // /Length is missing or wrong: the data ends before the EOL that precedes `endstream`.
      // No `endstream` at all (a damaged keyword): the data runs to `endobj`, else to where the
      // next object begins, as qpdf recovers it.
      let found = indexOf(bytes, ENDSTREAM, start, end);
      if (found < 0) found = indexOf(bytes, ENDOBJ, start, end);
      if (found < 0 && end < bytes.length) found = end;
      if (found < 0) throw new PdfSyntaxError('stream without endstream', start);
      dataEnd = found;
      if (bytes[dataEnd - 1] === 0x0a) dataEnd--;
      if (bytes[dataEnd - 1] === 0x0d) dataEnd--;
      dataEnd = Math.max(dataEnd, start);
      // The data's true length replaces the wrong one, so the output is consistent.
      dict.set(LENGTH, PDFNumber.of(dataEnd - start));
    }
    const after = skipWhite(bytes, dataEnd, end);
    this.pos = isKeywordAt(bytes, after, ENDSTREAM, end) ? after + ENDSTREAM.length : after;
    return PDFRawStream.of(dict, bytes.subarray(start, dataEnd));
  }
}

/** The indirect object `N G obj … endobj` at `offset`. */
export function parseIndirectObject(bytes: Uint8Array, offset: number, ctx: ParseContext, end = bytes.length): { num: number; gen: number; object: PDFObject } {
  const header = readObjectHeader(bytes, offset, end);
  if (!header) throw new PdfSyntaxError('no object header', offset);
  const parser = new ObjectParser(bytes, header.bodyStart, end, ctx);
  let object = parser.value();
  if (object instanceof PDFDict) object = parser.streamAfter(object);
  return { num: header.num, gen: header.gen, object };
}

/**
 * The dictionary written from `start`, read as far as it goes: where the
 * bytes end (`end`, or an `endobj` before it) inside a dictionary, array or
 * string, these are closed with what was read. For a page-tree kid that
 * cannot be parsed whole: a page with part of its dictionary beats a file
 * refused for a missing page. Undefined when what is there is no dictionary.
 */
export function parseDictLeniently(bytes: Uint8Array, start: number, end: number, ctx: ParseContext): PDFDict | undefined {
  const close = indexOf(bytes, ENDOBJ, start, end);
  try {
    const value = new ObjectParser(bytes, start, close >= 0 ? close : end, ctx, true).value();
    return value instanceof PDFDict ? value : undefined;
  } catch (err) {
    if (err instanceof PdfSyntaxError) return undefined;
    throw err;
  }
}

/** A value written between `start` and `end` (an object stream's member). */
export function parseValue(bytes: Uint8Array, start: number, end: number, ctx: ParseContext): PDFObject {
  return new ObjectParser(bytes, start, end, ctx).value();
}
