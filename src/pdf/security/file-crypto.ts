/**
 * AES over stream data that is still in a lazily read input file
 * (core/lazy-file.ts): the bytes go from the input file, through the cipher,
 * to the output file in chunks as the output is written (a DeferredPiece),
 * and a 60 MB document is never held in memory as plaintext and ciphertext
 * at once. Its size must be known before: the writer's cross-reference table
 * needs every offset.
 */
import type { FileRange } from '../../core/lazy-file.js';
import { PdfPieces } from '../../core/pdf-data.js';
import { DeferredPiece, type Piece } from '../../core/sink.js';
import { type PDFDict, PDFRawStream } from '../model/primitives.js';
import { unloadedData } from '../reader/object-table.js';
import { type AesDecryptor, type AesEncryptor, type CipherMethod, decryptData, pkcs7PaddingOf } from './standard.js';

/** Where a stream's unread data lies in its input file, when it has not been read. */
export const unreadData = (stream: PDFRawStream): FileRange | undefined => unloadedData(stream);

export const isAes = (method: CipherMethod): method is 'AESV2' | 'AESV3' => method === 'AESV2' || method === 'AESV3';

/**
 * Stream data up to this size (nine in ten streams of the benchmark shapes)
 * is read and put through the cipher when its object is, not when it is
 * written: with the cipher the object's strings just used (AES-128 has a key
 * per object, and node:crypto a cipher per key), where a deferred piece,
 * made up to a sink queue later, needed a cipher of its own
 * (remove_password: two per stream, one to read the padding first) and a
 * second read of the file. Larger data stays deferred: held until the sink
 * drains, 64 KB pieces cost 10-20 MB more peak RSS; at this size the writer
 * copies them into its blocks.
 */
export const SMALL_DATA = 4096;

/** Where small data is read before it goes through the cipher (which makes its own output): one buffer, reused. */
let scratch: Buffer | undefined;

/** A small range's bytes, valid until the next call (the cipher copies them out). */
export function readSmall(data: FileRange): Buffer {
  return data.readCopy(0, data.byteLength, (scratch ??= Buffer.allocUnsafeSlow(SMALL_DATA)));
}

/** The IV, then the data encrypted chunk by chunk, then the PKCS#7-padded last block. */
export function encryptFromFile(method: 'AESV2' | 'AESV3', key: Uint8Array, data: FileRange, aes: AesEncryptor): DeferredPiece {
  // Drawn now, so that the piece is the same bytes each time it is made.
  const random = aes.nextRandom();
  // PKCS#7 always pads: a whole block more when the length is a multiple of 16.
  const size = 16 + (Math.floor(data.byteLength / 16) + 1) * 16;
  return new DeferredPiece(size, (emit) => aes.encryptChunks(method, key, random, data.byteLength, (each) => data.forEachChunk(each), emit));
}

/**
 * The plaintext of AES data (IV, then whole blocks), without its padding:
 * decrypted now when small (SMALL_DATA), else as it is written; undefined
 * when the data is too short to stream (the caller decrypts it in memory).
 * Damaged data decrypts as far as whole blocks go, and padding that is not
 * valid PKCS#7 stays, as in standard.ts's decryptData.
 */
export function decryptFromFile(method: 'AESV2' | 'AESV3', key: Uint8Array, data: FileRange, aes: AesDecryptor): Uint8Array | DeferredPiece | undefined {
  const bodyLength = Math.floor((data.byteLength - 16) / 16) * 16;
  if (bodyLength < 32) return undefined;
  if (data.byteLength <= SMALL_DATA) return decryptData(method, key, readSmall(data), aes);
  // The last block, decrypted with the block before it as IV, tells the padding.
  const tail = aes.decrypt(method, key, data.readCopy(16 + bodyLength - 32, 16 + bodyLength));
  const size = bodyLength - pkcs7PaddingOf(tail);
  const { file, start } = data;
  return new DeferredPiece(size, (emit) => aes.decryptChunks(method, key, size, (each) => file.forEachChunk(start, start + 16 + bodyLength, each), emit));
}

/**
 * A stream whose data is `pieces`. Our writer writes them one after the
 * other; anything else that asks for the data gets them joined.
 */
export class PiecewiseStream extends PDFRawStream {
  private readonly size: number;
  private joined: Uint8Array | undefined;

  constructor(
    dict: PDFDict,
    readonly pieces: Piece[],
  ) {
    super(dict, new Uint8Array(0));
    this.size = pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
  }

  override getContents(): Uint8Array {
    return (this.joined ??= new PdfPieces(this.pieces, this.size).join());
  }

  override getContentsSize(): number {
    return this.size;
  }
}

export function piecewiseStream(dict: PDFDict, pieces: Piece[]): PDFRawStream {
  return new PiecewiseStream(dict, pieces);
}
