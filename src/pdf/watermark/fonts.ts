/**
 * The fonts a text watermark is drawn with.
 *
 * - Text that WinAnsi can encode (Latin-1 and a few more) uses Helvetica-Bold,
 *   one of the 14 standard fonts: nothing is embedded.
 * - Anything else uses Noto Sans Bold from the @fontsource/noto-sans package
 *   (SIL Open Font License 1.1): Latin with its extensions, Vietnamese, Greek,
 *   Cyrillic and Devanagari; Arabic and Hebrew from @fontsource/noto-sans-arabic
 *   and @fontsource/noto-sans-hebrew (same licence). Each package splits its
 *   family into one file per script range; its CSS says which code points each
 *   file covers. Only the glyphs used are embedded (a subset per file).
 *
 * The font files are read from node_modules at run time (not bundled), and
 * fontkit is loaded only when a watermark needs it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** In the order a character looks for its file: Noto Sans first, for the Latin the others also carry. */
const FONT_PACKAGES = ['@fontsource/noto-sans', '@fontsource/noto-sans-arabic', '@fontsource/noto-sans-hebrew'];
const WEIGHT = 700;

export interface FontkitGlyph {
  id: number;
  advanceWidth: number;
  bbox: { minX: number; minY: number; maxX: number; maxY: number };
}
export interface FontkitFont {
  unitsPerEm: number;
  postscriptName?: string;
  hasGlyphForCodePoint(codePoint: number): boolean;
  layout(text: string): {
    glyphs: FontkitGlyph[];
    positions: Array<{ xAdvance: number; yAdvance: number; xOffset: number; yOffset: number }>;
    /** The direction fontkit gave the glyphs: that of the text's script. */
    direction: 'ltr' | 'rtl';
  };
}
export interface Fontkit {
  create(bytes: Uint8Array): FontkitFont;
}

/** One file of the family: the code points it is meant for, and its bytes. */
export interface Face {
  /** File name inside the package (`noto-sans-greek-700-normal.woff`). */
  file: string;
  ranges: Array<[number, number]>;
  readonly bytes: Uint8Array;
  readonly font: FontkitFont;
}

let fontkitModule: Promise<Fontkit> | undefined;
export function loadFontkit(): Promise<Fontkit> {
  fontkitModule ??= import('@cantoo/fontkit').then((m: object) => (m as { default?: Fontkit }).default ?? (m as Fontkit));
  return fontkitModule;
}

let facesPromise: Promise<Face[]> | undefined;

/** Every file of the shipped families at the watermark's weight, package by package, in the order their CSS lists them. */
export function notoFaces(): Promise<Face[]> {
  facesPromise ??= (async () => {
    const fontkit = await loadFontkit();
    const faces: Face[] = [];
    for (const fontPackage of FONT_PACKAGES) faces.push(...packageFaces(fontPackage, fontkit));
    return faces;
  })();
  facesPromise.catch(() => (facesPromise = undefined));
  return facesPromise;
}

function packageFaces(fontPackage: string, fontkit: Fontkit): Face[] {
  const dir = packageDir(fontPackage);
  const css = readFileSync(join(dir, `${WEIGHT}.css`), 'utf8');
  const faces: Face[] = [];
  for (const block of css.split('@font-face').slice(1)) {
    const file = /url\(\.\/files\/([^)]+?\.woff)\)/.exec(block)?.[1];
    const range = /unicode-range:\s*([^;]+);/.exec(block)?.[1];
    if (!file || !range) continue;
    // Read and parsed on first use: most text needs one or two of the files.
    let bytes: Uint8Array | undefined;
    let font: FontkitFont | undefined;
    faces.push({
      file,
      ranges: parseUnicodeRange(range),
      get bytes() {
        return (bytes ??= readFileSync(join(dir, 'files', file)));
      },
      get font() {
        return (font ??= fontkit.create(this.bytes));
      },
    });
  }
  if (faces.length === 0) throw new Error(`${fontPackage}: no font files found in ${WEIGHT}.css`);
  return faces;
}

function packageDir(fontPackage: string): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve(`${fontPackage}/${WEIGHT}.css`));
}

/** `U+0000-00FF,U+0131,U+4??` → code point ranges. */
function parseUnicodeRange(text: string): Array<[number, number]> {
  return text
    .split(',')
    .map((item) => item.trim().replace(/^U\+/i, ''))
    .filter(Boolean)
    .map((item): [number, number] => {
      if (item.includes('?')) return [parseInt(item.replaceAll('?', '0'), 16), parseInt(item.replaceAll('?', 'F'), 16)];
      const [from, to] = item.split('-');
      return [parseInt(from, 16), parseInt(to ?? from, 16)];
    });
}

export function covers(face: Face, codePoint: number): boolean {
  return face.ranges.some(([from, to]) => codePoint >= from && codePoint <= to);
}

/** What the shipped fonts cover, in words, for messages. */
export const SHIPPED_SCRIPTS = 'Latin, Greek, Cyrillic, Devanagari, Arabic and Hebrew';
