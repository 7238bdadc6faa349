/**
 * The fonts a text watermark is drawn with.
 *
 * - Text that WinAnsi can encode (Latin-1 and a few more) uses Helvetica-Bold,
 *   one of the 14 standard fonts: nothing is embedded.
 * - Anything else uses the font packages of FONT_PACKAGES (Noto, SIL Open
 *   Font License 1.1), bold. Each package splits its family into one file
 *   per range of code points; its CSS says which code points each file
 *   covers. Only the glyphs used are embedded (a subset per file).
 *
 * The font files are read from node_modules at run time (not bundled), and
 * fontkit is loaded only when a watermark needs it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { GlyfSubset, type OutlineFont } from './glyf-subset.js';
import { isWoff2, woff2ToSfnt } from './woff2.js';

/** A font package: the CSS file that lists its files, the weight drawn, and what it covers (for messages). */
interface FontPackage {
  package: string;
  css: string;
  weight: number;
  family: string;
  scripts: string;
  /**
   * Its CSS ranges list every character its files have (Google Fonts' slices
   * of a CJK family), so a character outside them is not looked for in its
   * files: that would read and decompress a hundred of them.
   */
  exactRanges?: boolean;
}

/**
 * The shipped fonts, in the order a character's font is looked for: the one
 * place that names font packages (package.json must depend on each).
 * A variable font is drawn at `weight` on its wght axis.
 */
const FONT_PACKAGES: readonly FontPackage[] = [
  { package: '@fontsource/noto-sans', css: '700.css', weight: 700, family: 'Noto Sans', scripts: 'Latin, Greek, Cyrillic and Devanagari' },
  { package: '@fontsource/noto-sans-arabic', css: '700.css', weight: 700, family: 'Noto Sans Arabic', scripts: 'Arabic', exactRanges: true },
  { package: '@fontsource/noto-sans-hebrew', css: '700.css', weight: 700, family: 'Noto Sans Hebrew', scripts: 'Hebrew', exactRanges: true },
  {
    package: '@fontsource-variable/noto-sans-sc',
    css: 'index.css',
    weight: 700,
    family: 'Noto Sans SC',
    scripts: 'Chinese and Japanese',
    exactRanges: true,
  },
  { package: '@fontsource-variable/noto-sans-kr', css: 'index.css', weight: 700, family: 'Noto Sans KR', scripts: 'Korean Hangul', exactRanges: true },
];

export interface FontkitGlyph {
  id: number;
  advanceWidth: number;
  bbox: { minX: number; minY: number; maxX: number; maxY: number };
}
export interface FontkitFont {
  type: string;
  unitsPerEm: number;
  postscriptName?: string;
  variationAxes: Record<string, { min: number; default: number; max: number }>;
  namedVariations: Record<string, Record<string, number>>;
  getVariation(settings: Record<string, number>): FontkitFont;
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

/** One file of a family: the code points it is meant for, its bytes and its font at the weight drawn. */
export interface Face {
  /** File name inside the package (`noto-sans-greek-700-normal.woff`). */
  file: string;
  /** Its code point ranges, as first, last, first, last… */
  readonly ranges: number[];
  /** Its package's ranges list every character its file has (FontPackage.exactRanges). */
  exactRanges: boolean;
  readonly bytes: Uint8Array;
  readonly font: FontkitFont;
  /** The font's PostScript name at the weight drawn (`NotoSansSC-Bold`). */
  readonly name: string;
  /**
   * What pdf-lib's subset embedder is given to parse `bytes` with: fontkit for
   * a static WOFF (a fresh parse, subset by fontkit), else one that hands over
   * `font` with a subset written from its outlines (glyf-subset.ts).
   */
  readonly parser: Fontkit;
}

let fontkitModule: Promise<Fontkit> | undefined;
function loadFontkit(): Promise<Fontkit> {
  fontkitModule ??= import('@cantoo/fontkit').then((m: object) => (m as { default?: Fontkit }).default ?? (m as Fontkit));
  return fontkitModule;
}

let facesPromise: Promise<Face[]> | undefined;

/** Every file of the shipped families at their weight, package by package, each in the order its CSS lists them. */
export function notoFaces(): Promise<Face[]> {
  facesPromise ??= (async () => {
    const fontkit = await loadFontkit();
    return FONT_PACKAGES.flatMap((entry) => packageFaces(entry, fontkit));
  })();
  facesPromise.catch(() => (facesPromise = undefined));
  return facesPromise;
}

function packageFaces(entry: FontPackage, fontkit: Fontkit): Face[] {
  const dir = dirname(createRequire(import.meta.url).resolve(`${entry.package}/${entry.css}`));
  const css = readFileSync(join(dir, entry.css), 'utf8');
  const faces: Face[] = [];
  for (const block of css.split('@font-face').slice(1)) {
    // The WOFF when the package has one (fontkit subsets it as it is), else the WOFF2.
    const file = /url\(\.\/files\/([^)]+?\.woff)\)/.exec(block)?.[1] ?? /url\(\.\/files\/([^)]+?\.woff2)\)/.exec(block)?.[1];
    const range = /unicode-range:\s*([^;]+);/.exec(block)?.[1];
    if (!file || !range) continue;
    // Read and parsed on first use: most text needs one or two of the files, and the ranges of the faces before them.
    let ranges: number[] | undefined;
    let bytes: Uint8Array | undefined;
    let font: FontkitFont | undefined;
    faces.push({
      file,
      get ranges() {
        return (ranges ??= parseUnicodeRange(range));
      },
      exactRanges: entry.exactRanges ?? false,
      get bytes() {
        return (bytes ??= readFileSync(join(dir, 'files', file)));
      },
      get font() {
        // A WOFF2 as its TrueType font: fontkit would inflate it with a JavaScript Brotli (woff2.ts).
        return (font ??= atWeight(fontkit.create(isWoff2(this.bytes) ? woff2ToSfnt(this.bytes) : this.bytes), entry.weight));
      },
      get name() {
        return instanceName(this.font, entry.weight);
      },
      get parser() {
        const font = this.font;
        return isWoff2(this.bytes) || font.variationAxes.wght ? { create: () => withOutlineSubset(font) } : fontkit;
      },
    });
  }
  if (faces.length === 0) throw new Error(`${entry.package}: no font files found in ${entry.css}`);
  return faces;
}

