/**
 * Text watermarks: checking and laying out the lines (before the document is
 * even parsed, so a line no font can draw is refused at once), and drawing
 * them into one Form XObject.
 *
 * The form holds the lines at a reference size of 100 pt, centred on each
 * other; each page scales and turns it with its own matrix. Every line is
 * marked with /ActualText, so text extraction returns exactly the line as
 * given, even for scripts whose glyphs are reordered or joined by shaping
 * (Devanagari) — except a line with right-to-left runs (Arabic, Hebrew:
 * bidi.ts). Readers put such runs back in reading order from the glyphs'
 * places and their ToUnicode, as for any PDF with Arabic or Hebrew; given
 * /ActualText, poppler spreads its characters left to right over the line
 * and then turns the right-to-left ones round, so its words came out
 * backwards.
 */
import { PdfError } from '../errors.js';
import { PDFContext, PDFDict, PDFHexString, PDFRef } from '../model/primitives.js';
import { visualOrder } from './bidi.js';
import { CustomFontSubsetEmbedder, embedWithPdfLib } from './drawing-lib.js';
import { covers, notoFaces, SHIPPED_SCRIPTS, type Face } from './fonts.js';
import { formatNumber } from './geometry.js';
import { KERNING, WIDTHS, WIN_ANSI_CHARS } from './helvetica-bold.js';

/** The size the form is drawn at; pages scale it. */
export const REFERENCE_SIZE = 100;
const LEADING = 1.2;

/** A line's index among the lines goes into its PdfError (`item`): the action knows which field it came from. */
export interface TextLine {
  text: string;
}

interface Run {
  font: string;
  /** Glyph codes (hex) and their positions relative to the line's start, at the reference size. */
  glyphs: Array<{ code: string; x: number; y: number }>;
}

interface LaidOutLine {
  text: string;
  width: number;
  /** Ink bounds relative to the line's baseline origin, at the reference size. */
  ink: [number, number, number, number];
  runs: Run[];
  /** Whether the line is marked with its /ActualText: not when it has right-to-left runs. */
  actualText: boolean;
  /** Standard font lines draw the whole line as one string. */
  standard?: string;
}

