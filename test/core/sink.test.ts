/**
 * The sinks (src/core/sink.ts): a file written by the FileSink holds the same
 * bytes as the BufferSink's buffer and as the pieces joined by hand, ranges of
 * the input nothing read included, and those ranges are never read into the
 * input's memory; a failed write leaves no file; the command line's standard
 * output gives the same bytes whether it is a file or a pipe.
 */
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomically } from '../../src/cli/io.js';
import { FileRange, openLazyFile, unreadRange, type LazyFile } from '../../src/core/lazy-file.js';
import { PdfPieces } from '../../src/core/pdf-data.js';
import { BufferSink, CopySink, DeferredPiece, FileSink, type Piece } from '../../src/core/sink.js';
import { buildPdf, latin1, simpleDoc } from '../helpers/raw-pdf.js';
import { pdfinfo, qpdfCheck } from '../helpers/pdf-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-sink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MB = 1 << 20;

/** A 12 MB file of random bytes opened lazily, with a few regions read in (as a reader would have). */
function inputFile(): { file: LazyFile; source: Buffer } {
  const source = randomBytes(12 * MB);
  const path = join(dir, `input-${randomBytes(4).toString('hex')}`);
  writeFileSync(path, source);
  const file = openLazyFile(path)!;
  file.ensure(2 * MB, 2 * MB + 200_000);
  file.ensure(5 * MB + 3000, 5 * MB + 9000);
  return { file, source };
}

/** Pieces of every kind, with the bytes they stand for computed from the source on their own. */
function mixedPieces(file: LazyFile, source: Buffer): { pieces: Piece[]; expected: Buffer } {
  const pieces: Piece[] = [];
  const expected: Buffer[] = [];
  const view = (start: number, end: number) => {
    pieces.push(unreadRange(file.bytes, start, end) ?? file.bytes.subarray(start, end));
    expected.push(source.subarray(start, end));
  };
  const memory = (bytes: Buffer) => {
    pieces.push(bytes);
    expected.push(bytes);
  };
  memory(Buffer.from('%PDF-1.7\n'));
  view(2 * MB + 10, 2 * MB + 190_000); // read in: a view
  view(3 * MB, 3 * MB + 700_000); // never read: a range
  memory(Buffer.from('\nendstream\nendobj\n'));
  view(3 * MB + 700_100, 3 * MB + 900_000); // a neighbour, read in the same span
  view(5 * MB, 5 * MB + 10_000); // part read, part not
  view(MB, MB + 5000); // behind the window: read again
  view(6 * MB, 11 * MB); // larger than the window
  memory(Buffer.alloc(0));
  view(11 * MB, 11 * MB); // empty
  // Many small pieces, more than one writev takes.
  for (let i = 0; i < 1500; i++) {
    if (i % 3 === 0) view(4 * MB + i * 100, 4 * MB + i * 100 + 37);
    else memory(Buffer.from(`${i} 0 obj `));
  }
  const made = randomBytes(300_000);
  pieces.push(
    new DeferredPiece(made.byteLength, (emit) => {
      for (let at = 0; at < made.byteLength; at += 4096) emit(made.subarray(at, at + 4096));
    }),
  );
  expected.push(made);
  const small = randomBytes(100);
  pieces.push(new DeferredPiece(small.byteLength, (emit) => emit(small)));
  expected.push(small);
  view(12 * MB - 10, 12 * MB); // the tail, read on opening
  return { pieces, expected: Buffer.concat(expected) };
}

describe('openLazyFile', () => {
  it('reads an input of at most 2 MB whole when it opens it, a larger one only where it is looked at', () => {
    for (const [size, whole] of [
      [2 * MB, true],
      [2 * MB + 1, false],
    ] as const) {
      const source = randomBytes(size);
      const path = join(dir, `whole-${size}`);
      writeFileSync(path, source);
      const file = openLazyFile(path)!;
      try {
        expect(file.isLoaded(0, size), `${size} bytes`).toBe(whole);
        expect(Buffer.from(file.bytes.subarray(0, 65536)).equals(source.subarray(0, 65536))).toBe(true);
        file.ensure(MB, MB + 10);
        expect(Buffer.from(file.bytes.subarray(MB, MB + 10)).equals(source.subarray(MB, MB + 10))).toBe(true);
      } finally {
        file.close();
      }
    }
  });

  it('reads a small input only where it is looked at when it is one of many (a merge)', () => {
    const source = randomBytes(MB);
    const path = join(dir, 'one-of-many');
    writeFileSync(path, source);
    const file = openLazyFile(path, true)!;
    try {
      expect(file.isLoaded(0, MB)).toBe(false);
      expect(file.isLoaded(0, 65536)).toBe(true);
      file.ensure(MB / 2, MB / 2 + 10);
      expect(Buffer.from(file.bytes.subarray(MB / 2, MB / 2 + 10)).equals(source.subarray(MB / 2, MB / 2 + 10))).toBe(true);
    } finally {
      file.close();
    }
  });
});

