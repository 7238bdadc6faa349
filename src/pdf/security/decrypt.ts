/**
 * Reading encrypted documents. The reader (reader/object-table.ts) knows the
 * trailer, and with it /Encrypt, before it parses any object. The password
 * is checked; object streams are decrypted as they are unpacked, and every
 * other object as it is parsed: its strings and stream data, through
 * node:crypto (pdf-lib's JavaScript ciphers run at about 10 MB/s). So a
 * document is never parsed and decrypted whole: the writer parses each
 * untouched object, decrypted, as it writes it.
 */
import { PdfError } from '../errors.js';
import { PDFArray, PDFContext, PDFDict, PDFHexString, PDFName, PDFNumber, PDFObject, PDFRawStream, PDFRef, PDFStream, PDFString } from '../model/primitives.js';
import { openContext, type ObjectTable } from '../reader/object-table.js';
import { setChild, walkInside } from '../model/walk.js';
import { DeferredPiece } from '../../core/sink.js';
import { FileRange } from '../../core/lazy-file.js';
import { escapedLiteralText, replaceRawStrings } from './raw-strings.js';
import { decryptFromFile, isAes, piecewiseStream, unreadData } from './file-crypto.js';
import { AesDecryptor, authenticate, decryptData, objectKeys, type CipherMethod, type EncryptionParameters } from './standard.js';

// PDFName.of decodes its argument on every call: the hot paths use these.
const TYPE = PDFName.of('Type');
const OBJSTM = PDFName.of('ObjStm');
const XREF = PDFName.of('XRef');
const SIG = PDFName.of('Sig');
const DOC_TIME_STAMP = PDFName.of('DocTimeStamp');
const BYTE_RANGE = PDFName.of('ByteRange');
const CONTENTS = PDFName.of('Contents');
const METADATA = PDFName.of('Metadata');
const EMBEDDED_FILE = PDFName.of('EmbeddedFile');
const EF = PDFName.of('EF');
const FILTER = PDFName.of('Filter');
const CRYPT = PDFName.of('Crypt');

const numberAt = (dict: PDFDict, key: string, fallback: number): number => {
  const value = dict.lookup(PDFName.of(key));
  return value instanceof PDFNumber ? value.asNumber() : fallback;
};
const nameAt = (dict: PDFDict, key: string, fallback: string): string => {
  const value = dict.lookup(PDFName.of(key));
  return value instanceof PDFName ? value.decodeText() : fallback;
};
const bytesAt = (dict: PDFDict, key: string): Uint8Array | undefined => {
  const value = dict.lookup(PDFName.of(key));
  return value instanceof PDFString || value instanceof PDFHexString ? stringBytes(value) : undefined;
};

/**
 * The parameters of the document's /Encrypt dictionary, or undefined when it
 * has none. A handler other than the standard one (certificates: /Adobe.PubSec),
 * or a revision this code does not know, throws a PdfError `unsupported_encryption`.
 */
