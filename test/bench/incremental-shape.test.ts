/**
 * bench/make-shapes.mjs's incrementally updated shape is written by the
 * script itself (qpdf cannot append updates): the appended sections must be
 * a real incremental update that other readers follow, and change nothing
 * but what they say (a note and a drawing on some pages, the Info dictionary).
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeIncremental } from '../../bench/make-shapes.mjs';
import { buildPdf, simpleDoc } from '../helpers/raw-pdf.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-incremental-shape-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const texts = Array.from({ length: 12 }, (_, i) => `INCREMENTAL PAGE ${i + 1}`);

async function pageTexts(path: string): Promise<string[]> {
  const out: string[] = [];
  for (let p = 1; p <= texts.length; p++) out.push((await execa('pdftotext', ['-f', String(p), '-l', String(p), path, '-'])).stdout.trim());
  return out;
}

describe('bench/make-shapes.mjs incremental shape', () => {
  it('appends updates chained by /Prev that qpdf, poppler and mutool read, with the pages unchanged', async () => {
    const base = join(dir, 'base.pdf');
    writeFileSync(base, buildPdf([{ objects: simpleDoc(texts).objects }]).bytes);
    const output = join(dir, 'incremental.pdf');
    makeIncremental(base, output, { updates: 3, perUpdate: 2 });

    const text = readFileSync(output, 'latin1');
    // The original section and three updates, each trailer but the first pointing back.
    expect(text.match(/startxref/g)).toHaveLength(4);
    expect(text.match(/\/Prev \d+/g)).toHaveLength(3);
    const check = await execa('qpdf', ['--check', output], { reject: false });
    expect(check.exitCode, check.stdout + check.stderr).toBe(0);
    // 3 x 2 updated pages, as qpdf resolves them: a second content stream (the drawing) and a note.
    const json = JSON.parse((await execa('qpdf', ['--json', '--json-key=pages', output])).stdout);
    const updated = json.pages.filter((p: { contents: string[] }) => p.contents.length === 2);
    expect(updated).toHaveLength(6);
    for (const page of updated) {
      const dict = (await execa('qpdf', [`--show-object=${page.object.replace(/ R$/, '').replace(' ', ',')}`, output])).stdout;
      expect(dict).toMatch(/\/Annots \[ \d+ 0 R \]/);
    }
    const info = (await execa('pdfinfo', [output])).stdout;
    expect(info).toMatch(/Pages:\s+12/);
    expect(info).toMatch(/Producer:\s+pdfsvc bench, update 3/);
    expect(await pageTexts(output)).toEqual(texts);
    const mutool = await execa('mutool', ['info', output], { reject: false });
    expect(mutool.exitCode).toBe(0);
    expect(mutool.stdout).toContain('update 3');
  });

  it('refuses, rather than loops, when there are too few pages to update', () => {
    const base = join(dir, 'small.pdf');
    writeFileSync(base, buildPdf([{ objects: simpleDoc(texts.slice(0, 2)).objects }]).bytes);
    expect(() => makeIncremental(base, join(dir, 'small-out.pdf'), { updates: 2, perUpdate: 2 })).toThrow(/not enough pages/);
  });
});
