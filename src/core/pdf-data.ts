import { FileRange, lazyBytes } from './lazy-file.js';
import { BufferSink, type Piece, type Sink } from './sink.js';

/**
 * A PDF held as the pieces it was written in. Joining a 60 MB output into
 * one buffer costs a copy and as much memory again; the CLI writes the
 * pieces straight to the file instead (core/sink.ts), and joins happen only
 * where one buffer is needed (library callers, the server's worker threads).
 */
export class PdfPieces {
  constructor(
    readonly pieces: readonly Piece[],
    readonly byteLength: number,
  ) {}

  /** The document in one buffer (BufferSink: ranges of the input are read straight into it). */
  join(): Uint8Array {
    const sink = new BufferSink(this.byteLength);
    this.writeTo(sink);
    return sink.result();
  }

  writeTo(sink: Sink): void {
    for (const piece of this.pieces) sink.write(piece);
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
        if (piece instanceof Uint8Array) {
          target.set(piece.subarray(from, from + count));
          return count;
        }
        if (piece instanceof FileRange) {
          // Only the range asked for is read, and not into the input's memory.
          piece.file.readSpan(target.subarray(0, count), piece.start + from);
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

/** A sink that keeps the pieces as they are: the writer's output until the edge chooses where it goes. */
export class PieceList implements Sink {
  private readonly pieces: Piece[] = [];
  private byteLength = 0;

  write(piece: Piece): void {
    this.pieces.push(piece);
    this.byteLength += piece.byteLength;
  }

  pdf(): PdfPieces {
    return new PdfPieces(this.pieces, this.byteLength);
  }
}

/** What a single-document transform returns. */
export type PdfData = Uint8Array | PdfPieces;

export function joinPdf(data: PdfData): Uint8Array {
  return data instanceof PdfPieces ? data.join() : data;
}
