import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlockDecipher, decryptData } from '../../../src/pdf/security/standard.js';

/** AES-CBC with PKCS#7 padding as any writer makes it: the IV, then the ciphertext (node:crypto's own CBC, not ours). */
function encrypted(bits: 128 | 256, key: Uint8Array, plain: Uint8Array): Uint8Array {
  const iv = randomBytes(16);
  const cipher = createCipheriv(`aes-${bits}-cbc`, key, iv);
  return Buffer.concat([iv, cipher.update(plain), cipher.final()]);
}

describe('BlockDecipher (short data through one reused ECB decipher)', () => {
  it('decrypts what a CBC cipher encrypted, at every length around the block size and under changing keys', () => {
    const blocks = new BlockDecipher();
    for (const [method, bits] of [
      ['AESV2', 128],
      ['AESV3', 256],
    ] as const) {
      const keys = [randomBytes(bits / 8), randomBytes(bits / 8)];
      for (let length = 0; length <= 80; length++) {
        // Alternating keys: AES-128 has one key per object, and the decipher must follow it.
        const key = keys[length % 2];
        const plain = randomBytes(length);
        const data = encrypted(bits, key, plain);
        expect(Buffer.from(decryptData(method, key, data, blocks))).toEqual(plain);
        expect(Buffer.from(decryptData(method, key, data))).toEqual(plain);
      }
    }
  });

  it('decrypts data longer than BlockDecipher.LARGEST (through a CBC decipher of its own) the same', () => {
    const key = randomBytes(32);
    const plain = randomBytes(BlockDecipher.LARGEST + 100);
    expect(Buffer.from(decryptData('AESV3', key, encrypted(256, key, plain), new BlockDecipher()))).toEqual(plain);
  });
});
