/**
 * The output check (check-output.ts) takes the slow password derivations the
 * encryption made from its memo (standard.ts Derivations) when it derives
 * from the very same bytes. What must hold: the memo answers only for equal
 * inputs, so a password or a value read back that differs from what was
 * written is derived again and fails as it did without the memo; and the
 * memo's answers are the keys the derivations give without it.
 */
import { describe, expect, it } from 'vitest';
import { authenticate, authenticateOwner, Derivations, newEncryption, type EncryptionParameters } from '../../../src/pdf/security/standard.js';

const ID0 = Uint8Array.from({ length: 16 }, (_, i) => i * 7);

describe('Derivations', () => {
  it('answers for equal bytes without computing, and computes for any other', () => {
    const memo = new Derivations();
    const first = memo.derive([Uint8Array.of(1, 2), Uint8Array.of(3)], () => Buffer.from('first'));
    expect(memo.derive([Uint8Array.of(1, 2), Uint8Array.of(3)], () => Buffer.from('again'))).toBe(first);
    expect(memo.derive([Uint8Array.of(1, 2), Uint8Array.of(4)], () => Buffer.from('other')).toString()).toBe('other');
    expect(memo.derive([Uint8Array.of(1, 2)], () => Buffer.from('fewer')).toString()).toBe('fewer');
  });

  it('keeps its own copy of the inputs: bytes changed after the fact do not match', () => {
    const memo = new Derivations();
    const input = Uint8Array.of(9, 9);
    memo.derive([input], () => Buffer.from('nine'));
    input[0] = 8;
    expect(memo.derive([Uint8Array.of(8, 9)], () => Buffer.from('eight')).toString()).toBe('eight');
  });

  for (const algorithm of ['AES-128', 'AES-256'] as const) {
    describe(algorithm, () => {
      const made = () => newEncryption(algorithm, 'user-pw', 'owner-pw', -4, ID0);

      it('the memo gives the keys a fresh derivation gives', () => {
        const { params, fileKey, memo } = made();
        for (const password of ['user-pw', 'owner-pw']) {
          expect(Buffer.from(authenticate(params, password, memo)!)).toEqual(Buffer.from(fileKey));
          expect(Buffer.from(authenticate(params, password)!)).toEqual(Buffer.from(fileKey));
        }
        expect(Buffer.from(authenticateOwner(params, 'owner-pw', memo)!)).toEqual(Buffer.from(fileKey));
        expect(authenticateOwner(params, 'user-pw', memo)).toBeUndefined();
        expect(authenticate(params, 'wrong', memo)).toBeUndefined();
      });

      it('values read back that differ from those written do not open, memo or not', () => {
        const { params, memo } = made();
        const flip = (bytes: Uint8Array, at: number) => {
          const copy = Uint8Array.from(bytes);
          copy[at] ^= 1;
          return copy;
        };
        const damaged: EncryptionParameters[] = [
          { ...params, U: flip(params.U, 3) },
          { ...params, O: flip(params.O, 3) },
          ...(algorithm === 'AES-128'
            ? [
                { ...params, id0: flip(params.id0, 0) },
                { ...params, P: params.P ^ 8 },
              ]
            : []),
        ];
        for (const read of damaged) {
          const key = authenticate(read, 'user-pw', memo);
          const ownerKey = authenticateOwner(read, 'owner-pw', memo);
          // A damaged /O still leaves the user password's key for AES-256 (its /U path does not read /O).
          if (algorithm === 'AES-256' && read.O !== params.O) expect(ownerKey).toBeUndefined();
          else expect(key === undefined || ownerKey === undefined).toBe(true);
        }
      });
    });
  }
});
