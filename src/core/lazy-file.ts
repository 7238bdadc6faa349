/**
 * A file read only where it is looked at. The command line opens its PDF
 * inputs this way: the reader (pdf/reader/) asks for the regions it parses
 * or skims, and the bytes it copies through untouched go from the input file
 * to the output file in small reused chunks, never into memory of their own.
 *
 * Why: on these machines every fresh page of memory costs about 4 µs to
 * fault in, so reading a 60 MB input into a buffer took 250 ms, most of a
 * rotate; qpdf reads through a small buffer and never pays it.
 *
 * The file's bytes are a full-size Uint8Array whose pages the kernel has not
 * yet backed; only loaded chunks hold the file's bytes. Views of it keep the
 * usual Uint8Array interface, so the transforms take them like any input.
 * This module is the only one that knows which bytes were read: the reader
 * asks `readerOf` once per document; a range nothing read leaves it as a
 * FileRange, a piece of output that the sinks (core/sink.ts) copy from the
 * file when they write it.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

// One page: the unit the kernel faults in, so a small read costs no more memory than it must.
const CHUNK = 4096;

/**
 * The chunk that holds byte `offset`. The division is made exact first: in
 * code not yet optimized, an inexact one makes a boxed double and Math.floor
 * is a call, on every look the reader and the writer make.
 */
const chunkOf = (offset: number): number => (offset - (offset % CHUNK)) / CHUNK;
// Read at once on opening: the header, and `startxref` with the newest table.
const HEAD_AND_TAIL = 1 << 16;
// A file this small is read whole on opening, in one read: an action reads most of it anyway (a rotate of a
// 1.2 MB document read it in 257 reads), and every later look then skips the chunk bookkeeping. Not for one of
// many inputs: a merge reads only a part of each, and reading merge-50's 50 files whole cost 1.3 MiB of peak
// RSS for no less CPU.
const READ_WHOLE = 2 << 20;

/** Where a lazy file's bytes come from: a file descriptor, or (lazyBytes) anything that can copy a range. */
export interface ByteSource {
  readonly size: number;
  /** Copies up to `length` bytes from `position` into `target`; returns how many (at least 1). */
  readInto(target: Uint8Array, length: number, position: number): number;
  close?(): void;
}

export class LazyFile {
  readonly bytes: Uint8Array;
  private readonly loaded: Uint8Array;
  private source: ByteSource | undefined;

  constructor(source: ByteSource) {
    this.source = source;
    // allocUnsafeSlow: a buffer of its own (not from the pool), whose pages are untouched until read into.
    this.bytes = Buffer.allocUnsafeSlow(source.size);
    this.loaded = new Uint8Array(Math.ceil(source.size / CHUNK));
  }

  /** True once every byte is in memory: ensure then has nothing to look up. */
  private complete = false;

  /** Makes bytes[start, end) hold the file's bytes. */
  ensure(start: number, end: number): void {
    if (this.complete) return;
    start = Math.max(0, start);
    end = Math.min(this.bytes.length, end);
    if (end <= start) return;
    const last = chunkOf(end - 1);
    for (let chunk = chunkOf(start); chunk <= last; chunk++) {
      if (this.loaded[chunk]) continue;
      let runEnd = chunk;
      while (runEnd + 1 <= last && !this.loaded[runEnd + 1]) runEnd++;
      this.read(chunk * CHUNK, Math.min(this.bytes.length, (runEnd + 1) * CHUNK));
      this.loaded.fill(1, chunk, runEnd + 1);
      chunk = runEnd;
    }
  }

  isLoaded(start: number, end: number): boolean {
    if (end <= start) return true;
    const last = chunkOf(end - 1);
    for (let chunk = chunkOf(start); chunk <= last; chunk++) if (!this.loaded[chunk]) return false;
    return true;
  }

  loadAll(): void {
    this.ensure(0, this.bytes.length);
    this.complete = true;
  }

  /**
   * Hands bytes[start, end) to `each` in order, in chunks: loaded bytes from
   * memory, the rest read through one reused buffer (so `each` must be done
   * with a chunk when it returns). Nothing is kept in memory.
   */
  forEachChunk(start: number, end: number, each: (chunk: Uint8Array) => void): void {
    let at = start;
    while (at < end) {
      const chunk = chunkOf(at);
      if (this.loaded[chunk]) {
        const chunkEnd = Math.min(end, (chunk + 1) * CHUNK);
        each(this.bytes.subarray(at, chunkEnd));
        at = chunkEnd;
        continue;
      }
      scratch ??= Buffer.allocUnsafe(SCRATCH);
      const got = this.readInto(scratch, Math.min(end - at, SCRATCH), at);
      each(scratch.subarray(0, got));
      at += got;
    }
  }

  /**
   * bytes[start, end) in a buffer of their own, read from the file without
   * loading them into this one: for data looked at once and dropped (the
   * watermark's content scan), which would otherwise stay resident.
   */
  readCopy(start: number, end: number, into?: Buffer): Buffer {
    const length = Math.max(0, end - start);
    // `into` when it is large enough: a buffer the caller reuses, so looking costs no fresh memory.
    const copy = into && into.byteLength >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
    let at = 0;
    this.forEachChunk(start, end, (chunk) => {
      copy.set(chunk, at);
      at += chunk.byteLength;
    });
    return copy;
  }

  close(): void {
    this.source?.close?.();
    this.source = undefined;
  }

