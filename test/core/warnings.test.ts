/**
 * Warnings about damage an input was read through go to whoever runs the
 * action, and nowhere else: the library's `onWarning`, the CLI's standard
 * error (exit status 0: the output is made), the server's request log. The
 * library never touches the host's console, also with two actions at once.
 */
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rotatePages, type Warning } from '../../src/index.js';
import { buildPdf, setStartxref, simpleDoc } from '../helpers/raw-pdf.js';
import { pageTexts, qpdfCheck } from '../helpers/pdf-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-warnings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A document whose startxref points nowhere: readers rebuild the table, with a warning. */
const broken = setStartxref(buildPdf([{ objects: simpleDoc(['WARNED PAGE']).objects }]), 12345678);
/** A page tree with a node listed as its own kid. */
const cyclic = buildPdf([
  {
    objects: [...simpleDoc(['CYCLE PAGE']).objects.filter((o) => o.num !== 2), { num: 2, body: '<< /Type /Pages /Kids [4 0 R 2 0 R] /Count 1 >>' }],
  },
]).bytes;
const clean = buildPdf([{ objects: simpleDoc(['CLEAN PAGE']).objects }]).bytes;

describe('onWarning (library)', () => {
  it('reports a rebuilt cross-reference table and a repaired page tree, naming the field; the output is made', async () => {
    const warnings: Warning[] = [];
    const out = await rotatePages({ file: broken, angle: 90 }, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([{ field: 'file', message: expect.stringMatching(/cross-reference table .* rebuilt by scanning the file/) }]);
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect(await pageTexts(out)).toEqual([expect.stringContaining('WARNED PAGE')]);

    const treeWarnings: Warning[] = [];
    await rotatePages({ file: cyclic, angle: 90 }, { onWarning: (w) => treeWarnings.push(w) });
    expect(treeWarnings.map((w) => w.message)).toEqual([expect.stringMatching(/page tree is damaged.*rebuilt with each page once/)]);
  });

  it('says nothing about a clean document, and never writes to the console, with actions running at once', async () => {
    const spies = (['log', 'warn', 'error', 'info', 'debug'] as const).map((name) => vi.spyOn(console, name));
    try {
      const seen: Record<string, Warning[]> = { broken: [], clean: [], cyclic: [] };
      await Promise.all([
        rotatePages({ file: broken, angle: 90 }, { onWarning: (w) => seen.broken.push(w) }),
        rotatePages({ file: clean, angle: 90 }, { onWarning: (w) => seen.clean.push(w) }),
        rotatePages({ file: cyclic, angle: 90 }, { onWarning: (w) => seen.cyclic.push(w) }),
        rotatePages({ file: broken, angle: 90 }),
      ]);
      // Each action's warnings reach its own handler only.
      expect(seen.broken.map((w) => w.message)).toEqual([expect.stringMatching(/cross-reference table/)]);
      expect(seen.clean).toEqual([]);
      expect(seen.cyclic.map((w) => w.message)).toEqual([expect.stringMatching(/page tree/)]);
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe('the CLI', () => {
  it('prints `pdfsvc: warning: file: …` on standard error and exits 0 with the output written', async () => {
    const input = join(dir, 'broken.pdf');
    const output = join(dir, 'out.pdf');
    writeFileSync(input, broken);
    const run = await execa('node', ['bin/pdfsvc.js', 'rotate', '--angle', '90', input, '-o', output], { reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^pdfsvc: warning: file: its cross-reference table .* rebuilt/m);
    const cleanRun = await execa('node', ['bin/pdfsvc.js', 'rotate', '--angle', '90', '-o', join(dir, 'clean-out.pdf')], {
      input: Buffer.from(clean),
      reject: false,
    });
    expect(cleanRun.exitCode).toBe(0);
    expect(cleanRun.stderr).toBe('');
  });
});
