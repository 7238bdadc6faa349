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

/** RC4 as the standard gives it (algorithm 1): the test's own, so the file is not made by the code under test. */
function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = new Uint8Array(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
    out[n] = data[n] ^ s[(s[i] + s[j]) & 255];
  }
  return out;
}

/**
 * An RC4 40-bit (revision 2) file whose catalog, page tree and page sit in an
 * object stream, as some writers make them (qpdf keeps the catalog out of
 * object streams when it encrypts; pdfsvc too).
 */
async function catalogInEncryptedObjectStream(user: string): Promise<Uint8Array> {
  const { createHash } = await import('node:crypto');
  const { deflateSync } = await import('node:zlib');
  const md5 = (...parts: Uint8Array[]) => createHash('md5').update(Buffer.concat(parts)).digest();
  const pad = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');
  const padded = (password: string) => Buffer.concat([Buffer.from(password, 'latin1'), pad]).subarray(0, 32);
  const id = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
  const p = Buffer.alloc(4);
  p.writeInt32LE(-4);
  const o = rc4(md5(padded(OWNER)).subarray(0, 5), padded(user));
  const key = md5(padded(user), o, p, id).subarray(0, 5);
  const u = rc4(key, pad);
  const objectKey = (num: number) => md5(key, Buffer.from([num & 255, (num >> 8) & 255, num >> 16, 0, 0])).subarray(0, 10);

  const members: Array<[number, string]> = [
    [2, '<< /Type /Catalog /Pages 3 0 R >>'],
    [3, '<< /Type /Pages /Kids [4 0 R] /Count 1 >>'],
    [
      4,
      '<< /Type /Page /Parent 3 0 R /MediaBox [0 0 300 200] /Contents 5 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>',
    ],
  ];
  let body = '';
  const offsets = members.map(([, text]) => {
    const at = body.length;
    body += `${text}\n`;
    return at;
  });
  const head = `${members.map(([num], i) => `${num} ${offsets[i]}`).join(' ')}\n`;
  const packed = rc4(objectKey(1), deflateSync(Buffer.from(head + body, 'latin1')));
  const content = rc4(objectKey(5), Buffer.from(`BT /F1 18 Tf 20 100 Td (${TEXTS[0]}) Tj ET`, 'latin1'));

  const parts: Buffer[] = [Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const at: number[] = [];
  const length = () => parts.reduce((sum, part) => sum + part.length, 0);
  const object = (num: number, ...pieces: Array<string | Uint8Array>) => {
    at[num] = length();
    parts.push(Buffer.from(`${num} 0 obj\n`), ...pieces.map((piece) => Buffer.from(piece as never, 'latin1')), Buffer.from('\nendobj\n'));
  };
  object(1, `<< /Type /ObjStm /N 3 /First ${head.length} /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`, packed, '\nendstream');
  object(5, `<< /Length ${content.length} >>\nstream\n`, content, '\nendstream');
  object(6, `<< /Filter /Standard /V 1 /R 2 /O <${Buffer.from(o).toString('hex')}> /U <${Buffer.from(u).toString('hex')}> /P -4 >>`);
  const xrefAt = length();
  const row = (type: number, second: number, third: number) =>
    Buffer.from([type, ...Buffer.from(second.toString(16).padStart(8, '0'), 'hex'), third >> 8, third & 255]);
  const rows = Buffer.concat([
    row(0, 0, 65535),
    row(1, at[1], 0),
    row(2, 1, 0),
    row(2, 1, 1),
    row(2, 1, 2),
    row(1, at[5], 0),
    row(1, at[6], 0),
    row(1, xrefAt, 0),
  ]);
  const hex = id.toString('hex');
  object(7, `<< /Type /XRef /Size 8 /W [1 4 2] /Root 2 0 R /Encrypt 6 0 R /ID [<${hex}> <${hex}>] /Length ${rows.length} >>\nstream\n`, rows, '\nendstream');
  parts.push(Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`));
  return Buffer.concat(parts);
}

describe('an encrypted file whose catalog is inside an object stream', () => {
  it('opens with its password as it is, not as damage: no rebuild, no warning, the page and its text kept', async () => {
    const input = await catalogInEncryptedObjectStream(USER);
    // The premise: qpdf and poppler read it with the password.
    expect((await qpdfCheck(input, USER)).exitCode).toBe(0);
    expect(await text(input, USER)).toContain(TEXTS[0]);

    const warnings: Warning[] = [];
    const out = await removePassword({ file: input, password: USER }, { onWarning: (w) => warnings.push(w) });
    expect(warnings.map((w) => w.message)).toEqual([]);
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect((await showEncryption(out)).encrypted).toBe(false);
    expect(await text(out)).toContain(TEXTS[0]);
    expect((await refused(() => removePassword({ file: input, password: 'not-the-password' }))).password[0]).toMatch(/does not open/);
  });
});
