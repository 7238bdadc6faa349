/**
 * A WOFF2 font file as the TrueType (sfnt) font it was made from (W3C WOFF2,
 * section 5), for fontkit to read as any .ttf: the table data inflated by
 * Node's native Brotli (fontkit's own WOFF2 reader uses a JavaScript one,
 * most of a CJK watermark's time), the glyf/loca and hmtx transforms undone.
 *
 * Every length and count is checked against the bytes it is read from: a
 * malformed file is refused with a Woff2Error, never read past its end.
 */
import { brotliDecompressSync } from 'node:zlib';
import { sfnt } from './glyf-subset.js';

export class Woff2Error extends Error {
  constructor(detail: string) {
    super(`malformed WOFF2 font: ${detail}`);
    this.name = 'Woff2Error';
  }
}

export function isWoff2(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x77 && bytes[1] === 0x4f && bytes[2] === 0x46 && bytes[3] === 0x32; // wOF2
}

/** The tags a directory entry names by a 6-bit index (WOFF2, 5.1, Known Table Tags). */
const KNOWN_TAGS = [
  'cmap',
  'head',
  'hhea',
  'hmtx',
  'maxp',
  'name',
  'OS/2',
  'post',
  'cvt ',
  'fpgm',
  'glyf',
  'loca',
  'prep',
  'CFF ',
  'VORG',
  'EBDT',
  'EBLC',
  'gasp',
  'hdmx',
  'kern',
  'LTSH',
  'PCLT',
  'VDMX',
  'vhea',
  'vmtx',
  'BASE',
  'GDEF',
  'GPOS',
  'GSUB',
  'EBSC',
  'JSTF',
  'MATH',
  'CBDT',
  'CBLC',
  'COLR',
  'CPAL',
  'SVG ',
  'sbix',
  'acnt',
  'avar',
  'bdat',
  'bloc',
  'bsln',
  'cvar',
  'fdsc',
  'feat',
  'fmtx',
  'fvar',
  'gvar',
  'hsty',
  'just',
  'lcar',
  'mort',
  'morx',
  'opbd',
  'prop',
  'trak',
  'Zapf',
  'Silf',
  'Glat',
  'Gloc',
  'Feat',
  'Sill',
];

const TTCF = 0x74746366;
/** Brotli's output is bounded by the tables' declared sizes; this bounds those (a bomb is refused before inflating). */
const MAX_SFNT_SIZE = 256 * 1024 * 1024;

/** Big-endian reads from a slice of bytes, each checked against its end. */
class Reader {
  private readonly view: DataView;
  at = 0;
  constructor(
    readonly bytes: Uint8Array,
    private readonly what: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(size: number): number {
    const at = this.at;
    if (size > this.bytes.length - at) throw new Woff2Error(`${this.what} ends early`);
    this.at = at + size;
    return at;
  }
  u8(): number {
    return this.bytes[this.need(1)];
  }
  u16(): number {
    return this.view.getUint16(this.need(2));
  }
  i16(): number {
    return this.view.getInt16(this.need(2));
  }
  u32(): number {
    return this.view.getUint32(this.need(4));
  }
  take(size: number): Uint8Array {
    const at = this.need(size);
    return this.bytes.subarray(at, at + size);
  }
  /** UIntBase128 (5.1): at most 5 bytes, no leading zero byte, within 32 bits. */
  base128(): number {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      const byte = this.u8();
      if (i === 0 && byte === 0x80) throw new Woff2Error('a UIntBase128 has a leading zero');
      if (value > 0x1ffffff) throw new Woff2Error('a UIntBase128 exceeds 32 bits');
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) return value;
    }
    throw new Woff2Error('a UIntBase128 is longer than 5 bytes');
  }
  /** 255UInt16 (6.1.1). */
  u255(): number {
    const code = this.u8();
    if (code === 253) return this.u16();
    if (code === 255) return 253 + this.u8();
    if (code === 254) return 2 * 253 + this.u8();
    return code;
  }
}

interface TableEntry {
  tag: string;
  origLength: number;
  /** The length of its data in the inflated stream: its transformLength when transformed. */
  length: number;
  transformed: boolean;
}

