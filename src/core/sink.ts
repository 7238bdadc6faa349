/**
 * Where an output goes. The writer (pdf/writer.ts) hands a sink the pieces
 * of a document in order: bytes in memory, ranges of a lazily read input
 * nothing read (FileRange, core/lazy-file.ts), and pieces made as they are
 * written (DeferredPiece: encryption from the file). Which sink is chosen at
 * the edge: a file for the command line, one buffer for the library and the
 * server, a list of pieces (PieceList, core/pdf-data.ts) for an output that
 * is looked at before it goes anywhere.
 */
import { writeSync, writevSync } from 'node:fs';
import { FileRange } from './lazy-file.js';

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

/** Bytes in memory, a range of a lazily read input nothing read (copied from the file when written), or bytes made when written. */
export type Piece = Uint8Array | FileRange | DeferredPiece;

export interface Sink {
  /**
   * Appends a piece. Bytes in memory must not change afterwards: a sink may
   * keep them until it writes (the writer never writes into bytes it has
   * handed on).
   */
  write(piece: Piece): void;
}

/** Told the size of each write as it is made: the CLI's progress line (cli/progress.ts). */
export type WrittenBytes = (bytes: number) => void;

/*
 * Sizes (measured on the bench shapes: bench/README.md, "Sinks"). Pieces are
 * queued up to QUEUE bytes so that the ranges of the input among them can be
 * planned: ranges close in the input are read in one span of up to WINDOW.
 * What is gathered is written before the window is read again, so a write
 * carries about a window's worth. The window and the staging buffer are all
 * the memory the copy costs.
 */
const QUEUE = 8 << 20;
const WINDOW = 1 << 20;
/** Ranges this close in the input are read in one span, with the bytes between them. */
const GAP = 64 << 10;
/** writev takes at most IOV_MAX (1024) buffers at a time. */
const IOV_MAX = 1024;
/** Where deferred pieces are made before they are written (a large one is written as it is made). */
const STAGING = 1 << 20;

/**
 * The window and the staging buffer, shared by every file sink (a split
 * writes fifty files): buffers of their own (allocUnsafeSlow, not from the
 * pool) whose pages are faulted in once. Sinks write synchronously, one at a
 * time, so one of each is enough.
 */
const shared: { window?: Uint8Array; staging?: Uint8Array } = {};

/**
 * Writes to a file descriptor (a regular file: ranges are read with
 * positions, so not a pipe) through few, large system calls. Bytes in memory
 * are not copied but gathered by writev; ranges of the input are read into
 * one reused window, neighbours together, and written from there; deferred
 * pieces are made into one reused staging buffer. `end` writes what is left.
 */
export class FileSink implements Sink {
  private queue: Piece[] = [];
  private queued = 0;
  private readonly gather: Uint8Array[] = [];
  private gathered = 0;
  /** Bytes of the shared staging buffer in use: made by deferred pieces, gathered, not yet written. */
  private staged = 0;

  constructor(
    private readonly fd: number,
    private readonly written?: WrittenBytes,
  ) {}

  write(piece: Piece): void {
    if (piece.byteLength === 0) return;
    this.queue.push(piece);
    this.queued += piece.byteLength;
    if (this.queued >= QUEUE) this.drain();
  }

  end(): void {
    this.drain();
  }

  /** Writes every queued piece. */
  private drain(): void {
    const queue = this.queue;
    this.queue = [];
    this.queued = 0;
    // Where the window holds the input: [file, start, end).
    let held: { file: FileRange['file']; start: number; end: number } | undefined;
    for (let i = 0; i < queue.length; i++) {
      const piece = queue[i];
      if (piece instanceof Uint8Array) {
        this.add(piece);
      } else if (piece instanceof DeferredPiece) {
        this.make(piece);
      } else if (held && piece.file === held.file && piece.start >= held.start && piece.end <= held.end) {
        this.add(shared.window!.subarray(piece.start - held.start, piece.end - held.start));
      } else if (piece.byteLength > WINDOW) {
        // Too large for the window: read and written in window-sized parts.
        this.flush();
        held = undefined;
        const window = this.windowBuffer();
        for (let at = piece.start; at < piece.end; at += WINDOW) {
          const part = window.subarray(0, Math.min(WINDOW, piece.end - at));
          piece.file.readSpan(part, at);
          this.writeFully(part);
        }
      } else {
        // The window is read anew: what the gathered list points into it goes out first.
        this.flush();
        const span = spanFrom(queue, i);
        const window = this.windowBuffer().subarray(0, span.end - span.start);
        piece.file.readSpan(window, span.start);
        held = { file: piece.file, start: span.start, end: span.end };
        this.add(window.subarray(piece.start - span.start, piece.end - span.start));
      }
    }
    this.flush();
  }

  /**
   * A deferred piece: made into the staging buffer and gathered from there,
   * written when the buffer is full; a large one (encrypted image data) is
   * written chunk by chunk as it is made, its chunks being large already.
   */
  private make(piece: DeferredPiece): void {
    let made = 0;
    if (piece.byteLength > STAGING) {
      this.flush();
      piece.produce((chunk) => {
        made += chunk.byteLength;
        this.writeFully(chunk);
      });
    } else {
      const staging = (shared.staging ??= Buffer.allocUnsafeSlow(STAGING));
      let start = this.staged;
      piece.produce((chunk) => {
        made += chunk.byteLength;
        for (let at = 0; at < chunk.byteLength; ) {
          if (this.staged === STAGING) {
            this.add(staging.subarray(start, this.staged));
            this.flush();
            start = 0;
          }
          const length = Math.min(STAGING - this.staged, chunk.byteLength - at);
          staging.set(chunk.subarray(at, at + length), this.staged);
          this.staged += length;
          at += length;
        }
      });
      if (this.staged > start) this.add(staging.subarray(start, this.staged));
    }
    if (made !== piece.byteLength) throw new Error(`a deferred piece made ${made} bytes, not the ${piece.byteLength} it announced`);
  }

