/**
 * remove_password: every standard security handler real files use, made by
 * qpdf (an independent writer) from our fixtures: RC4 40 and 128 bit, AES-128,
 * AES-256 revisions 5 and 6, with and without object streams and with
 * clear-text metadata; opened with the user or the owner password. The
 * output must be unencrypted, pass qpdf --check and read as the input did.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addPassword, addRestrictions, removePassword } from '../../index.js';
import { fixture, pageMarkers, qpdfCheck, qpdfJson, tempFile, type QpdfOutline } from '../../../test/helpers/pdf-tools.js';
import { allMessages, opensWith, refused, showEncryption, signatureNames, text } from '../../../test/helpers/security.js';

const USER = 'user pw';

/** Titles and target pages of an outline (object numbers differ between writers). */
function outline(items: QpdfOutline[]): unknown[] {
  return items.map((item) => ({ title: item.title, page: item.destpageposfrom1, kids: outline(item.kids) }));
}
const OWNER = 'owner pw';

/** `qpdf --encrypt USER OWNER <bits> [options] --` applied to a fixture. */
async function qpdfEncrypt(name: string, bits: string, options: string[] = [], user = USER): Promise<Uint8Array> {
  const out = tempFile(new Uint8Array(0));
  const result = await execa(
    'qpdf',
    [
      '--allow-weak-crypto',
      ...options.filter((o) => o.startsWith('--object-streams')),
      '--encrypt',
      user,
      OWNER,
      bits,
      ...options.filter((o) => !o.startsWith('--object-streams')),
      '--',
      tempFile(fixture(name)),
      out,
    ],
    { reject: false },
  );
  if (result.exitCode !== 0 && result.exitCode !== 3) throw new Error(result.stderr);
  return readFileSync(out);
}

const HANDLERS = [
  ['RC4 40-bit (R2)', '40', []],
  ['RC4 128-bit (R3)', '128', ['--use-aes=n']],
  ['RC4 128-bit in object streams', '128', ['--use-aes=n', '--object-streams=generate']],
  ['AES-128 (R4)', '128', ['--use-aes=y']],
  ['AES-128, clear-text metadata', '128', ['--use-aes=y', '--cleartext-metadata']],
  ['AES-128 in object streams', '128', ['--use-aes=y', '--object-streams=generate']],
  ['AES-256 (R5)', '256', ['--force-R5']],
  ['AES-256 (R6)', '256', []],
  ['AES-256 (R6), clear-text metadata, object streams', '256', ['--cleartext-metadata', '--object-streams=generate']],
] as const;

