/**
 * remove_restrictions: a restricted document that opens without a password
 * comes back unencrypted with its content unchanged; one with an open
 * password is refused ("call remove_password first").
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addRestrictions, removeRestrictions } from '../../index.js';
import { fixture, pageMarkers, qpdfCheck, qpdfJson, tempFile } from '../../../test/helpers/pdf-tools.js';
import { refused, showEncryption, signatureNames, text } from '../../../test/helpers/security.js';

async function qpdfRestrict(name: string, bits: string, options: string[]): Promise<Uint8Array> {
  const out = tempFile(new Uint8Array(0));
  await execa('qpdf', ['--allow-weak-crypto', '--encrypt', '', 'owner', bits, ...options, '--', tempFile(fixture(name)), out]);
  return readFileSync(out);
}

describe('remove_restrictions', () => {
  it('clears the restrictions of restricted.pdf (AES-256, empty user password)', async () => {
    expect((await showEncryption(fixture('restricted.pdf'))).capabilities['print low resolution']).toBe(false);
    const out = await removeRestrictions({ file: fixture('restricted.pdf') });
    expect((await showEncryption(out)).encrypted).toBe(false);
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect(await text(out)).toBe(await text(fixture('restricted.pdf')));
  });

  it.each([
    ['RC4 40-bit', '40', ['--print=n']],
    ['RC4 128-bit', '128', ['--use-aes=n', '--extract=n', '--modify=none']],
    ['AES-128', '128', ['--use-aes=y', '--print=none', '--assemble=n']],
    ['AES-256', '256', ['--extract=n', '--accessibility=n']],
  ])('clears restrictions qpdf set with %s', async (_, bits, options) => {
    const input = await qpdfRestrict('outline.pdf', bits, options);
    const out = await removeRestrictions({ file: input });
    expect((await showEncryption(out)).encrypted).toBe(false);
    expect(await text(out)).toBe(await text(fixture('outline.pdf')));
    expect(Object.keys((await qpdfJson(out)).attachments)).toEqual(['notes.txt']);
  });

  it.each(['AES-128', 'AES-256'] as const)('clears the restrictions add_restrictions set with %s', async (encryption_algorithm) => {
    const restricted = await addRestrictions({
      file: fixture('form.pdf'),
      owner_password: 'owner',
      encryption_algorithm,
      allow_fill_form: false,
      allow_copy_content: false,
    });
    const out = await removeRestrictions({ file: restricted });
    expect((await showEncryption(out)).encrypted).toBe(false);
    expect(await pageMarkers(out)).toEqual([1, 2, 3]);
    expect((await qpdfJson(out)).acroform.fields.map((f) => [f.fullname, f.value])).toEqual(
      (await qpdfJson(fixture('form.pdf'))).acroform.fields.map((f) => [f.fullname, f.value]),
    );
  });

  it('refuses a document with an open password: call remove_password first', async () => {
    for (const file of [
      fixture('encrypted-user.pdf'),
      await addRestrictions({ file: fixture('pages-1.pdf'), owner_password: 'owner', user_password: 'user' }),
    ]) {
      expect((await refused(() => removeRestrictions({ file }))).file[0]).toMatch(/call remove_password first/);
    }
  });

  it('returns an unencrypted document unchanged in content, and keeps signatures', async () => {
    const out = await removeRestrictions({ file: fixture('pages-10.pdf') });
    expect(await pageMarkers(out)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await signatureNames(await removeRestrictions({ file: fixture('signed-invisible.pdf') }))).toEqual(['Signature1']);
  });

  it('refuses a certificate-encrypted document and a file that is not a PDF with errors.file', async () => {
    expect((await refused(() => removeRestrictions({ file: fixture('encrypted-certificate.pdf') }))).file[0]).toMatch(/not supported/);
    expect((await refused(() => removeRestrictions({ file: fixture('not-a-pdf.pdf') }))).file[0]).toMatch(/could not be parsed/);
  });
});
