/**
 * Strings replaced in an object's input bytes, for a writer that copies the
 * rest of them: add_password encrypts each string (encrypt.ts),
 * remove_password decrypts it (decrypt.ts). Where the strings lie is found
 * with the skim's own tokens (skim.ts stringSpans).
 */
import { PDFHexString, PDFString } from '../model/primitives.js';
import { type RawObject, stringSpans } from '../reader/skim.js';

/** Strings replaced in an object's bytes: [start, end) pairs in its data, in order, and the bytes to write for each. */
export interface RawStrings {
  spans: readonly number[];
  strings: readonly Uint8Array[];
}

/**
 * The strings of an object that is not a stream (its bytes clean: skimmed)
 * with `transform` applied to each one's bytes, written as literals; undefined
 * for what might be a signature dictionary, whose /Contents is neither
 * encrypted nor decrypted (a /ByteRange, or a `#` outside strings: a name
 * escape could spell one): such an object is parsed instead.
 */
export function replaceRawStrings(raw: RawObject, transform: (bytes: Uint8Array) => Uint8Array): RawStrings | undefined {
  const { data, start, end } = raw;
  const bytes = Buffer.from(data.buffer, data.byteOffset + start, end - start);
  if (bytes.includes(BYTE_RANGE)) return undefined;
  const spans = stringSpans(data, start, end);
  // A `#` in a string is only text; anywhere else it is a name's escape.
  for (let hash = bytes.indexOf(0x23); hash >= 0; hash = bytes.indexOf(0x23, hash + 1)) {
    const at = start + hash;
    let inString = false;
    for (let i = 0; i < spans.length && spans[i] <= at; i += 2) if (at < spans[i + 1]) inString = true;
    if (!inString) return undefined;
  }
  const strings: Uint8Array[] = [];
  for (let i = 0; i < spans.length; i += 2) strings.push(literalBytes(transform(spanBytes(bytes, spans[i] - start, spans[i + 1] - start))));
  return { spans, strings };
}

const BYTE_RANGE = Buffer.from('ByteRange', 'latin1');

/** The bytes of the string written at bytes[start, end) (delimiters included), as the parser reads them. */
function spanBytes(bytes: Buffer, start: number, end: number): Uint8Array {
  if (bytes[start] === 0x3c) {
    const decoded = hexDigitPairs(bytes, start + 1, end - 1);
    if (decoded) return decoded;
    // Line breaks and other non-digits are dropped, as the parser does; an odd last digit is followed by 0.
    return PDFHexString.of(bytes.toString('latin1', start + 1, end - 1).replace(/[^0-9A-Fa-f]/g, '')).asBytes();
  }
  // Without escapes or carriage returns (read as line feeds) a literal string's bytes are what is written.
  const inner = bytes.subarray(start + 1, end - 1);
  return inner.includes(0x5c) || inner.includes(0x0d) ? PDFString.of(inner.toString('latin1')).asBytes() : inner;
}

/**
 * bytes[start, end) read as hex digits, two to a byte; undefined unless all
 * of them are digits and there is an even number of them. Straight from the
 * bytes: through a latin1 string and Buffer.from(text, 'hex') each of
 * remove_password's 11,000 hex strings on small-objects made a string and
 * two native calls.
 */
function hexDigitPairs(bytes: Uint8Array, start: number, end: number): Uint8Array | undefined {
  if ((end - start) % 2 !== 0) return undefined;
  const out = Buffer.allocUnsafe((end - start) / 2);
  for (let i = 0, at = start; at < end; i++, at += 2) {
    const high = HEX_VALUE[bytes[at]];
    const low = HEX_VALUE[bytes[at + 1]];
    if ((high | low) > 15) return undefined;
    out[i] = (high << 4) | low;
  }
  return out;
}

/** For each byte, the value of the hex digit it is (0xff: not a digit). */
const HEX_VALUE = new Uint8Array(256).fill(0xff);
for (let digit = 0; digit < 16; digit++) {
  HEX_VALUE['0123456789abcdef'.charCodeAt(digit)] = digit;
  HEX_VALUE['0123456789ABCDEF'.charCodeAt(digit)] = digit;
}

/** `bytes` written as a literal string, parentheses included, escaped as escapedLiteralText does. */
function literalBytes(bytes: Uint8Array): Uint8Array {
  // At every length: escaping through a latin1 string and a regular expression made heap strings of about twice the data (small-objects' three 1.3 MB strings: 12 MB, a sixth of add_password's allocations), and the loop is no slower even before it is optimized.
  let escapes = 0;
  for (let i = 0; i < bytes.length; i++) if (NEEDS_ESCAPE[bytes[i]]) escapes++;
  const out = Buffer.allocUnsafe(bytes.length + escapes + 2);
  let at = 0;
  out[at++] = 0x28;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    const escape = NEEDS_ESCAPE[byte];
    if (escape) {
      out[at++] = 0x5c;
      out[at++] = escape;
    } else out[at++] = byte;
  }
  out[at] = 0x29;
  return out;
}

/** For each byte, the letter written after a backslash for it (0: written as it is): `\\`, `\(`, `\)`, `\r`. */
const NEEDS_ESCAPE = new Uint8Array(256);
NEEDS_ESCAPE[0x5c] = 0x5c;
NEEDS_ESCAPE[0x28] = 0x28;
NEEDS_ESCAPE[0x29] = 0x29;
NEEDS_ESCAPE[0x0d] = 0x72;

/** `bytes` as the text of a literal string, without its parentheses: `\`, `(`, `)` and CR escaped. */
export function escapedLiteralText(bytes: Uint8Array): string {
  // Built as one flat string: appending byte by byte made a rope node per byte (hundreds of MB of garbage on a large document).
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return text.replace(LITERAL_ESCAPES, (ch) => ESCAPES[ch]);
}

const LITERAL_ESCAPES = /[\\()\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '(': '\\(', ')': '\\)', '\r': '\\r' };
