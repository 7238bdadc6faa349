import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AesDecryptor, AesEncryptor, decryptData, encryptData, encryptPieces } from '../../../src/pdf/security/standard.js';

/** AES-CBC with PKCS#7 padding as any writer makes it: the IV, then the ciphertext (node:crypto's own CBC, a cipher per message). */
function encrypted(bits: 128 | 256, key: Uint8Array, plain: Uint8Array): Uint8Array {
  const iv = randomBytes(16);
  const cipher = createCipheriv(`aes-${bits}-cbc`, key, iv);
  return Buffer.concat([iv, cipher.update(plain), cipher.final()]);
}

/** What any reader gets from IV + ciphertext: node:crypto's CBC decipher with its own PKCS#7 check (throws on bad padding). */
function decrypted(bits: 128 | 256, key: Uint8Array, data: Uint8Array): Buffer {
  const decipher = createDecipheriv(`aes-${bits}-cbc`, key, data.subarray(0, 16));
  return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]);
}

/** `data` handed over in chunks of the given lengths, cycled (1 byte, 15, 17, …: never on block boundaries). */
const inChunks = (data: Uint8Array, lengths: number[]) => (each: (chunk: Uint8Array) => void) => {
  for (let at = 0, i = 0; at < data.length; i++) {
    const end = Math.min(data.length, at + lengths[i % lengths.length]);
    each(data.subarray(at, end));
    at = end;
  }
};

const METHODS = [
  ['AESV2', 128],
  ['AESV3', 256],
] as const;

describe('AesDecryptor (one running CBC decipher per key)', () => {
  it('decrypts what a CBC cipher encrypted, at every length around the block size and under changing keys', () => {
    const aes = new AesDecryptor();
    for (const [method, bits] of METHODS) {
      const keys = [randomBytes(bits / 8), randomBytes(bits / 8)];
      for (let length = 0; length <= 80; length++) {
        // Alternating keys: AES-128 has one key per object, and the decipher must follow it.
        const key = keys[length % 2];
        const plain = randomBytes(length);
        const data = encrypted(bits, key, plain);
        expect(Buffer.from(decryptData(method, key, data, aes))).toEqual(plain);
        expect(Buffer.from(decryptData(method, key, data))).toEqual(plain);
      }
    }
  });

  it('decrypts large data, and data handed in chunks that cut blocks, the same', () => {
    const aes = new AesDecryptor();
    const key = randomBytes(32);
    const plain = randomBytes(70_000);
    const data = encrypted(256, key, plain);
    expect(Buffer.from(decryptData('AESV3', key, data, aes))).toEqual(plain);
    // A short string between the two: the running decipher's state must not matter.
    expect(Buffer.from(decryptData('AESV3', key, encrypted(256, key, Buffer.from('x')), aes))).toEqual(Buffer.from('x'));
    const out: Buffer[] = [];
    aes.decryptChunks('AESV3', key, plain.length, inChunks(data, [1, 15, 17, 4096, 31]), (chunk) => out.push(Buffer.from(chunk)));
    expect(Buffer.concat(out)).toEqual(plain);
  });
});

describe('AesEncryptor (one running CBC cipher per key)', () => {
  it('encrypts each message so that a CBC decipher of its own, with the IV in front, gives it back (padding checked)', () => {
    const aes = new AesEncryptor();
    for (const [method, bits] of METHODS) {
      const keys = [randomBytes(bits / 8), randomBytes(bits / 8)];
      for (let length = 0; length <= 80; length++) {
        const key = keys[length % 3 === 0 ? 1 : 0];
        const plain = randomBytes(length);
        const data = encryptData(method, key, plain, aes);
        expect(data.length).toBe(16 + (Math.floor(length / 16) + 1) * 16);
        expect(decrypted(bits, key, data)).toEqual(plain);
      }
    }
  });

  it('gives every message its own IV, also for equal plaintexts', () => {
    const aes = new AesEncryptor();
    const key = randomBytes(32);
    const ivs = new Set<string>();
    for (let i = 0; i < 200; i++) ivs.add(Buffer.from(encryptData('AESV3', key, Buffer.from('same'), aes).subarray(0, 16)).toString('hex'));
    expect(ivs.size).toBe(200);
  });

  it('encrypts data in chunks that cut blocks, and large data as pieces, the same way; a chunked message made twice is the same bytes', () => {
    const aes = new AesEncryptor();
    for (const [method, bits] of METHODS) {
      const key = randomBytes(bits / 8);
      for (const length of [0, 1, 15, 16, 17, 4095, 70_000]) {
        const plain = randomBytes(length);
        const random = aes.nextRandom();
        const make = () => {
          const out: Buffer[] = [];
          aes.encryptChunks(method, key, random, length, inChunks(plain, [1, 15, 17, 4096, 31]), (chunk) => out.push(Buffer.from(chunk)));
          return Buffer.concat(out);
        };
        const first = make();
        // Other messages in between move the running cipher on.
        encryptData(method, key, randomBytes(40), aes);
        expect(make()).toEqual(first);
        expect(decrypted(bits, key, first)).toEqual(plain);
        expect(decrypted(bits, key, Buffer.concat(encryptPieces(method, key, plain, aes)))).toEqual(plain);
      }
    }
  });
});
