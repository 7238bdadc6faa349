/**
 * Encrypting a document before it is written: every string and every stream
 * of every object, through node:crypto, each with its own random IV.
 *
 * pdf-lib's encrypt() is not used: it encrypts streams only (strings stay in
 * clear text outside object streams) and runs AES in JavaScript. The output
 * is written by our writer: every top-level object and each of its strings
 * is encrypted on its own, as the standard requires; an input object stream
 * that goes out stored (add_password, add_restrictions) is encrypted whole,
 * its members' strings with it (writer.ts, storeObjectStreams).
 */
import { randomBytes } from 'node:crypto';
import { FileRange } from '../../core/lazy-file.js';
import type { Piece } from '../../core/sink.js';
import { encryptFromFile, isAes, piecewiseStream, readSmall, SMALL_DATA, unreadData } from './file-crypto.js';
import {
  PDFArray,
  PDFContext,
  PDFDict,
  PDFHeader,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFObject,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFString,
} from '../model/primitives.js';
import { literalString, stringBytes, transformStrings } from './decrypt.js';
import type { RawObject } from '../reader/skim.js';
import { replaceRawStrings, type RawStrings } from './raw-strings.js';
import { directFileId, fileIdArray, hexString as hex } from './file-id.js';
import { AesEncryptor, encryptData, encryptPieces, type Derivations, newEncryption, objectKeys, type Algorithm } from './standard.js';

export interface EncryptOptions {
  algorithm: Algorithm;
  /** Empty: anyone may open the document (restrictions only). */
  userPassword: string;
  ownerPassword: string;
  /** /P, from permissionValue(). */
  permissions: number;
}

/**
 * Sets the output's /ID and returns its first string, from which revision 4
 * derives the key: always a direct array of two byte strings, so that every
 * reader sees exactly what the key was derived from. The input's first
 * string is kept (it names the document for good) when its /ID is a direct
 * array of two non-empty strings; when it is missing, a reference (to an
 * object the output might not have, or that would be encrypted with the
 * rest), malformed or not two strings, the first is 16 new bytes. Random,
 * not a hash of the content as ISO 32000-2 14.4 suggests: the content is
 * encrypted with a key derived from the /ID, so hashing it would mean writing
 * the document twice, and CSPRNG bytes are as unique. The second string is
 * new either way (it names this version), the same as the first when both are
 * new, as the standard has it for a file written the first time.
 */
function setFileId(context: PDFContext): Uint8Array {
  const kept = directFileId(context.trailerInfo.ID as PDFObject | undefined)?.[0];
  const first = kept ?? randomBytes(16);
  const second = kept ? randomBytes(16) : first;
  context.trailerInfo.ID = fileIdArray(context, [first, second]);
  return first;
}

/** Raises the header to the version the encryption needs (AES-128: 1.6; AES-256: 1.7 with Adobe extension level 8). */
function raiseVersion(context: PDFContext, algorithm: Algorithm): void {
  const [major, minor] = context.header.getVersionString().split('.').map(Number);
  const version = major * 10 + minor;
  const needed = algorithm === 'AES-128' ? 16 : 17;
  if (version < needed) context.header = PDFHeader.forVersion(1, needed % 10);
  if (algorithm === 'AES-256' && version < 20) {
    const catalog = context.lookup(context.trailerInfo.Root);
    if (!(catalog instanceof PDFDict)) return;
    const existing = catalog.lookup(PDFName.of('Extensions'));
    const extensions = existing instanceof PDFDict ? existing : (context.obj({}) as PDFDict);
    extensions.set(PDFName.of('ADBE'), context.obj({ BaseVersion: PDFName.of('1.7'), ExtensionLevel: 8 }));
    catalog.set(PDFName.of('Extensions'), extensions);
  }
}