describe('FileSink and BufferSink', () => {
  it('write the same bytes, ranges never read copied from the input file without reading them into memory', () => {
    const { file, source } = inputFile();
    const { pieces, expected } = mixedPieces(file, source);
    expect(
      pieces.some((piece) => piece instanceof FileRange),
      'some pieces are ranges never read',
    ).toBe(true);
    const pdf = new PdfPieces(
      pieces,
      pieces.reduce((sum, piece) => sum + piece.byteLength, 0),
    );

    const path = join(dir, 'out-file');
    const fd = openSync(path, 'wx');
    let told = 0;
    const sink = new FileSink(fd, (bytes) => (told += bytes));
    pdf.writeTo(sink);
    sink.end();
    closeSync(fd);
    const written = readFileSync(path);
    expect(written.equals(expected), 'the file sink wrote the pieces in order').toBe(true);
    expect(told, 'the progress callback was told every byte').toBe(expected.byteLength);

    const buffer = new BufferSink(pdf.byteLength);
    pdf.writeTo(buffer);
    expect(Buffer.from(buffer.result()).equals(written), 'the buffer sink holds the same bytes').toBe(true);
    expect(Buffer.from(pdf.join()).equals(written)).toBe(true);

    const chunks: Uint8Array[] = [];
    const copier = new CopySink(MB, (chunk) => chunks.push(chunk));
    pdf.writeTo(copier);
    copier.end();
    expect(
      chunks.every((chunk) => chunk.byteLength === MB || chunk === chunks.at(-1)),
      'a pipe gets 1 MB writes',
    ).toBe(true);
    expect(Buffer.concat(chunks).equals(written)).toBe(true);

    // None of the sinks read the unread ranges into the input's own memory.
    for (const piece of pieces) if (piece instanceof FileRange) expect(file.isLoaded(piece.start, piece.end), `${piece.start}-${piece.end}`).toBe(false);
    file.close();
  });

  it('refuses an output of another size than announced', () => {
    const sink = new BufferSink(10);
    sink.write(new Uint8Array(4));
    expect(() => sink.result()).toThrow(/4 bytes, not the 10/);
  });
});

describe('writeFileAtomically', () => {
  const failing = (): Piece[] => [
    Buffer.from('%PDF-1.7\n'),
    new DeferredPiece(200 * MB, (emit) => {
      emit(randomBytes(20 * MB));
      throw new Error('the disk is full');
    }),
  ];

  it('leaves no file behind when a write fails midway', async () => {
    const target = join(dir, 'failed', 'out.pdf');
    mkdirSync(join(dir, 'failed'));
    await expect(writeFileAtomically(target, failing())).rejects.toThrow('the disk is full');
    expect(readdirSync(join(dir, 'failed')), 'neither the target nor a temporary file').toEqual([]);
  });

  it('leaves an existing file as it was when the write fails', async () => {
    const target = join(dir, 'kept.pdf');
    writeFileSync(target, 'the old output');
    await expect(writeFileAtomically(target, failing())).rejects.toThrow('the disk is full');
    expect(readFileSync(target, 'latin1')).toBe('the old output');
    expect(readdirSync(dir).filter((name) => name.includes('kept.pdf.'))).toEqual([]);
  });
});

describe('the CLI output, to a file, a redirection and a pipe', () => {
  /** A document whose catalog reaches streams of random bytes far from the head and tail: a rotate never reads them. */
  function documentWithLargeStreams(): string {
    const doc = simpleDoc(['one', 'two', 'three'], { catalog: '/PieceInfo << /Test << /Private [50 0 R 51 0 R 52 0 R] >> >>' });
    const stream = (bytes: number) => latin1(randomBytes(bytes));
    const pdf = buildPdf([
      {
        objects: [
          ...doc.objects,
          { num: 50, body: { dict: '', stream: stream(5 * MB) } },
          { num: 51, body: { dict: '', stream: stream(300_000) } },
          { num: 52, body: { dict: '', stream: stream(1000) } },
        ],
      },
    ]);
    const path = join(dir, 'large-streams.pdf');
    writeFileSync(path, pdf.bytes);
    return path;
  }

  it('gives the same bytes with -o, with `> out.pdf` and through a pipe', async () => {
    const input = documentWithLargeStreams();
    const named = join(dir, 'named.pdf');
    const redirected = join(dir, 'redirected.pdf');
    const piped = join(dir, 'piped.pdf');
    const cli = `node bin/pdfsvc.js rotate --angle 90 --pages 2`;
    expect((await execa('node', ['bin/pdfsvc.js', 'rotate', '--angle', '90', '--pages', '2', input, '-o', named], { reject: false })).exitCode).toBe(0);
    expect((await execa('sh', ['-c', `${cli} "$1" > "$2"`, 'sh', input, redirected], { reject: false })).exitCode).toBe(0);
    expect((await execa('sh', ['-c', `${cli} "$1" | cat > "$2"`, 'sh', input, piped], { reject: false })).exitCode).toBe(0);
    const bytes = readFileSync(named);
    expect(readFileSync(redirected).equals(bytes), '`> out.pdf`').toBe(true);
    expect(readFileSync(piped).equals(bytes), '`| cat > out.pdf`').toBe(true);

    expect((await qpdfCheck(bytes)).exitCode).toBe(0);
    expect((await pdfinfo(bytes)).pages.map((page) => page.rotation)).toEqual([0, 90, 0]);
    // The streams nothing read came through whole: qpdf reads each one's bytes back.
    const original = readFileSync(input);
    for (const num of [50, 51, 52]) {
      const { stdout } = await execa('qpdf', [`--show-object=${num}`, '--raw-stream-data', named], { encoding: 'buffer' });
      const { stdout: before } = await execa('qpdf', [`--show-object=${num}`, '--raw-stream-data', input], { encoding: 'buffer' });
      expect(Buffer.from(stdout).equals(Buffer.from(before)), `stream ${num}`).toBe(true);
    }
    expect(original.byteLength).toBeGreaterThan(5 * MB);
  });

  it('leaves no output file when the run fails', async () => {
    const target = join(dir, 'never.pdf');
    const damaged = join(dir, 'damaged.pdf');
    writeFileSync(damaged, '%PDF-1.7\nnothing here\n');
    const { exitCode } = await execa('node', ['bin/pdfsvc.js', 'rotate', '--angle', '90', damaged, '-o', target], { reject: false });
    expect(exitCode).toBe(2);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes('never.pdf'))).toEqual([]);
  });
});