/** The sfnt font of a WOFF2 file. */
export function woff2ToSfnt(bytes: Uint8Array): Uint8Array {
  const file = new Reader(bytes, 'the file');
  if (file.u32() !== 0x774f4632) throw new Woff2Error('no wOF2 signature');
  const flavor = file.u32();
  if (flavor === TTCF) throw new Woff2Error('a font collection (not supported)');
  const length = file.u32();
  const numTables = file.u16();
  file.u16(); // reserved
  file.u32(); // totalSfntSize: a hint only
  const totalCompressedSize = file.u32();
  file.take(24); // version, metadata and private blocks: not part of the font
  if (length !== bytes.length) throw new Woff2Error(`its header says ${length} bytes, the file has ${bytes.length}`);
  if (numTables === 0) throw new Woff2Error('no tables');

  const entries: TableEntry[] = [];
  let inflatedSize = 0;
  for (let i = 0; i < numTables; i++) {
    const flags = file.u8();
    const tag = (flags & 0x3f) === 0x3f ? String.fromCharCode(...file.take(4)) : KNOWN_TAGS[flags & 0x3f];
    const version = flags >> 6;
    const origLength = file.base128();
    // glyf and loca are transformed at version 0 (3 is the null transform), any other table at a version above 0.
    const glyfOrLoca = tag === 'glyf' || tag === 'loca';
    if (glyfOrLoca ? version !== 0 && version !== 3 : version !== 0 && !(tag === 'hmtx' && version === 1)) {
      throw new Woff2Error(`table ${tag} has unknown transform version ${version}`);
    }
    const transformed = glyfOrLoca ? version === 0 : version !== 0;
    const length = transformed ? file.base128() : origLength;
    if (entries.some((e) => e.tag === tag)) throw new Woff2Error(`table ${tag} is listed twice`);
    entries.push({ tag, origLength, length, transformed });
    inflatedSize += length;
    if (inflatedSize > MAX_SFNT_SIZE || origLength > MAX_SFNT_SIZE) throw new Woff2Error('tables larger than 256 MiB');
  }
  const byTag = new Map(entries.map((e) => [e.tag, e]));
  const glyf = byTag.get('glyf');
  const loca = byTag.get('loca');
  if (!!glyf !== !!loca || (glyf && glyf.transformed !== loca!.transformed)) throw new Woff2Error('glyf and loca are not transformed alike');
  if (loca?.transformed && loca.length !== 0) throw new Woff2Error('a transformed loca has data');
  if (byTag.get('hmtx')?.transformed && !glyf?.transformed) throw new Woff2Error('hmtx is transformed without glyf');

  const compressed = file.take(totalCompressedSize);
  let inflated: Uint8Array;
  try {
    inflated = brotliDecompressSync(compressed, { maxOutputLength: Math.max(1, inflatedSize) });
  } catch {
    throw new Woff2Error('its Brotli data do not inflate to the tables it lists');
  }
  if (inflated.length !== inflatedSize) throw new Woff2Error(`its tables inflate to ${inflated.length} bytes, not ${inflatedSize}`);

  const data = new Map<string, Uint8Array>();
  let at = 0;
  for (const entry of entries) {
    data.set(entry.tag, inflated.subarray(at, at + entry.length));
    at += entry.length;
  }
  const tables: Record<string, Uint8Array> = {};
  for (const entry of entries) if (!entry.transformed) tables[entry.tag] = data.get(entry.tag)!;
  if (glyf?.transformed) {
    const head = tables.head;
    if (!head || head.length < 54) throw new Woff2Error('no head table for the glyf transform');
    const rebuilt = reconstructGlyf(data.get('glyf')!, new DataView(head.buffer, head.byteOffset).getInt16(50));
    if (rebuilt.loca.length !== loca!.origLength) throw new Woff2Error(`loca should be ${loca!.origLength} bytes, not ${rebuilt.loca.length}`);
    tables.glyf = rebuilt.glyf;
    tables.loca = rebuilt.loca;
    const hmtx = byTag.get('hmtx');
    if (hmtx?.transformed) tables.hmtx = reconstructHmtx(data.get('hmtx')!, hmtx.origLength, tables.hhea, rebuilt.xMins);
  }
  return sfnt(tables, flavor);
}

interface Glyf {
  glyf: Uint8Array;
  loca: Uint8Array;
  /** Each glyph's xMin (0 for an empty glyph), for a transformed hmtx's left side bearings. */
  xMins: Int16Array;
}

