import { ensureLoaded, lazyBytes, lazyFileOf } from './lazy-file.js';

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

  /**
   * The document as bytes the reader reads lazily (core/lazy-file.ts): a range
   * is copied out of the pieces only when it is looked at, so a look at the
   * tail and a few objects costs no copy of the whole. A deferred piece is
   * made again for each look into it.
   */
  lazyView(): Uint8Array {
    const starts: number[] = [];
    let at = 0;
    for (const piece of this.pieces) {
      starts.push(at);
      at += piece.byteLength;
    }
    const pieces = this.pieces;
    return lazyBytes({
      size: this.byteLength,
      readInto(target, length, position) {
        // The last piece that starts at or before `position`, and not empty.
        let lo = 0;
        let hi = starts.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (starts[mid] <= position) lo = mid;
          else hi = mid - 1;
        }
        while (lo < pieces.length && starts[lo] + pieces[lo].byteLength <= position) lo++;
        if (lo >= pieces.length) throw new RangeError('read past the end of the document');
        const piece = pieces[lo];
        const from = position - starts[lo];
        const count = Math.min(length, piece.byteLength - from);
        if (!(piece instanceof DeferredPiece)) {
          // A view of a lazily read input: only the range asked for is read in.
          const lazy = lazyFileOf(piece);
          lazy?.file.ensure(lazy.offset + from, lazy.offset + from + count);
          target.set(piece.subarray(from, from + count));
          return count;
        }
        let offset = 0;
        piece.produce((chunk) => {
          const start = Math.max(from, offset);
          const end = Math.min(from + count, offset + chunk.byteLength);
          if (start < end) target.set(chunk.subarray(start - offset, end - offset), start - from);
          offset += chunk.byteLength;
        });
        return count;
      },
    });
  }
}

/** What a single-document transform returns. */
export type PdfData = Uint8Array | PdfPieces;

export function joinPdf(data: PdfData): Uint8Array {
  return data instanceof PdfPieces ? data.join() : data;
}
