/**
 * The one door to @cantoo/pdf-lib. Importing this module loads the library and
 * applies our parser correction once; every other module of src/pdf imports
 * pdf-lib names from here.
 */
import { deflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFObjectParser,
  PDFRawStream,
  PDFRef,
  PDFStream,
} from '@cantoo/pdf-lib';

export * from '@cantoo/pdf-lib';

const STREAM = bytesOf('stream');
const ENDSTREAM = bytesOf('endstream');
const CR = 0x0d;
const LF = 0x0a;

function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Streams whose /Length was an indirect reference: where their data starts in the file. */
const indirectLengthStreams = new WeakMap<PDFRawStream, { file: Uint8Array; start: number }>();

interface ParserInternals {
  bytes: { offset(): number; moveTo(offset: number): void; bytes: Uint8Array; peek(): number; next(): number };
  context: unknown;
  cryptoFactory?: { createCipherTransform(objectNumber: number, generation: number): { decryptBytes(bytes: Uint8Array): Uint8Array } };
  parseDict(ref?: PDFRef): PDFDict;
  skipWhitespaceAndComments(): void;
  matchKeyword(keyword: number[] | Uint8Array): boolean;
  findEndOfStreamFallback(startPos: unknown): number;
  bytesPosition?: unknown;
}

/**
 * Replaces pdf-lib's stream parsing for two reasons, both measured on real
 * files (see PDF-LIB-NOTES.md):
 * - its copy of every stream's data (`slice`) costs time and doubles memory;
 *   a view into the input (`subarray`) does neither;
 * - when /Length is an indirect object it finds the end by searching for
 *   `endstream` and drops a data byte that is a line feed. We remember where
 *   the data starts and restore the exact length once /Length can be resolved
 *   (`restoreIndirectLengths`).
 */
function parseDictOrStream(this: ParserInternals, ref?: PDFRef): PDFDict | PDFRawStream {
  const startPos = (this as unknown as { bytes: { position(): unknown } }).bytes.position();
  const dict = this.parseDict(ref);
  this.skipWhitespaceAndComments();
  if (!this.matchKeyword(STREAM)) return dict;
  // The keyword `stream` is followed by CRLF or LF; like pdf-lib, tolerate a
  // lone CR, and a space before CRLF (seen in real files).
  const file0 = this.bytes.bytes;
  const at = this.bytes.offset();
  if (file0[at] === 0x20 && file0[at + 1] === CR && file0[at + 2] === LF) this.bytes.moveTo(at + 1);
  if (this.bytes.peek() === CR) this.bytes.next();
  if (this.bytes.peek() === LF) this.bytes.next();
  const start = this.bytes.offset();
  const file = this.bytes.bytes;
  const length = dict.get(PDFName.of('Length'));
  let end: number;
  let indirect = false;
  if (length instanceof PDFNumber && start + length.asNumber() <= file.length) {
    end = start + length.asNumber();
    this.bytes.moveTo(end);
    this.skipWhitespaceAndComments();
    if (!this.matchKeyword(ENDSTREAM)) {
      this.bytes.moveTo(start);
      end = this.findEndOfStreamFallback(startPos);
    }
  } else {
    indirect = length instanceof PDFRef;
    end = this.findEndOfStreamFallback(startPos);
  }
  let contents = file.subarray(start, end);
  if (this.cryptoFactory && ref) {
    contents = this.cryptoFactory.createCipherTransform(ref.objectNumber, ref.generationNumber).decryptBytes(contents);
    indirect = false; // decrypted data has its own padding rules; the length fix applies to plain data only
  }
  const stream = PDFRawStream.of(dict, contents);
  if (indirect) indirectLengthStreams.set(stream, { file, start });
  return stream;
}

(PDFObjectParser.prototype as unknown as { parseDictOrStream: typeof parseDictOrStream }).parseDictOrStream = parseDictOrStream;

/**
 * Once every object is parsed, gives each stream whose /Length was indirect
 * exactly the number of bytes its /Length says, when the file has that many
 * before `endstream`.
 */
export function restoreIndirectLengths(stream: PDFRawStream): void {
  const origin = indirectLengthStreams.get(stream);
  if (!origin) return;
  indirectLengthStreams.delete(stream);
  const length = stream.dict.lookup(PDFName.of('Length'));
  if (!(length instanceof PDFNumber)) return;
  const end = origin.start + length.asNumber();
  if (end > origin.file.length || end < origin.start) return;
  let i = end;
  while (i < origin.file.length && (origin.file[i] === CR || origin.file[i] === LF || origin.file[i] === 0x20)) i++;
  for (let k = 0; k < ENDSTREAM.length; k++) if (origin.file[i + k] !== ENDSTREAM[k]) return;
  (stream as unknown as { contents: Uint8Array }).contents = origin.file.subarray(origin.start, end);
}

export { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFStream };

/**
 * Streams pdf-lib compresses itself (an embedded PNG's colour and alpha
 * channels, font files) go through Node's native zlib instead of fflate's
 * JavaScript deflate: on the image-watermark bench that was 60 ms of a
 * 0.9 s run.
 */
(PDFContext.prototype as unknown as { flateStream: (contents: Uint8Array, dict?: Record<string, unknown>) => PDFStream }).flateStream = function flateStream(
  this: PDFContext,
  contents: Uint8Array,
  dict: Record<string, unknown> = {},
) {
  return this.stream(deflateSync(contents), { ...dict, Filter: 'FlateDecode' } as never);
};

/** PDF whitespace and delimiters: where a name token ends. */
const NAME_END = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) NAME_END[c] = 1;
const namesByToken = new Map<string, PDFName>();

/**
 * pdf-lib's parseName runs two regular-expression replacements per name (its
 * own decoding of #xx escapes, then PDFName.of's); names repeat endlessly, so
 * this reads the token straight from the bytes and looks the name up by it.
 * A tenth of the parse of a 500-page document was names.
 */
function parseName(this: { bytes: { bytes: Uint8Array; idx: number; length: number } }): PDFName {
  const stream = this.bytes;
  const bytes = stream.bytes;
  const start = ++stream.idx; // past the '/'
  let end = start;
  while (end < stream.length && !NAME_END[bytes[end]]) end++;
  stream.idx = end;
  let token = '';
  for (let i = start; i < end; i++) token += String.fromCharCode(bytes[i]);
  let name = namesByToken.get(token);
  if (!name) {
    name = PDFName.of(token.includes('#') ? token.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : token);
    if (namesByToken.size < 100_000) namesByToken.set(token, name);
  }
  return name;
}

(PDFObjectParser.prototype as unknown as { parseName: typeof parseName }).parseName = parseName;