export function readEncryption(context: PDFContext): EncryptionParameters | undefined {
  const encrypt = context.lookup(context.trailerInfo.Encrypt);
  if (!(encrypt instanceof PDFDict)) return undefined;
  const filter = nameAt(encrypt, 'Filter', 'Standard');
  if (filter !== 'Standard') {
    // qpdf, poppler and MuPDF refuse these too ("unsupported encryption filter"): without the handler nothing decrypts.
    const handler = /PubSec/.test(filter) ? `a certificate (security handler /${filter})` : `the security handler /${filter}`;
    throw new PdfError(
      'unsupported_encryption',
      `is encrypted with ${handler}, which is not supported: only password encryption (the standard security handler) is`,
    );
  }
  const V = numberAt(encrypt, 'V', 0);
  const R = numberAt(encrypt, 'R', 2);
  const unsupported = (what: string) =>
    new PdfError('unsupported_encryption', `uses ${what}, which is not supported; supported are RC4 (40 to 128 bits), AES-128 and AES-256 (revisions 2 to 6)`);
  if (![1, 2, 4, 5].includes(V) || R < 2 || R > 6) throw unsupported(`an unknown encryption (/V ${V} /R ${R})`);
  const ids = context.lookup(context.trailerInfo.ID);
  const first = ids instanceof PDFArray ? ids.lookup(0) : undefined;
  const id0 = first instanceof PDFString || first instanceof PDFHexString ? stringBytes(first) : new Uint8Array(0);
  let O = bytesAt(encrypt, 'O');
  let U = bytesAt(encrypt, 'U');
  if (!O || !U) {
    // qpdf refuses these as damaged; guessing would only say "wrong password" to every password.
    throw new PdfError('damaged', `${UNREADABLE_ENCRYPTION} (/O or /U, which check the passwords, is missing or not a string)`);
  }
  // Short values are padded with zero bytes, as qpdf does (some writers drop trailing zeros).
  O = padded(O, V >= 5 ? 48 : 32);
  U = padded(U, V >= 5 ? 48 : 32);
  const encryptMetadata = encrypt.lookup(PDFName.of('EncryptMetadata'))?.toString() !== 'false';
  const filters = new Map<string, CipherMethod>([['Identity', 'None']]);
  let stmF = 'Identity';
  let strF = 'Identity';
  let efF: string;
  let keyLength: number;
  if (V >= 4) {
    const cf = encrypt.lookup(PDFName.of('CF'));
    if (cf instanceof PDFDict) {
      for (const [name, value] of cf.entries()) {
        const filterDict = value instanceof PDFRef ? context.lookup(value) : value;
        if (!(filterDict instanceof PDFDict) || name.decodeText() === 'Identity') continue;
        const cfm = nameAt(filterDict, 'CFM', 'None');
        const method: CipherMethod | undefined =
          cfm === 'V2' ? 'RC4' : cfm === 'AESV2' ? 'AESV2' : cfm === 'AESV3' ? 'AESV3' : cfm === 'None' ? 'None' : undefined;
        if (!method) throw unsupported(`the crypt filter method /${cfm}`);
        filters.set(name.decodeText(), method);
      }
    }
    stmF = nameAt(encrypt, 'StmF', 'Identity');
    strF = nameAt(encrypt, 'StrF', 'Identity');
    efF = nameAt(encrypt, 'EFF', stmF);
    keyLength = V === 5 ? 32 : Math.min(16, Math.max(5, Math.floor(numberAt(encrypt, 'Length', 128) / 8)));
    for (const name of [stmF, strF, efF]) if (!filters.has(name)) throw unsupported(`the undefined crypt filter /${name}`);
  } else {
    filters.set('StdCF', 'RC4');
    stmF = strF = efF = 'StdCF';
    keyLength = V === 1 ? 5 : Math.min(16, Math.max(5, Math.floor(numberAt(encrypt, 'Length', 40) / 8)));
  }
  const optional = (key: string, length: number) => {
    const bytes = bytesAt(encrypt, key);
    return bytes && padded(bytes, length);
  };
  return {
    filter,
    V,
    R,
    keyLength,
    statedLength: numberAt(encrypt, 'Length', 0),
    O,
    U,
    OE: optional('OE', 32),
    UE: optional('UE', 32),
    Perms: optional('Perms', 16),
    P: numberAt(encrypt, 'P', -4) | 0,
    encryptMetadata,
    filters,
    stmF,
    strF,
    efF,
    id0,
  };
}

const UNREADABLE_ENCRYPTION = 'could not be parsed; it may be invalid or corrupt: its encryption dictionary is damaged';

/** `bytes` with zero bytes after them up to `length`. */
function padded(bytes: Uint8Array, length: number): Uint8Array {
  if (bytes.length >= length) return bytes;
  const out = new Uint8Array(length);
  out.set(bytes);
  return out;
}

