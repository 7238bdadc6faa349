/**
 * The fonts a text watermark is drawn with.
 *
 * - Text that WinAnsi can encode (Latin-1 and a few more) uses Helvetica-Bold,
 *   one of the 14 standard fonts: nothing is embedded.
 * - Anything else uses Noto Sans Bold from the @fontsource/noto-sans package
 *   (SIL Open Font License 1.1): Latin with its extensions, Vietnamese, Greek,
 *   Cyrillic and Devanagari. The package splits the family into one file per
 *   script range; its CSS says which code points each file covers. Only the
 *   glyphs used are embedded (a subset per file).
 *
 * The font files are read from node_modules at run time (not bundled), and
 * fontkit is loaded only when a watermark needs it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const FONT_PACKAGE = '@fontsource/noto-sans';
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
  layout(text: string): { glyphs: FontkitGlyph[]; positions: Array<{ xAdvance: number; yAdvance: number; xOffset: number; yOffset: number }> };
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

/** Every file of the shipped family at the watermark's weight, in the order its CSS lists them. */
export function notoFaces(): Promise<Face[]> {
  facesPromise ??= (async () => {
    const fontkit = await loadFontkit();
    const dir = packageDir();
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
    if (faces.length === 0) throw new Error(`${FONT_PACKAGE}: no font files found in ${WEIGHT}.css`);
    return faces;
  })();
  facesPromise.catch(() => (facesPromise = undefined));
  return facesPromise;
}

function packageDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve(`${FONT_PACKAGE}/${WEIGHT}.css`));
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
export const SHIPPED_SCRIPTS = 'Latin, Greek, Cyrillic and Devanagari';
