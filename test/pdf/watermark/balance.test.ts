/**
 * How page content leaves the graphics state and its own syntax open, which
 * decides what a watermark drawn after it must close first: unbalanced `q`/`Q`,
 * and (damaged content, seen in real files) an array, dictionary, string or
 * inline image cut off at the end, which would swallow the watermark.
 */
import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { addImageWatermark, addTextWatermark } from '../../../src/index.js';
import { deflateSync } from 'node:zlib';
import { zeroBomb } from '../../../scripts/hostile-fixtures.mjs';
import { decodedDepth, DepthScan, graphicsDepth, MAX_CONTENT_BYTES, quickDepth } from '../../../src/pdf/watermark/balance.js';
import { pageTexts, qpdfCheck, tempFile } from '../../helpers/pdf-tools.js';
import { openLazyFile } from '../../../src/core/lazy-file.js';
import { findPixels, makePng, reddish, renderPage } from '../../helpers/render.js';
import fc from 'fast-check';
import { OracleScan } from './depth-scan-oracle.js';
import { DEPTH_SCAN_WASM } from '../../../src/pdf/watermark/depth-scan-wasm.js';
import { depthScanBase64 } from '../../../scripts/make-depth-scan.mjs';

const depth = (content: string) => graphicsDepth(new TextEncoder().encode(content));
const flateDepth = (data: Uint8Array) => decodedDepth(data, [FLATE]).depth;
const FLATE = { name: 'FlateDecode', earlyChange: 1 } as const;

describe('graphicsDepth', () => {
  it.each([
    ['q 1 0 0 1 5 5 cm Q', { min: 0, end: 0, unclosed: '' }],
    ['q q 2 0 0 2 0 0 cm', { min: 0, end: 2, unclosed: '' }],
    ['Q q', { min: -1, end: 0, unclosed: '' }],
    ['BT [(a) 10 (b)] TJ ET /P << /MCID 0 >> BDC EMC', { min: 0, end: 0, unclosed: '' }],
    ['(q Q \\) q) Tj % q q q', { min: 0, end: 0, unclosed: '' }],
    ['BT (Potato) Tj ET [ /oops', { min: 0, end: 0, unclosed: ']' }],
    ['[ 1 << /A [ 2', { min: 0, end: 0, unclosed: '] >> ]' }],
    ['BT (never (closed) Tj ET', { min: 0, end: 0, unclosed: ')' }],
    ['BT <4142 Tj', { min: 0, end: 0, unclosed: '>' }],
    ['BI /W 1 /H 1 /BPC 8 /CS /G ID \x00\x01 q', { min: 0, end: 0, unclosed: '\nEI' }],
    ['BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI q', { min: 0, end: 1, unclosed: '' }],
    // Image bytes that look like the end but are not (`E` alone, `EI` glued to data or followed by more): q and Q in them do not count.
    ['BI /W 9 /H 1 /BPC 8 /CS /G ID E Q\x00xEI Q EIQ q EI\x01 EIx Q EI Q', { min: -1, end: -1, unclosed: '' }],
    // An operator after an unclosed `[`: readers recover there, so nothing is left open.
    ['[ 1 2 q 0 0 m', { min: 0, end: 1, unclosed: '' }],
    // q, Q and I inside longer tokens (names, unknown operators, numbers glued to them) are not operators.
    ['xq qx /Fq /Q Iq qI 2q QQ Q2 BI1 q', { min: 0, end: 1, unclosed: '' }],
    // Right after a delimiter they are.
    ['(a)q [1]Q <41>q<<>>Q{q}Q', { min: 0, end: 0, unclosed: '' }],
  ])('%j', (content, expected) => {
    expect(depth(content)).toEqual(expected);
    // Fed in two pieces, split anywhere (a Flate stream is scanned as it inflates), the answer is the same.
    const bytes = new TextEncoder().encode(content);
    for (let at = 0; at <= bytes.length; at++) {
      const scan = new DepthScan();
      scan.push(bytes.subarray(0, at));
      scan.push(bytes.subarray(at));
      expect(scan.result(), `split at ${at}`).toEqual(expected);
    }
  });
});

/** DepthScan's answer for `content` (Latin-1), fed whole. */
function scanned(content: string): { min: number; end: number; unclosed: string } {
  const scan = new DepthScan();
  scan.push(Buffer.from(content, 'latin1'));
  return scan.result();
}

