/**
 * Reading inputs and writing outputs for the CLI. Outputs are written to a
 * temporary file beside the target and renamed into place, so a failed run
 * never leaves a partial file behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ValidationError } from '../core/errors.js';
import { PdfPieces, type PdfData } from '../core/pdf-data.js';

export async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads an input path, `-` meaning standard input; errors name the field. */
export async function readInput(path: string | undefined, field: string): Promise<Uint8Array> {
  if (path === undefined || path === '-') {
    if (process.stdin.isTTY) {
      throw ValidationError.field(field, 'no input: give a file path, or pipe the PDF into standard input');
    }
    return readStdin();
  }
  try {
    return await readFile(path);
  } catch (err) {
    throw ValidationError.field(field, `cannot read ${JSON.stringify(path)}: ${describeFsError(err)}`);
  }
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

/** Writes the pieces of one file to `path` atomically (temporary file, then rename). */
export async function writeFileAtomically(path: string, pieces: readonly Uint8Array[]): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    const handle = await open(temporary, 'wx');
    try {
      await writeAll(handle, pieces);
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

/** writev takes at most IOV_MAX (1024) buffers at a time. */
async function writeAll(handle: FileHandle, pieces: readonly Uint8Array[]): Promise<void> {
  for (let i = 0; i < pieces.length; i += 1024) {
    const batch = pieces.slice(i, i + 1024);
    let { bytesWritten } = await handle.writev(batch as Uint8Array[]);
    const total = batch.reduce((sum, piece) => sum + piece.byteLength, 0);
    // A short write: finish the rest piece by piece.
    if (bytesWritten < total) {
      for (const piece of batch) {
        if (bytesWritten >= piece.byteLength) {
          bytesWritten -= piece.byteLength;
          continue;
        }
        await handle.write(piece.subarray(bytesWritten));
        bytesWritten = 0;
      }
    }
  }
}

let stdoutGuarded = false;

export async function writeStdout(pieces: readonly Uint8Array[]): Promise<void> {
  if (!stdoutGuarded) {
    stdoutGuarded = true;
    // A reader that stops early (`| head -c 100`) closes the pipe: end quietly, as shell tools do.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(1);
      throw err;
    });
  }
  for (const piece of pieces) {
    if (!process.stdout.write(piece)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  await new Promise<void>((resolve, reject) => process.stdout.write('', (err) => (err ? reject(err) : resolve())));
}

/**
 * Writes split outputs into a directory: every file is first written under
 * a temporary name, and all are renamed only when all were written.
 */
export async function writeDocumentsToDirectory(dir: string, documents: Array<{ name: string; data: PdfData }>, force: boolean): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const targets = documents.map((doc) => join(dir, doc.name));
  if (!force) {
    const existing = await Promise.all(targets.map((target) => stat(target).then(() => target, () => undefined)));
    const first = existing.find((target) => target !== undefined);
    if (first) throw ValidationError.field('output', `${first} already exists; use --force to overwrite it, or choose another directory`);
  }
  const temporaries = targets.map((target) => `${target}.${randomBytes(6).toString('hex')}.partial`);
  // All files at once: each write is a round trip through libuv's thread
  // pool, and fifty of them one after another left the process mostly idle.
  const written = await Promise.allSettled(
    documents.map(async (doc, i) => {
      const handle = await open(temporaries[i], 'wx');
      try {
        await writeAll(handle, doc.data instanceof PdfPieces ? doc.data.pieces : [doc.data]);
      } finally {
        await handle.close();
      }
    }),
  );
  const failed = written.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  try {
    if (failed) throw failed.reason;
    await Promise.all(temporaries.map((temporary, i) => rename(temporary, targets[i])));
  } catch (err) {
    await Promise.all(temporaries.map((t) => rm(t, { force: true })));
    throw err;
  }
  return targets;
}
