/**
 * A plain run of one action does not load commander (its module, command and
 * parse were ~1.5 ms of a 10-page rotate: bench/README.md, argv); a line it
 * cannot read plainly still runs through commander, with the same output.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { fixturePath, pdfinfo } from '../helpers/pdf-tools.js';

/** How many times commander's module was loaded. */
const commander = vi.hoisted(() => ({ loads: 0 }));
vi.mock('commander', async (importOriginal) => {
  commander.loads++;
  return importOriginal();
});

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-plain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = undefined;
});

it('runs a plain rotate without commander, and a line with a repeated option through it, to the same output', async () => {
  const plain = join(dir, 'plain.pdf');
  await main(['node', 'pdfsvc', 'rotate', '--angle', '90', fixturePath('pages-3.pdf'), '-o', plain]);
  expect(process.exitCode).toBe(0);
  expect(commander.loads).toBe(0);
  expect((await pdfinfo(readFileSync(plain))).pages.map((page) => page.rotation)).toEqual([90, 90, 90]);

  // Commander takes the last of a repeated option; the plain reading leaves such lines to it.
  const repeated = join(dir, 'repeated.pdf');
  await main(['node', 'pdfsvc', 'rotate', '--angle', '180', '--angle=90', fixturePath('pages-3.pdf'), '-o', repeated]);
  expect(process.exitCode).toBe(0);
  expect(commander.loads).toBe(1);
  expect(readFileSync(repeated)).toEqual(readFileSync(plain));
});