describe('quickDepth (regular expressions first, DepthScan for what they are not sure of)', () => {
  it.each([
    ['q 1 0 0 1 5 5 cm Q', { min: 0, end: 0, unclosed: '' }],
    ['Q q q', { min: -1, end: 1, unclosed: '' }],
    ['BT [(a q) -10 (b\\) Q)] TJ ET /P << /MCID 0 /Q [1 2] >> BDC EMC q', { min: 0, end: 1, unclosed: '' }],
    ['(a)q [1]Q <41>q<<>>Q /Nq xq qx Q2', { min: 0, end: 0, unclosed: '' }],
    ['<<<41>>> q', { min: 0, end: 1, unclosed: '' }],
    ['[ 1 2 q 0 0 m ]', { min: 0, end: 1, unclosed: '' }],
  ])('gives what DepthScan gives for plain content: %j', (content, expected) => {
    expect(quickDepth(content)).toEqual(expected);
    expect(scanned(content)).toEqual(expected);
  });

  it.each([
    'q % Q\n',
    'BI /W 1 /H 1 ID \x00 Q EI q',
    'q (nested (string) Q) Q',
    'q (cut off',
    'q <41 zz> Q',
    'q [ 1 2',
    '{ q } Q',
    'q BIx Q',
    '[ 1 Tf ] ] [ 2 [',
  ])('leaves to DepthScan what it is not sure of: %j', (content) => {
    expect(quickDepth(content)).toBeUndefined();
  });

  it('never answers otherwise than DepthScan (random token soup)', () => {
    const parts = [
      'q',
      'Q',
      ' ',
      ' ',
      '\n',
      '\x00',
      '(',
      ')',
      '\\',
      '<',
      '>',
      '<<',
      '>>',
      '[',
      ']',
      '{',
      '}',
      '/N',
      '/',
      '%',
      'ID',
      'BI',
      'EI',
      'I',
      'x',
      '1',
      '-2.5',
      'true',
      'Tf',
      '<41>',
      '(a q)',
      '\r',
    ];
    let seed = 22;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let answered = 0;
    for (let run = 0; run < 20_000; run++) {
      let content = '';
      for (let length = 1 + random(24); length > 0; length--) content += parts[random(parts.length)];
      const quick = quickDepth(content);
      if (quick === undefined) continue;
      answered++;
      expect(quick, JSON.stringify(content)).toEqual(scanned(content));
    }
    // Most random soups have something only the scan knows; enough of them do not.
    expect(answered).toBeGreaterThan(1_000);
  });
});

describe('DepthScan across pieces', () => {
  // A piece that ends inside a comment, string, hex string, inline image or long token is consumed whole: only its
  // state goes on to the next piece, not its bytes (a page's content without a line break after a `%` was carried,
  // and copied, to its end: megabytes).
  it.each([
    ['q % a comment that goes on', ' Q\nQ', { min: 0, end: 0, unclosed: '' }],
    ['q (a string (nested) q Q \\', ') Q) Q', { min: 0, end: 0, unclosed: '' }],
    ['q <4142 Q', '43> Q', { min: 0, end: 0, unclosed: '' }],
    ['q BI /W 1 /H 1 ID \x00 Q E', 'I Q', { min: 0, end: 0, unclosed: '' }],
    ['q BI /W 1 /H 1 ID \x00 Q EI', ' Q', { min: 0, end: 0, unclosed: '' }],
    ['q BI /W 1 /H 1 ID \x00 Q EI', 'x Q EI Q', { min: 0, end: 0, unclosed: '' }],
    ['q /AVeryLongNameIndeed', 'Q Q', { min: 0, end: 0, unclosed: '' }],
    ['q [ 1 anoperatorthatgoes', 'on q', { min: 0, end: 2, unclosed: '' }],
  ])('%j then %j', (first, second, expected) => {
    const scan = new DepthScan();
    scan.push(Buffer.from(first, 'latin1'));
    scan.push(Buffer.from(second, 'latin1'));
    expect(scan.result()).toEqual(expected);
  });

  it.each([
    ['q 1 0 0 1 0 0 cm Q', 'x', { min: 0, end: 1, unclosed: '' }],
    ['q 1 0 0 1 0 0 cm Q', '', { min: 0, end: 0, unclosed: '' }],
    ['q [ 1 tr', 'ue', { min: 0, end: 1, unclosed: ']' }],
    ['q [ 1 tr', 'uex', { min: 0, end: 1, unclosed: '' }],
    ['q BI /W 1 I', 'D \x00 Q EI Q', { min: 0, end: 0, unclosed: '' }],
  ])('a short token cut at the end goes on in the next piece: %j then %j', (first, second, expected) => {
    const scan = new DepthScan();
    scan.push(Buffer.from(first, 'latin1'));
    scan.push(Buffer.from(second, 'latin1'));
    expect(scan.result()).toEqual(expected);
  });
});