/** Literal-string form of raw bytes: backslash, parentheses and CR escaped, everything else as is. */
export function literalString(bytes: Uint8Array): PDFString {
  return PDFString.of(escapedLiteralText(bytes));
}

/** A string object's bytes. asBytes builds an array of numbers; the common cases need none. */
export function stringBytes(value: PDFString | PDFHexString): Uint8Array {
  const text = value.asString();
  if (value instanceof PDFHexString) {
    // A final odd digit is followed by an implied 0 (ISO 32000-1, 7.3.4.3).
    const digits = text.length % 2 === 1 ? `${text}0` : text;
    // Node decodes hex up to the first pair that is not two hex digits: all of it came through when the length is whole.
    const bytes = Buffer.from(digits, 'hex');
    return bytes.length * 2 === digits.length ? bytes : value.asBytes();
  }
  // Without escapes or carriage returns (read as line feeds) a literal string's text is its bytes.
  return text.includes('\\') || text.includes('\r') ? value.asBytes() : Buffer.from(text, 'latin1');
}

/** Signature dictionaries keep /Contents unencrypted (ISO 32000-2, 7.6.2; as pdfium and Acrobat do). */
function isSignatureDictionary(dict: PDFDict): boolean {
  const type = dict.get(TYPE);
  return (type === SIG || type === DOC_TIME_STAMP) && dict.has(BYTE_RANGE);
}

/**
 * Replaces every string inside `root` (a dictionary, array, or stream
 * dictionary) by `transform(bytes)`, in place.
 */
export function transformStrings(root: PDFObject, transform: (bytes: Uint8Array) => Uint8Array): void {
  // Signature dictionaries met so far, their /Contents left as it is (made only when one is met: most objects have none).
  let signatures: Set<PDFObject> | undefined;
  const top = root instanceof PDFStream ? root.dict : root;
  if (top instanceof PDFDict && isSignatureDictionary(top)) signatures = new Set([top]);
  walkInside(root, (child, holder, at) => {
    if (at === CONTENTS && signatures?.has(holder)) return false;
    if (child instanceof PDFString || child instanceof PDFHexString) {
      setChild(holder, at, literalString(transform(stringBytes(child))));
      return false;
    }
    if (child instanceof PDFDict && isSignatureDictionary(child)) (signatures ??= new Set()).add(child);
  });
}

/** Every stream some file specification's /EF names: these use the /EFF crypt filter. */
function embeddedFileStreams(context: PDFContext): Set<PDFObject> {
  const found = new Set<PDFObject>();
  const seen = new Set<PDFObject>();
  const look = (obj: PDFObject): boolean => {
    if (!(obj instanceof PDFDict || obj instanceof PDFArray) || seen.has(obj)) return false;
    seen.add(obj);
    const ef = obj instanceof PDFDict ? obj.lookup(EF) : undefined;
    if (ef instanceof PDFDict) for (const value of ef.values()) found.add(value instanceof PDFRef ? (context.lookup(value) ?? value) : value);
    return true;
  };
  for (const [, object] of context.enumerateIndirectObjects()) {
    if (object instanceof PDFDict) {
      if (look(object)) walkInside(object, look);
    } else if (object instanceof PDFStream && object.dict.lookup(TYPE) === EMBEDDED_FILE) found.add(object);
  }
  return found;
}

