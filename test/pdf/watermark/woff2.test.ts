/**
 * The WOFF2-to-sfnt decoder, judged by fontkit's own WOFF2 reader: every
 * glyph of a slice has the same outline and advance (at the default instance
 * and at the Bold one drawn), and the same character map. Malformed files
 * (truncated, lying lengths and counts, damaged Brotli or glyf streams) are
 * refused with a Woff2Error, never another exception or a hang.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import fontkit from '@cantoo/fontkit';
import { describe, expect, it } from 'vitest';
import { isWoff2, Woff2Error, woff2ToSfnt } from '../../../src/pdf/watermark/woff2.js';

function slice(pkg: string, index: number): Buffer {
  const dir = join(dirname(createRequire(import.meta.url).resolve(`${pkg}/index.css`)), 'files');
  const file = readdirSync(dir).find((name) => name.endsWith(`-${index}-wght-normal.woff2`))!;
  return readFileSync(join(dir, file));
}

interface Font {
  numGlyphs: number;
  characterSet: number[];
  getGlyph(id: number): { path: { toSVG(): string }; advanceWidth: number };
  glyphForCodePoint(cp: number): { id: number };
  getVariation(settings: Record<string, number>): Font;
}
const read = (bytes: Uint8Array) => fontkit.create(bytes as Buffer) as unknown as Font;

/** Every glyph's outline and advance, and every character's glyph. */
function fingerprint(font: Font): { glyphs: string[]; cmap: number[] } {
  const glyphs = Array.from({ length: font.numGlyphs }, (_, id) => {
    const glyph = font.getGlyph(id);
    return `${glyph.advanceWidth} ${glyph.path.toSVG()}`;
  });
  return { glyphs, cmap: font.characterSet.map((cp) => font.glyphForCodePoint(cp).id) };
}

