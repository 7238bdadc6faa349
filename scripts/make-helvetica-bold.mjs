// Writes src/pdf/watermark/helvetica-bold.ts: what a text watermark in
// Helvetica-Bold needs of the font (its WinAnsi encoding, the glyphs' widths
// and the kerning between them), taken from pdf-lib's standard-font metrics.
// Run again only if those change: `node scripts/make-helvetica-bold.mjs`.
// test/pdf/watermark/helvetica-bold.test.ts checks the file against pdf-lib.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { Encodings, Font } = require(join(root, 'node_modules/@cantoo/pdf-lib/cjs/packages/standard-fonts/index.js'));

const font = Font.load('Helvetica-Bold');
const winAnsi = Encodings.WinAnsi;
/** The character each WinAnsi code stands for ('\0': none). */
const chars = new Array(256).fill('\0');
const widths = new Array(256).fill(0);
for (const codePoint of winAnsi.supportedCodePoints) {
  const { code, name } = winAnsi.encodeUnicodeCodePoint(codePoint);
  chars[code] = String.fromCodePoint(codePoint);
  widths[code] = font.getWidthOfGlyph(name) || 250;
}
const kerning = new Map();
for (const left of winAnsi.supportedCodePoints) {
  for (const right of winAnsi.supportedCodePoints) {
    const amount = font.getXAxisKerningForPair(winAnsi.encodeUnicodeCodePoint(left).name, winAnsi.encodeUnicodeCodePoint(right).name);
    if (amount) kerning.set(amount, (kerning.get(amount) ?? '') + String.fromCodePoint(left, right));
  }
}
/** Printable ASCII as is, any other character escaped. */
const escapeChar = (c) => {
  if (c >= ' ' && c <= '~' && c !== "'" && c !== '\\') return c;
  const code = c.codePointAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};
const escaped = (text) => `'${[...text].map(escapeChar).join('')}'`;
const amounts = [...kerning.keys()].sort((a, b) => a - b);
const out = join(root, 'src/pdf/watermark/helvetica-bold.ts');
writeFileSync(
  out,
  `// Made by scripts/make-helvetica-bold.mjs from pdf-lib's standard-font metrics; do not edit.

/** The character of each WinAnsi code, by code ('\\0': the code has none). */
export const WIN_ANSI_CHARS =
${[0, 64, 128, 192].map((start) => `  ${escaped(chars.slice(start, start + 64).join(''))}`).join(' +\n')};

/** Helvetica-Bold's glyph widths (thousandths of the size), by WinAnsi code. */
export const WIDTHS: readonly number[] = [
  ${widths.join(', ')},
];

/** Helvetica-Bold's kerning (thousandths of the size), by amount: each pair of characters (two in a row) that has it. */
export const KERNING: ReadonlyArray<readonly [number, string]> = [
${amounts.map((amount) => `  [${amount}, ${escaped(kerning.get(amount))}],`).join('\n')}
];
`,
);
// In the repository's format, so that `npm run lint` takes the file as made.
execFileSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', out], { stdio: 'ignore' });
