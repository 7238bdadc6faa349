/**
 * Filter chains decoded a piece at a time under one byte budget (the
 * watermark's content scan). Each filter's output is checked against qpdf's
 * decoding of the same stream (`--filtered-stream-data`), across piece
 * boundaries; then the budget: bombs made of two Flate layers, of LZW and of
 * RunLength stop at it, quickly and without holding what they claim.
 */
import { execa } from 'execa';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { zeroBomb } from '../../../scripts/hostile-fixtures.mjs';
import { loadPdf } from '../../../src/pdf/document.js';
import { PDFRef, type PDFRawStream } from '../../../src/pdf/model/primitives.js';
import { decodePieces, filterChain, type Filter } from '../../../src/pdf/reader/decode-pieces.js';
import { ContentDepths, MAX_CONTENT_BYTES, MAX_DOCUMENT_CONTENT_BYTES } from '../../../src/pdf/watermark/balance.js';
import { tempFile } from '../../helpers/pdf-tools.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';

const MB = 2 ** 20;

// ---------------------------------------------------------------------------
// Encoders for the test data (qpdf decodes what they make: see the first test)

const asciiHex = (data: Uint8Array) =>
  `${Buffer.from(data)
    .toString('hex')
    .replace(/(.{64})/g, '$1\n')}>`;

function ascii85(data: Uint8Array): string {
  let out = '';
  for (let i = 0; i < data.length; i += 4) {
    const n = Math.min(4, data.length - i);
    let value = 0;
    for (let k = 0; k < 4; k++) value = value * 256 + (k < n ? data[i + k] : 0);
    if (value === 0 && n === 4) {
      out += 'z';
      continue;
    }
    const digits: number[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(value % 85);
      value = Math.floor(value / 85);
    }
    out += String.fromCharCode(...digits.slice(0, n + 1).map((d) => d + 33));
    if (i % 64 === 60) out += '\n';
  }
  return `${out}~>`;
}

function runLength(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < data.length; ) {
    let run = 1;
    while (i + run < data.length && run < 128 && data[i + run] === data[i]) run++;
    if (run >= 3) {
      out.push(257 - run, data[i]);
      i += run;
      continue;
    }
    let literal = 1;
    while (i + literal < data.length && literal < 128 && !(data[i + literal] === data[i + literal + 1] && data[i + literal] === data[i + literal + 2]))
      literal++;
    out.push(literal - 1, ...data.subarray(i, i + literal));
    i += literal;
  }
  out.push(128);
  return Uint8Array.from(out);
}

/** Writes LZW codes at the widths a PDF reader expects (it widens one code after the writer adds an entry). */
function lzwWriter(earlyChange: number) {
  const out: number[] = [];
  let acc = 0;
  let accBits = 0;
  let width = 9;
  let readerNext = 258;
  let first = true;
  const put = (code: number) => {
    acc = (acc << width) | code;
    accBits += width;
    while (accBits >= 8) {
      accBits -= 8;
      out.push((acc >>> accBits) & 0xff);
    }
    acc &= (1 << accBits) - 1;
  };
  return {
    code(code: number) {
      put(code);
      // The reader adds an entry on every code but the first after a clear, then maybe widens.
      if (!first && readerNext < 4096) {
        readerNext++;
        if (readerNext + earlyChange >= 1 << width && width < 12) width++;
      }
      first = false;
    },
    clear() {
      put(256);
      width = 9;
      readerNext = 258;
      first = true;
    },
    end(): Uint8Array {
      put(257);
      if (accBits > 0) out.push((acc << (8 - accBits)) & 0xff);
      return Uint8Array.from(out);
    },
  };
}

function lzw(data: Uint8Array, earlyChange = 1): Uint8Array {
  const writer = lzwWriter(earlyChange);
  writer.clear();
  let table = new Map<string, number>();
  let next = 258;
  const codeOf = (w: string) => (w.length === 1 ? w.charCodeAt(0) : table.get(w)!);
  let w = '';
  for (const byte of data) {
    const wc = w + String.fromCharCode(byte);
    if (w === '' || table.has(wc)) {
      w = wc;
      continue;
    }
    writer.code(codeOf(w));
    if (next < 4000) table.set(wc, next++);
    else {
      writer.clear();
      table = new Map();
      next = 258;
    }
    w = String.fromCharCode(byte);
  }
  if (w) writer.code(codeOf(w));
  return writer.end();
}