/** What the writer needs to encrypt each object as it writes it. */
export interface Encryption {
  /** The /Encrypt dictionary, which is written as it is. */
  dictRef: PDFRef;
  /** What to write for `object`: its strings and stream data encrypted (in place where they can be). */
  encrypt(ref: PDFRef, object: PDFObject): PDFObject;
  /**
   * The pieces to write for the data of a stream `ref` whose dictionary holds
   * no string, from its input bytes (in memory, or a range of the input
   * file); the writer writes the dictionary as it is, with /Length their size.
   * Undefined while no stream is kept as a probe: the object is then parsed
   * and goes through encrypt().
   */
  encryptRawStream(ref: PDFRef, data: Uint8Array | FileRange): Piece[] | undefined;
  /**
   * The strings of an object that is not a stream, from its input bytes
   * (which the skim found clean): where each lies and what to write in its
   * place; the writer copies the rest of the bytes as they are. Undefined
   * when the object must be parsed and go through encrypt(): while no string
   * is kept as a probe, and for what might be a signature dictionary, whose
   * /Contents stays plain (a /ByteRange, or a name spelled with `#` escapes).
   */
  encryptRawStrings(ref: PDFRef, raw: RawObject): RawStrings | undefined;
  /** What the output must show when it is read back (check-output.ts). */
  expected: ExpectedEncryption;
}

/** An object's plaintext as encrypt() met it: its strings (in transformStrings order) and a stream's data. */
export interface Probe {
  ref: PDFRef;
  strings: Uint8Array[];
  data?: Uint8Array;
}

export interface ExpectedEncryption {
  options: EncryptOptions;
  /** The key every object was encrypted with. */
  fileKey: Uint8Array;
  /** The derivations of /O, /U and the key (standard.ts Derivations): the check's passwords find them by their inputs. */
  memo: Derivations;
  /** Objects to decrypt from the output and compare: the first with a string, the first stream with at most PROBE_DATA_LIMIT bytes of data. */
  probes: Probe[];
}

/** Stream data larger than this is not kept as a probe's plaintext (the check must stay cheap). */
const PROBE_DATA_LIMIT = 1 << 16;

/**
 * Sets the document's /Encrypt and /ID and returns the encryption the writer
 * applies to each object as it writes it (writer.ts), so that a document's
 * objects are never all parsed and held at once: an untouched object is
 * parsed, encrypted, serialized and let go.
 */
