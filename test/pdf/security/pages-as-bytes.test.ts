/**
 * The password and restriction actions open a document as the page actions
 * that keep every page do (actions/inputs.ts, openEveryPage): on a sound page
 * tree, a page whose bytes show nothing to repair is not parsed and goes out
 * as its input bytes, its strings encrypted (add) or decrypted (remove) in
 * place; a page that needs repair, and every page of a tree that is not
 * sound, is parsed and repaired as before. Judged by qpdf and poppler.
 */
import { describe, expect, it } from 'vitest';
import { addPassword, addRestrictions, removePassword, removeRestrictions } from '../../../src/index.js';
import { qpdfView, expectCleanOutput } from '../../helpers/reader-checks.js';
import { showEncryption } from '../../helpers/security.js';
import { buildPdf, drawText, FONT, type RawObject } from '../../helpers/raw-pdf.js';

const PASSWORD = 'pages as bytes';
const RESOURCES = '/Resources << /Font << /F1 3 0 R >> >>';
const contents = (n: number) => `/Contents ${2 * n + 3} 0 R`;
/** Page `n`'s entries when it needs no repair: numbers spelled as a serializer would not (401.000). */
const own = (n: number, extra = '') => `/Type /Page /Parent 2 0 R ${RESOURCES} /MediaBox [0 0 ${400 + n}.000 600.000] ${contents(n)}${extra}`;
/** A direct annotation with a string: page 2 is copied with its string replaced. */
const NOTE = ' /Annots [<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] /Contents (secret note) >>]';
/** Page 3 lacks the /MediaBox the root gives it: parsed, and the root's written onto it. */
const BARE = `/Type /Page /Parent 2 0 R ${RESOURCES} ${contents(3)}`;
const TEXTS = ['PAGE 1', 'PAGE 2', 'PAGE 3'];
const SIZES: Array<[number, number]> = [
  [401, 600],
  [402, 600],
  [300, 500],
];

/** Pages 1 to 3 (objects 2n + 2, contents 2n + 3) under root 2, which gives /MediaBox [0 0 300 500]; `count` its /Count. */
function doc(count = 3): Uint8Array {
  const bodies = [own(1), own(2, NOTE), BARE];
  const objects: RawObject[] = [
    // A string before the pages': the first object with one is parsed (the output check's probe, security/encrypt.ts).
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Lang (en-GB) >>' },
    { num: 2, body: `<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count ${count} /MediaBox [0 0 300 500] >>` },
    { num: 3, body: FONT },
    ...bodies.flatMap((entries, i): RawObject[] => [
      { num: 2 * i + 4, body: `<< ${entries} >>` },
      { num: 2 * i + 5, body: { dict: '', stream: drawText(`PAGE ${i + 1}`, 100) } },
    ]),
  ];
  return buildPdf([{ objects }]).bytes;
}

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

/** The /Contents of page 2's annotation as qpdf reads it (JSON v2: `u:` before text). */
async function noteOf(bytes: Uint8Array, password?: string): Promise<unknown> {
  const view = await qpdfView(bytes, password);
  const page = view.objects[`obj:${view.pages[1]}`]?.value as { '/Annots': Array<Record<string, unknown>> };
  return page['/Annots'][0]['/Contents'];
}

describe.each(['AES-128', 'AES-256'] as const)('%s: pages whose bytes need no repair', (algorithm) => {
  it('add_password copies them with their strings encrypted; remove_password copies them back with their strings in clear', async () => {
    const input = doc();
    const encrypted = await addPassword({ file: input, password: PASSWORD, encryption_algorithm: algorithm });
    await expectCleanOutput(encrypted, { texts: TEXTS, sizes: SIZES, password: PASSWORD }, 'add_password');
    expect((await showEncryption(encrypted, PASSWORD)).userMatched).toBe(true);
    const text = latin1(encrypted);
    // Page 1 as its input bytes; page 2 as its bytes up to its string, which is encrypted.
    expect(text).toContain(`<< ${own(1)} >>`);
    expect(text).toContain(own(2, ' /Annots [<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] /Contents ('));
    expect(text).not.toContain('secret note');
    expect(await noteOf(encrypted, PASSWORD)).toBe('u:secret note');

    const removed = await removePassword({ file: encrypted, password: PASSWORD });
    await expectCleanOutput(removed, { texts: TEXTS, sizes: SIZES }, 'remove_password');
    expect((await showEncryption(removed)).encrypted).toBe(false);
    // Page 2 too, unless its ciphertext holds a `#` (one time in eight): page-tree.ts then parses it, to be safe.
    expect(latin1(removed)).toContain(`<< ${own(1)} >>`);
    expect(await noteOf(removed)).toBe('u:secret note');
  });

  it('add_restrictions and remove_restrictions the same way', async () => {
    const restricted = await addRestrictions({ file: doc(), owner_password: PASSWORD, encryption_algorithm: algorithm, allow_print: false });
    await expectCleanOutput(restricted, { texts: TEXTS, sizes: SIZES, password: '' }, 'add_restrictions');
    expect(latin1(restricted)).toContain(`<< ${own(1)} >>`);
    expect(latin1(restricted)).not.toContain('secret note');
    const plain = await removeRestrictions({ file: restricted });
    await expectCleanOutput(plain, { texts: TEXTS, sizes: SIZES }, 'remove_restrictions');
    expect(latin1(plain)).toContain(`<< ${own(1)} >>`);
    expect(await noteOf(plain)).toBe('u:secret note');
  });
});

describe('a page tree that is not sound', () => {
  it('is walked and repaired as before: every page parsed, the /Count made right', async () => {
    // The root says 5 pages for 3 kids.
    const encrypted = await addPassword({ file: doc(5), password: PASSWORD });
    await expectCleanOutput(encrypted, { texts: TEXTS, sizes: SIZES, password: PASSWORD }, 'add_password');
    // Parsed and serialized: the serializer spells 401.000 as 401.
    expect(latin1(encrypted)).not.toContain('401.000');
    expect(await noteOf(encrypted, PASSWORD)).toBe('u:secret note');
    const removed = await removePassword({ file: encrypted, password: PASSWORD });
    await expectCleanOutput(removed, { texts: TEXTS, sizes: SIZES }, 'remove_password');
  });
});
