/**
 * add_password and remove_password from file to file, as the command line
 * runs them: the input is read lazily (core/lazy-file.ts), each object is
 * parsed, decrypted or encrypted, and written in turn, and stream data goes
 * from the input file through the cipher to the output. Judged by qpdf and
 * pdftotext, page by page, against the unencrypted original.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, fixturePath, pageTexts, qpdfCheck, qpdfJson, type QpdfOutline } from '../helpers/pdf-tools.js';
import { showEncryption } from '../helpers/security.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-password-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PASSWORD = 'file to file 7';
const pdfsvc = (args: string[]) => execa('node', ['bin/pdfsvc.js', ...args], { reject: false });

describe('remove_password, file to file', () => {
  it.each([
    ['AES-256', ['256'], []],
    ['AES-128 with object streams', ['128', '--use-aes=y'], ['--object-streams=generate']],
    ['RC4 128-bit', ['128', '--use-aes=n'], ['--allow-weak-crypto']],
  ])('%s: the output is not encrypted and every page reads as the original', async (name, encryptArgs, otherArgs) => {
    const original = fixture('outline.pdf');
    const encrypted = join(dir, `in-${name}.pdf`);
    const made = await execa('qpdf', [...otherArgs, '--encrypt', PASSWORD, PASSWORD, ...encryptArgs, '--', fixturePath('outline.pdf'), encrypted], {
      reject: false,
    });
    expect(made.exitCode === 0 || made.exitCode === 3, made.stderr).toBe(true);
    const out = join(dir, `out-${name}.pdf`);
    const run = await pdfsvc(['remove-password', '--password', PASSWORD, encrypted, '-o', out]);
    expect(run.exitCode, run.stderr).toBe(0);
    const output = readFileSync(out);
    expect((await showEncryption(output)).encrypted).toBe(false);
    expect((await qpdfCheck(output)).exitCode).toBe(0);
    expect(await pageTexts(output)).toEqual(await pageTexts(original));
    // The outline: titles and target pages (qpdf renumbered the objects when it encrypted).
    const outline = (items: QpdfOutline[]): unknown[] => items.map((item) => [item.title, item.destpageposfrom1, outline(item.kids)]);
    const [before, after] = [await qpdfJson(original), await qpdfJson(output)];
    expect(outline(after.outlines)).toEqual(outline(before.outlines));
    expect(Object.keys(after.attachments)).toEqual(Object.keys(before.attachments));
  });
});

describe('add_password, file to file', () => {
  it('opens only with the password, no string left in clear text, every page as the original', async () => {
    const out = join(dir, 'added.pdf');
    const run = await pdfsvc(['add-password', '--password', PASSWORD, '--encryption-algorithm', 'AES-256', fixturePath('outline.pdf'), '-o', out]);
    expect(run.exitCode, run.stderr).toBe(0);
    const output = readFileSync(out);
    expect(await showEncryption(output, PASSWORD)).toMatchObject({ encrypted: true, streamMethod: 'AESv3', stringMethod: 'AESv3' });
    expect((await qpdfCheck(output, PASSWORD)).exitCode).toBe(0);
    expect(await pageTexts(output, PASSWORD)).toEqual(await pageTexts(fixture('outline.pdf')));
    for (const clear of ['PDFSVC Outline Fixture', 'Chapter 1', 'notes.txt']) expect(output.toString('latin1')).not.toContain(clear);
  });
});