/** A variable font's instance at `weight` (its default instance is often the thinnest). */
function atWeight(font: FontkitFont, weight: number): FontkitFont {
  const axis = font.variationAxes.wght;
  return axis && axis.default !== weight ? font.getVariation({ wght: Math.min(axis.max, Math.max(axis.min, weight)) }) : font;
}

/**
 * fontkit cannot subset a WOFF2 (its glyf is stored transformed, without
 * loca) nor a variable font's instance: this view of `font` (the font itself
 * left as it is) has a subset written from its outlines instead.
 */
function withOutlineSubset(font: FontkitFont): FontkitFont {
  return new Proxy(font, {
    get: (target, key) => (key === 'createSubset' ? () => new GlyfSubset(target as OutlineFont) : Reflect.get(target, key)),
  });
}

/** `NotoSansSC-Thin` at 700 → `NotoSansSC-Bold`: the named instance of that weight, if any. */
function instanceName(font: FontkitFont, weight: number): string {
  const name = font.postscriptName ?? 'NotoSans-Bold';
  if (!font.variationAxes.wght) return name;
  const style = Object.entries(font.namedVariations).find(([, axes]) => axes.wght === weight)?.[0] ?? `W${weight}`;
  return `${name.replace(/-.*$/, '')}-${style.replace(/\s+/g, '')}`;
}

/** `U+0000-00FF,U+0131,U+4??` → code point ranges, as first, last, first, last… (the CJK families list some 16,000). */
function parseUnicodeRange(text: string): number[] {
  const ranges: number[] = [];
  for (const [, from, to] of text.matchAll(/U\+([0-9A-F?]+)(?:-([0-9A-F]+))?/gi)) {
    if (from.includes('?')) ranges.push(parseInt(from.replaceAll('?', '0'), 16), parseInt(from.replaceAll('?', 'F'), 16));
    else ranges.push(parseInt(from, 16), to === undefined ? parseInt(from, 16) : parseInt(to, 16));
  }
  return ranges;
}

export function covers(face: Face, codePoint: number): boolean {
  const ranges = face.ranges;
  for (let i = 0; i < ranges.length; i += 2) if (codePoint >= ranges[i] && codePoint <= ranges[i + 1]) return true;
  return false;
}

/** What the shipped fonts cover, in words, for messages. */
export const SHIPPED_SCRIPTS = FONT_PACKAGES.map((p) => `${p.family}: ${p.scripts}`).join('; ');