/** The scan of `content` given in pieces cut at `cuts`. */
function scannedInPieces(content: Uint8Array, cuts: number[]): { min: number; end: number; unclosed: string } {
  const scan = new DepthScan();
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    scan.push(content.subarray(from, cut));
    from = cut;
  }
  scan.push(content.subarray(from));
  return scan.result();
}

/** The JavaScript scan's answer (the oracle), fed whole. */
function oracle(content: Uint8Array): { min: number; end: number; unclosed: string } {
  const scan = new OracleScan();
  scan.feed(content, true);
  return scan.result();
}

describe('the WebAssembly scan (depth-scan.wat)', () => {
  it('is what depth-scan.wat assembles to (node scripts/make-depth-scan.mjs)', async () => {
    expect(DEPTH_SCAN_WASM).toBe(await depthScanBase64());
  });

  // Tokens of every kind the scan knows, glued or spaced, and stray bytes: strings with nesting and escapes, hex
  // strings, comments, names, inline images, arrays and dictionaries, long tokens, across piece boundaries anywhere.
  const parts = [
    'q',
    'Q',
    ' ',
    '\n',
    '\r',
    '\x00',
    '\t',
    '(',
    ')',
    '\\',
    '<',
    '>',
    '<<',
    '>>',
    '[',
    ']',
    '{',
    '}',
    '/N',
    '/',
    '%',
    'ID',
    'BI',
    'EI',
    'E',
    'I',
    'x',
    '1',
    '-2.5',
    '.5',
    '+3',
    'true',
    'false',
    'null',
    'fals',
    'Tf',
    'TJ',
    'cm',
    '<41>',
    '(a q)',
    'averylongoperator',
    '/AVeryLongName',
    '\xff',
    '\x80',
    'qQ',
    'Iq',
    ' ID ',
    ' EI',
    ' EI ',
    ' E',
    '\nEI\n',
  ];
  const content = fc
    .array(
      fc.oneof(
        fc.constantFrom(...parts),
        fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1')),
      ),
      { maxLength: 120 },
    )
    .map((tokens) => Buffer.from(tokens.join(''), 'latin1'));

  it('answers as the JavaScript scan on random content in random pieces', () => {
    fc.assert(
      fc.property(content, fc.array(fc.nat(), { maxLength: 8 }), (bytes, cuts) => {
        const expected = oracle(bytes);
        expect(scannedInPieces(bytes, [])).toEqual(expected);
        expect(
          scannedInPieces(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          ),
        ).toEqual(expected);
      }),
      { numRuns: 20_000, seed: 22 },
    );
  });

  it('answers as the JavaScript scan cut at every byte', () => {
    fc.assert(
      fc.property(content, (bytes) => {
        const expected = oracle(bytes);
        for (let at = 0; at <= bytes.length; at++) expect(scannedInPieces(bytes, [at]), `cut at ${at}`).toEqual(expected);
      }),
      { numRuns: 500, seed: 22 },
    );
  });

  it('answers as the JavaScript scan on random Flate content, inflated into its memory a room at a time', () => {
    fc.assert(
      fc.property(fc.array(content, { minLength: 1 }), fc.integer({ min: 1, max: 600_000 }), fc.boolean(), (contents, size, quick) => {
        // Up to 600 KB of the contents in random order: several of the scan's 64 KB pieces, cut anywhere, and past the
        // 256 KB the quick look gathers.
        const parts: Uint8Array[] = [];
        let seed = size;
        for (let length = 0; length < size; ) {
          seed = (seed * 1103515245 + 12345) % 2 ** 31;
          const part = contents[seed % contents.length];
          parts.push(part, Buffer.from(' '));
          length += part.length + 1;
        }
        const whole = Buffer.concat(parts);
        expect(decodedDepth(deflateSync(whole), [FLATE], MAX_CONTENT_BYTES, quick).depth).toEqual(oracle(whole));
      }),
      { numRuns: 100, seed: 22 },
    );
  });

  it('follows more open arrays and dictionaries than its first memory holds (it grows)', () => {
    const bytes = Buffer.from(`q ${'[ << '.repeat(50_000)}>> ] 1`, 'latin1');
    expect(scannedInPieces(bytes, [1000, 300_000])).toEqual(oracle(bytes));
  });

  it('refuses a second scan begun before the first ended (the module holds one at a time)', () => {
    const first = new DepthScan();
    new DepthScan();
    expect(() => first.push(Buffer.from('q'))).toThrow(/another scan/);
  });
});

