/**
 * Batch mode end to end: many files per call, checked with qpdf and pdftotext
 * as a user would, with the exit status and the per-file JSON lines.
 */
import { execa } from 'execa';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, fixturePath, pageTexts, pdfinfo, qpdfCheck } from '../helpers/pdf-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pdfsvc = (args: string[], cwd: string) => execa('node', [join(process.cwd(), 'bin/pdfsvc.js'), ...args], { reject: false, cwd, encoding: 'utf8' });

/** 50 inputs: valid, damaged (not a PDF) and encrypted, in a fixed order. */
function makeInputs(folder: string): { names: string[]; kind: Record<string, 'valid' | 'damaged' | 'encrypted'> } {
  mkdirSync(folder, { recursive: true });
  const names: string[] = [];
  const kind: Record<string, 'valid' | 'damaged' | 'encrypted'> = {};
  for (let i = 0; i < 50; i++) {
    const which = i % 10 === 3 ? 'damaged' : i % 10 === 7 ? 'encrypted' : 'valid';
    const source = which === 'damaged' ? 'not-a-pdf.pdf' : which === 'encrypted' ? 'encrypted-user.pdf' : i % 2 ? 'pages-3.pdf' : 'pages-10.pdf';
    const name = `doc-${String(i).padStart(2, '0')}.pdf`;
    copyFileSync(fixturePath(source), join(folder, name));
    names.push(name);
    kind[name] = which;
  }
  return { names, kind };
}

