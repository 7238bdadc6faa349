/**
 * A TrueType subset written from glyph outlines, for fonts fontkit cannot
 * subset itself: WOFF2 files whose glyf table is stored transformed (no loca
 * to copy glyphs from), and instances of a variable font (fontkit's encoder
 * for varied outlines fails under restructure 3). The outlines are fontkit's,
 * at the font's instance; hinting is dropped (a watermark is drawn large).
 *
 * It has the tables a PDF's FontFile2 needs (ISO 32000-1, 9.9): head, hhea,
 * maxp, hmtx, loca, glyf; the PDF font maps codes to glyphs itself.
 */
import type { FontkitFont, FontkitGlyph } from './fonts.js';

export interface OutlineGlyph extends FontkitGlyph {
  path: { commands: Array<{ command: string; args: number[] }> };
}

export interface OutlineFont extends FontkitFont {
  ascent: number;
  descent: number;
  lineGap: number;
  getGlyph(id: number): OutlineGlyph;
}

interface Outline {
  contours: Array<Array<{ x: number; y: number; on: boolean }>>;
  bbox: [number, number, number, number];
}

/** What pdf-lib's CustomFontSubsetEmbedder asks of a fontkit subset. */
export class GlyfSubset {
  private readonly ids: number[] = [];
  private readonly index = new Map<number, number>();

  constructor(private readonly font: OutlineFont) {
    this.includeGlyph(0); // .notdef is glyph 0 of every TrueType font
  }

  includeGlyph(glyph: number | { id: number }): number {
    const id = typeof glyph === 'number' ? glyph : glyph.id;
    let at = this.index.get(id);
    if (at === undefined) {
      at = this.ids.length;
      this.ids.push(id);
      this.index.set(id, at);
    }
    return at;
  }

  encode(): Uint8Array {
    const glyphs = this.ids.map((id) => this.font.getGlyph(id));
    const outlines = glyphs.map((g) => outline(g));
    const glyf = outlines.map(encodeGlyph);
    const loca: number[] = [0];
    for (const g of glyf) loca.push(loca[loca.length - 1] + g.length);
    const inked = outlines.filter((o) => o.contours.length > 0);
    const bbox = inked.length
      ? inked.map((o) => o.bbox).reduce((a, b) => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])])
      : [0, 0, 0, 0];
    const advances = glyphs.map((g) => Math.round(g.advanceWidth));
    const head = new Table(54)
      .u32(0x00010000)
      .u32(0x00010000)
      .u32(0) // checkSumAdjustment, set below
      .u32(0x5f0f3cf5)
      .u16(0b11) // baseline at y = 0, left side bearing at x = 0
      .u16(this.font.unitsPerEm)
      .u32(0)
      .u32(0)
      .u32(0)
      .u32(0) // created, modified: none, so outputs are reproducible
      .i16(bbox[0])
      .i16(bbox[1])
      .i16(bbox[2])
      .i16(bbox[3])
      .u16(0)
      .u16(8)
      .i16(2)
      .i16(1) // long loca offsets
      .i16(0);
    const hhea = new Table(36)
      .u32(0x00010000)
      .i16(Math.round(this.font.ascent))
      .i16(Math.round(this.font.descent))
      .i16(Math.round(this.font.lineGap))
      .u16(Math.max(...advances))
      .i16(Math.min(0, ...outlines.map((o) => o.bbox[0])))
      .i16(Math.min(0, ...outlines.map((o, i) => advances[i] - o.bbox[2])))
      .i16(Math.max(0, ...outlines.map((o) => o.bbox[2])))
      .i16(1)
      .i16(0)
      .i16(0)
      .u32(0)
      .u32(0)
      .i16(0)
      .u16(glyphs.length);
    const points = outlines.map((o) => o.contours.reduce((n, c) => n + c.length, 0));
    const maxp = new Table(32)
      .u32(0x00010000)
      .u16(glyphs.length)
      .u16(Math.max(...points))
      .u16(Math.max(...outlines.map((o) => o.contours.length)))
      .u16(0)
      .u16(0)
      .u16(2)
      .u16(0)
      .u16(0)
      .u16(0)
      .u16(0)
      .u16(0)
      .u16(0)
      .u16(0)
      .u16(0);
    const hmtx = new Table(4 * glyphs.length);
    outlines.forEach((o, i) => hmtx.u16(advances[i]).i16(o.contours.length ? o.bbox[0] : 0));
    const locaTable = new Table(4 * loca.length);
    for (const offset of loca) locaTable.u32(offset);
    const glyfTable = new Uint8Array(loca[loca.length - 1]);
    glyf.forEach((g, i) => glyfTable.set(g, loca[i]));
    return sfnt({ glyf: glyfTable, head: head.bytes, hhea: hhea.bytes, hmtx: hmtx.bytes, loca: locaTable.bytes, maxp: maxp.bytes });
  }
}

