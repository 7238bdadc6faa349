/**
 * The progress line of a single-file run: under a pseudo-terminal
 * (`script -qfc`) a run that takes longer than the threshold shows it and
 * clears it; a quick run, a pipe and --quiet show nothing; the output and
 * the failures are the same as off the terminal.
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../helpers/pdf-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bin = join(process.cwd(), 'bin/pdfsvc.js');
/** Standard error (and output) as the terminal got it; `env` prefixes the command. */
const onTerminal = (args: string, env = '') => execa('script', ['-qfc', `${env} node ${bin} ${args}`, '/dev/null'], { cwd: dir, reject: false });
/** The progress line before the output is written: the file, its size, the time taken. */
const LINE = /pdfsvc: big\.pdf \([\d.]+ [KM]?B\) \| \d+s/;

describe('progress of a single file', () => {
  beforeAll(async () => {
    // 24,000 pages: long enough that the line shows with the threshold at 0 even on a busy machine, where the
    // thread that draws it can take a few hundred milliseconds to start (3,000 pages once finished first at load 13,
    // and 8,000, a rotate of 0.23 s on a quiet machine, once under the whole suite).
    const pages10 = fixturePath('pages-10.pdf');
    await execa('qpdf', ['--empty', '--pages', ...Array<string>(2400).fill(pages10), '--', join(dir, 'big.pdf')]);
  }, 60_000);

  // Whether the drawing thread starts before the work ends is up to the machine's load: a longer run, and a retry.
  it('shows the file, its size and the time taken once the threshold passes, clears the line, and writes the same bytes as in a pipe', {
    retry: 2,
    timeout: 60_000,
  }, async () => {
    const shown = await onTerminal('rotate --angle 90 big.pdf -o tty.pdf', 'PDFSVC_PROGRESS_AFTER_MS=0');
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toMatch(LINE);
    // Cleared: the last thing on the terminal is the erased line, with nothing after it.
    expect(shown.stdout).toMatch(/\r\x1b\[2K$/);
    const piped = await execa('node', [bin, 'rotate', '--angle', '90', 'big.pdf', '-o', 'pipe.pdf'], { cwd: dir, reject: false });
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).toBe('');
    expect(readFileSync(join(dir, 'tty.pdf')).equals(readFileSync(join(dir, 'pipe.pdf')))).toBe(true);
    // Standard output redirected from the terminal gets the same bytes too.
    const toStdout = await onTerminal('rotate --angle 90 big.pdf > stdout.pdf', 'PDFSVC_PROGRESS_AFTER_MS=0');
    expect(toStdout.exitCode).toBe(0);
    expect(toStdout.stdout).toMatch(LINE);
    expect(readFileSync(join(dir, 'stdout.pdf')).equals(readFileSync(join(dir, 'pipe.pdf')))).toBe(true);
  });

  it('shows nothing for a quick run (under the real threshold of a second), nor under --quiet', async () => {
    const quick = await onTerminal(`rotate --angle 90 ${fixturePath('pages-3.pdf')} -o quick.pdf`);
    expect(quick.exitCode).toBe(0);
    expect(quick.stdout).toBe('');
    const quiet = await onTerminal('rotate --angle 90 big.pdf -o quiet.pdf --quiet', 'PDFSVC_PROGRESS_AFTER_MS=0');
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(readFileSync(join(dir, 'quiet.pdf')).equals(readFileSync(join(dir, 'tty.pdf')))).toBe(true);
  }, 60_000);

  it('on a terminal, a validation error still prints `pdfsvc: field: message`, exits 2 and leaves no file', async () => {
    // The message starts a line, or follows the cleared progress line if it was drawn.
    const bad = await onTerminal('add-password --password xy big.pdf -o bad.pdf; echo "exit=$?"', 'PDFSVC_PROGRESS_AFTER_MS=0');
    expect(bad.stdout).toMatch(/(^|\r\x1b\[2K)pdfsvc: password: .*at least 4\r?$/m);
    expect(bad.stdout).toMatch(/exit=2/);
    expect(existsSync(join(dir, 'bad.pdf'))).toBe(false);
    // A failure after the work began (an encrypted input) too: the line is cleared before the message.
    const locked = await onTerminal(`rotate --angle 90 ${fixturePath('encrypted-user.pdf')} -o locked.pdf; echo "exit=$?"`, 'PDFSVC_PROGRESS_AFTER_MS=0');
    expect(locked.stdout).toMatch(/(^|\r\x1b\[2K)pdfsvc: file: .*password/m);
    expect(locked.stdout).toMatch(/exit=2/);
    expect(existsSync(join(dir, 'locked.pdf'))).toBe(false);
  }, 60_000);
});
