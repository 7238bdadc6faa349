/**
 * Reading inputs and writing outputs for the CLI. Outputs are written to a
 * temporary file beside the target and renamed into place, so a failed run
 * never leaves a partial file behind.
 *
 * Files are read and written with synchronous calls: the CLI has nothing else
 * to do meanwhile, and each asynchronous call is a round trip through libuv's
 * thread pool. Writing a 60 MB output with fs/promises writev took 40-100 ms
 * here, with writevSync 17-21 ms.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync, writevSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ValidationError } from '../core/errors.js';
import { DeferredPiece, PdfPieces, type PdfData, type Piece } from '../core/pdf-data.js';
import { setFlagsFromString } from 'node:v8';
import { ensureLoaded, lazyFileOf, openLazyFile } from '../core/lazy-file.js';

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Reads an input path, `-` meaning standard input; errors name the field.
 * `lazy`: a PDF, which the reader reads only where it looks (core/lazy-file.ts).
 */
export async function readInput(path: string | undefined, field: string, lazy = false): Promise<Uint8Array> {
  if (path === undefined || path === '-') {
    if (process.stdin.isTTY) {
      throw ValidationError.field(field, 'no input: give a file path, or pipe the PDF into standard input');
    }
    return readStdin();
  }
  try {
    const file = lazy ? openLazyFile(path) : undefined;
    if (file && file.bytes.length >= LARGE_INPUT) keepHeapSmall();
    return file?.bytes || readFileSync(path);
  } catch (err) {
    throw ValidationError.field(field, `cannot read ${JSON.stringify(path)}: ${describeFsError(err)}`);
  }
}

/**
 * A one-shot command on a large document keeps little alive between its
 * steps, yet V8 sizes its heap for a long-lived process: it grows the young
 * generation to 3 x 16 MB, and lets the old one reach up to four times what
 * survived the last full collection before the next (a split's 20 MB of live
 * objects grew to 73 MB of mostly garbage). Keeping the young generation at
 * its first size and the old one at 1.5 times cuts the peak on the 57 MB
 * bench document by 15-30 MB (bench/real.mjs). Set once a large input is seen:
 * on small ones the extra collections of start-up cost more than they save.
 */
const LARGE_INPUT = 8 * 2 ** 20;
function keepHeapSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=50');
}

export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return (err as Error)?.message ?? String(err);
  }
}

/** Told the bytes of each write as it is made: the progress line's measure (progress.ts). */
export type WrittenBytes = (bytes: number) => void;

/** Writes the pieces of one file to `path` atomically (temporary file, then rename). */
export async function writeFileAtomically(path: string, pieces: readonly Piece[], written?: WrittenBytes): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    writeNewFile(temporary, pieces, written);
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}

/** Creates `path` (it must not exist) with the pieces as its content. */
function writeNewFile(path: string, pieces: readonly Piece[], written?: WrittenBytes): void {
  const fd = openSync(path, 'wx');
  try {
    writeAll(fd, pieces, written);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the pieces in order. Pieces of a lazily read input that were never
 * read go from the input file to the output through one reused buffer
 * (core/lazy-file.ts); the rest in batches of writev.
 */
function writeAll(fd: number, pieces: readonly Piece[], written?: WrittenBytes): void {
  let batch: Uint8Array[] = [];
  for (const piece of pieces) {
    if (piece instanceof DeferredPiece) {
      writeBatch(fd, batch, written);
      batch = [];
      piece.produce((chunk) => writeBatch(fd, [chunk], written));
      continue;
    }
    const lazy = lazyFileOf(piece);
    if (lazy && !lazy.file.isLoaded(lazy.offset, lazy.offset + piece.byteLength)) {
      writeBatch(fd, batch, written);
      batch = [];
      if (written) lazy.file.forEachChunk(lazy.offset, lazy.offset + piece.byteLength, (chunk) => writeBatch(fd, [chunk], written));
      else lazy.file.copyTo(fd, lazy.offset, lazy.offset + piece.byteLength);
      continue;
    }
    batch.push(piece);
  }
  writeBatch(fd, batch, written);
}

/** writev takes at most IOV_MAX (1024) buffers at a time. */
function writeBatch(fd: number, pieces: readonly Uint8Array[], written?: WrittenBytes): void {
  for (let i = 0; i < pieces.length; i += 1024) {
    const batch = pieces.slice(i, i + 1024);
    let bytesWritten = writevSync(fd, batch as Uint8Array[]);
    const total = batch.reduce((sum, piece) => sum + piece.byteLength, 0);
    written?.(total);
    // A short write: finish the rest piece by piece.
    if (bytesWritten < total) {
      for (const piece of batch) {
        if (bytesWritten >= piece.byteLength) {
          bytesWritten -= piece.byteLength;
          continue;
        }
        let done = bytesWritten;
        while (done < piece.byteLength) done += writeSync(fd, piece, done);
        bytesWritten = 0;
      }
    }
  }
}

let stdoutGuarded = false;

export async function writeStdout(pieces: readonly Piece[], written?: WrittenBytes): Promise<void> {
  // Redirected to a file (`> out.pdf`): written like -o, straight from the input where untouched.
  if (fstatSync(1).isFile()) {
    writeAll(1, pieces, written);
    return;
  }
  if (!stdoutGuarded) {
    stdoutGuarded = true;
    // A reader that stops early (`| head -c 100`) closes the pipe: end quietly, as shell tools do.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(1);
      throw err;
    });
  }
  for (const piece of pieces) {
    if (!process.stdout.write(piece instanceof DeferredPiece ? piece.bytes() : ensureLoaded(piece))) await new Promise((resolve) => process.stdout.once('drain', resolve));
    written?.(piece.byteLength);
  }
  await new Promise<void>((resolve, reject) => process.stdout.write('', (err) => (err ? reject(err) : resolve())));
}

/**
 * Writes split outputs into a directory: every file is first written under
 * a temporary name, and all are renamed only when all were written.
 */
export async function writeDocumentsToDirectory(dir: string, documents: Array<{ name: string; data: PdfData }>, force: boolean, written?: WrittenBytes): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const targets = documents.map((doc) => join(dir, doc.name));
  if (!force) {
    const existing = targets.find((target) => existsSync(target));
    if (existing) throw ValidationError.field('output', `${existing} already exists; use --force to overwrite it, or choose another directory`);
  }
  const temporaries: string[] = [];
  try {
    for (const [i, doc] of documents.entries()) {
      const temporary = `${targets[i]}.${randomBytes(6).toString('hex')}.partial`;
      temporaries.push(temporary);
      writeNewFile(temporary, doc.data instanceof PdfPieces ? doc.data.pieces : [doc.data], written);
    }
    for (const [i, temporary] of temporaries.entries()) renameSync(temporary, targets[i]);
  } catch (err) {
    for (const temporary of temporaries) rmSync(temporary, { force: true });
    throw err;
  }
  return targets;
}