/** The glyf and loca tables from a transformed glyf (5.2, 5.3); `indexToLocFormat` is head's, which must be the transform's. */
function reconstructGlyf(table: Uint8Array, indexToLocFormat: number): Glyf {
  const header = new Reader(table, 'the transformed glyf table');
  header.u16(); // reserved
  const optionFlags = header.u16();
  const numGlyphs = header.u16();
  const indexFormat = header.u16();
  if (indexFormat !== indexToLocFormat) throw new Woff2Error(`the glyf transform's indexFormat ${indexFormat} is not head's ${indexToLocFormat}`);
  const sizes = Array.from({ length: 7 }, () => header.u32());
  const [nContourStream, nPointsStream, flagStream, glyphStream, compositeStream, bboxStream, instructionStream] = sizes.map(
    (size) => new Reader(header.take(size), 'the transformed glyf table'),
  );
  const overlapBitmap = optionFlags & 1 ? header.take((numGlyphs + 7) >> 3) : undefined;
  const bboxBitmap = bboxStream.take(4 * ((numGlyphs + 31) >> 5));
  const hasBit = (bitmap: Uint8Array, glyph: number) => (bitmap[glyph >> 3] & (0x80 >> (glyph & 7))) !== 0;

  // Each glyph at most: header, instruction length and 3 bytes of padding; 2 bytes a contour end, 5 a point.
  const bound = 15 * numGlyphs + 2 * sizes[1] + 5 * sizes[2] + sizes[4] + sizes[6];
  const out = new Uint8Array(bound);
  const view = new DataView(out.buffer);
  const offsets = new Uint32Array(numGlyphs + 1);
  const xMins = new Int16Array(numGlyphs);
  let at = 0;
  // A glyph has at most as many points as the flag stream has bytes.
  const maxPoints = Math.min(sizes[2], 0xffff);
  const points: Points = { dx: new Int32Array(maxPoints), dy: new Int32Array(maxPoints), flags: new Uint8Array(maxPoints), xMin: 0, yMin: 0, xMax: 0, yMax: 0 };
  for (let glyph = 0; glyph < numGlyphs; glyph++) {
    offsets[glyph] = at;
    const nContours = nContourStream.i16();
    const explicitBbox = hasBit(bboxBitmap, glyph);
    if (nContours === 0) {
      if (explicitBbox) throw new Woff2Error(`empty glyph ${glyph} has a bounding box`);
      continue;
    }
    const start = at;
    view.setInt16(at, nContours);
    at += 10; // bounding box written below
    let xMin: number, yMin: number, xMax: number, yMax: number;
    if (nContours > 0) {
      let count = 0;
      for (let c = 0; c < nContours; c++) {
        count += nPointsStream.u255();
        if (count > 0xffff) throw new Woff2Error(`glyph ${glyph} has more than 65535 points`);
        view.setUint16(at, count - 1);
        at += 2;
      }
      const pointFlags = flagStream.take(count);
      decodeTriplets(pointFlags, glyphStream, points, glyph);
      const instructionLength = glyphStream.u255();
      view.setUint16(at, instructionLength);
      out.set(instructionStream.take(instructionLength), at + 2);
      at = writePoints(out, at + 2 + instructionLength, pointFlags, points, !!overlapBitmap && hasBit(overlapBitmap, glyph));
      ({ xMin, yMin, xMax, yMax } = points);
    } else {
      if (!explicitBbox) throw new Woff2Error(`composite glyph ${glyph} has no bounding box`);
      const composite = compositeData(compositeStream, glyph);
      out.set(composite.bytes, at);
      at += composite.bytes.length;
      if (composite.instructions) {
        const instructionLength = glyphStream.u255();
        view.setUint16(at, instructionLength);
        out.set(instructionStream.take(instructionLength), at + 2);
        at += 2 + instructionLength;
      }
      xMin = yMin = xMax = yMax = 0;
    }
    if (explicitBbox) {
      xMin = bboxStream.i16();
      yMin = bboxStream.i16();
      xMax = bboxStream.i16();
      yMax = bboxStream.i16();
    }
    view.setInt16(start + 2, xMin);
    view.setInt16(start + 4, yMin);
    view.setInt16(start + 6, xMax);
    view.setInt16(start + 8, yMax);
    xMins[glyph] = xMin;
    at += (4 - (at % 4)) % 4;
  }
  offsets[numGlyphs] = at;

  const loca = new Uint8Array((numGlyphs + 1) * (indexFormat ? 4 : 2));
  const locaView = new DataView(loca.buffer);
  for (let i = 0; i <= numGlyphs; i++) {
    if (indexFormat) locaView.setUint32(4 * i, offsets[i]);
    else if (offsets[i] > 0x1fffe) throw new Woff2Error('glyphs too large for a short loca');
    else locaView.setUint16(2 * i, offsets[i] / 2);
  }
  return { glyf: out.subarray(0, at), loca, xMins };
}

