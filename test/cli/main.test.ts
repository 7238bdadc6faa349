/**
 * The built command line, end to end: what a user types in a shell and what
 * they get back (files, standard output, exit status, messages).
 */
import { execa, type Options } from 'execa';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actions } from '../../src/actions/index.js';
import { kebabName } from '../../src/core/action.js';
import { actionNamedIn } from '../../src/cli/main.js';
import type { Field } from '../../src/core/fields.js';
import { fixture, fixturePath, pageDicts, pageMarkers, pdfinfo, qpdfCheck, qpdfJson } from '../helpers/pdf-tools.js';
import { buildPdf, simpleDoc } from '../helpers/raw-pdf.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The built CLI; output as bytes unless `options` says otherwise (their type follows the options given). */
const pdfsvc = <const O extends Options = Record<never, never>>(args: string[], options?: O) =>
  execa('node', ['bin/pdfsvc.js', ...args], { reject: false, encoding: 'buffer', ...options } as Omit<{ reject: false; encoding: 'buffer' }, keyof O> & O);

describe('pdfsvc CLI', () => {
  it('lists every action with `pdfsvc actions`', async () => {
    const { stdout, exitCode } = await execa('node', ['bin/pdfsvc.js', 'actions']);
    expect(exitCode).toBe(0);
    for (const action of actions) expect(stdout).toContain(kebabName(action.name));
  });

  it.each(actions.map((a) => [a.name, a] as const))('%s --help lists every field with its rules and default', async (_, action) => {
    const { stdout, exitCode } = await execa('node', ['bin/pdfsvc.js', kebabName(action.name), '--help']);
    expect(exitCode).toBe(0);
    for (const [name, field] of Object.entries(action.fields as Record<string, Field>)) {
      if (field.kind === 'file' && field.accepts === 'pdf') continue; // the positional input
      expect(stdout).toContain(`--${kebabName(name)}`);
    }
  });

  it.each(actions.map((a) => [a.name, a] as const))('%s --help speaks of the command line, not of HTTP, and fits 80 columns', async (_, action) => {
    const { stdout } = await execa('node', ['bin/pdfsvc.js', kebabName(action.name), '--help']);
    // The form's ways (a repeated part, file_1 … file_10, Accept) belong to the OpenAPI document; here it is paths and --format.
    expect(stdout).not.toMatch(/\bAccept\b|repeat the part|file_\d|file part|form part|form-data|header/i);
    // Fields and actions by the command line's names (--page-count, add-restrictions), not the API's (page_count, "call add_restrictions"),
    // and no reference of a declaration left unsaid ({page_count}). Not words: the usage line's alias, --name's placeholders, --format json's envelope.
    const text = stdout
      .replace(/^Usage: .*$/m, '')
      .replace(/\{(stem|name|ext)\}/g, '')
      .replace(/\{"documents".*?\}\]\}/s, '');
    expect(text.match(/\b[a-z0-9]+_[a-z0-9_]+\b|\bcall\b|[{}]/g) ?? []).toEqual([]);
    // One fact once: --image said PNG and JPEG in its help, then "a PNG or JPEG image" in its rules.
    for (const option of stdout.slice(stdout.indexOf('Options:')).split(/\n(?= {2}-)/)) {
      for (const format of ['PNG', 'JPEG']) expect(option.split(format).length - 1, option).toBeLessThanOrEqual(1);
    }
    // A long placeholder (position's nine places) set every description past it, off the terminal's width.
    for (const line of stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('--help lists the commands within 80 columns, each with its short verb', async () => {
    const { stdout } = await execa('node', ['bin/pdfsvc.js', '--help']);
    for (const line of stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(stdout).toMatch(/^ {2}rotate-pages\|rotate +\[inputs\.\.\.\] +Rotate pages/m);
  });

  it('answers to the API name and the short verb as well as the kebab-case name', async () => {
    for (const name of ['rotate-pages', 'rotate_pages', 'rotate']) {
      const { exitCode, stdout } = await pdfsvc([name, '--angle', '90', fixturePath('pages-1.pdf')]);
      expect(exitCode, name).toBe(0);
      expect((await pdfinfo(stdout)).pages[0].rotation).toBe(90);
    }
  });

  it('builds only the action it runs, found past the global options; anything else gets the whole program', () => {
    const run = (...args: string[]) => actionNamedIn(['node', 'pdfsvc', ...args])?.name;
    expect(run('rotate', '--angle', '90')).toBe('rotate_pages');
    expect(run('rotate_pages')).toBe('rotate_pages');
    expect(run('--server', 'http://h', '--cacert', 'ca.pem', 'split-by-size', 'x.pdf')).toBe('split_by_size');
    expect(run('--server=http://h', 'merge')).toBe('merge_documents');
    for (const other of [['serve'], ['keys', 'list'], ['--help'], ['-V'], ['rotat'], []]) expect(run(...other), other.join(' ')).toBeUndefined();
  });

  it('says which command is unknown when the name is mistyped, and suggests the one meant', async () => {
    const { exitCode, stderr } = await pdfsvc(['rotat', fixturePath('pages-1.pdf')]);
    expect(exitCode).toBe(2);
    expect(Buffer.from(stderr).toString()).toContain("unknown command 'rotat'\n(Did you mean rotate?)");
  });

  it('reads standard input and writes standard output, for pipelines', async () => {
    const { exitCode, stdout } = await pdfsvc(['reverse'], { input: fixture('pages-10.pdf') });
    expect(exitCode).toBe(0);
    expect(await pageMarkers(stdout)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const dash = await pdfsvc(['extract', '--pages', '2,4', '-'], { input: fixture('pages-10.pdf') });
    expect(await pageMarkers(dash.stdout)).toEqual([2, 4]);
  });

  it('runs under NODE_OPTIONS=--no-deprecation, which makes process.noDeprecation read-only', async () => {
    const out = join(dir, 'no-deprecation.pdf');
    const run = await pdfsvc(['rotate', '--angle', '90', fixturePath('pages-10.pdf'), '-o', out], {
      encoding: 'utf8',
      env: { NODE_OPTIONS: '--no-deprecation' },
    });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect((await qpdfCheck(readFileSync(out))).exitCode).toBe(0);
    expect((await pdfinfo(readFileSync(out))).pages.map((page) => page.rotation)).toEqual(Array(10).fill(90));
  });

  it('sets its V8 flags without node:v8, and draws no progress into a file: a local rotate loads neither node:v8 nor streams', async () => {
    // Node's modules a run loaded, written at exit; node:v8 and process.stderr each load Node's streams (src/core/v8-flags.ts).
    const loaded = join(dir, 'loaded.txt');
    const preload = join(dir, 'loaded.cjs');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join('\\n')));`);
    const out = join(dir, 'rotated.pdf');
    const errors = join(dir, 'stderr.txt');
    const run = await execa(
      'sh',
      ['-c', `node -r "$1" bin/pdfsvc.js rotate --angle 90 "$2" -o "$3" 2>"$4"`, 'sh', preload, fixturePath('pages-10.pdf'), out, errors],
      {
        reject: false,
        env: { NODE_OPTIONS: '--pending-deprecation', PDFSVC_PROGRESS_AFTER_MS: '0' },
      },
    );
    expect(run.exitCode).toBe(0);
    // Standard error a file: no progress line, and no deprecation warning for the flags.
    expect(readFileSync(errors, 'latin1')).toBe('');
    expect((await pdfinfo(readFileSync(out))).pages.map((page) => page.rotation)).toEqual(Array(10).fill(90));
    const modules = () => readFileSync(loaded, 'latin1').split('\n');
    expect(modules().filter((m) => /^NativeModule (v8|stream|internal\/heap_utils)$/.test(m))).toEqual([]);
    // Standard error /dev/null (a character device, no terminal): the same.
    const quiet = await execa(
      'sh',
      ['-c', `node -r "$1" bin/pdfsvc.js rotate --angle 90 "$2" -o "$3" 2>/dev/null`, 'sh', preload, fixturePath('pages-10.pdf'), out],
      {
        reject: false,
        env: { PDFSVC_PROGRESS_AFTER_MS: '0' },
      },
    );
    expect(quiet.exitCode).toBe(0);
    expect(modules().filter((m) => /^NativeModule (v8|stream|internal\/heap_utils)$/.test(m))).toEqual([]);
  });

  it('writes -o FILE and leaves nothing behind when a run fails', async () => {
    const out = join(dir, 'out.pdf');
    const ok = await pdfsvc(['reorder', '--page-order', '3,1,2', fixturePath('pages-3.pdf'), '-o', out]);
    expect(ok.exitCode).toBe(0);
    expect((await qpdfCheck(readFileSync(out))).exitCode).toBe(0);
    const before = readFileSync(out);
    const failed = await pdfsvc(['reorder', '--page-order', '3,1,9', fixturePath('pages-3.pdf'), '-o', out]);
    expect(failed.exitCode).toBe(2);
    expect(readFileSync(out).equals(before)).toBe(true);
    const fresh = join(dir, 'never.pdf');
    const broken = await pdfsvc(['rotate', '--angle', '90', fixturePath('truncated.pdf'), '-o', fresh]);
    expect(broken.exitCode).toBe(2);
    expect(existsSync(fresh)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.includes('partial'))).toEqual([]);
  });

  it('replaces the file an -o names as a user sees it: through a symbolic link, with its permissions; a named pipe is written to, not replaced', async () => {
    const source = fixturePath('pages-3.pdf');
    const rotations = async (path: string) => (await pdfinfo(readFileSync(path))).pages.map((page) => page.rotation);
    // A private document stays private; a link stays a link, and the file it names gets the output.
    const secret = join(dir, 'secret.pdf');
    writeFileSync(secret, readFileSync(source), { mode: 0o600 });
    const target = join(dir, 'linked-target.pdf');
    writeFileSync(target, readFileSync(source), { mode: 0o640 });
    const link = join(dir, 'link.pdf');
    symlinkSync('linked-target.pdf', link);
    for (const output of [secret, link]) expect((await pdfsvc(['rotate', '--angle', '90', source, '-o', output])).exitCode).toBe(0);
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(await rotations(target)).toEqual([90, 90, 90]);
    // --in-place likewise.
    expect((await pdfsvc(['rotate', '--angle', '90', link, secret, '--in-place'])).exitCode).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect([statSync(secret).mode & 0o777, statSync(target).mode & 0o777]).toEqual([0o600, 0o640]);
    expect(await rotations(target)).toEqual([180, 180, 180]);
    // A named pipe (as /dev/null, which a rename by root would replace with a file): its reader gets the PDF.
    const pipe = join(dir, 'pipe');
    await execa('mkfifo', [pipe]);
    const reader = execa('cat', [pipe], { encoding: 'buffer' });
    expect((await pdfsvc(['rotate', '--angle', '90', source, '-o', pipe])).exitCode).toBe(0);
    const read = Buffer.from((await reader).stdout);
    expect(lstatSync(pipe).isFIFO()).toBe(true);
    expect((await pdfinfo(read)).pages.map((page) => page.rotation)).toEqual([90, 90, 90]);
    // A link to nothing: refused before any work (make the file, or replace the link?), the link left as it was.
    const dangling = join(dir, 'dangling.pdf');
    symlinkSync('nowhere.pdf', dangling);
    const refused = await pdfsvc(['rotate', '--angle', '90', source, '-o', dangling], { encoding: 'utf8' });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/^pdfsvc: output: ".*dangling\.pdf" is a symbolic link to a file that does not exist; give -o the path/m);
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).filter((n) => n.includes('partial'))).toEqual([]);
  });

  it('refuses an -o no file can be written to as invalid output, saying what to do, and leaves nothing behind', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const cases = [
      [folder, /^pdfsvc: output: ".*a-folder" is a directory; give -o a file name/m],
      [join(dir, 'no-such-dir', 'out.pdf'), /^pdfsvc: output: cannot write .*out\.pdf": the directory ".*no-such-dir" does not exist; make it first/m],
      [join(fixturePath('pages-3.pdf'), 'out.pdf'), /^pdfsvc: output: cannot write .*: ".*pages-3\.pdf" is not a directory/m],
    ] as const;
    for (const [output, message] of cases) {
      const { exitCode, stderr } = await pdfsvc(['rotate', '--angle', '90', fixturePath('pages-3.pdf'), '-o', output], { encoding: 'utf8' });
      expect({ exitCode, stderr }).toEqual({ exitCode: 2, stderr: expect.stringMatching(message) });
      expect(stderr).not.toMatch(/internal error|partial/);
    }
    expect(readdirSync(folder)).toEqual([]);
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  });

  it('keeps a name whose escapes spell # and hex digits, as qpdf reads it, through the actions that rewrite the object', async () => {
    // A CJK form's radio values, escaped byte by byte, were /#23e5#2388…: the #88 in them came out as byte 0x88.
    // qpdf's JSON writes a name's bytes as they are: '#' for the character, a byte above 0x7E raw.
    const doc = simpleDoc(['one', 'two'], { page: () => '/PdfsvcValue /#23e5#2388#23B6' });
    const input = join(dir, 'hash-name.pdf');
    writeFileSync(input, buildPdf([{ objects: doc.objects }]).bytes);
    for (const args of [['rotate', '--angle', '90'], ['remove-signatures'], ['reorder', '--page-order', '2,1'], ['merge', input]]) {
      const { exitCode, stdout } = await pdfsvc([...args, input]);
      expect(exitCode, args[0]).toBe(0);
      const values = pageDicts(await qpdfJson(stdout)).map((page) => page['/PdfsvcValue']);
      expect(values, args[0]).toEqual(Array<string>(args[0] === 'merge' ? 4 : 2).fill('/#e5#88#B6'));
    }
  });

  describe('when the reader of standard output closes the pipe early', () => {
    // The same main() runs from both built files: bin/pdfsvc.js runs a local action from dist/cli-action.cjs,
    // this file runs it from dist/cli.js (what every other command line and remote mode use).
    const fullCli = join(dir, 'full-cli.mjs');
    writeFileSync(fullCli, `import { main } from ${JSON.stringify(pathToFileURL(join(process.cwd(), 'dist/cli.js')).href)};\nawait main(process.argv);\n`);
    // Outputs of megabytes, well past what a pipe (64 KiB) or a socket pair (execa's, about 200 KiB) holds,
    // so that the writer is still writing when the reader goes.
    const big = join(dir, 'big.pdf');
    beforeAll(async () => {
      expect((await pdfsvc(['merge', ...Array<string>(20).fill(fixturePath('sized.pdf')), '-o', big])).exitCode).toBe(0);
    });
    const entries = { 'bin/pdfsvc.js': 'bin/pdfsvc.js', 'dist/cli.js': fullCli };
    const commands = {
      rotate: ['rotate', '--angle', '90', big],
      'a split (its ZIP)': ['split-by-page-count', '--page-count', '10', big],
    };

    /** `pdfsvc ARGS | head -c 10 | wc -c` in bash: the bytes head passed on, pdfsvc's status as the shell sees it, its standard error. */
    const intoHead = async (entry: string, args: string[]) => {
      // $PIPESTATUS: the status of the pipeline's first command (its element 0).
      const script = 'node "$@" | head -c 10 | wc -c; echo "$PIPESTATUS"';
      const { stdout, stderr } = await execa('bash', ['-c', script, 'bash', entry, ...args]);
      const [bytes, status] = stdout.trim().split(/\s+/).map(Number);
      return { bytes, status, stderr };
    };

    for (const [entryName, entry] of Object.entries(entries)) {
      for (const [what, args] of Object.entries(commands)) {
        it(`ends as if killed by SIGPIPE, silently: ${what}, from ${entryName}`, async () => {
          expect(await intoHead(entry, args)).toEqual({ bytes: 10, status: 141, stderr: '' });
          // A caller other than a shell sees the signal itself, as it would for cat or head.
          const child = execa('node', [entry, ...args], { reject: false, buffer: { stdout: false } });
          child.stdout.once('data', () => child.stdout.destroy());
          const { signal, exitCode, stderr } = await child;
          expect({ signal, exitCode, stderr: String(stderr) }).toEqual({ signal: 'SIGPIPE', exitCode: undefined, stderr: '' });
        });
      }
    }

    // Text outputs too (help, lists, scripts), with the reader gone before the first write.
    const texts = {
      help: ['--help'],
      "an action's help": ['rotate', '--help'],
      'the action list': ['actions', '--json'],
      'a completion script': ['completion', 'bash'],
    };
    for (const [what, args] of Object.entries(texts)) {
      it(`ends as if killed by SIGPIPE, silently, when nobody reads ${what}`, async () => {
        const child = execa('node', ['bin/pdfsvc.js', ...args], { reject: false, buffer: { stdout: false } });
        child.stdout.destroy();
        const { signal, exitCode, stderr } = await child;
        expect({ signal, exitCode, stderr: String(stderr) }).toEqual({ signal: 'SIGPIPE', exitCode: undefined, stderr: '' });
      });
    }

    it('is read whole by a reader that starts late: a run that ends with output in flight ends only once it is written', async () => {
      // bin/pdfsvc.js exits at once when nothing is pending; output that a pipe has not taken yet must still go out.
      const script = 'node "$@" | (sleep 0.3; cat) | cmp - "$EXPECTED" && echo same';
      const expected = join(dir, 'late-reader.pdf');
      expect((await pdfsvc([...commands.rotate, '-o', expected])).exitCode).toBe(0);
      const { stdout } = await execa('bash', ['-c', script, 'bash', 'bin/pdfsvc.js', ...commands.rotate], { env: { EXPECTED: expected } });
      expect(stdout).toBe('same');
    });

    it('does not matter with -o: the file is written whole, with nothing left beside it', async () => {
      const out = join(dir, 'piped-o', 'rotated.pdf');
      mkdirSync(dirname(out));
      const { bytes, status, stderr } = await intoHead('bin/pdfsvc.js', [...commands.rotate, '-o', out]);
      expect({ bytes, status, stderr }).toEqual({ bytes: 0, status: 0, stderr: '' });
      expect((await qpdfCheck(readFileSync(out))).exitCode).toBe(0);
      const rotations = async (bytes: Uint8Array) => (await pdfinfo(bytes)).pages.map((page) => page.rotation);
      expect(await rotations(readFileSync(out))).toEqual((await rotations(readFileSync(big))).map((angle) => (angle + 90) % 360));
      expect(readdirSync(dirname(out))).toEqual(['rotated.pdf']);
    });
  });

  it('exits 2 with `pdfsvc: <field>: <message>` for invalid input', async () => {
    const { exitCode, stderr } = await pdfsvc(['reorder', '--page-order', '9', fixturePath('pages-3.pdf')], { encoding: 'utf8' });
    expect(exitCode).toBe(2);
    expect(stderr).toMatch(/^pdfsvc: page_order: .*9.*\(the document has 3 pages\)/m);
    const angle = await pdfsvc(['rotate', '--angle', 'ninety', fixturePath('pages-3.pdf')], { encoding: 'utf8' });
    expect(angle.exitCode).toBe(2);
    expect(angle.stderr).toMatch(/^pdfsvc: angle: /m);
    const missing = await pdfsvc(['rotate', '--angle', '90', join(dir, 'nope.pdf')], { encoding: 'utf8' });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/^pdfsvc: file: cannot read .*nope\.pdf.*no such file/m);
    const unknown = await pdfsvc(['rotate', '--angel', '90', fixturePath('pages-3.pdf')], { encoding: 'utf8' });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option '--angel'/);
  });

  it('takes -o - for standard output, as - is standard input, and makes no file named -', async () => {
    const cwd = join(dir, 'dash-output');
    mkdirSync(cwd);
    const cli = join(process.cwd(), 'bin/pdfsvc.js');
    const one = await execa('node', [cli, 'reverse', fixturePath('pages-3.pdf'), '-o', '-'], { cwd, encoding: 'buffer' });
    expect(await pageMarkers(one.stdout)).toEqual([3, 2, 1]);
    const parts = await execa('node', [cli, 'split-at-page', '--page', '2', fixturePath('pages-3.pdf'), '-o', '-', '--format', 'json'], { cwd });
    expect(JSON.parse(parts.stdout).documents.map((d: { name: string }) => d.name)).toEqual(['00001.pdf', '00002.pdf']);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('refuses --format beside -o DIR or --out-dir, where the parts are files (-o parts.zip --format zip made a directory)', async () => {
    const target = join(dir, 'parts.zip');
    for (const where of [
      ['-o', target],
      ['--out-dir', target],
    ]) {
      const refused = await pdfsvc(['split-by-page-count', '--page-count', '1', fixturePath('pages-3.pdf'), ...where, '--format', 'zip'], { encoding: 'utf8' });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toMatch(/^pdfsvc: format: packs the parts for standard output, but -o DIR and --out-dir write them as files/);
      expect(existsSync(target)).toBe(false);
    }
    // The default packaging, not given, is no refusal: -o DIR writes the parts.
    expect((await pdfsvc(['split-by-page-count', '--page-count', '1', fixturePath('pages-3.pdf'), '-o', target])).exitCode).toBe(0);
    expect(readdirSync(target)).toEqual(['00001.pdf', '00002.pdf', '00003.pdf']);
  });

  it('says an empty input is empty, from a pipe or a file, for one document and for one of a merge', async () => {
    const empty = join(dir, 'empty.pdf');
    writeFileSync(empty, '');
    const piped = await pdfsvc(['rotate', '--angle', '90'], { input: '', encoding: 'utf8' });
    expect({ exitCode: piped.exitCode, stderr: piped.stderr }).toEqual({
      exitCode: 2,
      stderr: 'pdfsvc: file: could not be parsed; it may be invalid or corrupt (it is empty: 0 bytes)',
    });
    const merged = await pdfsvc(['merge', fixturePath('pages-3.pdf'), empty], { encoding: 'utf8' });
    expect(merged.stderr).toBe('pdfsvc: file: document 2 could not be parsed; it may be invalid or corrupt (it is empty: 0 bytes)');
  });

  it('names the options that give a required field left out, not HTTP form parts, and writes nothing', async () => {
    const out = join(dir, 'never-written.pdf');
    const cases = [
      [['add-image-watermark'], 'image: is required: give --image FILE'],
      [['add-password'], 'password: is required: give --password VALUE, --password-file FILE, or set PDFSVC_PASSWORD'],
      [['rotate'], 'angle: is required: give --angle, one of 0, 90, 180, 270, -90, -180, -270'],
    ] as const;
    for (const [args, message] of cases) {
      const { exitCode, stderr } = await pdfsvc([...args, fixturePath('pages-3.pdf'), '-o', out], { encoding: 'utf8', env: { PDFSVC_PASSWORD: undefined } });
      expect({ exitCode, stderr }).toEqual({ exitCode: 2, stderr: `pdfsvc: ${message}` });
    }
    // Required, as the contract lists it, and empty for a document that opens without one.
    const locked = await pdfsvc(['remove-password', fixturePath('encrypted-user.pdf'), '-o', out], { encoding: 'utf8', env: { PDFSVC_PASSWORD: undefined } });
    expect({ exitCode: locked.exitCode, stderr: locked.stderr }).toEqual({
      exitCode: 2,
      stderr:
        "pdfsvc: password: is required: give --password VALUE, --password-file FILE, or set PDFSVC_PASSWORD; give it empty (--password '') for a document that opens without a password",
    });
    // --json keeps the problem object the API answers with.
    const json = await pdfsvc(['add-image-watermark', '--json', fixturePath('pages-3.pdf'), '-o', out], { encoding: 'utf8' });
    expect(JSON.parse(json.stderr).errors).toEqual({ image: ['is required: send the image as a file part'] });
    const restrictions = await pdfsvc(['add-restrictions', '--allow-print', 'false', fixturePath('pages-3.pdf'), '-o', out], { encoding: 'utf8' });
    expect(restrictions.stderr).toMatch(
      /^pdfsvc: owner_password: is required: give --owner-password VALUE, --owner-password-file FILE, or set PDFSVC_OWNER_PASSWORD$/m,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("says a refusal in the command line's words (options, commands), and in the API's with --json", async () => {
    const out = join(dir, 'never-written.pdf');
    const refusals = [
      [
        ['add-text-watermark', '--line-1', 'a', '--font-size', ''],
        "font_size: is empty; give number from 4 to 400 points, or leave the option out for the default (fitted: the longest line spans about 60 % of the visible page's shorter side)",
        "font_size: is empty; send number from 4 to 400 points, or leave the field out for the default (fitted: the longest line spans about 60 % of the visible page's shorter side)",
      ],
      [
        ['rotate', '--angle', ''],
        'angle: is empty; give one of 0, 90, 180, 270, -90, -180, -270',
        'angle: is empty; send one of 0, 90, 180, 270, -90, -180, -270',
      ],
      [
        ['add-text-watermark', '--line-1', 'a\tb'],
        'line_1: contains the control character U+0009; a line is one line of text (use --line-1 … --line-5 for several)',
        'line_1: contains the control character U+0009; a line is one line of text (use line_1 … line_5 for several)',
      ],
      [
        ['add-restrictions', '--owner-password', 'same-secret', '--user-password', 'same-secret'],
        'user_password: must differ from --owner-password: with the same password every reader would be the owner, and the restrictions would be void',
        'user_password: must differ from owner_password: with the same password every reader would be the owner, and the restrictions would be void',
      ],
      [
        ['rotate', '--angle', '90', fixturePath('encrypted-user.pdf')],
        'file: the document is password-protected: run remove-password with its password first, then rotate-pages',
        'file: the document is password-protected: call remove_password with its password first, then rotate_pages',
      ],
      [
        ['remove-restrictions', fixturePath('encrypted-user.pdf')],
        'file: the document is password-protected (it needs a password to open): run remove-password first; remove-restrictions has no password option',
        'file: the document is password-protected (it needs a password to open): call remove_password first; remove_restrictions has no password field',
      ],
      [
        ['split-by-groups', '--groups', '1;7'],
        'groups: group 2 ("7"): page "7" does not exist (the document has 3 pages); use 1 to 3, or -3 to -1 counting from the end',
        'groups: group 2 ("7"): page "7" does not exist (the document has 3 pages); use 1 to 3, or -3 to -1 counting from the end',
      ],
    ] as const;
    for (const [args, cli, api] of refusals) {
      const input = args.some((arg) => arg.endsWith('.pdf')) ? [] : [fixturePath('pages-3.pdf')];
      const plain = await pdfsvc([...args, ...input, '-o', out], { encoding: 'utf8' });
      expect({ exitCode: plain.exitCode, stderr: plain.stderr }).toEqual({ exitCode: 2, stderr: `pdfsvc: ${cli}` });
      const json = await pdfsvc([...args, ...input, '-o', out, '--json'], { encoding: 'utf8' });
      const [field, message] = [api.slice(0, api.indexOf(': ')), api.slice(api.indexOf(': ') + 2)];
      expect({ exitCode: json.exitCode, errors: JSON.parse(json.stderr).errors }).toEqual({ exitCode: 2, errors: { [field]: [message] } });
    }
    // Batch mode says it in the same words, one line per input.
    const batch = await pdfsvc(
      ['rotate', '--angle', '90', fixturePath('encrypted-user.pdf'), fixturePath('pages-3.pdf'), '--out-dir', join(dir, 'batch-words')],
      { encoding: 'utf8' },
    );
    expect(batch.stderr).toContain('run remove-password with its password first, then rotate-pages');
    expect(existsSync(out)).toBe(false);
  });

  it('prints the problem object on standard error with --json', async () => {
    const { exitCode, stderr } = await pdfsvc(['reverse', '--json', fixturePath('not-a-pdf.pdf')], { encoding: 'utf8' });
    expect(exitCode).toBe(2);
    const problem = JSON.parse(stderr);
    // No server to point at; the last segment is the status, as SERVICE.md shapes every type.
    expect(problem).toMatchObject({ type: 'about:blank/400', status: 400, title: expect.stringMatching(/validation/) });
    expect(problem.errors.file[0]).toMatch(/could not be parsed/);
  });

  it("prints commander's refusals as a problem object with --json too: an unknown option is an unknown field", async () => {
    const cases: Array<[string[], string, RegExp]> = [
      [['rotate', '--angle', '90', '--bogus', '1'], 'bogus', /unknown option '--bogus'/],
      [['split-by-page-count', '--page-count', '1', '--format', 'pdf'], 'format', /Allowed choices are zip, json, multipart/],
    ];
    for (const [args, field, message] of cases) {
      const { exitCode, stderr } = await pdfsvc([...args, '--json', fixturePath('pages-3.pdf')], { encoding: 'utf8' });
      expect(exitCode).toBe(2);
      const problem = JSON.parse(stderr);
      expect(problem).toMatchObject({ type: 'about:blank/400', status: 400, title: expect.stringMatching(/validation/) });
      expect(problem.errors).toEqual({ [field]: [expect.stringMatching(message)] });
    }
    // Without --json, commander's own words.
    expect((await pdfsvc(['rotate', '--angle', '90', '--bogus', '1', fixturePath('pages-3.pdf')], { encoding: 'utf8' })).stderr).toBe(
      "error: unknown option '--bogus'",
    );
  });

  it('keeps only hashes in the keys file; create, list and revoke', async () => {
    const keysFile = join(dir, 'keys.json');
    const created = await execa('node', ['bin/pdfsvc.js', 'keys', 'create', '--plan', 'starter', '--name', 'ci', '--keys-file', keysFile]);
    const key = created.stdout.trim();
    expect(key.split('\n')).toHaveLength(1);
    expect(key).toMatch(/^pdfsvc_[A-Za-z0-9_-]{43}$/);
    const stored = readFileSync(keysFile, 'utf8');
    expect(stored).not.toContain(key);
    expect(JSON.parse(stored).keys[0]).toMatchObject({ name: 'ci', plan: 'starter', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const listed = await execa('node', ['bin/pdfsvc.js', 'keys', 'list', '--json', '--keys-file', keysFile]);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'ci', plan: 'starter' })]);
    expect(listed.stdout).not.toContain(key);
    await execa('node', ['bin/pdfsvc.js', 'keys', 'revoke', 'ci', '--keys-file', keysFile]);
    expect(JSON.parse(readFileSync(keysFile, 'utf8')).keys).toEqual([]);
    const bad = await pdfsvc(['keys', 'create', '--plan', 'gold', '--keys-file', keysFile], { encoding: 'utf8' });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/plan: must be one of free, starter, business/);
  });

  it('refuses to serve plain HTTP beyond loopback, and unknown regions', async () => {
    // Generous: each refusal is 0.4 s of CPU, but took 5-10 s at load 36 on 2 cores (a hang is still caught, as timedOut).
    const open = await pdfsvc(['serve', '--host', '0.0.0.0', '--port', '0'], { encoding: 'utf8', timeout: 60_000 });
    expect(open.timedOut, open.stderr).toBe(false);
    expect(open.exitCode).toBe(2);
    expect(open.stderr).toMatch(/not a loopback address.*--https/);
    const region = await pdfsvc(['serve', '--region', 'mars', '--port', '0'], { encoding: 'utf8', timeout: 60_000 });
    expect(region.timedOut, region.stderr).toBe(false);
    expect(region.exitCode).toBe(2);
    expect(region.stderr).toMatch(/unknown region "mars"/);
  });

  it('prints the base URL first and an ephemeral key when there are no keys', async () => {
    const keysFile = join(dir, 'empty-keys.json');
    writeFileSync(keysFile, JSON.stringify({ version: 1, keys: [] }));
    // No SIGKILL 5 s after the SIGTERM (execa's default): the exit status under test is the server's own.
    const server = execa('node', ['bin/pdfsvc.js', 'serve', '--port', '0', '--keys-file', keysFile], { reject: false, forceKillAfterDelay: false });
    const output = await new Promise<string>((resolve) => {
      let seen = '';
      server.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/X-API-Key: \S+/.test(seen)) resolve(seen);
      });
    });
    const lines = output.split('\n');
    const base = /https?:\/\/\S+/.exec(lines.find((l) => /https?:\/\//.test(l))!)![0];
    const key = /X-API-Key: (\S+)/.exec(output)![1];
    const form = new FormData();
    form.append('file', new Blob([fixture('pages-3.pdf')]), 'in.pdf');
    const response = await fetch(`${base}/v1/reverse_pages`, { method: 'POST', body: form, headers: { 'X-API-Key': key } });
    expect(response.status).toBe(200);
    server.kill('SIGTERM');
    const ended = await server;
    expect(ended.exitCode).toBe(0);
    // Logs: one JSON line per request, without the key.
    const logs = String(ended.stderr)
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(logs).toContainEqual(expect.objectContaining({ method: 'POST', path: '/v1/reverse_pages', status: 200 }));
    expect(String(ended.stderr)).not.toContain(key);
  });
});