describe('Flate content, scanned as it inflates', () => {
  it('gives the depth of the whole, with tokens, strings and inline images across piece boundaries', () => {
    const unit = 'q 1 0 0 1 5 5 cm (a string with q and Q \\) inside) Tj BI /W 2 /H 1 /BPC 8 /CS /G ID \x00\xff EI [1 2 3] TJ % q q\n';
    const content = Buffer.from(`${unit.repeat(20_000)}q q Q [ (never closed`, 'latin1');
    // 2.3 MB: inflated in three 1 MB pieces, each cut somewhere inside a token.
    const data = deflateSync(content);
    expect(content.length).toBeGreaterThan(2 * 2 ** 20);
    expect(flateDepth(data)).toEqual(graphicsDepth(content));
    expect(flateDepth(data)).toEqual({ min: 0, end: 20_001, unclosed: ')]' });
  });

  it('a bomb (1 MB that inflates to 1 GiB) is taken as balanced, quickly and without holding it', () => {
    const started = performance.now();
    const before = process.memoryUsage().arrayBuffers;
    expect(flateDepth(zeroBomb(1024))).toEqual({ min: 0, end: 0, unclosed: '' });
    expect(performance.now() - started).toBeLessThan(5_000);
    // External memory (where zlib's output lives) stays far below the 128 MB it inflates before giving up.
    expect((process.memoryUsage().arrayBuffers - before) / 2 ** 20).toBeLessThan(64);
  });
});

/** One page whose content ends inside an array (as qpdf's content-stream-errors.pdf does). */
async function cutOffPage(tail: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([400, 400]);
  page.node.setFontDictionary(PDFName.of('F1'), font.ref);
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream(`BT /F1 24 Tf 72 300 Td (Potato) Tj ET\n${tail}`)));
  return doc.save({ useObjectStreams: false });
}

describe('a page that leaves a q open, with a comment and a string across the 1 MB pieces it inflates in', () => {
  // Read from a file as the command line does, the stream is inflated as its chunks are read (not copied whole first).
  it.each(['in memory', 'in a lazily read file'])('gets the mark in default user space, at its true size (%s)', async (where) => {
    // A cm that shrinks 5 times, then a q left open; then a comment and a string of 1.2 MB each, full of q and Q that do
    // not count (one Q too many counted and the wrap would close one fewer: the mark drawn through the cm).
    const content = `0.2 0 0 0.2 0 0 cm q\n% ${'Q '.repeat(600_000)}\n/Span << /ActualText (${'Q \\) (q Q) '.repeat(100_000)}) >> BDC EMC\n0 0 1 rg 0 0 100 100 re f\n`;
    const doc = await PDFDocument.create();
    const page = doc.addPage([400, 400]);
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(content)));
    const saved = await doc.save({ useObjectStreams: false });
    const file = where === 'in memory' ? saved : openLazyFile(tempFile(saved))!.bytes;
    const out = await addTextWatermark({ file, line_1: 'STAMPED', transparency: 0, color: '#ff0000', rotation: 0, font_size: 40 });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    const raster = await renderPage(out, 1, 72);
    const box = findPixels(raster, reddish);
    expect(box).not.toBeNull();
    // STAMPED in Helvetica-Bold at 40 pt is about 180 pt wide, centred: drawn through the page's cm it would be 36.
    expect(box!.x1 - box!.x0).toBeGreaterThan(160);
    expect(Math.abs(box!.x0 + box!.x1 - raster.width)).toBeLessThan(6);
  });
});