/** A simple glyph's points as decoded: each one's delta from the last, its TrueType flag, and their bounding box. */
interface Points {
  dx: Int32Array;
  dy: Int32Array;
  flags: Uint8Array;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/**
 * A simple glyph's points from its WOFF2 flags and the glyph stream's triplets (5.2, Triplet Encoding).
 * The stream is read by index (this runs for every point, mostly before the JIT has compiled it): a
 * read past its end gives undefined, and the glyph is refused once its reads are done.
 */
function decodeTriplets(woffFlags: Uint8Array, glyphs: Reader, points: Points, glyph: number): void {
  const bytes = glyphs.bytes;
  const { dx: dxs, dy: dys } = points;
  let at = glyphs.at;
  let x = 0;
  let y = 0;
  let xMin = 0x7fff;
  let yMin = 0x7fff;
  let xMax = -0x8000;
  let yMax = -0x8000;
  for (let i = 0; i < woffFlags.length; i++) {
    const flag = woffFlags[i] & 0x7f;
    let dx: number, dy: number;
    if (flag < 10) {
      dx = 0;
      dy = ((flag & 14) << 7) + bytes[at++];
    } else if (flag < 20) {
      dx = (((flag - 10) & 14) << 7) + bytes[at++];
      dy = 0;
    } else if (flag < 84) {
      const b0 = flag - 20;
      const b1 = bytes[at++];
      dx = 1 + (b0 & 0x30) + (b1 >> 4);
      dy = 1 + ((b0 & 0x0c) << 2) + (b1 & 0x0f);
    } else if (flag < 120) {
      const b0 = flag - 84;
      dx = 1 + (((b0 / 12) | 0) << 8) + bytes[at++];
      dy = 1 + (((b0 % 12) >> 2) << 8) + bytes[at++];
    } else if (flag < 124) {
      const b1 = bytes[at++];
      const b2 = bytes[at++];
      dx = (b1 << 4) + (b2 >> 4);
      dy = ((b2 & 0x0f) << 8) + bytes[at++];
    } else {
      dx = (bytes[at] << 8) | bytes[at + 1];
      dy = (bytes[at + 2] << 8) | bytes[at + 3];
      at += 4;
    }
    // Bit 0 of the flag is the sign of x, bit 1 that of y (set: positive); below 20 the one moving coordinate uses bit 0.
    if (flag < 10) dy = flag & 1 ? dy : -dy;
    else if (flag < 20) dx = flag & 1 ? dx : -dx;
    else {
      dx = flag & 1 ? dx : -dx;
      dy = flag & 2 ? dy : -dy;
    }
    x += dx;
    y += dy;
    // glyf stores each coordinate as a 16-bit delta from the last.
    if (dx < -0x8000 || dx > 0x7fff || dy < -0x8000 || dy > 0x7fff || x < -0x8000 || x > 0x7fff || y < -0x8000 || y > 0x7fff) {
      throw new Woff2Error(`glyph ${glyph} has a point beyond 16 bits`);
    }
    dxs[i] = dx;
    dys[i] = dy;
    if (x < xMin) xMin = x;
    if (x > xMax) xMax = x;
    if (y < yMin) yMin = y;
    if (y > yMax) yMax = y;
  }
  if (at > bytes.length) throw new Woff2Error('the transformed glyf table ends early');
  glyphs.at = at;
  if (woffFlags.length === 0) xMin = yMin = xMax = yMax = 0;
  points.xMin = xMin;
  points.yMin = yMin;
  points.xMax = xMax;
  points.yMax = yMax;
}

const ON_CURVE = 0x01;
const X_SHORT = 0x02;
const Y_SHORT = 0x04;
const REPEAT = 0x08;
const X_SAME_OR_POSITIVE = 0x10;
const Y_SAME_OR_POSITIVE = 0x20;
const OVERLAP_SIMPLE = 0x40;

/** A simple glyph's flags and coordinates as TrueType stores them (short and repeated forms), at `at` in `out`; returns the end. */
function writePoints(out: Uint8Array, at: number, woffFlags: Uint8Array, points: Points, overlap: boolean): number {
  const { dx: dxs, dy: dys, flags } = points;
  const count = woffFlags.length;
  let xSize = 0;
  for (let i = 0; i < count; i++) {
    let flag = woffFlags[i] & 0x80 ? 0 : ON_CURVE;
    const dx = dxs[i];
    const dy = dys[i];
    if (dx === 0) flag |= X_SAME_OR_POSITIVE;
    else if (dx > -256 && dx < 256) {
      flag |= X_SHORT | (dx > 0 ? X_SAME_OR_POSITIVE : 0);
      xSize += 1;
    } else xSize += 2;
    if (dy === 0) flag |= Y_SAME_OR_POSITIVE;
    else if (dy > -256 && dy < 256) flag |= Y_SHORT | (dy > 0 ? Y_SAME_OR_POSITIVE : 0);
    flags[i] = flag;
  }
  if (overlap && count > 0) flags[0] |= OVERLAP_SIMPLE;
  let repeat = 0;
  let lastFlagAt = 0;
  for (let i = 0; i < count; i++) {
    if (i > 0 && flags[i] === flags[i - 1] && repeat < 255) {
      if (repeat === 0) {
        out[lastFlagAt] |= REPEAT;
        at += 1;
      }
      out[lastFlagAt + 1] = ++repeat;
    } else {
      lastFlagAt = at;
      out[at++] = flags[i];
      repeat = 0;
    }
  }
  let xAt = at;
  let yAt = at + xSize;
  for (let i = 0; i < count; i++) {
    const flag = flags[i];
    const dx = dxs[i];
    const dy = dys[i];
    if (flag & X_SHORT) out[xAt++] = dx < 0 ? -dx : dx;
    else if (dx !== 0) {
      out[xAt++] = dx >> 8;
      out[xAt++] = dx;
    }
    if (flag & Y_SHORT) out[yAt++] = dy < 0 ? -dy : dy;
    else if (dy !== 0) {
      out[yAt++] = dy >> 8;
      out[yAt++] = dy;
    }
  }
  return yAt;
}

const ARG_1_AND_2_ARE_WORDS = 0x0001;
const WE_HAVE_A_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
const WE_HAVE_A_TWO_BY_TWO = 0x0080;
const WE_HAVE_INSTRUCTIONS = 0x0100;

/** A composite glyph's component records, as stored in glyf, and whether it has instructions. */
function compositeData(stream: Reader, glyph: number): { bytes: Uint8Array; instructions: boolean } {
  const start = stream.at;
  let flags: number;
  let instructions = false;
  do {
    flags = stream.u16();
    instructions ||= (flags & WE_HAVE_INSTRUCTIONS) !== 0;
    const size =
      2 + // glyphIndex
      (flags & ARG_1_AND_2_ARE_WORDS ? 4 : 2) +
      (flags & WE_HAVE_A_SCALE ? 2 : flags & WE_HAVE_AN_X_AND_Y_SCALE ? 4 : flags & WE_HAVE_A_TWO_BY_TWO ? 8 : 0);
    stream.take(size);
  } while (flags & MORE_COMPONENTS);
  if (stream.at === start) throw new Woff2Error(`composite glyph ${glyph} has no components`);
  return { bytes: stream.bytes.subarray(start, stream.at), instructions };
}

/** The hmtx table from its transform (5.4): left side bearings left out are the glyphs' xMin. */
function reconstructHmtx(table: Uint8Array, origLength: number, hhea: Uint8Array | undefined, xMins: Int16Array): Uint8Array {
  if (!hhea || hhea.length < 36) throw new Woff2Error('no hhea table for the hmtx transform');
  const numberOfHMetrics = new DataView(hhea.buffer, hhea.byteOffset).getUint16(34);
  const numGlyphs = xMins.length;
  if (numberOfHMetrics === 0 || numberOfHMetrics > numGlyphs) throw new Woff2Error(`hhea's numberOfHMetrics ${numberOfHMetrics} with ${numGlyphs} glyphs`);
  const stream = new Reader(table, 'the transformed hmtx table');
  const flags = stream.u8();
  if (flags & 0xfc || (flags & 3) === 0) throw new Woff2Error(`the hmtx transform has flags ${flags}`);
  const advances = stream.take(2 * numberOfHMetrics);
  const size = 4 * numberOfHMetrics + 2 * (numGlyphs - numberOfHMetrics);
  if (size !== origLength) throw new Woff2Error(`hmtx should be ${origLength} bytes, not ${size}`);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  for (let i = 0; i < numberOfHMetrics; i++) {
    out.set(advances.subarray(2 * i, 2 * i + 2), 4 * i);
    view.setInt16(4 * i + 2, flags & 1 ? xMins[i] : stream.i16());
  }
  for (let i = numberOfHMetrics; i < numGlyphs; i++) {
    view.setInt16(4 * numberOfHMetrics + 2 * (i - numberOfHMetrics), flags & 2 ? xMins[i] : stream.i16());
  }
  return out;
}
