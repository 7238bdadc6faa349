/**
 * A fault once shipped: add_password made a document its own password did not open. The
 * input's trailer /ID was a reference to an object the file lacked; it was
 * written back as it was, and the key derived from an ID that no reader could
 * see. Every encrypted output now has a direct /ID of two strings, its key
 * derived from exactly that, and is checked by reading it back before it is
 * returned (src/pdf/security/check-output.ts): a fault there is a 500 with
 * its cause (exit status 1 on the command line, no output file), never a
 * locked document.
 *
 * Judged by qpdf (--check, --show-encryption, --json) and poppler
 * (pdftotext -upw/-opw), which derive the key from what the file says.
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { addPassword, addRestrictions, PdfsvcError, rotatePages } from '../../../src/index.js';
import { PDFHexString } from '../../../src/pdf/model/primitives.js';
import { qpdfCheck, qpdfJson, tempFile } from '../../helpers/pdf-tools.js';
import { buildPdf, replaceOnce, simpleDoc, type RawObject } from '../../helpers/raw-pdf.js';
import { showEncryption } from '../../helpers/security.js';
import { formRequest, inProcessApp, keys, problemOf } from '../../server/harness.js';
import { CLI, serve } from '../../server/spawn.js';

/**
 * A fault to inject into the encryption, in this process: `encrypt-id` writes
 * an /ID other than the one the key was derived from (the fault of the
 * issue; AES-256 does not hash the /ID, so only AES-128 is locked by it);
 * `encrypt-data` encrypts the objects with a key other than the one the
 * passwords open. Through mocks of the modules encrypt.ts takes them from.
 */
const injected = vi.hoisted(() => ({ fault: undefined as 'encrypt-id' | 'encrypt-data' | undefined }));
const wrongKey = (key: Uint8Array) => (injected.fault === 'encrypt-data' ? Uint8Array.from(key, (byte, i) => (i === 0 ? byte ^ 1 : byte)) : key);

vi.mock('../../../src/pdf/security/file-id.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/pdf/security/file-id.js')>();
  return {
    ...real,
    fileIdArray: (...[context, ids]: Parameters<typeof real.fileIdArray>) =>
      real.fileIdArray(context, injected.fault === 'encrypt-id' ? [randomBytes(16), randomBytes(16)] : ids),
  };
});
vi.mock('../../../src/pdf/security/standard.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/pdf/security/standard.js')>();
  return {
    ...real,
    encryptData: (...[method, key, ...rest]: Parameters<typeof real.encryptData>) => real.encryptData(method, wrongKey(key), ...rest),
    encryptPieces: (...[method, key, ...rest]: Parameters<typeof real.encryptPieces>) => real.encryptPieces(method, wrongKey(key), ...rest),
  };
});
vi.mock('../../../src/pdf/security/file-crypto.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/pdf/security/file-crypto.js')>();
  return {
    ...real,
    encryptFromFile: (...[method, key, ...rest]: Parameters<typeof real.encryptFromFile>) => real.encryptFromFile(method, wrongKey(key), ...rest),
  };
});

/**
 * The built command line and server run in processes and threads of their
 * own, out of the mocks' reach: they load helpers/wrong-aes-key.cjs, which
 * flips a bit of every AES key they encrypt with.
 */
const WRONG_AES_KEY = { NODE_OPTIONS: `--require ${new URL('../../helpers/wrong-aes-key.cjs', import.meta.url).pathname}` };

const TEXTS = ['IDENTIFIER PAGE ONE', 'IDENTIFIER PAGE TWO'];
const USER = 'user-secret';
const OWNER = 'owner-secret';
const A = '00112233445566778899aabbccddeeff';
const B = 'ffeeddccbbaa99887766554433221100';

/** simpleDoc(TEXTS) has objects 1 to 7: 20 and 21 are free for an /ID of their own. */
function withId(trailer: string, extra: RawObject[] = []): Uint8Array {
  return buildPdf([{ objects: [...simpleDoc(TEXTS).objects, ...extra], trailer }]).bytes;
}