export function prepareEncryption(context: PDFContext, options: EncryptOptions): Encryption {
  raiseVersion(context, options.algorithm);
  const id0 = setFileId(context);
  const { params, fileKey, memo } = newEncryption(options.algorithm, options.userPassword, options.ownerPassword, options.permissions, id0);
  const method = params.filters.get(params.stmF)!;
  // One running cipher per key (standard.ts): AES-256's one key serves the whole document.
  const aes = new AesEncryptor();
  const expected: ExpectedEncryption = { options, fileKey, memo, probes: [] };
  let stringProbe = false;
  let streamProbe = false;

  const dict: Record<string, PDFObject> = {
    Filter: PDFName.of('Standard'),
    V: PDFNumber.of(params.V),
    R: PDFNumber.of(params.R),
    Length: PDFNumber.of(params.keyLength * 8),
    CF: context.obj({ StdCF: { AuthEvent: 'DocOpen', CFM: method, Length: params.keyLength } }),
    StmF: PDFName.of('StdCF'),
    StrF: PDFName.of('StdCF'),
    O: hex(params.O),
    U: hex(params.U),
    P: PDFNumber.of(params.P),
    EncryptMetadata: context.obj(true),
  };
  if (params.OE) dict.OE = hex(params.OE);
  if (params.UE) dict.UE = hex(params.UE);
  if (params.Perms) dict.Perms = hex(params.Perms);
  const dictRef: PDFRef = context.register(context.obj(dict));
  context.trailerInfo.Encrypt = dictRef;

  /** Keeps `ref`'s plaintext as a probe while no probe of its kind is kept yet (before its strings are encrypted in place). */
  const probe = (ref: PDFRef, object: PDFObject, data?: Uint8Array) => {
    // Both kept (after the first objects, for the rest of the document): nothing to look at.
    if (stringProbe && streamProbe) return;
    if (object instanceof PDFDict && readSpecially(object)) return;
    const takeData = !streamProbe && data !== undefined && data.byteLength <= PROBE_DATA_LIMIT;
    if (stringProbe && !takeData) return;
    const strings = plainStrings(object);
    if (strings.length === 0 && !takeData) return;
    stringProbe ||= strings.length > 0;
    streamProbe ||= takeData;
    expected.probes.push({ ref, strings, data: takeData ? Uint8Array.from(data) : undefined });
  };

  const keyOf = objectKeys(fileKey, method);
  /** A stream's data encrypted: larger data still in the input file as it is written, the rest now. */
  const dataPieces = (key: Uint8Array, data: Uint8Array | FileRange): Piece[] => {
    if (data instanceof FileRange) {
      // Larger data still in the input file: encrypted from the file to the output as it is written.
      if (isAes(method) && data.byteLength > SMALL_DATA) return [encryptFromFile(method, key, data, aes)];
      // Small data is read now, into a reused buffer (file-crypto.ts), not loaded to stay.
      data = readSmall(data);
    }
    return encryptPieces(method, key, data, aes);
  };
  const encryptRawStream = (ref: PDFRef, data: Uint8Array | FileRange): Piece[] | undefined =>
    streamProbe ? dataPieces(keyOf(ref.objectNumber, ref.generationNumber), data) : undefined;
  const encryptRawStrings = (ref: PDFRef, raw: RawObject): RawStrings | undefined => {
    if (!stringProbe) return undefined;
    const key = keyOf(ref.objectNumber, ref.generationNumber);
    return replaceRawStrings(raw, (plain) => encryptData(method, key, plain, aes));
  };
  const encrypt = (ref: PDFRef, object: PDFObject): PDFObject => {
    if (ref === dictRef) return object;
    const key = keyOf(ref.objectNumber, ref.generationNumber);
    const encryptBytes = (data: Uint8Array) => encryptData(method, key, data, aes);
    if (object instanceof PDFString || object instanceof PDFHexString) {
      probe(ref, object);
      return literalString(encryptBytes(stringBytes(object)));
    }
    if (object instanceof PDFStream) {
      const unread = object instanceof PDFRawStream ? unreadData(object) : undefined;
      let pieces: Piece[];
      if (unread && isAes(method) && unread.byteLength > SMALL_DATA) {
        // A probe's data is copied from the file.
        probe(ref, object.dict, unread.byteLength <= PROBE_DATA_LIMIT && !streamProbe ? unread.readCopy() : undefined);
        pieces = dataPieces(key, unread);
      } else {
        const contents = unread ? readSmall(unread) : object.getContents();
        object.updateDict();
        probe(ref, object.dict, contents);
        pieces = dataPieces(key, contents);
      }
      transformStrings(object.dict, encryptBytes);
      return piecewiseStream(object.dict, pieces);
    }
    if (object instanceof PDFDict || object instanceof PDFArray) {
      probe(ref, object);
      transformStrings(object, encryptBytes);
    }
    return object;
  };
  return { dictRef, encrypt, encryptRawStream, encryptRawStrings, expected };
}

/**
 * Stream dictionaries a reader does not decrypt as it does the others (a
 * stream that calls itself a cross-reference or object stream, one with its
 * own /Crypt filter): never a probe, whatever a damaged input put in them.
 */
function readSpecially(dict: PDFDict): boolean {
  const type = dict.get(TYPE);
  const filter = dict.get(FILTER);
  const first = filter instanceof PDFArray ? filter.get(0) : filter;
  return type === XREF || type === OBJSTM || first === CRYPT;
}

// PDFName.of decodes its argument on every call: names looked at for many objects are made once.
const TYPE = PDFName.of('Type');
const FILTER = PDFName.of('Filter');
const XREF = PDFName.of('XRef');
const OBJSTM = PDFName.of('ObjStm');
const CRYPT = PDFName.of('Crypt');

/** The bytes of every string in `object`, in the order transformStrings meets them (it leaves them as they are). */
export function plainStrings(object: PDFObject): Uint8Array[] {
  if (object instanceof PDFString || object instanceof PDFHexString) return [Buffer.from(stringBytes(object))];
  const strings: Uint8Array[] = [];
  transformStrings(object, (bytes) => {
    strings.push(Buffer.from(bytes));
    return bytes;
  });
  return strings;
}
