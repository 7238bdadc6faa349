import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MD5_ONE_BLOCK, md5OneBlock } from '../../../src/pdf/security/md5.js';

describe('MD5 of one block in JavaScript (md5.ts)', () => {
  it('gives the test suite of RFC 1321', () => {
    expect(Buffer.from(md5OneBlock(Buffer.from(''))).toString('hex')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(Buffer.from(md5OneBlock(Buffer.from('abc'))).toString('hex')).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(Buffer.from(md5OneBlock(Buffer.from('abcdefghijklmnopqrstuvwxyz'))).toString('hex')).toBe('c3fcd3d76192e4007dfb496cca67e13b');
  });

  it('gives what node:crypto gives, at every length it takes', () => {
    for (let length = 0; length <= MD5_ONE_BLOCK; length++) {
      for (let i = 0; i < 20; i++) {
        const message = randomBytes(length);
        expect(Buffer.from(md5OneBlock(message))).toEqual(createHash('md5').update(message).digest());
      }
    }
  });

  it('refuses a longer message', () => {
    expect(() => md5OneBlock(new Uint8Array(MD5_ONE_BLOCK + 1))).toThrow(RangeError);
  });
});