describe('remove_password', () => {
  describe.each(HANDLERS)('%s', (_, bits, options) => {
    it.each([
      ['the user password', USER],
      ['the owner password', OWNER],
    ])('opens with %s and writes the document unencrypted', async (__, password) => {
      const input = await qpdfEncrypt('outline.pdf', bits, [...options]);
      expect((await showEncryption(input, USER)).encrypted).toBe(true);
      const out = await removePassword({ file: input, password });
      expect((await showEncryption(out)).encrypted).toBe(false);
      expect((await qpdfCheck(out)).exitCode).toBe(0);
      expect(await text(out)).toBe(await text(fixture('outline.pdf')));
      const before = await qpdfJson(fixture('outline.pdf'));
      const after = await qpdfJson(out);
      expect(outline(after.outlines)).toEqual(outline(before.outlines));
      expect(after.attachments['notes.txt']).toBeDefined();
      const info = (await execa('pdfinfo', [tempFile(out)])).stdout;
      expect(info).toMatch(/Title:\s+PDFSVC Outline Fixture/);
      // The XMP packet and the attachment's data come out readable.
      const path = tempFile(out);
      expect((await execa('qpdf', ['--show-attachment=notes.txt', path])).stdout).toBe('pdfsvc attachment');
      expect((await execa('pdfinfo', ['-meta', path])).stdout).toContain('<rdf:li xml:lang="x-default">PDFSVC Outline Fixture</rdf:li>');
    });
  });

  it('keeps form field values through RC4 and AES', async () => {
    for (const [bits, options] of [
      ['40', []],
      ['256', []],
    ] as const) {
      const out = await removePassword({ file: await qpdfEncrypt('form.pdf', bits, [...options]), password: USER });
      const fields = (await qpdfJson(out)).acroform.fields.map((f) => [f.fullname, f.value]);
      expect(fields).toEqual((await qpdfJson(fixture('form.pdf'))).acroform.fields.map((f) => [f.fullname, f.value]));
    }
  });

  it('decrypts the fixtures pdf-lib encrypted (AES-128 with object streams, AES-256 restrictions)', async () => {
    for (const password of ['secret-user', 'secret-owner']) {
      const out = await removePassword({ file: fixture('encrypted-user.pdf'), password });
      expect((await showEncryption(out)).encrypted).toBe(false);
      expect(await text(out)).toBe(await text(fixture('encrypted-user.pdf'), 'secret-user'));
    }
    const out = await removePassword({ file: fixture('restricted.pdf'), password: 'secret-owner' });
    expect((await showEncryption(out)).encrypted).toBe(false);
  });

  it('round-trips our own encryption, both algorithms', async () => {
    for (const encryption_algorithm of ['AES-128', 'AES-256'] as const) {
      const encrypted = await addPassword({ file: fixture('outline.pdf'), password: 'abcd', encryption_algorithm });
      const out = await removePassword({ file: encrypted, password: 'abcd' });
      expect((await qpdfCheck(out)).exitCode).toBe(0);
      expect(outline((await qpdfJson(out)).outlines)).toEqual(outline((await qpdfJson(fixture('outline.pdf'))).outlines));
      const restricted = await addRestrictions({
        file: fixture('pages-3.pdf'),
        owner_password: 'owner',
        user_password: 'user',
        encryption_algorithm,
        allow_print: false,
      });
      expect((await showEncryption(await removePassword({ file: restricted, password: 'user' }))).encrypted).toBe(false);
    }
  });

  it('answers a wrong password with errors.password, never echoing it', async () => {
    const input = await qpdfEncrypt('pages-3.pdf', '256', []);
    for (const password of ['not it', 'user p', `${USER}x`]) {
      const errors = await refused(() => removePassword({ file: input, password }));
      expect(errors.password[0]).toMatch(/does not open the document/);
      expect(allMessages(errors)).not.toContain(password);
    }
  });

  it('refuses a wrong password on a document that opens without one, as qpdf does, and says to send an empty one', async () => {
    // The contract: a password that does not open the file is a 400 on password (README, "Choices where the specification is silent").
    for (const input of [fixture('restricted.pdf'), await qpdfEncrypt('pages-3.pdf', '128', ['--use-aes=y'], '')]) {
      const errors = await refused(() => removePassword({ file: input, password: 'wrong pw' }));
      expect(errors.password[0]).toMatch(/not its owner password, and the document has no open password; send an empty password/);
      expect(allMessages(errors)).not.toContain('wrong pw');
      expect((await execa('qpdf', ['--password=wrong pw', '--check', tempFile(input)], { reject: false })).stderr).toMatch(/invalid password/);
      expect((await showEncryption(await removePassword({ file: input, password: '' }))).encrypted).toBe(false);
    }
  });

  it('uses only the first 32 bytes of an RC4 password (a longer one still opens), and accepts 256 characters', async () => {
    const long = 'p'.repeat(32);
    const input = await qpdfEncrypt('pages-1.pdf', '128', ['--use-aes=n'], long);
    const out = await removePassword({ file: input, password: `${long}${'q'.repeat(224)}` });
    expect((await showEncryption(out)).encrypted).toBe(false);
    expect((await refused(() => removePassword({ file: input, password: 'x'.repeat(257) }))).password[0]).toMatch(/maximum is 256/);
  });

  it('opens passwords outside ASCII as qpdf stored them: PDFDocEncoding for RC4 and AES-128, UTF-8 for AES-256 with or without SASLprep', async () => {
    const decomposed = 'pa\u0308sswo\u0308rd';
    const cases = [
      // "€", "ł", "Š", "—" are in PDFDocEncoding at bytes Latin-1 gives to other characters.
      ['128', ['--use-aes=n'], 'złoty€1', 'złoty€1'],
      ['128', ['--use-aes=y'], 'Šárka—x', 'Šárka—x'],
      ['40', [], 'naïve', 'naïve'],
      // qpdf writes the password's UTF-8 as given; SASLprep (NFKC) would compose it.
      ['256', [], decomposed, decomposed],
      ['256', ['--force-R5'], decomposed, decomposed],
      // Written composed, opened decomposed: SASLprep makes them one.
      ['256', [], 'pässwörd', decomposed],
    ] as const;
    for (const [bits, options, written, typed] of cases) {
      const input = await qpdfEncrypt('pages-1.pdf', bits, [...options], written);
      expect(await opensWith(input, typed)).toBe(written === typed);
      expect((await showEncryption(await removePassword({ file: input, password: typed }))).encrypted).toBe(false);
    }
  });

  it('returns an unencrypted document unchanged in content', async () => {
    const out = await removePassword({ file: fixture('outline.pdf'), password: 'anything' });
    expect(await text(out)).toBe(await text(fixture('outline.pdf')));
    expect((await qpdfJson(out)).outlines).toEqual((await qpdfJson(fixture('outline.pdf'))).outlines);
  });

  it('decrypts a document that opens without a password with an empty password; the password left out is a 400 (the contract: required)', async () => {
    const input = await qpdfEncrypt('pages-3.pdf', '128', ['--use-aes=y'], '');
    const missing = 'is required; send it empty for a document that opens without a password';
    for (const file of [input, fixture('encrypted-user.pdf'), fixture('pages-3.pdf')]) {
      expect((await refused(() => removePassword({ file } as never))).password).toEqual([missing]);
    }
    const decrypted = await removePassword({ file: input, password: '' });
    expect((await showEncryption(decrypted)).encrypted).toBe(false);
    expect(await pageMarkers(decrypted)).toEqual([1, 2, 3]);
  });

  it('keeps signatures (removing them is remove_signatures)', async () => {
    const input = await qpdfEncrypt('signed-invisible.pdf', '256', []);
    expect(await signatureNames(await removePassword({ file: input, password: USER }))).toEqual(['Signature1']);
  });

  it('refuses a certificate-encrypted document with errors.file: not supported', async () => {
    expect((await refused(() => removePassword({ file: fixture('encrypted-certificate.pdf'), password: 'x' }))).file[0]).toMatch(/certificate.*not supported/);
  });
});
