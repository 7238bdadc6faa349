/**
 * Writing what an action made, the one way the command line does it, for
 * one file and for each file of batch mode: one PDF to a file (atomically)
 * or to standard output; split parts into a directory, or packaged on
 * standard output.
 */
import { ValidationError } from '../core/errors.js';
import { PACKAGINGS, packageDocuments, type Packaging } from '../core/packaging.js';
import { joinPdf, PdfPieces } from '../core/pdf-data.js';
import type { ActionOutput } from '../core/run.js';
import type { WrittenBytes } from '../core/sink.js';
import { writeDocumentsToDirectory, writeFileAtomically, writeStdout } from './io.js';

export interface OutputOptions {
  /** Overwrite existing parts in the output directory. */
  force?: boolean;
  /** Split parts on standard output: how they are packaged. */
  packaging?: Packaging;
  /** Told the bytes about to be written; what it returns is told each write (the progress display). */
  writing?: (total: number) => WrittenBytes | undefined;
}

/** Writes `result` to `output` (a file, or for split actions a directory) or, without it, to standard output; returns the bytes written. */
export async function writeOutput(result: ActionOutput, output: string | undefined, options: OutputOptions = {}): Promise<number> {
  if (result.output === 'document') {
    const pieces = result.data instanceof PdfPieces ? result.data.pieces : [result.data];
    const written = options.writing?.(result.data.byteLength);
    if (output === undefined) await writeStdout(pieces, written);
    else await writeFileAtomically(output, pieces, written);
    return result.data.byteLength;
  }
  if (output !== undefined) {
    const total = result.documents.reduce((sum, { data }) => sum + data.byteLength, 0);
    await writeDocumentsToDirectory(output, result.documents, Boolean(options.force), options.writing?.(total));
    return total;
  }
  const packaging = options.packaging ?? PACKAGINGS[0];
  if (process.stdout.isTTY) {
    throw ValidationError.field('output', `refusing to write a ${packaging} archive to a terminal: use -o DIR, or redirect standard output`);
  }
  const packaged = await packageDocuments(
    result.documents.map(({ name, data }) => ({ name, bytes: joinPdf(data) })),
    packaging,
  );
  await writeStdout([packaged.body], options.writing?.(packaged.body.byteLength));
  return packaged.body.byteLength;
}
