/**
 * Encrypted inputs that qpdf opens and pdfsvc once refused:
 *
 * - RC4 files whose /Length disagrees with their key: the right password was
 *   refused. qpdf reads 128 bits for V4 and for a V2 /Length that is not a
 *   multiple of 8 from 40 to 128 (QPDF_encryption.cc); pdfsvc now tries the
 *   standard's reading, then qpdf's, then every length from 40 to 128 bits,
 *   and the /U check tells which key is right.
 * - Files whose encryption dictionary does not apply to them: refused as
 *   password-protected, while qpdf and poppler open them without a password.
 *   They are read as not encrypted, with a warning; the encryption
 *   dictionaries qpdf refuses (not a dictionary, a handler other than
 *   /Standard, no /O or /U) are still refused, with a 400 that says why.
 *
 * The inputs are made here: by qpdf (an independent writer) then edited byte
 * for byte, or by the raw assembler. qpdf and poppler confirm each premise.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { addPassword, removePassword, removeRestrictions, rotatePages, ValidationError, type Warning } from '../../../src/index.js';
import { qpdfCheck, tempFile } from '../../helpers/pdf-tools.js';
import { buildPdf, latin1, bytesOf, simpleDoc } from '../../helpers/raw-pdf.js';
import { refused, showEncryption, text } from '../../helpers/security.js';

const TEXTS = ['RECOVERY PAGE ONE', 'RECOVERY PAGE TWO'];
const USER = 'user-secret';
const OWNER = 'owner-secret';
const PLAIN = buildPdf([{ objects: simpleDoc(TEXTS).objects, trailer: '/ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]' }]).bytes;

/** `qpdf --encrypt` of PLAIN with RC4 128 (V2, or V4 with a /V2 crypt filter). */
async function qpdfRc4(user: string, v4: boolean): Promise<Uint8Array> {
  const out = tempFile(new Uint8Array(0));
  await execa('qpdf', ['--allow-weak-crypto', '--encrypt', user, OWNER, '128', '--use-aes=n', ...(v4 ? ['--force-V4'] : []), '--', tempFile(PLAIN), out]);
  const { readFileSync } = await import('node:fs');
  return readFileSync(out);
}

/** Edits the encryption dictionary's text; the length stays, so every offset still holds. */
function editEncryption(bytes: Uint8Array, edit: (dict: string) => string): Uint8Array {
  const text = latin1(bytes);
  const match = /<<(?:(?!endobj)[\s\S])*\/Filter \/Standard(?:(?!endobj)[\s\S])*(?=endobj)/.exec(text);
  if (!match) throw new Error('no encryption dictionary in the file');
  const edited = edit(match[0]);
  if (edited === match[0] || edited.length !== match[0].length) throw new Error(`the edit must change the dictionary and keep its length: ${edited}`);
  return bytesOf(text.slice(0, match.index) + edited + text.slice(match.index + match[0].length));
}

/** The encryption dictionary's top-level /Length, as qpdf writes it (`/Length 128` right before `/O`). */
const topLength = (value: string) => (dict: string) => dict.replace(/\/Length 128(?= \/O)/, `/Length ${value}`.padEnd('/Length 128'.length));

const RC4_CASES = [
  ['V2, /Length in bytes (16) instead of bits', false, topLength('16')],
  ['V2, /Length not a multiple of 8 (44)', false, topLength('44')],
  ['V2, /Length 40 for a 128-bit key', false, topLength('40')],
  ['V4, /Length 40 for a 128-bit key', true, topLength('40')],
  [
    'V4, the crypt filter /Length 5 (bytes) and /Length 40',
    true,
    (dict: string) => topLength('40')(dict).replace('/CFM /V2 /Length 16', '/CFM /V2 /Length 5 '),
  ],
] as const;

describe('RC4 files whose /Length disagrees with their key', () => {
  it.each(RC4_CASES)('%s: the right passwords open it, a wrong one does not', async (_, v4, edit) => {
    const input = editEncryption(await qpdfRc4(USER, v4), edit);
    for (const password of [USER, OWNER]) {
      const out = await removePassword({ file: input, password });
      expect((await qpdfCheck(out)).exitCode).toBe(0);
      expect((await showEncryption(out)).encrypted).toBe(false);
      const pages = await text(out);
      for (const page of TEXTS) expect(pages).toContain(page);
    }
    expect((await refused(() => removePassword({ file: input, password: 'not-the-password' }))).password[0]).toMatch(/does not open/);
  });

  it('qpdf opens the edited files with their password (the premise), except /Length 40 under V2, which it reads as 40 bits', async () => {
    for (const [name, v4, edit] of RC4_CASES) {
      const input = editEncryption(await qpdfRc4(USER, v4), edit);
      const check = await qpdfCheck(input, USER);
      expect(check.exitCode === 0, `${name}: ${check.output}`).toBe(!name.startsWith('V2, /Length 40'));
    }
  });

  it('with an empty user password it is a restricted file, not a password-protected one, and remove_restrictions opens it', async () => {
    const input = editEncryption(await qpdfRc4('', true), topLength('40'));
    expect((await refused(() => rotatePages({ file: input, angle: 90 }))).file[0]).toMatch(/permission restrictions: call remove_restrictions/);
    const out = await removeRestrictions({ file: input });
    const pages = await text(out);
    for (const page of TEXTS) expect(pages).toContain(page);
  });
});

