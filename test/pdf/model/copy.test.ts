/**
 * The object copier (src/pdf/model/copy.ts): a copy of a stream whose data is
 * still in a lazily read file leaves it there, and moving objects between
 * documents rewrites each reference once, even in a dictionary two objects
 * share.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLazyFile } from '../../../src/core/lazy-file.js';
import { copyObject, moveObject } from '../../../src/pdf/model/copy.js';
import { loadPdf } from '../../../src/pdf/document.js';
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNull, PDFObject, PDFRawStream, PDFRef } from '../../../src/pdf/model/primitives.js';
import { unloadedData } from '../../../src/pdf/reader/object-table.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-copy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('copyObject', () => {
  it('shares the data of a stream still in the input file without reading it in', () => {
    const data = 'x'.repeat(400_000);
    const doc = simpleDoc(['Page']);
    // Far from the head and the tail, which are read on opening, in a file over 2 MB (a smaller one is read whole then).
    const pdf = buildPdf([
      {
        objects: [
          ...doc.objects,
          { num: 50, body: { dict: '/Subtype /Form /BBox [0 0 1 1]', stream: data } },
          { num: 51, body: `(${'p'.repeat(100_000)})` },
          { num: 52, body: { dict: '', stream: 'q'.repeat(2_000_000) } },
        ],
      },
    ]);
    const path = join(dir, 'lazy.pdf');
    writeFileSync(path, pdf.bytes);
    const file = openLazyFile(path)!;
    const { context } = loadPdf(file.bytes);
    const stream = context.lookup(PDFRef.of(50, 0)) as PDFRawStream;
    const range = unloadedData(stream)!;
    expect(range.byteLength).toBe(data.length);
    const copy = copyObject(stream, context);
    // Not expect(copy).not.toBe(stream): vitest then compares them deeply, which reads the data in.
    expect(copy === stream).toBe(false);
    expect(unloadedData(copy), 'the copy still reads from the file').toBeDefined();
    expect(file.isLoaded(range.start, range.end)).toBe(false);
    expect(Buffer.from(copy.getContents()).toString('latin1')).toBe(data);
    file.close();
  });
});

describe('moveObject', () => {
  it('rewrites a dictionary two objects share once, not once per holder', () => {
    const from = new PDFContext();
    const shared = from.obj({ Font: PDFRef.of(5, 0) }) as PDFDict;
    const first = from.obj({ Resources: shared }) as PDFDict;
    const second = PDFArray.withContext(from);
    second.push(shared);
    second.push(PDFRef.of(7, 0));
    const into = new PDFContext();
    // 5 becomes 9, and 9 (an object the source also has) becomes 13: a second pass would turn 9 into 13.
    const mapping = new Map([
      [PDFRef.of(5, 0), PDFRef.of(9, 0)],
      [PDFRef.of(9, 0), PDFRef.of(13, 0)],
    ]);
    const renumber = (ref: PDFRef): PDFObject => mapping.get(ref) ?? PDFNull;
    const moved = new Set<PDFObject>();
    moveObject(first, into, renumber, moved);
    moveObject(second, into, renumber, moved);
    expect(shared.get(PDFName.of('Font'))).toBe(PDFRef.of(9, 0));
    expect(second.get(1), 'a reference the source lacks is null').toBe(PDFNull);
    expect((first as unknown as { context: PDFContext }).context).toBe(into);
  });
});

describe('without recursion (graph walks stay linear and iterative)', () => {
  /** `[[[ … [12 0 R] … ]]]`, `depth` arrays deep, with a dictionary at every hundredth level. */
  function deep(context: PDFContext, depth: number): PDFArray {
    let inner: PDFObject = PDFRef.of(12);
    for (let i = 0; i < depth; i++) {
      const array = PDFArray.withContext(context);
      array.push(i % 100 === 0 ? context.obj({ Level: i, Next: inner }) : inner);
      inner = array;
    }
    return inner as PDFArray;
  }

  /** The reference at the bottom of a nest made by `deep`, found with a loop. */
  function bottom(object: PDFObject): PDFObject {
    let at = object;
    while (!(at instanceof PDFRef)) at = at instanceof PDFArray ? at.get(0) : (at as PDFDict).get(PDFName.of('Next'))!;
    return at;
  }

  it('copies and moves objects nested 100,000 deep (direct objects made in memory, where no parser limit applies)', () => {
    const from = new PDFContext();
    const into = new PDFContext();
    const nest = deep(from, 100_000);
    const copy = copyObject(nest, into, (ref) => PDFRef.of(ref.objectNumber + 1000));
    expect(copy === nest).toBe(false);
    expect(bottom(copy)).toBe(PDFRef.of(1012));
    expect(bottom(nest)).toBe(PDFRef.of(12));
    moveObject(nest, into, (ref) => PDFRef.of(ref.objectNumber + 2000), new Set());
    expect(bottom(nest)).toBe(PDFRef.of(2012));
  });
});