  private read(start: number, end: number): void {
    this.readSpan(this.bytes.subarray(start, end), start);
  }

  /** Fills `target` with the file's bytes from `position`, from the file whether or not they are loaded. */
  readSpan(target: Uint8Array, position: number): void {
    let at = 0;
    while (at < target.byteLength) at += this.readInto(target.subarray(at), target.byteLength - at, position + at);
  }

  private readInto(target: Uint8Array, length: number, position: number): number {
    if (this.source === undefined) throw new Error('the input file was closed before it was read');
    return this.source.readInto(target, length, position);
  }
}

/** A file's bytes through its descriptor; `size` from its fstat. */
function fileSource(fd: number, size: number): ByteSource {
  return {
    size,
    readInto(target, length, position) {
      const got = readSync(fd, target, 0, length, position);
      if (got <= 0) throw new Error('the input file changed size while it was read');
      return got;
    },
    close: () => closeSync(fd),
  };
}

/** The buffer unread bytes pass through: 1 MB, reused, so its pages are faulted in once. */
const SCRATCH = 1 << 20;
let scratch: Uint8Array | undefined;

const files = new WeakMap<ArrayBufferLike, LazyFile>();

/**
 * Opens `path` lazily; its first and last 64 KB (header, `startxref`, the
 * newest table) are read at once, or all of it when it is small and not
 * `oneOfMany` inputs. Undefined for what is not a regular file (a pipe, a
 * device): that is read whole by the caller.
 */
export function openLazyFile(path: string, oneOfMany = false): LazyFile | undefined {
  const fd = openSync(path, 'r');
  // One fstat for both questions: a system call is about 10 us here, and a merge opens many files.
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    return undefined;
  }
  const file = new LazyFile(fileSource(fd, stat.size));
  if (file.bytes.length <= READ_WHOLE && !oneOfMany) file.loadAll();
  else {
    file.ensure(0, HEAD_AND_TAIL);
    file.ensure(file.bytes.length - HEAD_AND_TAIL, file.bytes.length);
  }
  files.set(file.bytes.buffer, file);
  return file;
}

/**
 * Bytes that the reader reads like a lazily read file, copied from `source`
 * only where it looks (the check of an encrypted output reads its tail and
 * a few objects of an output still in pieces: core/pdf-data.ts).
 */
export function lazyBytes(source: ByteSource): Uint8Array {
  const file = new LazyFile(source);
  files.set(file.bytes.buffer, file);
  return file.bytes;
}

/**
 * Bytes [start, end) of a lazily read file, most often not all read in: a
 * piece of output whose bytes the sinks (core/sink.ts) copy from the file as
 * they write it, never into the file's memory.
 */
export class FileRange {
  constructor(
    readonly file: LazyFile,
    readonly start: number,
    readonly end: number,
  ) {}

  get byteLength(): number {
    return this.end - this.start;
  }

  /** Hands the bytes to `each` in order, in chunks valid until `each` returns (LazyFile.forEachChunk). */
  forEachChunk(each: (chunk: Uint8Array) => void): void {
    this.file.forEachChunk(this.start, this.end, each);
  }

  /** Bytes [from, to) of the range, in memory of their own (or in `into` when it is large enough). */
  readCopy(from = 0, to = this.byteLength, into?: Buffer): Buffer {
    return this.file.readCopy(this.start + from, this.start + to, into);
  }
}

/** What the reader needs to know of the bytes it reads, asked once per document. */
export interface BytesReader {
  /** True when the bytes are a lazily read file: stream data is then read only when used. */
  readonly lazy: boolean;
  /** Makes bytes[start, end) hold their bytes; a no-op for bytes in memory. */
  ensure(start: number, end: number): void;
}

export function readerOf(bytes: Uint8Array): BytesReader {
  const lazy = lazyFileOf(bytes);
  if (!lazy) return { lazy: false, ensure: () => {} };
  const { file, offset } = lazy;
  return { lazy: true, ensure: (start, end) => file.ensure(offset + start, offset + Math.min(end, bytes.byteLength)) };
}

/**
 * The range of a lazily read file that view[start, end) stands for, when its
 * bytes are not all in memory; undefined when they are (any view of anything
 * but a lazily read file). The writer asks this for every object it copies,
 * so a view in memory costs no object.
 */
export function unreadRange(view: Uint8Array, start = 0, end = view.byteLength): FileRange | undefined {
  const file = files.get(view.buffer);
  if (!file) return undefined;
  const offset = view.byteOffset - file.bytes.byteOffset;
  return file.isLoaded(offset + start, offset + end) ? undefined : new FileRange(file, offset + start, offset + end);
}

/**
 * The range of a lazily read file a view is of, read in or not: for data
 * that stays where it is until it is written (a stream nothing parsed,
 * which encryption then reads from the file in chunks); undefined for a
 * view of anything else.
 */
export function fileRangeOf(view: Uint8Array): FileRange | undefined {
  const lazy = lazyFileOf(view);
  return lazy && new FileRange(lazy.file, lazy.offset, lazy.offset + view.byteLength);
}

/** The lazy file a view belongs to, with the view's offset in it. */
function lazyFileOf(view: Uint8Array): { file: LazyFile; offset: number } | undefined {
  const file = files.get(view.buffer);
  return file && { file, offset: view.byteOffset - file.bytes.byteOffset };
}