// ---------------------------------------------------------------------------

const ID = '/ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]';
/** A standard encryption dictionary (a qpdf RC4 one's values): it would need a password, were it to apply. */
const STANDARD =
  '<< /Filter /Standard /V 2 /R 3 /Length 128 /P -4 /O <2a2f0a1990192c60114730bdcd39f37828a53c89a340dd473c85299dc5258e1c> /U <ef0baeb53143dbcf4a9d818b18a30fb30122456a91bae5134273a6db134c87c4> >>';

const NOT_APPLYING: Array<[string, () => Uint8Array, RegExp]> = [
  [
    "only an older revision's trailer names it",
    () =>
      buildPdf([
        { objects: [...simpleDoc(TEXTS).objects, { num: 20, body: STANDARD }], trailer: `/Encrypt 20 0 R ${ID}` },
        { objects: [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' }], trailer: ID },
      ]).bytes,
    /older revision's trailer/,
  ],
  [
    'a reference to an object the file does not have',
    () => buildPdf([{ objects: simpleDoc(TEXTS).objects, trailer: `/Encrypt 99 0 R ${ID}` }]).bytes,
    /object 99, which the file does not have/,
  ],
  [
    'a reference to a null object',
    () => buildPdf([{ objects: [...simpleDoc(TEXTS).objects, { num: 20, body: 'null' }], trailer: `/Encrypt 20 0 R ${ID}` }]).bytes,
    /object 20, which is null/,
  ],
  [
    'a reference the table lists to an object that is not there',
    () => {
      const pdf = buildPdf([{ objects: [...simpleDoc(TEXTS).objects, { num: 20, body: STANDARD }], trailer: `/Encrypt 20 0 R ${ID}` }]);
      return bytesOf(pdf.text.replace('20 0 obj', 'xx 0 xxx'));
    },
    /object 20, which cannot be read/,
  ],
];

describe('an encryption dictionary that does not apply to the document', () => {
  it.each(NOT_APPLYING)('%s: qpdf and poppler open it without a password (the premise)', async (_, input) => {
    const check = await qpdfCheck(input());
    expect(check.output).toMatch(/File is not encrypted/);
    expect([0, 3]).toContain(check.exitCode);
    const pages = await text(input());
    for (const page of TEXTS) expect(pages).toContain(page);
  });

  it.each(NOT_APPLYING)('%s: a warning says so, the document is read and the output passes qpdf --check', async (_, input, why) => {
    const warnings: Warning[] = [];
    const out = await rotatePages({ file: input(), angle: 90 }, { onWarning: (w) => warnings.push(w) });
    const warning = warnings.find((w) => /encryption dictionary does not apply/.test(w.message));
    expect(warning?.field).toBe('file');
    expect(warning?.message).toMatch(why);
    const check = await qpdfCheck(out);
    expect(check.exitCode, check.output).toBe(0);
    expect((await showEncryption(out)).encrypted).toBe(false);
    const pages = await text(out);
    for (const page of TEXTS) expect(pages).toContain(page);
  });

  it.each(NOT_APPLYING)('%s: add_password encrypts it, and its password opens the output', async (_, input) => {
    const out = await addPassword({ file: input(), password: USER }, { onWarning: () => {} });
    expect((await qpdfCheck(out, USER)).exitCode).toBe(0);
    const pages = await text(out, USER);
    for (const page of TEXTS) expect(pages).toContain(page);
  });
});

describe('encryption dictionaries that qpdf refuses are still refused, saying why', () => {
  it.each([
    ['a handler other than /Standard', '<< /Filter /FooSec /V 2 /R 3 /Length 128 >>', /security handler \/FooSec, which is not supported/],
    ['no /O or /U', '<< /Filter /Standard /V 2 /R 3 /Length 128 /P -4 >>', /encryption dictionary is damaged \(\/O or \/U/],
  ])('%s', async (_, dict, message) => {
    const input = buildPdf([{ objects: [...simpleDoc(TEXTS).objects, { num: 20, body: dict }], trailer: `/Encrypt 20 0 R ${ID}` }]).bytes;
    expect((await qpdfCheck(input)).exitCode).toBe(2);
    const error = await rotatePages({ file: input, angle: 90 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.file[0]).toMatch(message);
  });
});
