/**
 * Hostile structure: small files built to make a reader spend gigabytes or
 * minutes. Each must be answered at once, with an output that qpdf accepts
 * or a 400 naming the file, and within a bounded CPU time and memory: the reader
 * caps object numbers, object-stream member counts, structure-stream
 * inflation and nesting depth, and walks a page tree of any depth with a
 * stack of its own (README: Reading documents).
 */
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import rotatePages from '../../../src/actions/rotate_pages/action.js';
import { ValidationError } from '../../../src/core/errors.js';
import { runAction } from '../../../src/core/run.js';
import { qpdfCheck } from '../../helpers/pdf-tools.js';
import { HOSTILE_PDFS } from '../../../scripts/hostile-fixtures.mjs';
import { PDFContext, type PDFDict } from '../../../src/pdf/model/primitives.js';
import { decodeStructureStream } from '../../../src/pdf/reader/filters.js';

/**
 * Runs rotate_pages; the outcome, and how much CPU time and heap it took.
 * CPU time (of this process, every thread), not the time on the clock: on a
 * busy machine the clock also counts the time others had the CPU, which is
 * not the reader's cost.
 */
async function rotate(bytes: Uint8Array): Promise<{ output?: Uint8Array; refused?: string[]; ms: number; heapMb: number }> {
  const heapBefore = process.memoryUsage().heapUsed;
  const started = process.cpuUsage();
  const spent = () => {
    const { user, system } = process.cpuUsage(started);
    return { ms: (user + system) / 1000, heapMb: (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20 };
  };
  try {
    const result = await runAction(rotatePages, { file: bytes, angle: '90' });
    const output = result.output === 'document' ? result.bytes : undefined;
    return { output, ...spent() };
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return { refused: err.errors.file, ...spent() };
  }
}

/** The reader's share of the hostile set (scripts/hostile-fixtures.mjs, also run through every action by test/system/hostile.test.ts). */
const READER_CASES = [
  'object-number-2-31-reference.pdf',
  'object-number-2-31-table.pdf',
  'object-number-2-31-in-object-stream.pdf',
  'object-stream-10-8-members.pdf',
  'size-2-31.pdf',
  'flate-bomb-object-stream.pdf',
  // A stray string in a key's place that never closes: once, every action looped over it forever.
  'unterminated-string.pdf',
  'nested-arrays-100000.pdf',
  'nested-dicts-100000.pdf',
  'page-tree-10000-deep.pdf',
  'xref-prev-self.pdf',
  'xref-prev-loop.pdf',
];
const CASES = HOSTILE_PDFS.filter(([name]) => READER_CASES.includes(name)).map(([, about, make]) => [about, make] as [string, () => Uint8Array]);

describe('hostile structure is answered at once, bounded in time and memory', () => {
  it('covers every case it names', () => expect(CASES).toHaveLength(READER_CASES.length));
  it.each(CASES)('%s', async (_name, make) => {
    const bytes = make();
    expect(bytes.length).toBeLessThan(5 * 2 ** 20);
    const { output, refused, ms, heapMb } = await rotate(bytes);
    if (output) {
      const check = await qpdfCheck(output);
      expect(check.exitCode, check.output).toBe(0);
    } else {
      expect(refused?.join(' ')).toMatch(/could not be parsed|no pages|nested/);
    }
    // Generous bounds; the hostile versions took minutes and gigabytes.
    expect(ms, `took ${Math.round(ms)} ms of CPU`).toBeLessThan(5_000);
    expect(heapMb).toBeLessThan(512);
  });
});

describe('a structure stream of Flate inside Flate', () => {
  const MB = 2 ** 20;
  const context = new PDFContext();
  const dict = context.obj({ Filter: ['FlateDecode', 'FlateDecode'] }) as PDFDict;
  // 3 MB that do not compress: the inner layer is 3 MB too, so both layers together make 6 MB.
  const plain = randomBytes(3 * MB);
  const data = deflateSync(deflateSync(plain));

  it('decodes within the budget', () => {
    expect(Buffer.from(decodeStructureStream(dict, data, 8 * MB)).equals(plain)).toBe(true);
  });

  it('counts what both layers make against one budget', () => {
    // Each layer alone stays under 4 MB; the two together do not.
    expect(() => decodeStructureStream(dict, data, 4 * MB)).toThrow(/inflates to more than 4194304 bytes/);
  });
});

describe('rebuilding the table stays linear in the size of the file', () => {
  const COUNT = 100_000;
  const head = [
    '%PDF-1.7',
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj',
    '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj',
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj',
    '',
  ].join('\n');
  const cases: Array<[string, () => string]> = [
    // Each `trailer` is a candidate whose dictionary is read: once to the end of the file each (more than a minute).
    [
      `${COUNT.toLocaleString('en')} trailers, each with a string that never closes`,
      () => `${head}trailer\n<< /Root 1 0 R >>\n${'trailer << /A (\n'.repeat(COUNT)}`,
    ],
    // Each object stream is read to learn its members: once to the end of the file each, looking for endstream.
    [
      `${COUNT.toLocaleString('en')} object streams without endstream`,
      () =>
        `${head}${Array.from({ length: COUNT }, (_, i) => `${10 + i} 0 obj\n<< /Type /ObjStm /N 1 /First 4 >>\nstream\n`).join('')}trailer\n<< /Root 1 0 R >>\n`,
    ],
  ];
  it.each(cases)('%s', async (_, make) => {
    const { output, refused, ms } = await rotate(new Uint8Array(Buffer.from(make(), 'latin1')));
    expect(refused).toBeUndefined();
    const check = await qpdfCheck(output!);
    expect(check.exitCode, check.output).toBe(0);
    // Generous: it took more than a minute before the scan was bounded.
    expect(ms, `took ${Math.round(ms)} ms of CPU`).toBeLessThan(5_000);
  });
});
