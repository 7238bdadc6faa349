/**
 * add_password: the output opens only with the password (qpdf, pdftotext
 * -upw), keeps every page and what the reader had, and has every string
 * encrypted too (pdf-lib's own encrypt() leaves them in clear text).
 */
import { PDFDocument } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { addPassword } from '../../index.js';
import { fixture, pageMarkers, qpdfCheck, qpdfJson, type QpdfJson } from '../../../test/helpers/pdf-tools.js';
import { buildPdf, simpleDoc } from '../../../test/helpers/raw-pdf.js';
import { allMessages, opensWith, refused, showEncryption, text } from '../../../test/helpers/security.js';

const PASSWORD = 'open sesame 42';

describe('add_password', () => {
  describe.each([
    ['AES-128', 4, 'AESv2'],
    ['AES-256', 6, 'AESv3'],
  ] as const)('%s', (algorithm, revision, method) => {
    it('opens only with the password, with every string and stream encrypted', async () => {
      const input = fixture('outline.pdf');
      const out = await addPassword({ file: input, password: PASSWORD, encryption_algorithm: algorithm });
      expect(await opensWith(out)).toBe(false);
      expect(await opensWith(out, 'wrong password')).toBe(false);
      expect((await qpdfCheck(out, PASSWORD)).exitCode).toBe(0);
      const enc = await showEncryption(out, PASSWORD);
      expect(enc).toMatchObject({
        encrypted: true,
        R: revision,
        P: -4,
        userMatched: true,
        ownerMatched: true,
        streamMethod: method,
        stringMethod: method,
        fileMethod: method,
      });
      // No string is left in clear text: titles, outline entries, attachment names.
      const raw = Buffer.from(out).toString('latin1');
      for (const clear of ['PDFSVC Outline Fixture', 'Chapter 1', 'notes.txt', 'pdfsvc attachment', 'https://example.com/pdfsvc'])
        expect(raw).not.toContain(clear);
    });

    it('keeps every page, the text, the outline, the attachment and the metadata', async () => {
      const input = fixture('outline.pdf');
      const out = await addPassword({ file: input, password: PASSWORD, encryption_algorithm: algorithm });
      expect(await text(out, PASSWORD)).toBe(await text(input));
      const before = await qpdfJson(input);
      const after = await qpdfJson(out, PASSWORD);
      expect(after.pages.length).toBe(6);
      expect(after.outlines).toEqual(before.outlines);
      expect(Object.keys(after.attachments)).toEqual(['notes.txt']);
      expect(after.pagelabels).toEqual(before.pagelabels);
    });

    it('encrypts a line break written in a literal string as the line feed it reads as (CR, CR LF; none after a backslash)', async () => {
      // ISO 32000-1, 7.3.4.2. Two objects: the first string an encryption meets is parsed, the later ones are copied from the input bytes.
      const doc = simpleDoc(['line breaks'], { page: () => '/Annots [21 0 R]' });
      const strings = '/Title (one\rtwo\r\nthree\nfour) /Subject (cont\\\r\ninued\\\rhere) /Keywords (\r\n)';
      const objects = [
        ...doc.objects,
        { num: 20, body: `<< ${strings} >>` },
        { num: 21, body: `<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] ${strings} >>` },
      ];
      const input = buildPdf([{ objects, trailer: '/Info 20 0 R' }]).bytes;
      const out = await addPassword({ file: input, password: PASSWORD, encryption_algorithm: algorithm });
      const stringsOf = (json: QpdfJson, num: number) => {
        const { '/Title': title, '/Subject': subject, '/Keywords': keywords } = json.qpdf[1][`obj:${num} 0 R`].value ?? {};
        return [title, subject, keywords];
      };
      const expected = ['u:one\ntwo\nthree\nfour', 'u:continuedhere', 'u:\n'];
      for (const num of [20, 21]) {
        expect(stringsOf(await qpdfJson(input), num)).toEqual(expected);
        expect(stringsOf(await qpdfJson(out, PASSWORD), num)).toEqual(expected);
      }
    });

    it('keeps form field values', async () => {
      const out = await addPassword({ file: fixture('form.pdf'), password: PASSWORD, encryption_algorithm: algorithm });
      const fields = (await qpdfJson(out, PASSWORD)).acroform.fields.map((f) => [f.fullname, f.value]);
      expect(fields).toEqual((await qpdfJson(fixture('form.pdf'))).acroform.fields.map((f) => [f.fullname, f.value]));
    });
  });

  it('uses AES-128 by default', async () => {
    const out = await addPassword({ file: fixture('pages-3.pdf'), password: PASSWORD });
    expect((await showEncryption(out, PASSWORD)).R).toBe(4);
    expect(await pageMarkers(await decryptedCopy(out))).toEqual([1, 2, 3]);
  });

  it('draws keys, salts and IVs at random: two runs differ', async () => {
    const a = await addPassword({ file: fixture('pages-1.pdf'), password: PASSWORD, encryption_algorithm: 'AES-256' });
    const b = await addPassword({ file: fixture('pages-1.pdf'), password: PASSWORD, encryption_algorithm: 'AES-256' });
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('gives a document without a file identifier a fresh one', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const input = await doc.save();
    const out = await addPassword({ file: input, password: PASSWORD });
    const trailer = (await qpdfJson(out, PASSWORD)).qpdf[1].trailer?.value as Record<string, unknown>;
    expect(trailer['/ID']).toHaveLength(2);
    expect(await opensWith(out, PASSWORD)).toBe(true);
  });

  it.each([
    ['abc', /at least 4/],
    ['x'.repeat(33), /maximum is 32/],
    ['pässword', /printable ASCII/],
    ['tab\there', /printable ASCII/],
  ])('refuses the password %j with errors.password, without echoing it', async (password, message) => {
    const errors = await refused(() => addPassword({ file: fixture('pages-1.pdf'), password }));
    expect(errors.password[0]).toMatch(message);
    expect(allMessages(errors)).not.toContain(password);
  });

  it('accepts 4 and 32 printable characters, space and tilde included', async () => {
    for (const password of [' ~a ', `${'~'.repeat(31)} `]) {
      expect(await opensWith(await addPassword({ file: fixture('pages-1.pdf'), password }), password)).toBe(true);
    }
  });

  it('requires the password', async () => {
    expect((await refused(() => addPassword({ file: fixture('pages-1.pdf') } as never))).password[0]).toMatch(/required/);
  });

  it('refuses encrypted and signed input, naming the action to call first', async () => {
    expect((await refused(() => addPassword({ file: fixture('encrypted-user.pdf'), password: PASSWORD }))).file[0]).toMatch(/remove_password/);
    expect((await refused(() => addPassword({ file: fixture('restricted.pdf'), password: PASSWORD }))).file[0]).toMatch(/remove_restrictions/);
    expect((await refused(() => addPassword({ file: fixture('signed-invisible.pdf'), password: PASSWORD }))).file[0]).toMatch(/remove_signatures/);
  });
});

/** The same document without encryption, made by qpdf (the independent reader). */
async function decryptedCopy(bytes: Uint8Array): Promise<Uint8Array> {
  const { execa } = await import('execa');
  const { tempFile } = await import('../../../test/helpers/pdf-tools.js');
  const { readFileSync } = await import('node:fs');
  const out = tempFile(new Uint8Array(0));
  await execa('qpdf', ['--decrypt', `--password=${PASSWORD}`, tempFile(bytes), out]);
  return readFileSync(out);
}