/** The glyph's contours from its path (fontkit's outline at the instance), on the integer grid. */
function outline(glyph: OutlineGlyph): Outline {
  const contours: Outline['contours'] = [];
  let contour: Outline['contours'][number] = [];
  const add = (x: number, y: number, on: boolean) => contour.push({ x: Math.round(x), y: Math.round(y), on });
  for (const { command, args } of glyph.path.commands) {
    if (command === 'moveTo') {
      contour = [];
      contours.push(contour);
      add(args[0], args[1], true);
    } else if (command === 'lineTo') add(args[0], args[1], true);
    else if (command === 'quadraticCurveTo') {
      add(args[0], args[1], false);
      add(args[2], args[3], true);
    } else if (command === 'closePath') {
      // The path returns to its start; TrueType closes a contour by itself.
      const [first, last] = [contour[0], contour[contour.length - 1]];
      if (contour.length > 1 && last.on && last.x === first.x && last.y === first.y) contour.pop();
    } else throw new Error(`unexpected outline command ${command} in a TrueType glyph`);
  }
  const kept = contours.filter((c) => c.length > 0);
  const all = kept.flat();
  const bbox: Outline['bbox'] = all.length
    ? [Math.min(...all.map((p) => p.x)), Math.min(...all.map((p) => p.y)), Math.max(...all.map((p) => p.x)), Math.max(...all.map((p) => p.y))]
    : [0, 0, 0, 0];
  return { contours: kept, bbox };
}

/** A simple glyph (OpenType glyf table): every coordinate as a 16-bit delta, no instructions. */
function encodeGlyph({ contours, bbox }: Outline): Uint8Array {
  if (contours.length === 0) return new Uint8Array(0);
  const points = contours.flat();
  const size = 10 + 2 * contours.length + 2 + points.length * 5;
  const table = new Table(size + ((4 - (size % 4)) % 4));
  table.i16(contours.length).i16(bbox[0]).i16(bbox[1]).i16(bbox[2]).i16(bbox[3]);
  let end = -1;
  for (const c of contours) table.u16((end += c.length));
  table.u16(0);
  for (const p of points) table.u8(p.on ? 1 : 0);
  let last = 0;
  for (const p of points) table.i16(p.x - last), (last = p.x);
  last = 0;
  for (const p of points) table.i16(p.y - last), (last = p.y);
  return table.bytes;
}

class Table {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private at = 0;
  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }
  u8(value: number): this {
    this.view.setUint8(this.at, value);
    this.at += 1;
    return this;
  }
  u16(value: number): this {
    this.view.setUint16(this.at, value);
    this.at += 2;
    return this;
  }
  i16(value: number): this {
    this.view.setInt16(this.at, value);
    this.at += 2;
    return this;
  }
  u32(value: number): this {
    this.view.setUint32(this.at, value >>> 0);
    this.at += 4;
    return this;
  }
}

/** The sum of `bytes` as 32-bit words; its length a multiple of 4 (tables are padded in the file). */
function checksum(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let sum = 0;
  for (let i = 0; i < bytes.length; i += 4) sum = (sum + view.getUint32(i)) >>> 0;
  return sum;
}

/**
 * The font file: table directory (tags in order), then each table on a 4-byte boundary; head's checkSumAdjustment set.
 * `flavor` is its sfnt version (0x00010000 for TrueType outlines, 'OTTO' for CFF).
 */
export function sfnt(tables: Record<string, Uint8Array>, flavor = 0x00010000): Uint8Array {
  const tags = Object.keys(tables).sort();
  const entrySelector = Math.floor(Math.log2(tags.length));
  const searchRange = 16 * 2 ** entrySelector;
  const offsets: number[] = [];
  let size = 12 + 16 * tags.length;
  for (const tag of tags) {
    offsets.push(size);
    size += tables[tag].length + ((4 - (tables[tag].length % 4)) % 4);
  }
  const file = new Table(size);
  file
    .u32(flavor)
    .u16(tags.length)
    .u16(searchRange)
    .u16(entrySelector)
    .u16(16 * tags.length - searchRange);
  tags.forEach((tag, i) => file.bytes.set(tables[tag], offsets[i]));
  // head's checkSumAdjustment counts as 0 in its table's checksum and the file's; it is set last.
  const head = offsets[tags.indexOf('head')];
  const view = new DataView(file.bytes.buffer);
  view.setUint32(head + 8, 0);
  // The file's sum is its directory's and its (padded) tables': each table is summed once.
  let sum = 0;
  tags.forEach((tag, i) => {
    for (const c of tag) file.u8(c.charCodeAt(0));
    const length = tables[tag].length;
    const tableSum = checksum(file.bytes.subarray(offsets[i], offsets[i] + length + ((4 - (length % 4)) % 4)));
    file.u32(tableSum).u32(offsets[i]).u32(length);
    sum = (sum + tableSum) >>> 0;
  });
  sum = (sum + checksum(file.bytes.subarray(0, offsets[0]))) >>> 0;
  view.setUint32(head + 8, (0xb1b0afba - sum) >>> 0);
  return file.bytes;
}