/** The trailer lists object 20, but no `20 0 obj` is left in the file (as in the 2004 file of the issue). */
function idListedButMissing(): Uint8Array {
  const pdf = buildPdf([{ objects: [...simpleDoc(TEXTS).objects, { num: 20, body: `[<${A}> <${B}>]` }], trailer: '/ID 20 0 R' }]);
  return replaceOnce(pdf, '20 0 obj', 'xx 0 xxx');
}

/** Each input's /ID, and the first string the output keeps (undefined: a new one). */
const CASES: Array<[string, () => Uint8Array, string | undefined]> = [
  ['two direct strings (the first is kept)', () => withId(`/ID [<${A}> <${B}>]`), A],
  ['missing', () => withId(''), undefined],
  ['a reference to an object the file does not have', () => withId('/ID 356 0 R'), undefined],
  ['a reference the table lists to an object that is not there', idListedButMissing, undefined],
  ['a reference to an array of two strings', () => withId('/ID 20 0 R', [{ num: 20, body: `[<${A}> <${B}>]` }]), undefined],
  [
    'an array of references to strings',
    () =>
      withId('/ID [20 0 R 21 0 R]', [
        { num: 20, body: `<${A}>` },
        { num: 21, body: `<${B}>` },
      ]),
    undefined,
  ],
  ['a string, not an array', () => withId(`/ID <${A}>`), undefined],
  ['an array of numbers', () => withId('/ID [1 2]'), undefined],
  ['two empty strings', () => withId('/ID [<> <>]'), undefined],
  ['one string', () => withId(`/ID [<${A}>]`), undefined],
  ['three strings', () => withId(`/ID [<${A}> <${B}> <${A}>]`), undefined],
];

/** Each PDFDocEncoding character's byte (the encoding's own decoder run over every byte). */
const PDF_DOC_BYTE = new Map(Array.from({ length: 256 }, (_, byte) => [PDFHexString.fromBytes(Uint8Array.of(byte)).decodeText(), byte]));

/**
 * A string of qpdf --json=2 as hex: "b:<hex>", or "u:<text>", which qpdf
 * writes when the bytes read losslessly as PDFDocEncoding or carry a UTF-16
 * byte-order mark. A random new /ID does so about once in 1,900, so "u:" must
 * be read back too.
 */
function qpdfStringHex(value: string): string | undefined {
  if (value.startsWith('b:')) return value.slice(2);
  if (!value.startsWith('u:')) return undefined;
  const text = [...value.slice(2)];
  const bytes = text.map((ch) => PDF_DOC_BYTE.get(ch));
  if (bytes.every((byte) => byte !== undefined)) return Buffer.from(bytes as number[]).toString('hex');
  return `feff${Buffer.from(value.slice(2), 'utf16le').swap16().toString('hex')}`;
}

/** The output's trailer /ID as qpdf reads it: both strings in hex, or what stands there instead. */
async function writtenId(bytes: Uint8Array, password: string): Promise<unknown> {
  const trailer = (await qpdfJson(bytes, password)).qpdf[1].trailer?.value ?? {};
  const id = trailer['/ID'];
  // qpdf --json=2 writes a string as "b:<hex>" or "u:<text>", a reference as "N 0 R".
  const hex = Array.isArray(id) ? id.map((s) => (typeof s === 'string' ? qpdfStringHex(s) : undefined)) : [];
  return hex.length > 0 && hex.every((s) => s !== undefined) ? hex : id;
}

async function pdftotext(bytes: Uint8Array, flag: '-upw' | '-opw', password: string): Promise<string> {
  return (await execa('pdftotext', [flag, password, tempFile(bytes), '-'])).stdout;
}

