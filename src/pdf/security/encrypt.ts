/**
 * Encrypting a document before it is written: every string and every stream
 * of every object, through node:crypto, each with its own random IV.
 *
 * pdf-lib's encrypt() is not used: it encrypts streams only (strings stay in
 * clear text outside object streams) and runs AES in JavaScript. The output
 * is written by our writer, without object streams, so every object and each
 * of its strings is encrypted on its own, as the standard requires.
 */
import { randomBytes } from 'node:crypto';
import type { Piece } from '../../core/pdf-data.js';
import { encryptFromFile, isAes, piecewiseStream, unreadData } from './file-crypto.js';
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
} from '../lib.js';
import { literalString, stringBytes, transformStrings } from './decrypt.js';
import { directFileId, fileIdArray } from './file-id.js';
import { encryptData, encryptPieces, IvSource, newEncryption, objectKey, type Algorithm } from './standard.js';

export interface EncryptOptions {
  algorithm: Algorithm;
  /** Empty: anyone may open the document (restrictions only). */
  userPassword: string;
  ownerPassword: string;
  /** /P, from permissionValue(). */
  permissions: number;
}

interface StreamInternals {
  getContents(): Uint8Array;
  updateDict?(): void;
}


const hex = (bytes: Uint8Array) => PDFHexString.of(Buffer.from(bytes).toString('hex'));

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
}

/**
 * Sets the document's /Encrypt and /ID and returns the encryption the writer
 * applies to each object as it writes it (writer.ts), so that a document's
 * objects are never all parsed and held at once: an untouched object is
 * parsed, encrypted, serialized and let go.
 */
export function prepareEncryption(context: PDFContext, options: EncryptOptions): Encryption {
  raiseVersion(context, options.algorithm);
  const id0 = setFileId(context);
  const { params, fileKey } = newEncryption(options.algorithm, options.userPassword, options.ownerPassword, options.permissions, id0);
  const method = params.filters.get(params.stmF)!;
  const ivs = new IvSource();

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

  const encrypt = (ref: PDFRef, object: PDFObject): PDFObject => {
    if (ref === dictRef) return object;
    const key = objectKey(fileKey, method, ref.objectNumber, ref.generationNumber);
    const encryptBytes = (data: Uint8Array) => encryptData(method, key, data, ivs);
    if (object instanceof PDFString || object instanceof PDFHexString) return literalString(encryptBytes(stringBytes(object)));
    if (object instanceof PDFStream) {
      const stream = object as unknown as StreamInternals;
      const unread = object instanceof PDFRawStream ? unreadData(object) : undefined;
      let pieces: Piece[];
      if (unread && isAes(method)) {
        // Data still in the input file: encrypted from the file to the output as it is written.
        pieces = [encryptFromFile(method, key, unread, ivs)];
      } else {
        const contents = stream.getContents();
        stream.updateDict?.();
        pieces = encryptPieces(method, key, contents, ivs);
      }
      transformStrings(object.dict, encryptBytes);
      return piecewiseStream(object.dict, pieces);
    }
    if (object instanceof PDFDict || object instanceof PDFArray) transformStrings(object, encryptBytes);
    return object;
  };
  return { dictRef, encrypt };
}
