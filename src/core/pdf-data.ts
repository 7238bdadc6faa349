import { ensureLoaded } from './lazy-file.js';

/**
 * A PDF held as the pieces it was written in. Joining a 60 MB output into
 * one buffer costs a copy and as much memory again; the CLI writes the
 * pieces straight to the file instead, and joins happen only where one
 * buffer is needed (library callers, the server's worker threads).
 */
export class PdfPieces {
  constructor(
    readonly pieces: readonly Uint8Array[],
    readonly byteLength: number,
  ) {}

  join(): Uint8Array {
    // A piece of a lazily read input may not have been read yet.
    for (const piece of this.pieces) ensureLoaded(piece);
    return Buffer.concat(this.pieces as Uint8Array[], this.byteLength);
  }
}

/** What a single-document transform returns. */
export type PdfData = Uint8Array | PdfPieces;

export function joinPdf(data: PdfData): Uint8Array {
  return data instanceof PdfPieces ? data.join() : data;
}
