/**
 * add_restrictions: each of the eight flags turns exactly its own
 * permission off, as qpdf --show-encryption reads it, with AES-128 and
 * AES-256, with and without an open password (user_password).
 */
import { describe, expect, it } from 'vitest';
import { addRestrictions } from '../../index.js';
import { PERMISSION_BITS, permissionValue } from '../../pdf/security/permissions.js';
import { fixture, qpdfCheck } from '../../../test/helpers/pdf-tools.js';
import { allMessages, opensWith, refused, showEncryption, text } from '../../../test/helpers/security.js';

const OWNER = 'owner-secret';
const USER = 'user-secret';

/** Which line of `qpdf --show-encryption` each flag turns to "not allowed". */
const QPDF_CAPABILITY = {
  allow_print: ['print low resolution', 'print high resolution'],
  allow_print_high_resolution: ['print high resolution'],
  allow_change_content: ['modify other'],
  allow_copy_content: ['extract for any purpose'],
  allow_comment_and_fill_form: ['modify annotations'],
  allow_fill_form: ['modify forms'],
  allow_assemble_document: ['modify document assembly'],
  allow_accessibility: ['extract for accessibility'],
} as const;
const CAPABILITIES = [
  'extract for accessibility',
  'extract for any purpose',
  'print low resolution',
  'print high resolution',
  'modify document assembly',
  'modify forms',
  'modify annotations',
  'modify other',
];

describe('add_restrictions', () => {
  describe.each(['AES-128', 'AES-256'] as const)('%s', (algorithm) => {
    describe.each([
      ['without an open password', undefined],
      ['with an open password', USER],
    ] as const)('%s', (_, user) => {
      it.each(Object.keys(QPDF_CAPABILITY) as Array<keyof typeof QPDF_CAPABILITY>)('%s=false turns off only that permission', async (flag) => {
        const out = await addRestrictions({
          file: fixture('pages-3.pdf'),
          owner_password: OWNER,
          user_password: user,
          encryption_algorithm: algorithm,
          [flag]: false,
        });
        const enc = await showEncryption(out, user ?? '');
        expect(enc.P).toBe(-4 & ~(1 << (PERMISSION_BITS[flag] - 1)));
        expect(enc.R).toBe(algorithm === 'AES-128' ? 4 : 6);
        for (const capability of CAPABILITIES) {
          expect(enc.capabilities[capability], capability).toBe(!(QPDF_CAPABILITY[flag] as readonly string[]).includes(capability));
        }
        expect(enc.userMatched).toBe(true);
        expect(enc.ownerMatched).toBe(false);
      });
    });

    it('without user_password anyone can open it; the owner password is the owner', async () => {
      const out = await addRestrictions({
        file: fixture('outline.pdf'),
        owner_password: OWNER,
        encryption_algorithm: algorithm,
        allow_print: false,
        allow_copy_content: 'false',
      });
      expect(await opensWith(out)).toBe(true);
      expect((await qpdfCheck(out)).exitCode).toBe(0);
      expect(await text(out)).toBe(await text(fixture('outline.pdf')));
      const owner = await showEncryption(out, OWNER);
      expect(owner.ownerMatched).toBe(true);
      expect(owner.capabilities).toMatchObject({ 'print low resolution': false, 'extract for any purpose': false, 'modify other': true });
    });

    it('with user_password the document needs it to open, and the owner password opens it too', async () => {
      const out = await addRestrictions({
        file: fixture('pages-3.pdf'),
        owner_password: OWNER,
        user_password: USER,
        encryption_algorithm: algorithm,
        allow_print: false,
      });
      expect(await opensWith(out)).toBe(false);
      expect(await opensWith(out, USER)).toBe(true);
      expect((await showEncryption(out, OWNER)).ownerMatched).toBe(true);
      expect(await text(out, USER)).toBe(await text(fixture('pages-3.pdf')));
    });
  });

  it('with every flag at its default restricts nothing (/P -4), and with all off /P is -3904', async () => {
    expect((await showEncryption(await addRestrictions({ file: fixture('pages-1.pdf'), owner_password: OWNER }))).P).toBe(-4);
    const none = Object.fromEntries(Object.keys(PERMISSION_BITS).map((flag) => [flag, false]));
    const out = await addRestrictions({ file: fixture('pages-1.pdf'), owner_password: OWNER, ...none });
    const enc = await showEncryption(out);
    expect(enc.P).toBe(-3904);
    expect(permissionValue(none)).toBe(-3904);
    for (const capability of CAPABILITIES) expect(enc.capabilities[capability], capability).toBe(false);
  });

  it('an empty user_password means none', async () => {
    const out = await addRestrictions({ file: fixture('pages-1.pdf'), owner_password: OWNER, user_password: '' });
    expect(await opensWith(out)).toBe(true);
  });

  it('refuses user_password equal to owner_password (errors.user_password), without echoing it', async () => {
    const errors = await refused(() => addRestrictions({ file: fixture('pages-1.pdf'), owner_password: OWNER, user_password: OWNER }));
    expect(errors.user_password[0]).toMatch(/differ/);
    expect(allMessages(errors)).not.toContain(OWNER);
  });

  it('requires owner_password, and checks both passwords like add_password', async () => {
    expect((await refused(() => addRestrictions({ file: fixture('pages-1.pdf') } as never))).owner_password[0]).toMatch(/required/);
    const errors = await refused(() => addRestrictions({ file: fixture('pages-1.pdf'), owner_password: 'abc', user_password: 'é-not-ascii' }));
    expect(errors.owner_password[0]).toMatch(/at least 4/);
    expect(errors.user_password[0]).toMatch(/printable ASCII/);
  });

  it('checks the flags are booleans and the algorithm one of two', async () => {
    const errors = await refused(() =>
      addRestrictions({ file: fixture('pages-1.pdf'), owner_password: OWNER, allow_print: 'no' as never, encryption_algorithm: 'RC4' as never }),
    );
    expect(errors.allow_print[0]).toMatch(/true or false/);
    expect(errors.encryption_algorithm[0]).toMatch(/AES-128, AES-256/);
  });
});