/** LZW that claims far more than it holds: codes 0, 258, 259, … each one zero longer than the last, `cycles` times over. */
function lzwBomb(cycles: number): Uint8Array {
  const writer = lzwWriter(1);
  for (let c = 0; c < cycles; c++) {
    writer.clear();
    writer.code(0);
    for (let code = 258; code < 4000; code++) writer.code(code);
  }
  return writer.end();
}

// ---------------------------------------------------------------------------

const bytes = (text: string) => Buffer.from(text, 'latin1');
const content = bytes('q 1 0 0 1 5 5 cm BT /F1 12 Tf (a string with q and Q \\) inside) Tj ET Q\n'.repeat(30_000) + 'q q Q');

/** Encodes `data` for `/Filter [names…]` (the first filter is decoded first, so it is applied last). */
function encode(data: Uint8Array, names: string[]): Uint8Array {
  let out = data;
  for (const name of [...names].reverse()) {
    if (name === 'FlateDecode') out = deflateSync(out);
    else if (name === 'LZWDecode') out = lzw(out);
    else if (name === 'ASCIIHexDecode') out = bytes(asciiHex(out));
    else if (name === 'ASCII85Decode') out = bytes(ascii85(out));
    else if (name === 'RunLengthDecode') out = runLength(out);
  }
  return out;
}

const chainOf = (...names: Array<Filter['name']>): Filter[] => names.map((name) => ({ name, earlyChange: 1 }));

/** All pieces of a decoding joined, with how it ended and how many pieces came. */
function decodeAll(data: Uint8Array, chain: Filter[], budget = MAX_CONTENT_BYTES) {
  const pieces: Buffer[] = [];
  const { ended, made } = decodePieces(data, chain, budget, (piece) => void pieces.push(Buffer.from(piece)));
  return { ended, made, pieces: pieces.length, data: Buffer.concat(pieces) };
}

/** qpdf's decoding of object 5 (the content stream) of a one-page document with `dict` and `data`. */
async function qpdfDecoded(dict: string, data: Uint8Array): Promise<Buffer> {
  const doc = simpleDoc(['X']);
  const objects = doc.objects.map((o) => (o.num === 5 ? { num: 5, body: { dict, stream: Buffer.from(data).toString('latin1') } } : o));
  const file = tempFile(buildPdf([{ objects }]).bytes);
  const run = await execa('qpdf', ['--show-object=5', '--filtered-stream-data', '--decode-level=all', file], { encoding: 'buffer', reject: false });
  expect(run.exitCode, Buffer.from(run.stderr).toString()).toBe(0);
  return Buffer.from(run.stdout);
}

