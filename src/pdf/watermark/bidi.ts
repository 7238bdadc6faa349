/**
 * The order a watermark line's runs are drawn in, left to right, by the
 * Unicode bidirectional algorithm (UAX #9) as bidi-js implements it: Arabic
 * and Hebrew right to left, the Latin words and the numbers among them left
 * to right, each where the algorithm puts it ("שלום world" draws "world" on
 * the left).
 *
 * The runs come in logical order, one font file each (text.ts). Each is cut
 * again where the direction changes. A right-to-left piece keeps its
 * characters in logical order, brackets and the like swapped for their
 * mirror images: fontkit shapes it (Arabic joins letters in logical order)
 * and gives back its glyphs right to left.
 *
 * bidi-js (MIT) is loaded only for lines with a right-to-left character.
 */

import type { Bidi } from 'bidi-js';

let bidiModule: Promise<Bidi> | undefined;
function loadBidi(): Promise<Bidi> {
  // The package's default export is its factory, whether Node loads its CommonJS file or esbuild its ES module.
  bidiModule ??= import('bidi-js').then((m: object) => (m as { default: () => Bidi }).default());
  return bidiModule;
}

/**
 * Characters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana,
 * N'Ko, …, their presentation forms) and the explicit right-to-left marks:
 * without one, every level is left to right and the runs stay as they are.
 */
const RIGHT_TO_LEFT = /[\u0590-\u08ff\u200f\u202b\u202e\u2067\ufb1d-\ufdff\ufe70-\ufefe]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/** `runs`, consecutive pieces of one line in logical order, cut where the direction changes and put in drawing order, left to right. */
export async function visualOrder<Run extends { text: string }>(runs: Run[]): Promise<Array<Run & { rightToLeft: boolean }>> {
  const line = runs.map((run) => run.text).join('');
  if (!RIGHT_TO_LEFT.test(line)) return runs.map((run) => ({ ...run, rightToLeft: false }));
  const bidi = await loadBidi();
  const levels = bidi.getEmbeddingLevels(line);
  const column = new Array<number>(line.length);
  bidi.getReorderedIndices(line, levels).forEach((unit, at) => {
    column[unit] = at;
  });
  const mirrored = bidi.getMirroredCharactersMap(line, levels.levels);
  const pieces: Array<{ piece: Run & { rightToLeft: boolean }; column: number }> = [];
  let start = 0;
  for (const run of runs) {
    const end = start + run.text.length;
    for (let from = start, i = start + 1; i <= end; i++) {
      const rightToLeft = (levels.levels[from] & 1) === 1;
      // A piece ends with its run, or where the next code unit is not drawn right beside this one, in the piece's direction.
      if (i < end && levels.levels[i] === levels.levels[from] && column[i] - column[i - 1] === (rightToLeft ? -1 : 1)) continue;
      let text = '';
      for (let unit = from; unit < i; unit++) text += (rightToLeft && mirrored.get(unit)) || line[unit];
      pieces.push({ piece: { ...run, text, rightToLeft }, column: Math.min(column[from], column[i - 1]) });
      from = i;
    }
    start = end;
  }
  return pieces.sort((a, b) => a.column - b.column).map(({ piece }) => piece);
}
