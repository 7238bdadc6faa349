/**
 * Reading inputs and writing outputs for the CLI. Outputs are written to a
 * temporary file beside the target and renamed into place, so a failed run
 * never leaves a partial file behind.
 *
 * Files are read and written with synchronous calls (core/sink.ts's FileSink):
 * the CLI has nothing else to do meanwhile, and each asynchronous call is a
 * round trip through libuv's thread pool. Writing a 60 MB output with
 * fs/promises writev took 40-100 ms here, with writevSync 17-21 ms.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ValidationError } from '../core/errors.js';
import { PdfPieces, type PdfData } from '../core/pdf-data.js';
import { setFlagsFromString } from 'node:v8';
import { openLazyFile } from '../core/lazy-file.js';
import { CopySink, FileSink, type Piece, type WrittenBytes } from '../core/sink.js';
import { endAsKilledBySigpipe, guardStdout } from './stdout.js';

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

/**
 * Twelve hex digits that keep a temporary file's name apart from another
 * run's. Not node:crypto's randomBytes: loading node:crypto was about 2 ms
 * of every short run, and the name needs no secrecy (the file is created
 * with 'wx', so a clash fails rather than overwrites).
 */
function temporaryTag(): string {
  return Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .padStart(12, '0');
}

/** Writes the pieces of one file to `path` atomically (temporary file, then rename). */
export async function writeFileAtomically(path: string, pieces: readonly Piece[], written?: WrittenBytes): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${temporaryTag()}.partial`);
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
    writeToFile(fd, pieces, written);
  } finally {
    closeSync(fd);
  }
}

function writeToFile(fd: number, pieces: readonly Piece[], written?: WrittenBytes): void {
  const sink = new FileSink(fd, written);
  for (const piece of pieces) sink.write(piece);
  sink.end();
}

/** A pipe's writes: large enough to be few, small enough that the pipe starts moving early. */
const PIPE_CHUNK = 1 << 20;

export async function writeStdout(pieces: readonly Piece[], written?: WrittenBytes): Promise<void> {
  // Redirected to a file (`> out.pdf`): written like -o, straight from the input where untouched.
  if (fstatSync(1).isFile()) {
    writeToFile(1, pieces, written);
    return;
  }
  guardStdout();
  try {
    await sendToStdout(pieces, written);
  } catch (err) {
    // The failed write's callback may come before the stream's 'error' event: the same quiet end.
    if ((err as NodeJS.ErrnoException)?.code === 'EPIPE') endAsKilledBySigpipe();
    throw err;
  }
}

async function sendToStdout(pieces: readonly Piece[], written?: WrittenBytes): Promise<void> {
  // Chunks of their own (the stream keeps each until it is flushed), written a piece at a time so that
  // a waiting pipe holds back the next piece and memory stays at what the pipe has not taken.
  const ready: Uint8Array[] = [];
  const sink = new CopySink(PIPE_CHUNK, (chunk) => ready.push(chunk));
  const send = async () => {
    for (const chunk of ready.splice(0)) {
      if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
      written?.(chunk.byteLength);
    }
  };
  for (const piece of pieces) {
    sink.write(piece);
    await send();
  }
  sink.end();
  await send();
  await new Promise<void>((resolve, reject) => process.stdout.write('', (err) => (err ? reject(err) : resolve())));
}

/**
 * Writes split outputs into a directory: every file is first written under
 * a temporary name, and all are renamed only when all were written.
 */
export async function writeDocumentsToDirectory(
  dir: string,
  documents: Array<{ name: string; data: PdfData }>,
  force: boolean,
  written?: WrittenBytes,
): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const targets = documents.map((doc) => join(dir, doc.name));
  if (!force) {
    const existing = targets.find((target) => existsSync(target));
    if (existing) throw ValidationError.field('output', `${existing} already exists; use --force to overwrite it, or choose another directory`);
  }
  const temporaries: string[] = [];
  try {
    for (const [i, doc] of documents.entries()) {
      const temporary = `${targets[i]}.${temporaryTag()}.partial`;
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
