/**
 * A split's parts on the command line are written as they are made
 * (StagedParts), each checked then: its directory made, an existing part
 * refused. Renaming them into place (writeDocumentsToDirectory) does not
 * look at the file system again for them; parts that were not staged are
 * still checked there. The CLI's own refusals are in
 * split_by_page_count.test.ts.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { partName } from '../../src/core/action.js';
import { PdfPieces } from '../../src/core/pdf-data.js';
import { StagedParts, writeDocumentsToDirectory } from '../../src/cli/io.js';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, existsSync: vi.fn(real.existsSync), mkdirSync: vi.fn(real.mkdirSync) };
});

const root = fs.mkdtempSync(join(tmpdir(), 'pdfsvc-staged-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const part = (text: string) => new PdfPieces([Buffer.from(text)], text.length);
/** Calls of `fn` that named a path under `dir`. */
const callsUnder = (fn: unknown, dir: string) => vi.mocked(fn as (path: string) => unknown).mock.calls.filter(([path]) => String(path).startsWith(dir));

beforeEach(() => vi.clearAllMocks());

describe('writeDocumentsToDirectory', () => {
  it('staged parts: the directory and each part are checked once, when staged, and all are renamed into place', async () => {
    const dir = join(root, 'staged', 'nested');
    const staged = new StagedParts(dir, false);
    const documents = ['one', 'two', 'three'].map((text, i) => ({ name: partName(i), data: staged.keep(part(text), i) }));
    expect(callsUnder(fs.mkdirSync, dir)).toHaveLength(1);
    expect(callsUnder(fs.existsSync, dir)).toHaveLength(3);

    vi.clearAllMocks();
    const targets = await writeDocumentsToDirectory(dir, documents, false);
    expect(callsUnder(fs.mkdirSync, dir)).toEqual([]);
    expect(callsUnder(fs.existsSync, dir)).toEqual([]);
    expect(targets).toEqual([0, 1, 2].map((i) => join(dir, partName(i))));
    expect(fs.readdirSync(dir).sort()).toEqual([0, 1, 2].map(partName));
    expect(targets.map((target) => fs.readFileSync(target, 'utf8'))).toEqual(['one', 'two', 'three']);
  });

  it('a staged part that exists is refused when staged, and discarding leaves nothing behind', () => {
    const dir = join(root, 'existing');
    fs.mkdirSync(dir);
    fs.writeFileSync(join(dir, partName(1)), 'keep me');
    const staged = new StagedParts(dir, false);
    staged.keep(part('one'), 0);
    expect(() => staged.keep(part('two'), 1)).toThrow(/00002\.pdf already exists; use --force/);
    staged.discard();
    expect(fs.readdirSync(dir)).toEqual([partName(1)]);
    expect(fs.readFileSync(join(dir, partName(1)), 'utf8')).toBe('keep me');
  });

  it('parts not staged are still checked: an existing one is refused before anything is written', async () => {
    const dir = join(root, 'unstaged');
    fs.mkdirSync(dir);
    fs.writeFileSync(join(dir, partName(1)), 'keep me');
    const documents = ['one', 'two'].map((text, i) => ({ name: partName(i), data: part(text) }));
    await expect(writeDocumentsToDirectory(dir, documents, false)).rejects.toThrow(/00002\.pdf already exists; use --force/);
    expect(fs.readdirSync(dir)).toEqual([partName(1)]);
    await writeDocumentsToDirectory(dir, documents, true);
    expect(fs.readFileSync(join(dir, partName(1)), 'utf8')).toBe('two');
  });
});
