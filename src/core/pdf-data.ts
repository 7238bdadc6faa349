import { ensureLoaded } from './lazy-file.js';

/**
 * A piece whose bytes are made only as they are written: `produce` emits
 * them in chunks, `byteLength` in all (known beforehand, for the
 * cross-reference table). Encryption uses it to go from the input file to
 * the output file through small buffers, never holding the document twice.
 */
export class DeferredPiece {
  constructor(
    readonly byteLength: number,
    readonly produce: (emit: (chunk: Uint8Array) => void) => void,
  ) {}

  /** The bytes in one buffer (for callers that need them in memory). */
  bytes(): Uint8Array {
    const out = Buffer.allocUnsafe(this.byteLength);
    let at = 0;
    this.produce((chunk) => {
      out.set(chunk, at);
      at += chunk.byteLength;
    });
    if (at !== this.byteLength) throw new Error(`a deferred piece made ${at} bytes, not the ${this.byteLength} it announced`);
    return out;
  }
}

export type Piece = Uint8Array | DeferredPiece;

/**
 * A PDF held as the pieces it was written in. Joining a 60 MB output into
 * one buffer costs a copy and as much memory again; the CLI writes the
 * pieces straight to the file instead, and joins happen only where one
 * buffer is needed (library callers, the server's worker threads).
 */
export class PdfPieces {
  constructor(
    readonly pieces: readonly Piece[],
    readonly byteLength: number,
  ) {}

  join(): Uint8Array {
    return Buffer.concat(this.buffers(), this.byteLength);
  }

  /** Every piece as bytes in memory: a piece of a lazily read input is read in, a deferred one made. */
  buffers(): Uint8Array[] {
    return this.pieces.map((piece) => (piece instanceof DeferredPiece ? piece.bytes() : ensureLoaded(piece)));
  }
}

/** What a single-document transform returns. */
export type PdfData = Uint8Array | PdfPieces;

export function joinPdf(data: PdfData): Uint8Array {
  return data instanceof PdfPieces ? data.join() : data;
}