describe('batch mode', () => {
  const work = join(dir, 'fifty');
  const { names, kind } = makeInputs(work);

  it('rotates 50 files: every valid output passes qpdf with its text, every failure has its JSON line, exit 2', async () => {
    const { stdout, stderr, exitCode } = await pdfsvc(
      ['rotate', '--angle', '90', ...names, '--out-dir', 'rotated', '--name', '{stem}-rotated.pdf', '--json'],
      work,
    );
    expect(exitCode).toBe(2);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => l.input)).toEqual(names);
    for (const line of lines) {
      const expectedOutput = join('rotated', line.input.replace('.pdf', '-rotated.pdf'));
      expect(line.output).toBe(expectedOutput);
      if (kind[line.input] === 'valid') {
        expect(line.status).toBe('ok');
        const bytes = new Uint8Array(readFileSync(join(work, expectedOutput)));
        expect((await qpdfCheck(bytes)).exitCode).toBe(0);
        const original = new Uint8Array(readFileSync(join(work, line.input)));
        expect(await pageTexts(bytes)).toEqual(await pageTexts(original));
        expect((await pdfinfo(bytes)).pages.every((p) => p.rotation === 90)).toBe(true);
      } else {
        expect(line.status).toBe('failed');
        expect(line.problem.status).toBe(400);
        expect(line.problem.errors.file[0]).toMatch(kind[line.input] === 'encrypted' ? /password/ : /could not be parsed/);
        expect(existsSync(join(work, expectedOutput))).toBe(false);
      }
    }
    // No temporary or partial file is left behind.
    expect(readdirSync(join(work, 'rotated')).sort()).toEqual(
      names
        .filter((n) => kind[n] === 'valid')
        .map((n) => n.replace('.pdf', '-rotated.pdf'))
        .sort(),
    );
    expect(stderr).toMatch(/^pdfsvc: 40 done, 10 failed, .* in, .* out, [\d.]+ s$/m);
  }, 600_000); // the harness's wait: 50 runs and their judging took over 2 minutes beside a second npm test

  it('on worker threads (--jobs 2) gives the same bytes as one file at a time (--jobs 1), and the same verdicts', async () => {
    const [parallel, serial] = await Promise.all([
      pdfsvc(['rotate', '--angle', '90', ...names, '--out-dir', 'jobs-2', '--jobs', '2', '--json'], work),
      pdfsvc(['rotate', '--angle', '90', ...names, '--out-dir', 'jobs-1', '--jobs', '1', '--json'], work),
    ]);
    expect(parallel.exitCode).toBe(2);
    expect(serial.exitCode).toBe(2);
    const verdicts = (stdout: string) =>
      Object.fromEntries(
        stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { input: string; status: string })
          .map((r) => [r.input, r.status]),
      );
    expect(verdicts(parallel.stdout)).toEqual(verdicts(serial.stdout));
    const written = readdirSync(join(work, 'jobs-1')).sort();
    expect(written).toEqual(readdirSync(join(work, 'jobs-2')).sort());
    expect(written).toHaveLength(names.filter((n) => kind[n] === 'valid').length);
    for (const name of written) expect(readFileSync(join(work, 'jobs-2', name)).equals(readFileSync(join(work, 'jobs-1', name))), name).toBe(true);
    const bad = await pdfsvc(['rotate', '--angle', '90', ...names.slice(0, 2), '--out-dir', 'jobs-0', '--jobs', '0'], work);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/pdfsvc: jobs: must be a whole number from 1 to 256/);
  });

  it('shows a progress bar on a terminal (script -qfc gives it one), never in a pipe or under --quiet', async () => {
    const command = (out: string, extra = '') =>
      `node ${join(process.cwd(), 'bin/pdfsvc.js')} rotate --angle 90 ${names.join(' ')} --out-dir ${out} --jobs 2 ${extra}`;
    const onTerminal = await execa('script', ['-qfc', command('bar-tty'), '/dev/null'], { cwd: work, reject: false });
    const screen = onTerminal.stdout.replace(/\r/g, '\n');
    expect(screen).toMatch(/\d+\/50 files \| .* read \| ETA /);
    expect(screen).toMatch(/pdfsvc: 40 done, 10 failed/);
    const quiet = await execa('script', ['-qfc', command('bar-quiet', '--quiet'), '/dev/null'], { cwd: work, reject: false });
    expect(quiet.stdout).not.toMatch(/files \|/);
    expect(quiet.stdout).toMatch(/pdfsvc: 40 done, 10 failed/);
    const piped = await pdfsvc(['rotate', '--angle', '90', ...names, '--out-dir', 'bar-pipe', '--jobs', '2'], work);
    expect(piped.stderr).not.toMatch(/files \||ETA/);
    expect(piped.stderr).toMatch(/pdfsvc: 40 done, 10 failed/);
  });

  it('splits each input into its own folder', async () => {
    const valid = names.filter((n) => kind[n] === 'valid').slice(0, 4);
    const { exitCode } = await pdfsvc(['split-by-page-count', '--page-count', '2', ...valid, '--out-dir', 'parts'], work);
    expect(exitCode).toBe(0);
    for (const name of valid) {
      const folder = join(work, 'parts', name.replace('.pdf', ''));
      const pages = (await pdfinfo(new Uint8Array(readFileSync(join(work, name))))).pages.length;
      const parts = readdirSync(folder).sort();
      expect(parts.length).toBe(Math.ceil(pages / 2));
      for (const part of parts) expect((await qpdfCheck(new Uint8Array(readFileSync(join(folder, part))))).exitCode).toBe(0);
    }
  }, 60_000);

  it('remove-password opens every encrypted file with its password', async () => {
    const encrypted = names.filter((n) => kind[n] === 'encrypted');
    const { exitCode } = await pdfsvc(['remove-password', '--password', 'secret-user', ...encrypted, '--out-dir', 'open'], work);
    expect(exitCode).toBe(0);
    for (const name of encrypted) expect((await qpdfCheck(new Uint8Array(readFileSync(join(work, 'open', name))))).exitCode).toBe(0);
  }, 60_000);

  it('refuses an existing output unless --force, and an output that is an input, before anything runs', async () => {
    const folder = join(dir, 'refuse');
    mkdirSync(join(folder, 'out'), { recursive: true });
    copyFileSync(fixturePath('pages-3.pdf'), join(folder, 'a.pdf'));
    copyFileSync(fixturePath('pages-3.pdf'), join(folder, 'b.pdf'));
    writeFileSync(join(folder, 'out', 'b.pdf'), 'keep');
    let result = await pdfsvc(['rotate', '--angle', '90', 'a.pdf', 'b.pdf', '--out-dir', 'out'], folder);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('pdfsvc: out_dir: out/b.pdf already exists; use --force');
    expect(existsSync(join(folder, 'out', 'a.pdf'))).toBe(false);
    result = await pdfsvc(['rotate', '--angle', '90', 'a.pdf', 'b.pdf', '--out-dir', 'out', '--force'], folder);
    expect(result.exitCode).toBe(0);
    expect((await qpdfCheck(new Uint8Array(readFileSync(join(folder, 'out', 'b.pdf'))))).exitCode).toBe(0);
    result = await pdfsvc(['rotate', '--angle', '90', 'a.pdf', 'b.pdf', '--out-dir', '.'], folder);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('would overwrite the input a.pdf');
    result = await pdfsvc(['rotate', '--angle', '90', 'a.pdf', 'b.pdf', '-o', 'x.pdf'], folder);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('pdfsvc: output:');
  }, 60_000);

  it('names every existing output in one refusal (the first five, then a count), and says what to do', async () => {
    const folder = join(dir, 'refuse-many');
    mkdirSync(join(folder, 'out'), { recursive: true });
    const inputs = Array.from({ length: 8 }, (_, i) => `in-${i}.pdf`);
    for (const name of inputs) copyFileSync(fixturePath('pages-1.pdf'), join(folder, name));
    for (const name of inputs.slice(1)) writeFileSync(join(folder, 'out', name), 'keep');
    const result = await pdfsvc(['rotate', '--angle', '90', ...inputs, '--out-dir', 'out'], folder);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'pdfsvc: out_dir: 7 outputs already exist: out/in-1.pdf, out/in-2.pdf, out/in-3.pdf, out/in-4.pdf, out/in-5.pdf and 2 more; use --force to overwrite them',
    );
    // Refused before any work: in-0's output was not written, the others kept.
    expect(existsSync(join(folder, 'out', 'in-0.pdf'))).toBe(false);
    expect(readFileSync(join(folder, 'out', 'in-7.pdf'), 'utf8')).toBe('keep');
  }, 60_000);

  it('--in-place replaces a file only when its action succeeded', async () => {
    const folder = join(dir, 'in-place');
    mkdirSync(folder, { recursive: true });
    copyFileSync(fixturePath('pages-3.pdf'), join(folder, 'ok.pdf'));
    copyFileSync(fixturePath('encrypted-user.pdf'), join(folder, 'locked.pdf'));
    const { exitCode } = await pdfsvc(['rotate', '--angle', '180', 'ok.pdf', 'locked.pdf', '--in-place'], folder);
    expect(exitCode).toBe(2);
    expect((await pdfinfo(new Uint8Array(readFileSync(join(folder, 'ok.pdf'))))).pages.every((p) => p.rotation === 180)).toBe(true);
    expect(readFileSync(join(folder, 'locked.pdf')).equals(Buffer.from(fixture('encrypted-user.pdf')))).toBe(true);
    expect(readdirSync(folder).sort()).toEqual(['locked.pdf', 'ok.pdf']);
  }, 60_000);
});