/** A stream's own /Crypt filter (first in /Filter), removed from the stream once honoured. */
function takeCryptFilter(stream: PDFRawStream): string | undefined {
  const filter = stream.dict.lookup(FILTER);
  const filters = filter instanceof PDFArray ? filter.asArray() : filter ? [filter] : [];
  if (filters[0] !== CRYPT) return undefined;
  const parms = stream.dict.lookup(PDFName.of('DecodeParms'));
  const first = parms instanceof PDFArray ? parms.lookup(0) : parms;
  const name = first instanceof PDFDict ? first.lookup(PDFName.of('Name')) : undefined;
  const rest = filters.slice(1);
  if (rest.length === 0) stream.dict.delete(PDFName.of('Filter'));
  else stream.dict.set(PDFName.of('Filter'), rest.length === 1 ? rest[0] : stream.dict.context.obj(rest));
  if (parms instanceof PDFArray) {
    const restParms = parms.asArray().slice(1);
    if (restParms.length === 0) stream.dict.delete(PDFName.of('DecodeParms'));
    else stream.dict.set(PDFName.of('DecodeParms'), restParms.length === 1 ? restParms[0] : stream.dict.context.obj(restParms));
  } else if (parms) stream.dict.delete(PDFName.of('DecodeParms'));
  return name instanceof PDFName ? name.decodeText() : 'Identity';
}

export interface LoadedContext {
  context: PDFContext;
  /** The input's encryption, when it had one (it is gone from the context). */
  encryption?: EncryptionParameters;
}

/** The predicate of a `wrong_password` error when the document's user password is empty: it opens without one. */
export const OPENS_WITHOUT_PASSWORD = 'opens without a password, and the password given is not its owner password';

/**
 * Opens a document and, when it is encrypted, decrypts it with `password`
 * (owner or user). Throws a PdfError: `wrong_password` when the password
 * opens nothing (the error never carries it), `unsupported_encryption` for
 * an unsupported handler; and a PdfSyntaxError when no document can be read
 * from the bytes.
 */
export function openDecrypted(bytes: Uint8Array, password: string): LoadedContext {
  const { context, table } = openContext(bytes);
  const params = readEncryption(context);
  if (!params) return { context };
  const fileKey = authenticate(params, password);
  if (!fileKey) {
    // Restrictions alone (an empty user password): the caller can say that an empty password opens it.
    throw new PdfError('wrong_password', password !== '' && authenticate(params, '') ? OPENS_WITHOUT_PASSWORD : 'does not open with the password given');
  }
  decryptWith(context, table, params, fileKey);
  return { context, encryption: params };
}

/**
 * Makes `table` decrypt what it reads with `fileKey` from now on, and takes
 * /Encrypt out of the context (it does not describe the decrypted objects).
 */
