import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLazyFile } from '../../../src/core/lazy-file.js';
import { loadPdf } from '../../../src/pdf/document.js';
import { PDFRef } from '../../../src/pdf/model/primitives.js';
import { objectTableOf } from '../../../src/pdf/reader/object-table.js';
import type { RawObject } from '../../../src/pdf/reader/skim.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-skim-reads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNK = 4096;

/** A file over 2 MB (a smaller one is read whole) whose object 50, a stream, starts `at` bytes into a 4 KB chunk past the first 64 KB. */
function streamAt(at: number): { bytes: Uint8Array; offset: number } {
  const doc = simpleDoc(['Page']);
  const build = (padding: number) =>
    buildPdf([
      {
        objects: [
          ...doc.objects,
          { num: 49, body: `(${'p'.repeat(padding)})` },
          { num: 50, body: { dict: '/Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceGray', stream: 'x'.repeat(3_000_000) } },
        ],
      },
    ]);
  const first = build(100_000);
  const shift = (at - (first.offsets.get(50)! % CHUNK) + CHUNK) % CHUNK;
  const pdf = build(100_000 + shift);
  return { bytes: pdf.bytes, offset: pdf.offsets.get(50)! };
}

/** Object 50 of streamAt(at), a stream of 3,000,000 bytes, skimmed from the file read lazily; `check` asks what was read. */
function skimStreamAt(name: string, at: number, check: (raw: RawObject, file: NonNullable<ReturnType<typeof openLazyFile>>, offset: number) => void): void {
  const { bytes, offset } = streamAt(at);
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const file = openLazyFile(path)!;
  try {
    const { context } = loadPdf(file.bytes);
    const raw = objectTableOf(context)!.rawObject(PDFRef.of(50, 0))!;
    expect(raw.stream).toBe(true);
    expect(raw.dataEnd! - raw.dataStart!).toBe(3_000_000);
    check(raw, file, offset);
  } finally {
    file.close();
  }
}

describe('skimming an object of a lazily read file', () => {
  it('reads the chunks its dictionary lies in, not the stream data after it', () => {
    skimStreamAt('image.pdf', 100, (raw, file, offset) => {
      expect(offset % CHUNK).toBe(100);
      // The dictionary and `stream` lie in the chunk the object starts in; the next one holds only data.
      expect(Math.floor(raw.dataStart! / CHUNK)).toBe(Math.floor(offset / CHUNK));
      const next = (Math.floor(offset / CHUNK) + 1) * CHUNK;
      expect(file.isLoaded(offset, raw.dataStart!)).toBe(true);
      expect(file.isLoaded(next, next + CHUNK)).toBe(false);
    });
  });

  it('still reads a dictionary that runs on past its first chunk', () => {
    // Near a chunk's end: the dictionary crosses into the next chunk, which must be read.
    skimStreamAt('across.pdf', CHUNK - 40, (raw, _file, offset) => {
      expect(raw.refs).toEqual([]);
      expect(Math.floor(raw.dataStart! / CHUNK)).toBe(Math.floor(offset / CHUNK) + 1);
    });
  });
});
