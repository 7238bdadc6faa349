/**
 * The contract's workflows (docs/contract.md, "Workflows"), end to
 * end through the built CLI (`node bin/pdfsvc.js`, passwords from files and
 * environment variables) and through the HTTP app:
 *   1. restrictions and an open password in one add_restrictions call;
 *   2. remove_password → rotate_pages → add_password;
 *   3. signed document → remove_signatures → extract_pages.
 * Outputs are judged by qpdf, pdfinfo, pdftotext and pdfsig.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, fixturePath, pageMarkers, pdfinfo } from '../helpers/pdf-tools.js';
import { opensWith, showEncryption, signatureNames } from '../helpers/security.js';
import { formRequest, inProcessApp, keys, problemOf, type Part } from '../server/harness.js';
import type { RequestLogEntry } from '../../src/server/app.js';

const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-workflows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The built CLI; `env` adds to a clean environment without any PDFSVC_ variable of the caller. */
const pdfsvc = (args: string[], options: { input?: Uint8Array; env?: Record<string, string> } = {}) => {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('PDFSVC_')) delete env[key];
  return execa('node', ['bin/pdfsvc.js', ...args], {
    reject: false,
    encoding: 'buffer',
    input: options.input,
    env: { ...env, ...options.env },
    extendEnv: false,
  });
};
const secretFile = (name: string, secret: string) => {
  const path = join(dir, name);
  writeFileSync(path, `${secret}\n`);
  return path;
};

const app = inProcessApp('global');
async function post(action: string, fields: Array<[string, Part]>): Promise<Response> {
  return app.fetch(formRequest(`http://pdfsvc.test/v1/${action}`, fields, { 'X-API-Key': keys.business }));
}
async function postPdf(action: string, fields: Array<[string, Part]>): Promise<Uint8Array> {
  const response = await post(action, fields);
  if (response.status !== 200) throw new Error(`${action}: ${response.status} ${JSON.stringify(await response.json())}`);
  expect(response.headers.get('content-type')).toBe('application/pdf');
  return new Uint8Array(await response.arrayBuffer());
}

describe('workflow 1: restrictions and an open password in one add_restrictions call', () => {
  const check = async (out: Uint8Array) => {
    expect(await opensWith(out)).toBe(false);
    const asUser = await showEncryption(out, 'reader-pw');
    expect(asUser).toMatchObject({ R: 6, userMatched: true, ownerMatched: false });
    expect(asUser.capabilities).toMatchObject({ 'print low resolution': false, 'extract for any purpose': false, 'modify other': true });
    expect((await showEncryption(out, 'owner-pw')).ownerMatched).toBe(true);
    expect(await pageMarkers(await decrypted(out, 'owner-pw'))).toEqual([1, 2, 3]);
  };

  it('CLI: owner password from --owner-password-file, user password from $PDFSVC_USER_PASSWORD', async () => {
    const out = join(dir, 'restricted.pdf');
    const run = await pdfsvc(
      [
        'add-restrictions',
        '--owner-password-file',
        secretFile('owner.txt', 'owner-pw'),
        '--encryption-algorithm',
        'AES-256',
        '--allow-print',
        'false',
        '--allow-copy-content',
        'false',
        fixturePath('pages-3.pdf'),
        '-o',
        out,
      ],
      { env: { PDFSVC_USER_PASSWORD: 'reader-pw' } },
    );
    expect(run.exitCode, Buffer.from(run.stderr).toString()).toBe(0);
    await check(readFileSync(out));
  });

  it('HTTP', async () => {
    await check(
      await postPdf('add_restrictions', [
        ['file', fixture('pages-3.pdf')],
        ['owner_password', 'owner-pw'],
        ['user_password', 'reader-pw'],
        ['encryption_algorithm', 'AES-256'],
        ['allow_print', 'false'],
        ['allow_copy_content', 'false'],
      ]),
    );
  });

  it('add_password followed by add_restrictions is refused, naming remove_password (rule 4)', async () => {
    const locked = await postPdf('add_password', [
      ['file', fixture('pages-3.pdf')],
      ['password', 'reader-pw'],
    ]);
    const problem = await problemOf(
      await post('add_restrictions', [
        ['file', locked],
        ['owner_password', 'owner-pw'],
      ]),
    );
    expect(problem.status).toBe(400);
    expect(problem.errors?.file?.[0]).toMatch(/remove_password/);
  });
});