describe.each(['AES-128', 'AES-256'] as const)('encrypted outputs, %s: the /ID is two direct strings and the passwords open the output', (algorithm) => {
  describe.each(CASES)('input /ID: %s', (_, input, kept) => {
    it.each([
      ['add_password', () => addPassword({ file: input(), password: USER, encryption_algorithm: algorithm }), USER, USER],
      [
        'add_restrictions',
        () => addRestrictions({ file: input(), owner_password: OWNER, user_password: USER, encryption_algorithm: algorithm, allow_print: false }),
        USER,
        OWNER,
      ],
    ] as const)('%s', async (_action, run, user, owner) => {
      const out = await run();
      // qpdf --check: exit 0 means no warning either (qpdf warns "invalid /ID in trailer dictionary").
      const check = await qpdfCheck(out, user);
      expect(check.exitCode, check.output).toBe(0);
      expect((await showEncryption(out, user)).userMatched).toBe(true);
      expect((await showEncryption(out, owner)).ownerMatched).toBe(true);
      for (const [flag, password] of [
        ['-upw', user],
        ['-opw', owner],
      ] as const) {
        const text = await pdftotext(out, flag, password);
        for (const page of TEXTS) expect(text).toContain(page);
      }
      const id = await writtenId(out, user);
      expect(id).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/), expect.stringMatching(/^[0-9a-f]{32}$/)]);
      const [first, second] = id as string[];
      if (kept) {
        expect(first).toBe(kept);
        // The second names this version of the file: new.
        expect(second).not.toBe(B);
      } else {
        // A new identifier: both strings the same, as for a file written the first time.
        expect(second).toBe(first);
        expect([A, B]).not.toContain(first);
      }
    });
  });
});

