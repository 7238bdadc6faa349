/**
 * The security actions over ../shared/corpus (skipped when it is absent):
 * every encrypted file with a known password decrypts through
 * remove_password with its user and with its owner password, and the output
 * passes qpdf --check with the page count the manifest gives; a wrong
 * password is errors.password. Certificate-encrypted files (none in the
 * corpus today; encrypted-certificate.pdf among the fixtures) are errors.file.
 * Signed files lose every signature through remove_signatures.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { removePassword, removeSignatures } from '../../src/index.js';
import { pageCount, qpdfCheck } from '../helpers/pdf-tools.js';
import { refused, showEncryption, signatureNames } from '../helpers/security.js';

const corpus = new URL('../../../shared/corpus/', import.meta.url);
const present = existsSync(new URL('MANIFEST.jsonl', corpus));

interface Entry {
  file: string;
  pages: number | null;
  encrypted: boolean;
  encryption: { kind: string; scope?: string; source?: string } | null;
  password: string | null;
  user_password: string | null;
  owner_password: string | null;
  signed: boolean;
  signature_count: number | null;
  qpdf_readable: boolean;
  damaged: boolean;
}

const entries: Entry[] = present
  ? readFileSync(new URL('MANIFEST.jsonl', corpus), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Entry)
  : [];
const read = (entry: Entry) => readFileSync(new URL(entry.file, corpus));

const withPasswords = entries
  .filter((e) => e.encrypted && e.pages !== null)
  .flatMap((e) =>
    (['user_password', 'owner_password'] as const)
      .filter((which) => e[which] !== null)
      .map(
        (which) =>
          [
            `${e.file} (${e.encryption?.kind}${e.encryption?.scope === 'embedded files only' ? ', attachments only' : ''}, ${which})`,
            e,
            e[which] as string,
          ] as const,
      ),
  );

describe.skipIf(!present)('security actions over the corpus', () => {
  it('has encrypted files with known passwords for every handler', () => {
    const kinds = new Set(withPasswords.map(([, e]) => e.encryption?.kind));
    for (const kind of ['RC4-40', 'RC4-128', 'AES-128', 'AES-256-R5', 'AES-256-R6']) expect(kinds).toContain(kind);
  });

  it.each(withPasswords)('%s decrypts', async (_, entry, password) => {
    const out = await removePassword({ file: read(entry), password });
    expect((await showEncryption(out)).encrypted).toBe(false);
    const check = await qpdfCheck(out);
    expect(check.exitCode, check.output).toBe(0);
    expect(await pageCount(out)).toBe(entry.pages);
  });

  it.each(withPasswords.filter(([, e, password]) => password !== '' && e.user_password !== ''))(
    '%s: a wrong password is errors.password',
    async (_, entry, password) => {
      const errors = await refused(() => removePassword({ file: read(entry), password: `${password}-wrong` }));
      expect(errors.password[0]).toMatch(/does not open/);
    },
  );

  const unknown = entries.filter((e) => e.encrypted && e.password === null);
  it.each(unknown.map((e) => [e.file, e] as const))('%s (password unknown): any guess is errors.password, never a crash', async (_, entry) => {
    const errors = await refused(() => removePassword({ file: read(entry), password: 'not-the-password' }));
    expect(Object.keys(errors)).toEqual(['password']);
  });

  const certificate = entries.filter((e) => e.encrypted && e.encryption?.kind?.includes('PubSec'));
  it.each(certificate.map((e) => [e.file, e] as const))('%s (certificate) is errors.file', async (_, entry) => {
    expect((await refused(() => removePassword({ file: read(entry), password: 'x' }))).file[0]).toMatch(/not supported/);
  });

  const signed = entries.filter((e) => e.signed && !e.encrypted && e.qpdf_readable && !e.damaged);
  it.each(signed.map((e) => [e.file, e] as const))('%s: remove_signatures leaves no signature', async (_, entry) => {
    const out = await removeSignatures({ file: read(entry) });
    expect(await signatureNames(out)).toEqual([]);
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect(await pageCount(out)).toBe(entry.pages);
  });
});