  private windowBuffer(): Uint8Array {
    return (shared.window ??= Buffer.allocUnsafeSlow(WINDOW));
  }

  private add(bytes: Uint8Array): void {
    this.gather.push(bytes);
    this.gathered += bytes.byteLength;
    if (this.gather.length === IOV_MAX) this.flush();
  }

  /** Writes the gathered bytes with writev, finishing a short write piece by piece. */
  private flush(): void {
    if (this.gather.length === 0) return;
    let done = writevSync(this.fd, this.gather);
    if (done < this.gathered) {
      for (const bytes of this.gather) {
        if (done >= bytes.byteLength) {
          done -= bytes.byteLength;
          continue;
        }
        this.writeFully(done > 0 ? bytes.subarray(done) : bytes, false);
        done = 0;
      }
    }
    this.written?.(this.gathered);
    this.gather.length = 0;
    this.gathered = 0;
    this.staged = 0;
  }

  private writeFully(bytes: Uint8Array, tell = true): void {
    let done = 0;
    while (done < bytes.byteLength) done += writeSync(this.fd, bytes, done);
    if (tell) this.written?.(bytes.byteLength);
  }
}

/**
 * From queue[first] (a FileRange), the span of the input to read in one go:
 * the following ranges of the same file are taken in while each starts at or
 * after the span's end, within GAP of it, and the span stays within WINDOW.
 * Bytes in memory between them do not stop the span; a deferred piece does.
 */
function spanFrom(queue: readonly Piece[], first: number): { start: number; end: number } {
  const head = queue[first] as FileRange;
  const start = head.start;
  let end = head.end;
  for (let j = first + 1; j < queue.length; j++) {
    const next = queue[j];
    if (next instanceof Uint8Array) continue;
    if (!(next instanceof FileRange) || next.file !== head.file) break;
    if (next.start < end || next.start - end > GAP || next.end - start > WINDOW) break;
    end = next.end;
  }
  return { start, end };
}

/**
 * Copies everything into buffers of `chunkSize`, each a buffer of its own
 * (a stream keeps it until it is flushed), and hands each on when full (and
 * the last, shorter, at `end`). Ranges of the input are read straight into
 * the chunk.
 */
export class CopySink implements Sink {
  private chunk: Uint8Array | undefined;
  private used = 0;

  constructor(
    private readonly chunkSize: number,
    private readonly full: (chunk: Uint8Array) => void,
  ) {}

  write(piece: Piece): void {
    if (piece instanceof Uint8Array) this.copy(piece);
    else if (piece instanceof DeferredPiece) {
      let made = 0;
      piece.produce((chunk) => {
        made += chunk.byteLength;
        this.copy(chunk);
      });
      if (made !== piece.byteLength) throw new Error(`a deferred piece made ${made} bytes, not the ${piece.byteLength} it announced`);
    } else {
      for (let at = piece.start; at < piece.end; ) {
        const room = this.room();
        const length = Math.min(room, piece.end - at);
        piece.file.readSpan(this.chunk!.subarray(this.used, this.used + length), at);
        this.used += length;
        at += length;
      }
    }
  }

  end(): void {
    if (this.chunk && this.used > 0) this.full(this.chunk.subarray(0, this.used));
    this.chunk = undefined;
    this.used = 0;
  }

  private copy(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.byteLength; ) {
      const length = Math.min(this.room(), bytes.byteLength - at);
      this.chunk!.set(at === 0 && length === bytes.byteLength ? bytes : bytes.subarray(at, at + length), this.used);
      this.used += length;
      at += length;
    }
  }

  /** Room left in the current chunk, after handing on a full one. */
  private room(): number {
    if (this.chunk && this.used === this.chunk.byteLength) {
      this.full(this.chunk);
      this.chunk = undefined;
      this.used = 0;
    }
    this.chunk ??= Buffer.allocUnsafe(this.chunkSize);
    return this.chunk.byteLength - this.used;
  }
}

/**
 * One contiguous buffer of a size known beforehand (PdfPieces.byteLength):
 * the library's and the server's output. Ranges of the input are read
 * straight into it, without loading them into the input's memory.
 */
export class BufferSink implements Sink {
  private bytes: Uint8Array | undefined;
  private readonly copier: CopySink;

  constructor(private readonly size: number) {
    this.copier = new CopySink(Math.max(size, 1), (chunk) => (this.bytes = chunk));
  }

  write(piece: Piece): void {
    this.copier.write(piece);
  }

  /** The bytes written; they must be exactly `size` of them. */
  result(): Uint8Array {
    this.copier.end();
    const bytes = this.bytes ?? new Uint8Array(0);
    if (bytes.byteLength !== this.size) throw new Error(`the output was ${bytes.byteLength} bytes, not the ${this.size} announced`);
    return bytes;
  }
}
