/**
 * Hostile structure: small files built to make a reader spend gigabytes or
 * minutes. Each must be answered at once, with an output that qpdf accepts
 * or a 400 naming the file, and within a bounded time and memory: the reader
 * caps object numbers, object-stream member counts, structure-stream
 * inflation, nesting depth and page-tree depth (README: Reading documents).
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import rotatePages from '../../src/actions/rotate_pages/action.js';
import { ValidationError } from '../../src/core/errors.js';
import { runAction } from '../../src/core/run.js';
import { qpdfCheck } from '../helpers/pdf-tools.js';
import { buildPdf, drawText, FONT, pageDict, simpleDoc, type RawObject } from '../helpers/raw-pdf.js';

/** Runs rotate_pages; the outcome, and how long and how much heap it took. */
async function rotate(bytes: Uint8Array): Promise<{ output?: Uint8Array; refused?: string[]; ms: number; heapMb: number }> {
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  try {
    const result = await runAction(rotatePages, { file: bytes, angle: '90' });
    const output = result.output === 'document' ? result.bytes : undefined;
    return { output, ms: performance.now() - started, heapMb: (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20 };
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return { refused: err.errors.file, ms: performance.now() - started, heapMb: (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20 };
  }
}

/** One page whose catalog carries `extra`, plus `more` objects. */
function withExtras(extra: string, more: RawObject[] = [], xref: 'table' | 'stream' = 'table', objectStreams?: Array<{ num: number; members: number[] }>) {
  const doc = simpleDoc(['HOSTILE'], { catalog: extra });
  return buildPdf([{ objects: [...doc.objects, ...more], xref, objectStreams }]).bytes;
}

/** A Flate stream of `megabytes` of zeros: a few KB that claim much more. */
function bomb(megabytes: number): Uint8Array {
  return deflateSync(Buffer.alloc(megabytes * 2 ** 20), { level: 9 });
}

const CASES: Array<[string, () => Uint8Array]> = [
  ['a reference to object 2^31', () => withExtras('/Probe 2147483648 0 R')],
  ['an object numbered 2^31 in the table', () => {
    // A subsection that starts at 2^31: the reader must not allocate or loop up to it.
    const text = Buffer.from(withExtras('')).toString('latin1');
    return Buffer.from(text.replace('trailer', '2147483647 1\n0000000009 00000 n\r\ntrailer'), 'latin1');
  }],
  ['an object stream that claims 10^8 members', () => {
    const doc = simpleDoc(['HOSTILE']);
    const pdf = buildPdf([{ objects: doc.objects, xref: 'stream', objectStreams: [{ num: 50, members: [3] }] }]);
    return Buffer.from(Buffer.from(pdf.bytes).toString('latin1').replace(/\/N 1\b/, '/N 100000000'), 'latin1');
  }],
  ['a cross-reference stream that claims /Size 2^31', () => {
    const doc = simpleDoc(['HOSTILE']);
    const text = Buffer.from(buildPdf([{ objects: doc.objects, xref: 'stream' }]).bytes).toString('latin1');
    return Buffer.from(text.replace(/\/Size \d+/, '/Size 2147483648'), 'latin1');
  }],
  ['a Flate bomb as an object stream (200 MB of zeros)', () => {
    const doc = simpleDoc(['HOSTILE']);
    const objects: RawObject[] = doc.objects.map((o) => (o.num === 1 ? { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Extra 60 0 R >>' } : o));
    const data = bomb(200);
    objects.push({ num: 59, body: { dict: `/Type /ObjStm /N 1 /First 5 /Filter /FlateDecode`, stream: data } });
    // Object 60 is said to be member 0 of that object stream.
    return buildPdf([{ objects, xref: 'stream', size: 61, xrefRows: { 60: [2, 59, 0] } }]).bytes;
  }],
  // A stray string in a key's place that never closes: once, every action looped over it forever.
  ['an unterminated string where a key belongs', () => withExtras('(never closed')],
  ['arrays nested 100,000 deep', () => withExtras(`/Deep ${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
  ['dictionaries nested 100,000 deep', () => withExtras(`/Deep ${'<< /A '.repeat(100_000)}1${' >>'.repeat(100_000)}`)],
  ['a page tree 10,000 levels deep', () => {
    const depth = 10_000;
    // Node i is object 10 + i, its kid 10 + i + 1; the page is last.
    const nodes: RawObject[] = [
      { num: 1, body: '<< /Type /Catalog /Pages 10 0 R >>' },
      { num: 3, body: FONT },
      { num: 4, body: { dict: '', stream: drawText('DEEP') } },
    ];
    for (let i = 0; i < depth; i++) {
      nodes.push({ num: 10 + i, body: `<< /Type /Pages /Kids [${10 + i + 1} 0 R] /Count 1${i > 0 ? ` /Parent ${10 + i - 1} 0 R` : ''} >>` });
    }
    nodes.push({ num: 10 + depth, body: pageDict(10 + depth - 1, 4, '/MediaBox [0 0 612 792]') });
    return buildPdf([{ objects: nodes }]).bytes;
  }],
  ['a /Prev chain of 20,000 sections pointing at each other in a loop', () => {
    const doc = simpleDoc(['HOSTILE']);
    return buildPdf([{ objects: doc.objects }, { objects: [], prev: 1 }]).bytes;
  }],
];

describe('hostile structure is answered at once, bounded in time and memory', () => {
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
    // Generous bounds for a loaded 2-core machine; the hostile versions took minutes and gigabytes.
    expect(ms, `took ${Math.round(ms)} ms`).toBeLessThan(5_000);
    expect(heapMb).toBeLessThan(512);
  });
});