export function decryptWith(context: PDFContext, table: ObjectTable, params: EncryptionParameters, fileKey: Uint8Array): void {
  const encryptRef = context.trailerInfo.Encrypt instanceof PDFRef ? context.trailerInfo.Encrypt : undefined;
  const strMethod = params.filters.get(params.strF)!;
  const stmMethod = params.filters.get(params.stmF)!;
  const keysBy = new Map<CipherMethod, (objectNumber: number, generation: number) => Uint8Array>();
  const keyFor = (ref: PDFRef, method: CipherMethod) => {
    let keys = keysBy.get(method);
    if (!keys) keysBy.set(method, (keys = objectKeys(fileKey, method)));
    return keys(ref.objectNumber, ref.generationNumber);
  };
  // This document's strings and streams: one running decipher per key instead of one per string (standard.ts).
  const aes = new AesDecryptor();

  // Object streams: decrypted as streams when unpacked; their members are not decrypted again.
  table.setObjectStreamDecryptor((ref, stream) => {
    const own = takeCryptFilter(stream);
    const method = own !== undefined ? (params.filters.get(own) ?? 'None') : stmMethod;
    return decryptData(method, keyFor(ref, method), stream.getContents(), aes);
  });

  // Attachments under another cipher than the other streams (rare): found by
  // walking every file specification, which parses the whole document first.
  const efMethod = params.filters.get(params.efF)!;
  const embedded = efMethod !== stmMethod ? embeddedFileStreams(context) : undefined;

  // Every other object as it is parsed: its strings, and a stream's data under its crypt filter.
  table.setObjectDecryptor((ref, object) => {
    if (ref === encryptRef || isStructureStream(object)) return object;
    // The object's key, made once for its strings and its stream (the same key when their methods are the same).
    let key: Uint8Array | undefined;
    let keyMethod: CipherMethod | undefined;
    const keyOf = (method: CipherMethod) => {
      if (key === undefined || keyMethod !== method) [key, keyMethod] = [keyFor(ref, method), method];
      return key;
    };
    if (strMethod !== 'None') {
      const decrypt = (data: Uint8Array) => decryptData(strMethod, keyOf(strMethod), data, aes);
      if (object instanceof PDFString || object instanceof PDFHexString) return literalString(decrypt(stringBytes(object)));
      if (object instanceof PDFDict || object instanceof PDFArray || object instanceof PDFStream) transformStrings(object, decrypt);
    }
    if (!(object instanceof PDFRawStream)) return object;
    const own = takeCryptFilter(object);
    let method: CipherMethod;
    if (own !== undefined) method = params.filters.get(own) ?? 'None';
    else if (object.dict.lookup(TYPE) === METADATA && !params.encryptMetadata) method = 'None';
    else if (embedded?.has(object)) method = efMethod;
    else method = stmMethod;
    if (method === 'None') return object;
    const unread = isAes(method) ? unreadData(object) : undefined;
    // Data still in the input file: decrypted from the file (small data now, the rest as it is written).
    const plain = unread && isAes(method) ? decryptFromFile(method, keyOf(method), unread, aes) : undefined;
    if (plain instanceof DeferredPiece) return piecewiseStream(object.dict, [plain]);
    object.setContents(plain ?? decryptData(method, keyOf(method), object.getContents(), aes));
    return object;
  });

  // A stream whose dictionary holds no string needs only its data decrypted: the writer copies the
  // dictionary's bytes with /Length changed (as add_password does). Not when attachments have a cipher
  // of their own (known only from the parsed file specifications), nor for a dictionary that might
  // name a crypt filter, clear-text metadata or a structure stream (or spell one with `#` escapes).
  if (!embedded) {
    table.decryptRawStream = (ref, raw, data) => {
      if (ref === encryptRef || stmMethod === 'None') return undefined;
      const dict = Buffer.from(raw.data.buffer, raw.data.byteOffset + raw.start, raw.dictEnd! - raw.start);
      if (SPECIAL_WORDS.test(dict.toString('latin1'))) return undefined;
      const key = keyFor(ref, stmMethod);
      if (data instanceof FileRange) {
        const plain = isAes(stmMethod) ? decryptFromFile(stmMethod, key, data, aes) : undefined;
        if (plain) return [plain];
        data = data.readCopy();
      }
      return [decryptData(stmMethod, key, data, aes)];
    };
  }

  // An object with strings and no stream: its bytes with each string decrypted (encrypt.ts replaceRawStrings).
  if (strMethod !== 'None') {
    table.decryptRawStrings = (ref, raw) => {
      if (ref === encryptRef) return undefined;
      let key: Uint8Array | undefined;
      return replaceRawStrings(raw, (data) => decryptData(strMethod, (key ??= keyFor(ref, strMethod)), data, aes));
    };
  }

  if (encryptRef) context.delete(encryptRef);
  delete context.trailerInfo.Encrypt;
}

/**
 * Words in a stream dictionary that send the stream the parsed way (decryptWith). One expression over the
 * dictionary's text, not a native search per word: 2,851 streams of long-text, 9 -> 2 ms in a fresh process.
 */
const SPECIAL_WORDS = /Crypt|Metadata|ObjStm|XRef|#/;

/** Object streams and cross-reference streams: read by the reader, never written. */
function isStructureStream(object: PDFObject): boolean {
  if (!(object instanceof PDFRawStream)) return false;
  const type = object.dict.lookup(TYPE);
  return type === OBJSTM || type === XREF;
}
