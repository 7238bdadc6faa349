/**
 * Damaged and hostile outlines: /First or /Next back to an item, a /Parent
 * cycle, a chain 10,000 levels deep. Every action that walks the outline
 * (merge, page removal, split by size) gives an output qpdf accepts, with
 * every page and every outline title reachable once: never a 500 or a stack
 * overflow (they were "Maximum call stack size exceeded" in merge).
 */
import { describe, expect, it } from 'vitest';
import { mergeDocuments, removePages, splitBySize } from '../../../src/index.js';
import { execa } from 'execa';
import { pageTexts, qpdfCheck, qpdfJson, tempFile, type QpdfOutline } from '../../helpers/pdf-tools.js';
import { OUTLINE_CASES } from '../../../scripts/hostile-fixtures.mjs';

/** Built by scripts/hostile-fixtures.mjs, which also writes them to fixtures/out/hostile/. */
const CASES = OUTLINE_CASES.map(([, about, make, titles]) => [about, make, titles] as [string, () => Uint8Array, string[]]);

/**
 * Every title of an outline as qpdf reads it, depth first. qpdf's JSON stops
 * 50 levels down, so for a deeper outline the titles are counted in the file
 * qpdf writes out uncompressed instead.
 */
async function outlineTitles(bytes: Uint8Array): Promise<string[]> {
  const listed = titles((await qpdfJson(bytes)).outlines);
  if (listed.length < 50) return listed;
  const { stdout } = await execa('qpdf', ['--qdf', '--object-streams=disable', tempFile(bytes), '-'], { encoding: 'latin1' });
  return [...stdout.matchAll(/\/Title \(((?:Document \d+)|(?:level \d+))\)/g)].map((m) => m[1]);
}

function titles(items: QpdfOutline[]): string[] {
  const out: string[] = [];
  const stack = [...items].reverse();
  while (stack.length > 0) {
    const next = stack.pop()!;
    out.push(next.title);
    stack.push(...[...next.kids].reverse());
  }
  return out;
}

describe.each(CASES)('an outline with %s', (_, make, expectedTitles) => {
  const input = make();

  it('merge_documents: both copies of the pages, each outline entry once under its document', async () => {
    const out = await mergeDocuments({ file: [input, input] });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect((await pageTexts(out)).map((t) => t.trim())).toEqual(['OUTLINE PAGE ONE', 'OUTLINE PAGE TWO', 'OUTLINE PAGE ONE', 'OUTLINE PAGE TWO']);
    const all = await outlineTitles(out);
    // One top-level entry per input, each holding that input's titles once.
    expect(all.filter((t) => !expectedTitles.includes(t))).toHaveLength(2);
    for (const title of expectedTitles) expect(all.filter((t) => t === title)).toHaveLength(2);
  });

  it('remove_pages and split_by_size keep the pages and every entry once', async () => {
    const removed = await removePages({ file: input, pages: '2' });
    expect((await qpdfCheck(removed)).exitCode).toBe(0);
    expect((await pageTexts(removed)).map((t) => t.trim())).toEqual(['OUTLINE PAGE ONE']);
    expect((await outlineTitles(removed)).sort()).toEqual([...expectedTitles].sort());
    const parts = await splitBySize({ file: input, maximum_bytes: 1_000_000_000 });
    expect(parts).toHaveLength(1);
    expect((await qpdfCheck(parts[0].bytes)).exitCode).toBe(0);
  });
});