describe('workflow 2: remove_password → rotate_pages → add_password', () => {
  const check = async (out: Uint8Array) => {
    expect(await opensWith(out)).toBe(false);
    expect((await showEncryption(out, 'new-pw')).R).toBe(4);
    expect((await pdfinfo(out, 'new-pw')).pages.map((p) => p.rotation)).toEqual([90, 90]);
    expect(await pageMarkers(await decrypted(out, 'new-pw'))).toEqual([1, 2]);
  };

  it('CLI, as a pipeline: passwords from $PDFSVC_PASSWORD and --password-file', async () => {
    const opened = await pdfsvc(['remove-password', fixturePath('encrypted-user.pdf')], { env: { PDFSVC_PASSWORD: 'secret-user' } });
    expect(opened.exitCode, Buffer.from(opened.stderr).toString()).toBe(0);
    const rotated = await pdfsvc(['rotate', '--angle', '90'], { input: opened.stdout });
    expect(rotated.exitCode).toBe(0);
    const locked = await pdfsvc(['add-password', '--password-file', secretFile('new.txt', 'new-pw')], { input: rotated.stdout });
    expect(locked.exitCode, Buffer.from(locked.stderr).toString()).toBe(0);
    await check(locked.stdout);
  });

  it('HTTP', async () => {
    const opened = await postPdf('remove_password', [
      ['file', fixture('encrypted-user.pdf')],
      ['password', 'secret-owner'],
    ]);
    const rotated = await postPdf('rotate_pages', [
      ['file', opened],
      ['angle', '90'],
    ]);
    await check(
      await postPdf('add_password', [
        ['file', rotated],
        ['password', 'new-pw'],
      ]),
    );
  });

  it('rotating the encrypted document directly is refused, naming remove-password on the command line and remove_password over HTTP (rule 2)', async () => {
    const cli = await pdfsvc(['rotate', '--angle', '90', fixturePath('encrypted-user.pdf'), '-o', join(dir, 'never.pdf')]);
    expect(cli.exitCode).toBe(2);
    expect(Buffer.from(cli.stderr).toString()).toMatch(/^pdfsvc: file: .*run remove-password/);
    const problem = await problemOf(
      await post('rotate_pages', [
        ['file', fixture('encrypted-user.pdf')],
        ['angle', '90'],
      ]),
    );
    expect(problem.errors?.file?.[0]).toMatch(/remove_password/);
  });

  it('a wrong password is exit 2 / 400 errors.password, and the password appears in no message', async () => {
    const cli = await pdfsvc([
      'remove-password',
      '--password-file',
      secretFile('wrong.txt', 'Wr0ng-Guess'),
      fixturePath('encrypted-user.pdf'),
      '--json',
      '-o',
      join(dir, 'never.pdf'),
    ]);
    expect(cli.exitCode).toBe(2);
    const stderr = Buffer.from(cli.stderr).toString();
    expect(JSON.parse(stderr).errors.password[0]).toMatch(/does not open/);
    expect(stderr).not.toContain('Wr0ng-Guess');
    const response = await post('remove_password', [
      ['file', fixture('encrypted-user.pdf')],
      ['password', 'Wr0ng-Guess'],
    ]);
    const body = await response.text();
    expect(response.status).toBe(400);
    expect(JSON.parse(body).errors.password[0]).toMatch(/does not open/);
    expect(body).not.toContain('Wr0ng-Guess');
  });

  it('an invalid new password is errors.password, not echoed', async () => {
    const cli = await pdfsvc(['add-password', fixturePath('pages-1.pdf'), '-o', join(dir, 'never.pdf')], { env: { PDFSVC_PASSWORD: 'ab©' } });
    expect(cli.exitCode).toBe(2);
    expect(Buffer.from(cli.stderr).toString()).toMatch(/^pdfsvc: password: may contain only printable ASCII/);
    expect(Buffer.from(cli.stderr).toString()).not.toContain('ab©');
  });
});

describe('the server log', () => {
  it('holds no password, right or wrong', async () => {
    const lines: RequestLogEntry[] = [];
    const logged = inProcessApp('global', { log: (entry) => lines.push(entry) });
    const send = (action: string, fields: Array<[string, Part]>) =>
      logged.fetch(formRequest(`http://pdfsvc.test/v1/${action}`, fields, { 'X-API-Key': keys.business }));
    expect(
      (
        await send('remove_password', [
          ['file', fixture('encrypted-user.pdf')],
          ['password', 'secret-user'],
        ])
      ).status,
    ).toBe(200);
    expect(
      (
        await send('remove_password', [
          ['file', fixture('encrypted-user.pdf')],
          ['password', 'Wr0ng-Guess'],
        ])
      ).status,
    ).toBe(400);
    expect(
      (
        await send('add_restrictions', [
          ['file', fixture('pages-1.pdf')],
          ['owner_password', 'owner-pw'],
          ['user_password', 'reader-pw'],
        ])
      ).status,
    ).toBe(200);
    expect(lines).toHaveLength(3);
    const text = JSON.stringify(lines);
    for (const secret of ['secret-user', 'Wr0ng-Guess', 'owner-pw', 'reader-pw', keys.business]) expect(text).not.toContain(secret);
  });
});

describe('workflow 3: signed document → remove_signatures → extract_pages', () => {
  const check = async (out: Uint8Array) => {
    expect(await signatureNames(out)).toEqual([]);
    expect(await pageMarkers(out)).toEqual([2]);
  };

  it('CLI', async () => {
    const refusedRun = await pdfsvc(['extract', '--pages', '2', fixturePath('signed-twice.pdf'), '-o', join(dir, 'never.pdf')]);
    expect(refusedRun.exitCode).toBe(2);
    expect(Buffer.from(refusedRun.stderr).toString()).toMatch(/run remove-signatures first, then extract-pages/);
    const unsigned = await pdfsvc(['remove-signatures', fixturePath('signed-twice.pdf')]);
    expect(unsigned.exitCode).toBe(0);
    const extracted = await pdfsvc(['extract', '--pages', '2'], { input: unsigned.stdout });
    expect(extracted.exitCode).toBe(0);
    await check(extracted.stdout);
  });

  it('HTTP', async () => {
    const problem = await problemOf(
      await post('extract_pages', [
        ['file', fixture('signed-visible.pdf')],
        ['pages', '2'],
      ]),
    );
    expect(problem.errors?.file?.[0]).toMatch(/remove_signatures/);
    const unsigned = await postPdf('remove_signatures', [['file', fixture('signed-visible.pdf')]]);
    await check(
      await postPdf('extract_pages', [
        ['file', unsigned],
        ['pages', '2'],
      ]),
    );
  });
});

/** qpdf's decryption of an output, to read it with tools that take no password. */
async function decrypted(bytes: Uint8Array, password: string): Promise<Uint8Array> {
  const input = join(dir, `in-${Math.random().toString(36).slice(2)}.pdf`);
  const output = `${input}.plain.pdf`;
  writeFileSync(input, bytes);
  await execa('qpdf', ['--decrypt', `--password=${password}`, input, output]);
  return readFileSync(output);
}