describe('outputs without encryption', () => {
  it.each([
    ['a reference to an array of two strings', () => withId('/ID 20 0 R', [{ num: 20, body: `[<${A}> <${B}>]` }]), [A, B]],
    [
      'an array of references to strings',
      () =>
        withId('/ID [20 0 R 21 0 R]', [
          { num: 20, body: `<${A}>` },
          { num: 21, body: `<${B}>` },
        ]),
      [A, B],
    ],
    ['a direct array of two strings', () => withId(`/ID [<${A}> <${B}>]`), [A, B]],
    ['a direct array whose first string is empty', () => withId(`/ID [<> <${B}>]`), undefined],
    ['a direct array whose first string is only white space', () => withId(`/ID [< \n> <${B}>]`), undefined],
    ['a direct array whose second string is one digit (read as followed by 0)', () => withId(`/ID [<${A}> <0>]`), [A, '00']],
    ['a reference to an object the file does not have', () => withId('/ID 356 0 R'), undefined],
    ['one string', () => withId(`/ID [<${A}>]`), undefined],
    ['an array of numbers', () => withId('/ID [1 2]'), undefined],
  ] as const)('write the /ID direct when it is two strings behind references, else none: %s', async (_, input, expected) => {
    const out = await rotatePages({ file: input(), angle: 90 });
    const check = await qpdfCheck(out);
    expect(check.exitCode, check.output).toBe(0);
    const trailer = (await qpdfJson(out)).qpdf[1].trailer?.value ?? {};
    if (expected) expect(trailer['/ID']).toEqual(expected.map((hex) => `b:${hex}`));
    else expect(trailer['/ID']).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------
// The check itself: a fault injected into the encryption (above) must be caught.
// ---------------------------------------------------------------------------

const FAULTS = [
  ['encrypt-id', 'AES-128', /its user \(open\) password does not open it/],
  ['encrypt-data', 'AES-128', /object \d+ does not decrypt to what was written/],
  ['encrypt-data', 'AES-256', /object \d+ does not decrypt to what was written/],
] as const;

const INPUT = withId(`/ID [<${A}> <${B}>]`);

describe('an encrypted output that fails its own check', () => {
  afterEach(() => {
    injected.fault = undefined;
  });

  it.each(FAULTS)('%s, %s: the library throws a 500 naming the cause', async (fault, algorithm, cause) => {
    injected.fault = fault;
    const error = await addPassword({ file: INPUT, password: USER, encryption_algorithm: algorithm }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PdfsvcError);
    expect((error as PdfsvcError).status).toBe(500);
    expect((error as PdfsvcError).message).toMatch(cause);
    expect((error as PdfsvcError).message).not.toContain(USER);
    const restricted = await addRestrictions({ file: INPUT, owner_password: OWNER, encryption_algorithm: algorithm }).catch((err: unknown) => err);
    expect((restricted as PdfsvcError).status).toBe(500);
  });

  it('without the fault the same calls succeed (the faults, not the inputs, fail the check)', async () => {
    for (const [, algorithm] of FAULTS) {
      const out = await addPassword({ file: INPUT, password: USER, encryption_algorithm: algorithm });
      expect((await qpdfCheck(out, USER)).exitCode).toBe(0);
    }
  });

  it('in process: HTTP 500, a problem object whose detail names the cause', async () => {
    const app = inProcessApp('global');
    for (const [fault, algorithm, cause] of FAULTS) {
      injected.fault = fault;
      const response = await app.fetch(
        formRequest(
          'http://pdfsvc.test/v1/add_password',
          [
            ['file', INPUT],
            ['password', USER],
            ['encryption_algorithm', algorithm],
          ],
          { 'x-api-key': keys.business },
        ),
      );
      expect(response.status).toBe(500);
      const body = await problemOf(response);
      expect(body.detail).toMatch(cause);
      expect(JSON.stringify(body)).not.toContain(USER);
    }
  });

  it('a real server (worker threads): HTTP 500 with the cause, and it goes on serving', async () => {
    const server = await serve({ args: ['--workers', '1'], env: { ...(process.env as Record<string, string>), ...WRONG_AES_KEY } });
    try {
      const send = () =>
        fetch(
          formRequest(
            `${server.base}/v1/add_password`,
            [
              ['file', INPUT],
              ['password', USER],
            ],
            { 'x-api-key': server.key },
          ),
        );
      const response = await send();
      expect(response.status).toBe(500);
      expect((await problemOf(response)).detail).toMatch(/does not decrypt to what was written/);
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      expect((await send()).status).toBe(500);
    } finally {
      await server.stop();
    }
  });

  describe('the command line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-security-id-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it.each([
      ['AES-128', /object \d+ does not decrypt to what was written/],
      ['AES-256', /the key its user password gives is not the key it was encrypted with/],
    ])('%s, every AES key wrong: exit status 1, the cause on standard error, no output file', async (algorithm, cause) => {
      const target = join(dir, `wrong-key-${algorithm}.pdf`);
      const result = await execa('node', [CLI, 'add-password', '--encryption-algorithm', algorithm, tempFile(INPUT), '-o', target], {
        reject: false,
        env: { PDFSVC_PASSWORD: USER, ...WRONG_AES_KEY },
      });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(cause);
      expect(result.stderr).not.toContain(USER);
      expect(existsSync(target)).toBe(false);
      // Nor a temporary file beside it.
      expect(readdirSync(dir)).toEqual([]);
    });

    it('without the fault: exit 0 and an output its password opens (the environment cannot inject one)', async () => {
      const target = join(dir, 'clean.pdf');
      // pdfsvc once read this variable to break its own encryption for tests.
      const env = { PDFSVC_PASSWORD: USER, PDFSVC_TEST_FAULT: 'encrypt-data' };
      const result = await execa('node', [CLI, 'add-password', tempFile(INPUT), '-o', target], { reject: false, env });
      expect(result.exitCode, result.stderr).toBe(0);
      expect((await execa('qpdf', ['--check', `--password=${USER}`, target], { reject: false })).exitCode).toBe(0);
      rmSync(target);
    });
  });
});