// The WOFF2 file's parts, to write damaged or re-transformed ones (WOFF2, 5.1).
interface Entry {
  flags: number;
  tag: string;
  origLength: number;
  transformLength?: number;
}
function base128(value: number): number[] {
  const bytes = [value & 0x7f];
  for (value = Math.floor(value / 128); value > 0; value = Math.floor(value / 128)) bytes.unshift(0x80 | (value & 0x7f));
  return bytes;
}
function parse(file: Buffer): { entries: Entry[]; inflated: Buffer } {
  let at = 48;
  const readBase128 = () => {
    let value = 0;
    for (;;) {
      const byte = file[at++];
      value = value * 128 + (byte & 0x7f);
      if (!(byte & 0x80)) return value;
    }
  };
  const entries: Entry[] = [];
  for (let i = 0; i < file.readUInt16BE(12); i++) {
    const flags = file[at++];
    const tag = (flags & 0x3f) === 0x3f ? file.toString('latin1', at, (at += 4)) : `#${flags & 0x3f}`;
    const origLength = readBase128();
    const transformed = (flags & 0x3f) === 10 || (flags & 0x3f) === 11 ? flags >> 6 === 0 : flags >> 6 !== 0;
    entries.push({ flags, tag, origLength, transformLength: transformed ? readBase128() : undefined });
  }
  return { entries, inflated: brotliDecompressSync(file.subarray(at, at + file.readUInt32BE(20))) };
}
function write(entries: Entry[], inflated: Uint8Array): Buffer {
  const directory = entries.flatMap((e) => [
    e.flags,
    ...((e.flags & 0x3f) === 0x3f ? [...Buffer.from(e.tag, 'latin1')] : []),
    ...base128(e.origLength),
    ...(e.transformLength === undefined ? [] : base128(e.transformLength)),
  ]);
  const compressed = brotliCompressSync(inflated, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
  const header = Buffer.alloc(48);
  header.write('wOF2', 0, 'latin1');
  header.writeUInt32BE(0x00010000, 4);
  header.writeUInt32BE(48 + directory.length + compressed.length, 8);
  header.writeUInt16BE(entries.length, 12);
  header.writeUInt32BE(compressed.length, 20);
  return Buffer.concat([header, Buffer.from(directory), compressed]);
}
/** The inflated stream's tables, each at its offset. */
function tables(entries: Entry[], inflated: Buffer): Map<number, Buffer> {
  const found = new Map<number, Buffer>();
  let at = 0;
  entries.forEach((e, i) => {
    const length = e.transformLength ?? e.origLength;
    found.set(i, inflated.subarray(at, (at += length)));
  });
  return found;
}

/** An sfnt's table by tag. */
function sfntTable(sfnt: Uint8Array, tag: string): Buffer {
  const file = Buffer.from(sfnt.buffer, sfnt.byteOffset, sfnt.byteLength);
  for (let i = 0; i < file.readUInt16BE(4); i++) {
    if (file.toString('latin1', 12 + 16 * i, 16 + 16 * i) === tag) {
      const offset = file.readUInt32BE(20 + 16 * i);
      return file.subarray(offset, offset + file.readUInt32BE(24 + 16 * i));
    }
  }
  throw new Error(`no ${tag}`);
}
const refused = (bytes: Uint8Array) => expect(() => woff2ToSfnt(bytes)).toThrow(Woff2Error);

const SC = slice('@fontsource-variable/noto-sans-sc', 119);
const KR = slice('@fontsource-variable/noto-sans-kr', 119);

describe('woff2ToSfnt', () => {
  it.each([
    ['Noto Sans SC', SC],
    ['Noto Sans KR', KR],
  ])('%s: every glyph of a slice as fontkit reads the WOFF2, at the default and the Bold instance', (_, woff2) => {
    expect(isWoff2(woff2)).toBe(true);
    const sfnt = woff2ToSfnt(woff2);
    expect(isWoff2(sfnt)).toBe(false);
    const [theirs, ours] = [read(woff2), read(sfnt)];
    expect(ours.numGlyphs).toBeGreaterThan(100);
    expect(fingerprint(ours)).toEqual(fingerprint(theirs));
    expect(fingerprint(ours.getVariation({ wght: 700 }))).toEqual(fingerprint(theirs.getVariation({ wght: 700 })));
  });

  it('writes a valid sfnt: whole-file checksum, tables in tag order, loca ending at glyf', () => {
    const sfnt = Buffer.from(woff2ToSfnt(SC));
    let sum = 0;
    for (let i = 0; i < sfnt.length; i += 4) sum = (sum + sfnt.readUInt32BE(i)) >>> 0;
    expect(sum).toBe(0xb1b0afba);
    const count = sfnt.readUInt16BE(4);
    const directory = Array.from({ length: count }, (_, i) => ({
      tag: sfnt.toString('latin1', 12 + 16 * i, 16 + 16 * i),
      offset: sfnt.readUInt32BE(20 + 16 * i),
      length: sfnt.readUInt32BE(24 + 16 * i),
    }));
    expect(directory.map((d) => d.tag)).toEqual(directory.map((d) => d.tag).sort());
    const table = (tag: string) => directory.find((d) => d.tag === tag)!;
    const longLoca = sfnt.readInt16BE(table('head').offset + 50) === 1;
    const loca = table('loca');
    const last = longLoca ? sfnt.readUInt32BE(loca.offset + loca.length - 4) : 2 * sfnt.readUInt16BE(loca.offset + loca.length - 2);
    expect(last).toBe(table('glyf').length);
  });

  it("undoes the hmtx transform: left side bearings left out are the glyphs' xMin", () => {
    const { entries, inflated } = parse(SC);
    const parts = tables(entries, inflated);
    const sfnt = woff2ToSfnt(SC);
    const [hhea, maxp, hmtx] = ['hhea', 'maxp', 'hmtx'].map((tag) => sfntTable(sfnt, tag));
    const [numberOfHMetrics, numGlyphs] = [hhea.readUInt16BE(34), maxp.readUInt16BE(4)];
    // Noto's bearings are the glyphs' xMin: only the advances are kept (flag 1, and 2 for the monospaced glyphs' bearings).
    const advances = Buffer.alloc(1 + 2 * numberOfHMetrics);
    advances[0] = 3;
    for (let i = 0; i < numberOfHMetrics; i++) advances.writeUInt16BE(hmtx.readUInt16BE(4 * i), 1 + 2 * i);
    const hmtxAt = entries.findIndex((e) => e.flags === 3);
    const transformed = entries.map((e, i) => (i === hmtxAt ? { ...e, flags: 3 | (1 << 6), transformLength: advances.length } : e));
    const rebuilt = woff2ToSfnt(write(transformed, Buffer.concat(entries.map((_, i) => (i === hmtxAt ? advances : parts.get(i)!)))));
    expect(numGlyphs).toBeGreaterThan(numberOfHMetrics - 1);
    expect(sfntTable(rebuilt, 'hmtx')).toEqual(hmtx);
    // Its flags must leave something out, and it must not be shorter than its advances.
    const noFlags = Buffer.from(advances);
    noFlags[0] = 0;
    refused(write(transformed, Buffer.concat(entries.map((_, i) => (i === hmtxAt ? noFlags : parts.get(i)!)))));
    const short = advances.subarray(0, advances.length - 1);
    const shortEntries = transformed.map((e, i) => (i === hmtxAt ? { ...e, transformLength: short.length } : e));
    refused(write(shortEntries, Buffer.concat(entries.map((_, i) => (i === hmtxAt ? short : parts.get(i)!)))));
  });

  it('re-written with the same tables, a file decodes as the original (the test writer is sound)', () => {
    const { entries, inflated } = parse(SC);
    expect(Buffer.from(woff2ToSfnt(write(entries, inflated)))).toEqual(Buffer.from(woff2ToSfnt(SC)));
  });

  describe('refuses a malformed file with a Woff2Error', () => {
    it('truncated anywhere', () => {
      for (let length = 0; length < SC.length; length += 97) refused(SC.subarray(0, length));
      refused(SC.subarray(0, SC.length - 1));
    });

    it('header and directory that lie', () => {
      const damaged = (edit: (file: Buffer) => void) => {
        const file = Buffer.from(SC);
        edit(file);
        return file;
      };
      refused(damaged((f) => f.write('wOFF', 0, 'latin1')));
      refused(damaged((f) => f.write('ttcf', 4, 'latin1')));
      refused(damaged((f) => f.writeUInt32BE(f.length + 1, 8)));
      refused(damaged((f) => f.writeUInt16BE(0, 12)));
      refused(damaged((f) => f.writeUInt16BE(0xffff, 12)));
      refused(damaged((f) => f.writeUInt32BE(f.readUInt32BE(20) + 1, 20)));
      refused(damaged((f) => f.writeUInt32BE(0xffffffff, 20)));
      refused(damaged((f) => f.fill(0x55, f.length - 200)));
      const { entries, inflated } = parse(SC);
      const lengthened = entries.map((e, i) => (i === 0 ? { ...e, origLength: e.origLength + 1 } : e));
      refused(write(lengthened, inflated));
      const huge = entries.map((e, i) => (i === 0 ? { ...e, origLength: 0xffffffff } : e));
      refused(write(huge, inflated));
      const glyfAt = entries.findIndex((e) => (e.flags & 0x3f) === 10);
      refused(
        write(
          entries.map((e, i) => (i === glyfAt ? { ...e, flags: 10 | (3 << 6), transformLength: undefined } : e)),
          inflated,
        ),
      );
      refused(
        write(
          entries.map((e, i) => (i === glyfAt ? { ...e, flags: 10 | (1 << 6) } : e)),
          inflated,
        ),
      );
      // A UIntBase128 with a leading zero byte.
      const directory = write(entries, inflated);
      const first = 48 + 1 + base128(entries[0].origLength).length;
      refused(Buffer.concat([directory.subarray(0, 49), Buffer.from([0x80]), directory.subarray(49, first), directory.subarray(first)]));
    });

    it('a transformed glyf whose counts and stream sizes lie', () => {
      const { entries, inflated } = parse(SC);
      const parts = tables(entries, inflated);
      const glyfAt = entries.findIndex((e) => (e.flags & 0x3f) === 10);
      const withGlyf = (edit: (glyf: Buffer) => void) => {
        const glyf = Buffer.from(parts.get(glyfAt)!);
        edit(glyf);
        return write(entries, Buffer.concat(entries.map((_, i) => (i === glyfAt ? glyf : parts.get(i)!))));
      };
      refused(withGlyf((g) => g.writeUInt16BE(g.readUInt16BE(4) + 1, 4))); // numGlyphs
      refused(withGlyf((g) => g.writeUInt16BE(0xffff, 4)));
      refused(withGlyf((g) => g.writeUInt16BE(1 - g.readUInt16BE(6), 6))); // indexFormat against head's
      for (let stream = 0; stream < 7; stream++) {
        refused(withGlyf((g) => g.writeUInt32BE(g.readUInt32BE(8 + 4 * stream) + 1, 8 + 4 * stream)));
        refused(withGlyf((g) => g.writeUInt32BE(0xffffffff, 8 + 4 * stream)));
      }
      refused(withGlyf((g) => g.writeUInt16BE(1, 2))); // an overlap bitmap the table has no room for
      // Glyph 0 with 4 contours of 0xFDFD points (255UInt16 code 253, then 253 253): more than the 65535 a glyph can have.
      refused(
        withGlyf((g) => {
          g.writeInt16BE(4, 36);
          g.fill(253, 36 + g.readUInt32BE(8), 36 + g.readUInt32BE(8) + 12);
        }),
      );
    });

    it('damaged glyf streams and Brotli data: decoded or refused, never another error', () => {
      const { entries, inflated } = parse(SC);
      const parts = tables(entries, inflated);
      const glyfAt = entries.findIndex((e) => (e.flags & 0x3f) === 10);
      let seed = 22;
      const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      for (let round = 0; round < 60; round++) {
        const glyf = Buffer.from(parts.get(glyfAt)!);
        for (let k = 0; k < 8; k++) glyf[36 + random(glyf.length - 36)] = random(256);
        const file = write(entries, Buffer.concat(entries.map((_, i) => (i === glyfAt ? glyf : parts.get(i)!))));
        try {
          woff2ToSfnt(file);
        } catch (error) {
          expect(error).toBeInstanceOf(Woff2Error);
        }
      }
      for (let round = 0; round < 20; round++) {
        const file = Buffer.from(SC);
        file[file.length - 1 - random(file.readUInt32BE(20))] ^= 1 + random(255);
        try {
          woff2ToSfnt(file);
        } catch (error) {
          expect(error).toBeInstanceOf(Woff2Error);
        }
      }
    });
  });
});
