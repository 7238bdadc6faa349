/**
 * Reading inputs and writing outputs for the CLI. Outputs are written to a
 * temporary file beside the target and renamed into place, so a failed run
 * never leaves a partial file behind. What the rename replaces is a file, as
 * a user sees it: the file a symbolic link names (the link stays), with the
 * old file's permissions (a 0600 document stays private); a device or a named
 * pipe (`-o /dev/null`) is written to as it is, never replaced.
 *
 * Files are read and written with synchronous calls (core/sink.ts's FileSink):
 * the CLI has nothing else to do meanwhile, and each asynchronous call is a
 * round trip through libuv's thread pool. Writing a 60 MB output with
 * fs/promises writev took 40-100 ms here, with writevSync 17-21 ms.
 */
import {
  closeSync,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { partName } from '../core/action.js';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { PdfPieces, type PdfData } from '../core/pdf-data.js';
import { openLazyFile } from '../core/lazy-file.js';
import { setV8Flags } from '../core/v8-flags.js';
import { CopySink, FileSink, type Piece, type WrittenBytes } from '../core/sink.js';
import { endAsKilledBySigpipe, guardStdout } from './stdout.js';

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Reads an input path, `-` meaning standard input; errors name the field.
 * `lazy`: a PDF, which the reader reads only where it looks (core/lazy-file.ts);
 * `oneOfMany`: one of several inputs of one action (a merge's).
 */
export async function readInput(path: string | undefined, field: string, lazy = false, oneOfMany = false): Promise<Uint8Array> {
  if (path === undefined || path === '-') {
    if (process.stdin.isTTY) {
      throw ValidationError.field(field, 'no input: give a file path, or pipe the PDF into standard input');
    }
    return readStdin();
  }
  try {
    const file = lazy ? openLazyFile(path, oneOfMany) : undefined;
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
  setV8Flags('--semi-space-growth-factor=1');
  setV8Flags('--heap-growing-percent=50');
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

/**
 * Writes the pieces of one file to `path` atomically (temporary file, then rename), or straight into it when it is
 * not a file (a device, a named pipe), which a rename would replace.
 */
export async function writeFileAtomically(path: string, pieces: readonly Piece[], written?: WrittenBytes): Promise<void> {
  let file: string;
  let replaced: Stats | undefined;
  try {
    replaced = statSync(path, { throwIfNoEntry: false });
    if (replaced && !replaced.isFile() && !replaced.isDirectory()) {
      writeInto(path, pieces, written);
      return;
    }
    file = replaced && lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  } catch (err) {
    throw outputFileError(path, err);
  }
  const temporary = join(dirname(file), `.${basename(file)}.${temporaryTag()}.partial`);
  try {
    writeNewFile(temporary, pieces, written, replaced);
    renameSync(temporary, file);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw outputFileError(path, err);
  }
}

/** Writes into `path` as it is: a device or a named pipe, where nothing partial can be left for a later reader. */
function writeInto(path: string, pieces: readonly Piece[], written?: WrittenBytes): void {
  const fd = openSync(path, 'w');
  try {
    writeToFile(fd, pieces, written);
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses, before any work, a -o path no file can be written to: a directory,
 * or one in a directory that does not exist. Without this the work was done
 * and the write then failed as an "internal error" naming the temporary file.
 */
export function refuseUnwritableOutputFile(path: string): void {
  try {
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw Object.assign(new Error(), { code: 'EISDIR' });
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() && !existsSync(path)) throw Object.assign(new Error(), { code: 'EDANGLING' });
    if (!statSync(dirname(path)).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
  } catch (err) {
    throw outputFileError(path, err);
  }
}

/** A failure to write the output file `path`, said in terms of `path` (not of its temporary file) and of what to do. */
function outputFileError(path: string, err: unknown): unknown {
  const target = JSON.stringify(path);
  const dir = JSON.stringify(dirname(path));
  switch ((err as NodeJS.ErrnoException)?.code) {
    case 'EISDIR':
      return ValidationError.field('output', `${target} is a directory; give -o a file name, such as ${JSON.stringify(join(path, 'out.pdf'))}`);
    case 'ENOENT':
      // A directory that exists yet takes no new file (/proc) answers ENOENT too.
      if (existsSync(dirname(path))) return ValidationError.field('output', `cannot write ${target}: no file can be made in ${dir}; choose another path`);
      return ValidationError.field('output', `cannot write ${target}: the directory ${dir} does not exist; make it first, or choose another path`);
    case 'ENOTDIR':
      return ValidationError.field('output', `cannot write ${target}: ${dir} is not a directory`);
    case 'EDANGLING':
      // As GNU cp: whether to make the file the link names, or to replace the link, is for the user to say.
      return ValidationError.field(
        'output',
        `${target} is a symbolic link to a file that does not exist; give -o the path of the file to make, or remove the link`,
      );
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return ValidationError.field('output', `cannot write ${target}: permission denied; choose a path you may write to`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new PdfsvcError(500, `output: cannot write ${target}: no space left on the device (nothing was written)`);
    default:
      return err;
  }
}

/**
 * Creates `path` (it must not exist) with the pieces as its content; with the permissions of `replaced`, the file it
 * is renamed over, and (as root) its owner: the new file is the old one's next content, not a file of the runner's.
 */
function writeNewFile(path: string, pieces: readonly Piece[], written?: WrittenBytes, replaced?: Stats): void {
  const fd = openSync(path, 'wx');
  try {
    if (replaced) keepPermissions(fd, replaced);
    writeToFile(fd, pieces, written);
  } finally {
    closeSync(fd);
  }
}

function keepPermissions(fd: number, replaced: Stats): void {
  fchmodSync(fd, replaced.mode & 0o777);
  const created = fstatSync(fd);
  if (created.uid === replaced.uid && created.gid === replaced.gid) return;
  try {
    fchownSync(fd, replaced.uid, replaced.gid);
  } catch {
    // Only root may give a file away: anyone else's replacement is theirs, as with cp.
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

/** A split's part already written to its temporary file (StagedParts): it stands for the part in the run's result. */
class StagedPart extends PdfPieces {
  constructor(
    readonly temporary: string,
    byteLength: number,
  ) {
    super([], byteLength);
  }
}

/**
 * A split's parts written into the output directory as they are made, each
 * under a temporary name (renamed with the rest by writeDocumentsToDirectory):
 * held until the last part is made, a split's parts were its largest memory
 * (30 MB of a 57 MB input's 10-page split; bench/README.md, "Peak RSS").
 */
export class StagedParts {
  private readonly temporaries: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly force: boolean,
  ) {}

  readonly keep = (part: PdfPieces, index: number): PdfPieces => {
    const target = join(this.dir, partName(index));
    if (index === 0) makeDirectory(this.dir);
    if (!this.force) refuseExisting(target);
    const temporary = temporaryFor(target);
    this.temporaries.push(temporary);
    writeNewFile(temporary, part.pieces, undefined, this.force ? replacedFile(target) : undefined);
    return new StagedPart(temporary, part.byteLength);
  };

  /** Removes what was written, for a run that failed before its parts were renamed. */
  discard(): void {
    for (const temporary of this.temporaries.splice(0)) rmSync(temporary, { force: true });
  }
}

/** The output directory, made when missing; a clear refusal when it cannot be (a file by that name). */
function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw ValidationError.field('output', `${JSON.stringify(dir)} is a file: a split writes its parts into a directory, so give -o a directory`);
    }
    throw ValidationError.field('output', `cannot make the directory ${JSON.stringify(dir)}: ${describeFsError(err)}`);
  }
}

function refuseExisting(target: string): void {
  if (existsSync(target)) throw ValidationError.field('output', `${target} already exists; use --force to overwrite it, or choose another directory`);
}

const temporaryFor = (target: string) => `${target}.${temporaryTag()}.partial`;

/** The file at `target` a part is about to replace (--force), for its permissions. */
function replacedFile(target: string): Stats | undefined {
  const replaced = statSync(target, { throwIfNoEntry: false });
  return replaced?.isFile() ? replaced : undefined;
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
  const targets = documents.map((doc) => join(dir, doc.name));
  // A part StagedParts wrote was checked as it was made: its directory made, an existing part refused.
  const unstaged = targets.filter((_, i) => !(documents[i].data instanceof StagedPart));
  if (unstaged.length > 0) makeDirectory(dir);
  if (!force) for (const target of unstaged) refuseExisting(target);
  const temporaries: string[] = [];
  try {
    for (const [i, doc] of documents.entries()) {
      if (doc.data instanceof StagedPart) {
        temporaries.push(doc.data.temporary);
        written?.(doc.data.byteLength);
        continue;
      }
      const temporary = temporaryFor(targets[i]);
      temporaries.push(temporary);
      writeNewFile(temporary, doc.data instanceof PdfPieces ? doc.data.pieces : [doc.data], written, force ? replacedFile(targets[i]) : undefined);
    }
    for (const [i, temporary] of temporaries.entries()) renameSync(temporary, targets[i]);
  } catch (err) {
    for (const temporary of temporaries) rmSync(temporary, { force: true });
    throw err;
  }
  return targets;
}
