/**
 * MD5 (RFC 1321) of a message of at most 55 bytes, one block, in JavaScript:
 * the key of each object (algorithm 1, standard.ts objectKeys) is the MD5 of
 * the file key and 5 or 9 bytes more, and AES-128 makes one per object,
 * 13,000+ on a large document, where node:crypto's call costs more than the
 * hash (bench/README.md, "aes128"). Not for secrets' comparison or any
 * longer message: those stay with node:crypto.
 */

/** The sines' constants, K[i] = floor(2^32 * abs(sin(i + 1))). */
const K = Int32Array.from({ length: 64 }, (_, i) => Math.floor(2 ** 32 * Math.abs(Math.sin(i + 1))) | 0);

/** Each step's left rotation. */
const S = Uint8Array.from([7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]);

/** The message block as 16 little-endian words, reused. */
const M = new Int32Array(16);

/** The longest message this hashes: 55 bytes, then 0x80 and the 8-byte length fit one block. */
export const MD5_ONE_BLOCK = 55;

/** The MD5 digest of `message` (at most MD5_ONE_BLOCK bytes), as a new array. */
export function md5OneBlock(message: Uint8Array): Uint8Array {
  const length = message.length;
  if (length > MD5_ONE_BLOCK) throw new RangeError(`md5OneBlock: ${length} bytes is more than one block`);
  M.fill(0);
  for (let i = 0; i < length; i++) M[i >> 2] |= message[i] << ((i & 3) * 8);
  M[length >> 2] |= 0x80 << ((length & 3) * 8);
  M[14] = length * 8;
  let a = 0x67452301;
  let b = 0xefcdab89 | 0;
  let c = 0x98badcfe | 0;
  let d = 0x10325476;
  for (let i = 0; i < 64; i++) {
    let f: number;
    let g: number;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) & 15;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) & 15;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) & 15;
    }
    const sum = (a + f + K[i] + M[g]) | 0;
    const s = S[((i >> 4) << 2) | (i & 3)];
    a = d;
    d = c;
    c = b;
    b = (b + ((sum << s) | (sum >>> (32 - s)))) | 0;
  }
  const digest = new Uint8Array(16);
  putWordLE(digest, 0, (a + 0x67452301) | 0);
  putWordLE(digest, 4, (b + 0xefcdab89) | 0);
  putWordLE(digest, 8, (c + 0x98badcfe) | 0);
  putWordLE(digest, 12, (d + 0x10325476) | 0);
  return digest;
}

function putWordLE(into: Uint8Array, at: number, word: number): void {
  into[at] = word;
  into[at + 1] = word >>> 8;
  into[at + 2] = word >>> 16;
  into[at + 3] = word >>> 24;
}