describe('each filter, and chains of them, decoded a piece at a time', () => {
  const cases: Array<Array<Filter['name']>> = [
    ['FlateDecode'],
    ['LZWDecode'],
    ['ASCIIHexDecode'],
    ['ASCII85Decode'],
    ['RunLengthDecode'],
    // A few MB go between the filters: each later filter is fed its input in several pieces.
    ['ASCIIHexDecode', 'FlateDecode'],
    ['ASCII85Decode', 'LZWDecode'],
    ['FlateDecode', 'RunLengthDecode'],
    ['FlateDecode', 'FlateDecode'],
  ];
  it.each(cases.map((names) => [names.join(' '), names]))('%s: what qpdf decodes', async (_, names) => {
    const data = encode(content, names);
    const dict = `/Filter [${names.map((n) => `/${n}`).join(' ')}]`;
    const expected = await qpdfDecoded(dict, data);
    expect(expected.equals(content)).toBe(true);
    const decoded = decodeAll(data, chainOf(...names));
    expect(decoded.ended).toBe('done');
    expect(decoded.data.equals(content)).toBe(true);
    expect(decoded.pieces).toBeGreaterThan(1);
  });

  it('LZW with /EarlyChange 0', async () => {
    const data = lzw(content, 0);
    const expected = await qpdfDecoded('/Filter /LZWDecode /DecodeParms << /EarlyChange 0 >>', data);
    expect(expected.equals(content)).toBe(true);
    expect(decodeAll(data, [{ name: 'LZWDecode', earlyChange: 0 }]).data.equals(content)).toBe(true);
  });

  it('Flate cut off, or damaged halfway, gives what decoded before the break', () => {
    const data = deflateSync(content);
    const half = Math.floor(data.length / 2);
    const cut = decodeAll(data.subarray(0, half), chainOf('FlateDecode'));
    expect(cut.ended).toBe('done');
    expect(cut.data.length).toBeGreaterThan(content.length / 4);
    expect(content.subarray(0, cut.data.length).equals(cut.data)).toBe(true);
    // Bytes that zlib refuses somewhere after the half: everything decoded before them comes out.
    const damaged = Buffer.from(data);
    damaged.fill(0xff, half);
    const broken = decodeAll(damaged, chainOf('FlateDecode'));
    expect(broken.ended).toBe('done');
    expect(broken.data.subarray(0, cut.data.length).equals(cut.data)).toBe(true);
  });

  it('stops when the taker says so', () => {
    let pieces = 0;
    const { ended } = decodePieces(encode(content, ['FlateDecode', 'LZWDecode']), chainOf('FlateDecode', 'LZWDecode'), MAX_CONTENT_BYTES, () => ++pieces < 1);
    expect(ended).toBe('stopped');
    expect(pieces).toBe(1);
  });

  it('a stream decoded after a cut-off, damaged, stopped or over-budget one comes out whole (inflaters are reused)', () => {
    const data = deflateSync(content);
    const damaged = Buffer.from(data);
    damaged.fill(0xff, data.length >> 1);
    const before: Array<() => unknown> = [
      () => decodeAll(data.subarray(0, data.length >> 1), chainOf('FlateDecode')),
      () => decodeAll(damaged, chainOf('FlateDecode')),
      () => decodePieces(encode(content, ['FlateDecode', 'FlateDecode']), chainOf('FlateDecode', 'FlateDecode'), MAX_CONTENT_BYTES, () => false),
      () => expect(decodeAll(data, chainOf('FlateDecode'), 1000).ended).toBe('over budget'),
    ];
    for (const first of before) {
      first();
      const small = decodeAll(deflateSync('q 1 0 0 1 5 5 cm Q'), chainOf('FlateDecode'));
      expect(small.data.toString()).toBe('q 1 0 0 1 5 5 cm Q');
      const again = decodeAll(data, chainOf('FlateDecode'));
      expect(again.ended).toBe('done');
      expect(again.data.equals(content)).toBe(true);
    }
  });

  it('a stream with a larger window than the one before it decodes whole (a reused inflater keeps no window size)', async () => {
    // Writers shrink the window of small streams (zlib header 0x48: 4 KB); the next stream may have the usual 32 KB.
    const small = deflateSync('q 1 0 0 1 5 5 cm', { windowBits: 12 });
    const large = deflateSync(content, { windowBits: 15 });
    expect([small[0], large[0]]).toEqual([0x48, 0x78]);
    expect((await qpdfDecoded('/Filter /FlateDecode', large)).equals(content)).toBe(true);
    for (let round = 0; round < 2; round++) {
      expect(decodeAll(small, chainOf('FlateDecode')).data.toString()).toBe('q 1 0 0 1 5 5 cm');
      const again = decodeAll(large, chainOf('FlateDecode'));
      expect(again.ended).toBe('done');
      expect(again.data.equals(content)).toBe(true);
    }
  });
});

/** Object 5 of a one-page document whose content stream (object 5) has `dict` and `data`. */
function contentStream(dict: string, data: Uint8Array | string = 'q Q') {
  const doc = simpleDoc(['X']);
  const objects = doc.objects.map((o) => (o.num === 5 ? { num: 5, body: { dict, stream: data } } : o));
  const pdf = loadPdf(buildPdf([{ objects }]).bytes);
  return { context: pdf.context, stream: pdf.context.lookup(PDFRef.of(5)) as PDFRawStream };
}

describe('filterChain', () => {
  it.each([
    ['/Filter /FlateDecode', ['FlateDecode']],
    ['/Filter [/Fl /AHx /A85 /LZW /RL]', ['FlateDecode', 'ASCIIHexDecode', 'ASCII85Decode', 'LZWDecode', 'RunLengthDecode']],
    ['', []],
    ['/Filter /DCTDecode', undefined],
    ['/Filter [/FlateDecode /Crypt]', undefined],
    ['/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >>', undefined],
    ['/Filter [/ASCIIHexDecode /LZWDecode] /DecodeParms [null << /EarlyChange 0 >>]', ['ASCIIHexDecode', 'LZWDecode']],
    // Names written with #xx escapes (upper- or lower-case hex) are the same names.
    ['/Filter /Fl#61teDecode', ['FlateDecode']],
    ['/Filter [/F#6cateDecode /#41#48x]', ['FlateDecode', 'ASCIIHexDecode']],
    ['/Filter /FlateDecode /DecodeParms << /Predictor 1 >>', ['FlateDecode']],
  ])('%s', (dict, expected) => {
    const chain = filterChain(contentStream(dict).stream.dict);
    expect(chain?.map((f) => f.name)).toEqual(expected);
    if (dict.includes('EarlyChange 0')) expect(chain![1].earlyChange).toBe(0);
  });
});