export interface PreparedText {
  lines: LaidOutLine[];
  /** Font resource name → how to embed it. */
  fonts: Map<string, { embed(context: PDFContext): Promise<PDFRef> }>;
  /** Longest line's advance width at 1 pt. */
  widestPerPoint: number;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** Checks every line for characters that cannot be drawn; throws a PdfError whose `item` is the line. */
function checkLines(lines: TextLine[]): void {
  for (const [index, { text }] of lines.entries()) {
    const bad = CONTROL.exec(text);
    if (bad) {
      throw new PdfError(
        'unsupported_character',
        `contains the control character ${codePointName(bad[0].codePointAt(0)!)}; a line is one line of text`,
        'bare',
        index,
      );
    }
  }
}

export async function prepareText(lines: TextLine[]): Promise<PreparedText> {
  checkLines(lines);
  const codes = lines.map(({ text }) => winAnsiCodes(text));
  return codes.every((line) => line !== undefined) ? layOutStandard(lines, codes as number[][]) : layOutNoto(lines);
}

/**
 * The WinAnsi code of each character of `text`, or undefined when one has
 * none. Helvetica-Bold's metrics are pdfsvc's own table (helvetica-bold.ts),
 * the numbers pdf-lib's StandardFontEmbedder uses: loading them through
 * pdf-lib (base64, inflate, 67 KB of JSON made into objects kept to the end)
 * cost 5-7 ms and ~1 MiB of peak RSS of every text watermark.
 */
function winAnsiCodes(text: string): number[] | undefined {
  const codes: number[] = [];
  for (const c of text) {
    // Code 0 has no character: its '\0' in the table stands for none.
    const code = WIN_ANSI_CHARS.indexOf(c);
    if (code <= 0) return undefined;
    codes.push(code);
  }
  return codes;
}

/** The line's advance at `size`, kerned, as pdf-lib's StandardFontEmbedder.widthOfTextAtSize works it out. */
function standardWidth(codes: number[], size: number): number {
  let total = 0;
  for (let i = 0; i < codes.length; i++) total += WIDTHS[codes[i]] + (i + 1 < codes.length ? kerning(codes[i], codes[i + 1]) : 0);
  return total * (size / 1000);
}

function kerning(left: number, right: number): number {
  const pair = WIN_ANSI_CHARS[left] + WIN_ANSI_CHARS[right];
  for (const [amount, pairs] of KERNING) {
    for (let at = pairs.indexOf(pair); at >= 0; at = pairs.indexOf(pair, at + 1)) if (at % 2 === 0) return amount;
  }
  return 0;
}

function layOutStandard(lines: TextLine[], codes: number[][]): PreparedText {
  const laidOut = lines.map(({ text }, index): LaidOutLine => {
    const width = standardWidth(codes[index], REFERENCE_SIZE);
    const [bottom, top] = standardInk(text);
    const hex = codes[index].map((code) => code.toString(16).padStart(2, '0').toUpperCase()).join('');
    return {
      text,
      width,
      ink: [0, bottom * REFERENCE_SIZE, width, top * REFERENCE_SIZE],
      runs: [],
      actualText: true,
      standard: PDFHexString.of(hex).toString(),
    };
  });
  return {
    lines: laidOut,
    fonts: new Map([['F0', { embed: async (context: PDFContext) => context.register(helveticaBold(context)) }]]),
    widestPerPoint: Math.max(...laidOut.map((l) => l.width)) / REFERENCE_SIZE,
  };
}

/** The font dictionary pdf-lib's StandardFontEmbedder wrote for Helvetica-Bold. */
function helveticaBold(context: PDFContext): PDFDict {
  return context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica-Bold', Encoding: 'WinAnsiEncoding' });
}

/**
 * Helvetica-Bold's ink, from its AFM metrics by character class (the standard
 * fonts ship no per-glyph boxes): [bottom, top] in em.
 */
function standardInk(text: string): [number, number] {
  let top = 0;
  let bottom = 0;
  for (const c of text) {
    if (/[À-ÝŠŽŸŒ]/.test(c)) top = Math.max(top, 0.93);
    else if (/[A-Z0-9bdfhklß'"%&!?#]/.test(c)) top = Math.max(top, 0.72);
    else if (/[à-ÿšžœ]/.test(c)) top = Math.max(top, 0.75);
    else if (/[a-z]/.test(c) || /[*+=<>~^]/.test(c)) top = Math.max(top, c === 'i' || c === 'j' || c === 't' ? 0.72 : 0.56);
    else if (c !== ' ') top = Math.max(top, 0.72);
    if (/[gjpqyQ,;()[\]{}|/@$çµ]/.test(c)) bottom = Math.min(bottom, -0.21);
  }
  return [bottom === 0 ? -0.02 : bottom, top === 0 ? 0.72 : top];
}

async function layOutNoto(lines: TextLine[]): Promise<PreparedText> {
  const faces = await notoFaces();
  // The runs first, in drawing order: a subset's name says what it holds, so it is known before its embedder is made.
  const segmented = await Promise.all(lines.map((line, index) => visualOrder(segment(line, index, faces))));
  const held = new Map<Face, string[]>();
  for (const { face, text } of segmented.flat()) {
    const texts = held.get(face) ?? [face.file];
    texts.push(text);
    held.set(face, texts);
  }
  const embedders = new Map<Face, { name: string; embedder: CustomFontSubsetEmbedder }>();
  for (const [face, texts] of held) {
    // A subset's name starts with a tag of six capitals (ISO 32000-1, 9.6.4); derived from what it holds, so outputs are reproducible.
    const subsetName = `${subsetTag(texts.join('\u0000'))}+${face.name}`;
    const embedder = await CustomFontSubsetEmbedder.for(face.parser as never, face.bytes, subsetName);
    embedders.set(face, { name: `F${embedders.size + 1}`, embedder });
  }
  const laidOut: LaidOutLine[] = [];
  for (const [index, line] of lines.entries()) {
    const runs: Run[] = [];
    let pen = 0;
    const ink: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const { face, text, rightToLeft } of segmented[index]) {
      const { name, embedder } = embedders.get(face)!;
      const font = face.font;
      const unit = REFERENCE_SIZE / font.unitsPerEm;
      const layout = font.layout(text);
      const codes = embedder.encodeText(text).toString().slice(1, -1).match(/.{4}/g) ?? [];
      if (codes.length !== layout.glyphs.length) throw new Error('font layout and encoding disagree');
      // fontkit orders the glyphs by the script's direction, bidi by the text's: Arabic-Indic digits go left to right, a run of only spaces and punctuation in Hebrew text right to left.
      const turned = (layout.direction === 'rtl') !== rightToLeft;
      const glyphs = turned ? [...layout.glyphs].reverse() : layout.glyphs;
      const positions = turned ? [...layout.positions].reverse() : layout.positions;
      if (turned) codes.reverse();
      const run: Run = { font: name, glyphs: [] };
      glyphs.forEach((glyph, i) => {
        const p = positions[i];
        const x = pen + p.xOffset * unit;
        const y = p.yOffset * unit;
        run.glyphs.push({ code: codes[i], x, y });
        const b = glyph.bbox;
        if (b.maxX > b.minX || b.maxY > b.minY) {
          ink[0] = Math.min(ink[0], x + b.minX * unit);
          ink[1] = Math.min(ink[1], y + b.minY * unit);
          ink[2] = Math.max(ink[2], x + b.maxX * unit);
          ink[3] = Math.max(ink[3], y + b.maxY * unit);
        }
        pen += p.xAdvance * unit;
      });
      runs.push(run);
    }
    if (!Number.isFinite(ink[0])) ink.splice(0, 4, 0, 0, pen, 0.72 * REFERENCE_SIZE); // only spaces
    laidOut.push({ text: line.text, width: pen, ink, runs, actualText: !segmented[index].some((piece) => piece.rightToLeft) });
  }
  const fonts = new Map<string, { embed(context: PDFContext): Promise<PDFRef> }>();
  for (const { name, embedder } of embedders.values()) {
    fonts.set(name, { embed: (context) => embedWithPdfLib(context, (scratch) => embedder.embedIntoContext(scratch)) });
  }
  return { lines: laidOut, fonts, widestPerPoint: Math.max(...laidOut.map((l) => l.width)) / REFERENCE_SIZE };
}

function subsetTag(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  let tag = '';
  for (let i = 0; i < 6; i++) {
    tag += String.fromCharCode(65 + (hash % 26));
    hash = Math.floor(hash / 26) + i * 7919;
  }
  return tag;
}

/**
 * Splits a line into runs of one font file each. A character stays in the
 * current run when that file has a glyph for it (spaces, digits and
 * punctuation do not break a Cyrillic word apart); otherwise it goes to the
 * first file meant for it that has the glyph, else to the first file that has
 * it beyond its ranges.
 */
function segment(line: TextLine, index: number, faces: Face[]): Array<{ face: Face; text: string }> {
  const runs: Array<{ face: Face; text: string }> = [];
  let current: { face: Face; text: string } | undefined;
  for (const c of line.text) {
    const cp = c.codePointAt(0)!;
    if (current && (current.face.font.hasGlyphForCodePoint(cp) || isJoiner(cp))) {
      current.text += c;
      continue;
    }
    const face = faces.find((f) => covers(f, cp) && f.font.hasGlyphForCodePoint(cp)) ?? faces.find((f) => !f.exactRanges && f.font.hasGlyphForCodePoint(cp));
    if (!face) {
      throw new PdfError(
        'unsupported_character',
        `the character ${JSON.stringify(c)} (${codePointName(cp)}) is not in the fonts pdfsvc ships (${SHIPPED_SCRIPTS}); it would be drawn as a blank box, so the line is refused`,
        'bare',
        index,
      );
    }
    current = { face, text: c };
    runs.push(current);
  }
  return runs;
}

/** Zero-width joiners and variation selectors belong to the run they are in. */
function isJoiner(cp: number): boolean {
  return cp === 0x200c || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f);
}

function codePointName(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

export interface TextForm {
  /** The form's content stream. */
  content: string;
  /** Its bounding box (ink plus room for the approximations), at the reference size. */
  bbox: [number, number, number, number];
  /** Corners of each line's ink box: what placement fits and anchors. */
  points: Array<[number, number]>;
}

/** The form's drawing: lines centred on each other, the first line's baseline at y = 0. */
export function textForm(text: PreparedText, color: [number, number, number]): TextForm {
  const ops: string[] = [`${color.map(formatNumber).join(' ')} rg`];
  const points: Array<[number, number]> = [];
  const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const n = formatNumber;
  text.lines.forEach((line, i) => {
    const x0 = -line.width / 2;
    const y0 = -i * LEADING * REFERENCE_SIZE;
    const [ix0, iy0, ix1, iy1] = line.ink;
    points.push([x0 + ix0, y0 + iy0], [x0 + ix1, y0 + iy0], [x0 + ix0, y0 + iy1], [x0 + ix1, y0 + iy1]);
    bbox[0] = Math.min(bbox[0], x0 + Math.min(ix0, 0));
    bbox[1] = Math.min(bbox[1], y0 + iy0);
    bbox[2] = Math.max(bbox[2], x0 + Math.max(ix1, line.width));
    bbox[3] = Math.max(bbox[3], y0 + iy1);
    // /ActualText: extraction returns the line as given, turned or shaped.
    const span = line.actualText ? `/Span <</ActualText ${PDFHexString.fromText(line.text).toString()}>> BDC ` : '';
    const end = line.actualText ? 'ET EMC' : 'ET';
    ops.push(`${span}BT`);
    if (line.standard !== undefined) {
      ops.push(`/F0 ${REFERENCE_SIZE} Tf 1 0 0 1 ${n(x0)} ${n(y0)} Tm ${line.standard} Tj ${end}`);
      return;
    }
    for (const run of line.runs) {
      ops.push(`/${run.font} ${REFERENCE_SIZE} Tf`);
      for (const g of run.glyphs) ops.push(`1 0 0 1 ${n(x0 + g.x)} ${n(y0 + g.y)} Tm <${g.code}> Tj`);
    }
    ops.push(end);
  });
  // Room for what the ink estimate may miss (standard fonts' accents, overshoots).
  const pad = 0.25 * REFERENCE_SIZE;
  return { content: ops.join('\n'), bbox: [bbox[0] - pad, bbox[1] - pad, bbox[2] + pad, bbox[3] + pad], points };
}
