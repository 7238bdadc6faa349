/**
 * zlib through Node's binding (src/core/zlib-native.ts) against node:zlib
 * itself: the same bytes out, the same failures, and node:zlib (with Node's
 * streams) never loaded by a run that inflates and deflates.
 */
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nodeZlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deflateSync, inflateRawSync, inflateSized, inflateSync, Z_SYNC_FLUSH } from '../../src/core/zlib-native.js';
import { buildPdf, simpleDoc } from '../helpers/raw-pdf.js';

/** Text that compresses (a page's content, many times over) and bytes that do not, of sizes around node:zlib's 16 KB chunk. */
const inputs = [
  Buffer.alloc(0),
  Buffer.from('q 1 0 0 1 72 720 cm BT /F1 12 Tf (Hello) Tj ET Q\n'),
  Buffer.from('0 0 m 100 100 l S\n'.repeat(40_000)),
  randomBytes(16 * 1024),
  randomBytes(70_000),
];

/** What a call threw, as its code and message. */
function failure(run: () => unknown): { code?: string; message: string } | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    return { code: (err as NodeJS.ErrnoException).code, message: (err as Error).message };
  }
}

describe('zlib through the binding', () => {
  it('deflates to the bytes node:zlib makes, at every level asked', () => {
    for (const input of inputs) {
      for (const level of [undefined, 1, 6, 9]) {
        const options = level === undefined ? {} : { level };
        const ours = deflateSync(input, options);
        expect(Buffer.compare(ours, nodeZlib.deflateSync(input, options)), `${input.length} bytes, level ${level}`).toBe(0);
        expect(Buffer.compare(nodeZlib.inflateSync(ours), input)).toBe(0);
      }
    }
  });

  it('inflates what node:zlib inflates, whole, raw, or cut off with a sync flush', () => {
    for (const input of inputs) {
      const deflated = nodeZlib.deflateSync(input);
      expect(Buffer.compare(inflateSync(deflated), input)).toBe(0);
      expect(Buffer.compare(inflateRawSync(nodeZlib.deflateRawSync(input)), input)).toBe(0);
      const cut = deflated.subarray(0, Math.floor(deflated.length / 2));
      const options = { finishFlush: Z_SYNC_FLUSH };
      expect(Buffer.compare(inflateSync(cut, options), nodeZlib.inflateSync(cut, options)), `${input.length} bytes cut`).toBe(0);
    }
  });

  it('fails as node:zlib does: damage, data cut off, and output past maxOutputLength', () => {
    const deflated = nodeZlib.deflateSync(inputs[2]);
    const damaged = Buffer.from(deflated);
    damaged[0] = 0x79;
    const corrupt = Buffer.from(deflated);
    corrupt.fill(0xff, 10, 40);
    const cases: Array<[string, (zlib: typeof nodeZlib) => unknown]> = [
      ['a bad header', (zlib) => zlib.inflateSync(damaged)],
      ['bad data', (zlib) => zlib.inflateSync(corrupt)],
      ['data cut off', (zlib) => zlib.inflateSync(deflated.subarray(0, 100))],
      ['too much output', (zlib) => zlib.inflateSync(deflated, { maxOutputLength: 1000 })],
      // Past the first 256 KB, where the output goes on in pieces.
      ['too much output, found in a later piece', (zlib) => zlib.inflateSync(deflated, { maxOutputLength: 400_000 })],
      ['a raw stream cut off', (zlib) => zlib.inflateRawSync(nodeZlib.deflateRawSync(inputs[2]).subarray(0, 50))],
    ];
    const ours = { inflateSync, inflateRawSync } as unknown as typeof nodeZlib;
    for (const [what, run] of cases) {
      const expected = failure(() => run(nodeZlib));
      expect(expected, what).toBeDefined();
      expect(
        failure(() => run(ours)),
        what,
      ).toEqual(expected);
    }
  });

  it('gives each call output of its own: a later call leaves an earlier one as it was', () => {
    const outputs = inputs.map((input) => inflateSync(nodeZlib.deflateSync(input)));
    const deflated = inputs.map((input) => deflateSync(input));
    inputs.forEach((input, i) => {
      expect(Buffer.compare(outputs[i], input), `${input.length} bytes inflated`).toBe(0);
      expect(Buffer.compare(deflated[i], nodeZlib.deflateSync(input)), `${input.length} bytes deflated`).toBe(0);
    });
  });

  it('inflates into one buffer of a known most as node:zlib does with that maxOutputLength: the bytes, and the failures', () => {
    for (const input of inputs) {
      const deflated = nodeZlib.deflateSync(input);
      const cut = deflated.subarray(0, Math.floor(deflated.length / 2));
      const damaged = Buffer.from(deflated);
      damaged.fill(0xff, 2, Math.min(damaged.length, 40));
      const cases: Array<[string, Buffer, number, number | undefined]> = [
        ['exactly its size', deflated, input.length, undefined],
        ['room to spare', deflated, input.length + 1000, undefined],
        ['one byte short', deflated, input.length - 1, undefined],
        ['cut off, sync flush', cut, input.length, Z_SYNC_FLUSH],
        ['cut off', cut, input.length, undefined],
        ['damaged', damaged, input.length, undefined],
      ];
      for (const [what, data, size, finishFlush] of cases) {
        // node:zlib takes a maxOutputLength of 1 or more.
        if (size < 1) continue;
        const options = { maxOutputLength: size, ...(finishFlush === undefined ? {} : { finishFlush }) };
        const label = `${input.length} bytes, ${what}`;
        let expected: Buffer | undefined;
        const expectedFailure = failure(() => (expected = nodeZlib.inflateSync(data, options)));
        let ours: Buffer | undefined;
        expect(
          failure(() => (ours = inflateSized(data, size, finishFlush))),
          label,
        ).toEqual(expectedFailure);
        if (expected) expect(Buffer.compare(ours as unknown as Buffer, expected), label).toBe(0);
      }
    }
  });

  it('lets a watermark run inflate and deflate without loading node:zlib', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-zlib-'));
    try {
      const input = join(dir, 'in.pdf');
      writeFileSync(input, buildPdf([simpleDoc(['one', 'two'])]).bytes);
      const preload = join(dir, 'modules.cjs');
      writeFileSync(preload, "process.on('exit', () => process.stderr.write(JSON.stringify(process.moduleLoadList)));");
      const bin = new URL('../../bin/pdfsvc.js', import.meta.url).pathname;
      const { stderr } = await execa('node', ['-r', preload, bin, 'add-text-watermark', '--line-1', 'DRAFT', input, '-o', join(dir, 'out.pdf')]);
      const loaded = JSON.parse(stderr) as string[];
      // The run inflated the font's metrics and deflated the mark's form, through the binding.
      expect(loaded).toContain('Internal Binding zlib');
      expect(loaded).not.toContain('NativeModule zlib');
      const { stdout } = await execa('pdftotext', [join(dir, 'out.pdf'), '-']);
      expect(stdout).toContain('DRAFT');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