describe('data handed over in chunks (a range of a lazily read file)', () => {
  it.each([['FlateDecode'], ['ASCIIHexDecode', 'FlateDecode'], ['LZWDecode'], ['ASCII85Decode'], ['RunLengthDecode']] as Array<Array<Filter['name']>>)(
    '%s: the same bytes as from the data in one piece, whatever the chunks',
    (...names) => {
      const data = encode(content, names);
      const whole = decodeAll(data, chainOf(...names));
      expect(whole.data.equals(Buffer.from(content))).toBe(true);
      for (const size of [1, 4096, 65_537]) {
        const pieces: Buffer[] = [];
        const inChunks = (each: (chunk: Uint8Array) => void) => {
          for (let at = 0; at < data.length; at += size) each(data.subarray(at, at + size));
        };
        const { ended } = decodePieces(inChunks, chainOf(...names), MAX_CONTENT_BYTES, (piece) => void pieces.push(Buffer.from(piece)));
        expect(ended).toBe('done');
        expect(Buffer.concat(pieces).equals(Buffer.from(content)), `chunks of ${size}`).toBe(true);
      }
    },
  );

  it('a bomb in chunks stops at the budget', () => {
    const data = deflateSync(zeroBomb(2048), { level: 9 });
    const inChunks = (each: (chunk: Uint8Array) => void) => {
      for (let at = 0; at < data.length; at += 100) each(data.subarray(at, at + 100));
    };
    const { ended, made } = decodePieces(inChunks, chainOf('FlateDecode', 'FlateDecode'), MAX_CONTENT_BYTES, () => {});
    expect(ended).toBe('over budget');
    expect(made).toBe(MAX_CONTENT_BYTES);
  });
});

describe('the budget holds for every filter of the chain', () => {
  /** Decodes a bomb; it must stop at the budget within a few seconds and a few MB of buffers. */
  function expectStopped(data: Uint8Array, chain: Filter[]) {
    // CPU time, not time on the clock: the bound is on what a bomb costs, which a busy machine does not change.
    const started = process.cpuUsage();
    const before = process.memoryUsage().arrayBuffers;
    let peak = 0;
    const { ended, made } = decodePieces(data, chain, MAX_CONTENT_BYTES, () => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
    });
    expect(ended).toBe('over budget');
    expect(made).toBe(MAX_CONTENT_BYTES);
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000, 'CPU ms').toBeLessThan(10_000);
    // External memory (where the pieces live) stays far below the 128 MB made.
    expect(peak / MB).toBeLessThan(32);
  }

  it('Flate inside Flate: 6 KB that hold 2 MB that hold 2 GiB', () => {
    const data = deflateSync(zeroBomb(2048), { level: 9 });
    expect(data.length).toBeLessThan(8 * 1024);
    expectStopped(data, chainOf('FlateDecode', 'FlateDecode'));
  });

  it('LZW: 6 KB of codes that claim 7 MB, forty times over', () => {
    const data = lzwBomb(40);
    expect(data.length).toBeLessThan(300 * 1024);
    expectStopped(data, chainOf('LZWDecode'));
  });

  it('RunLength inside Flate: runs of 128 zeros, 640 MB of them', () => {
    const runs = Buffer.alloc(10 * MB);
    for (let i = 0; i < runs.length; i += 2) runs[i] = 129;
    expectStopped(deflateSync(runs), chainOf('FlateDecode', 'RunLengthDecode'));
  });

  it('a document of many bombs: the scans of one document stop at its own budget', () => {
    const bomb = deflateSync(zeroBomb(2048), { level: 9 });
    const pages = 8;
    const doc = simpleDoc(Array.from({ length: pages }, (_, i) => `PAGE ${i + 1}`));
    const objects = doc.objects.map((o) =>
      doc.contents.includes(o.num) ? { num: o.num, body: { dict: '/Filter [/FlateDecode /FlateDecode]', stream: bomb } } : o,
    );
    const pdf = loadPdf(buildPdf([{ objects }]).bytes);
    const depths = new ContentDepths(pages);
    for (const num of doc.contents) expect(depths.of(pdf.context, [PDFRef.of(num)])).toEqual({ min: 0, end: 0, unclosed: '' });
    // Eight bombs at 128 MB each would be 1 GiB; the document stops at its 512 MB.
    expect(pages * MAX_CONTENT_BYTES).toBeGreaterThan(MAX_DOCUMENT_CONTENT_BYTES);
    expect(depths.spent).toBe(MAX_DOCUMENT_CONTENT_BYTES);
  });
});