describe('content streams read from their input bytes or parsed', () => {
  // A plain dictionary (/Length and /Filter /FlateDecode, or /Length alone) is read from the input's bytes without
  // parsing it; anything else (a filter chain, another key) is parsed. Either way the q the page leaves open is found.
  const content = '0.2 0 0 0.2 0 0 cm q 0 0 1 rg 0 0 100 100 re f\n';
  const hex = Buffer.from(content).toString('hex');
  it.each([
    ['<< /Length N /Filter /FlateDecode >>', deflateSync(content), { Filter: 'FlateDecode' }],
    ['<< /Length N >>', Buffer.from(content), {}],
    ['<< /Filter [/ASCIIHexDecode /FlateDecode] >>', Buffer.from(`${deflateSync(content).toString('hex')}>`), { Filter: ['ASCIIHexDecode', 'FlateDecode'] }],
    ['<< /Filter /ASCIIHexDecode /Foo 1 >>', Buffer.from(`${hex}>`), { Filter: 'ASCIIHexDecode', Foo: 1 }],
  ])('%s: the mark at its true size', async (_, data, dict) => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([400, 400]);
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream(data, dict)));
    const file = await doc.save({ useObjectStreams: false });
    const out = await addTextWatermark({ file, line_1: 'STAMPED', transparency: 0, color: '#ff0000', rotation: 0, font_size: 40 });
    const raster = await renderPage(out, 1, 72);
    const box = findPixels(raster, reddish);
    expect(box).not.toBeNull();
    expect(box!.x1 - box!.x0).toBeGreaterThan(160);
  });

  it('<< /Length N >> read from a lazily read file (copied into the scratch buffer made on first use): the mark at its true size', async () => {
    const doc = await PDFDocument.create();
    for (let i = 0; i < 2; i++) doc.addPage([400, 400]).node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream(content)));
    const file = openLazyFile(tempFile(await doc.save({ useObjectStreams: false })))!.bytes;
    const out = await addTextWatermark({ file, line_1: 'STAMPED', transparency: 0, color: '#ff0000', rotation: 0, font_size: 40 });
    // Both pages: the second reuses the buffer the first made.
    for (const page of [1, 2]) {
      const box = findPixels(await renderPage(out, page, 72), reddish);
      expect(box).not.toBeNull();
      expect(box!.x1 - box!.x0).toBeGreaterThan(160);
    }
  });
});

describe('a large input: its content scanned by the module from the first stream', () => {
  // From 16 MiB of input no stream goes through the quick look (ContentDepths); the depths must be the same.
  it('a page leaving a q open in a 17 MB document: the mark at its true size', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([400, 400]);
    const content = 'q 0.2 0 0 0.2 0 0 cm (a string with q and Q in it) Tj q 0 0 1 rg 0 0 100 100 re f Q\n';
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(content)));
    // Weight nothing refers to: the input's size is what counts.
    doc.context.register(doc.context.stream(Buffer.alloc(17 * 2 ** 20, 32)));
    const file = await doc.save({ useObjectStreams: false });
    expect(file.byteLength).toBeGreaterThan(16 * 2 ** 20);
    const out = await addTextWatermark({ file, line_1: 'STAMPED', transparency: 0, color: '#ff0000', rotation: 0, font_size: 40 });
    const raster = await renderPage(out, 1, 72);
    const box = findPixels(raster, reddish);
    expect(box).not.toBeNull();
    expect(box!.x1 - box!.x0).toBeGreaterThan(160);
  });
});

describe('a watermark after content cut off in the middle of a construct', () => {
  it.each(['[ /oops', '<< /Open [ 1', '(never closed'])('text watermark after %j is drawn and extracted', async (tail) => {
    const out = await addTextWatermark({ file: await cutOffPage(tail), line_1: 'STAMPED', transparency: 0, color: '#ff0000' });
    expect((await qpdfCheck(out)).exitCode).not.toBe(2);
    const [text] = await pageTexts(out);
    expect(text).toContain('STAMPED');
    const raster = await renderPage(out, 1, 20);
    expect(findPixels(raster, reddish)).not.toBeNull();
  });

  it('image watermark after an inline image without EI is drawn', async () => {
    const out = await addImageWatermark({
      file: await cutOffPage('BI /W 1 /H 1 /BPC 8 /CS /G ID \x7f'),
      image: makePng(40, 20, () => [255, 0, 0, 255]),
      transparency: 0,
    });
    const raster = await renderPage(out, 1, 20);
    expect(findPixels(raster, reddish)).not.toBeNull();
  });
});
