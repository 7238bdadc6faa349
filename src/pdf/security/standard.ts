/**
 * The standard security handler (ISO 32000-2, 7.6.4): reading an /Encrypt
 * dictionary, checking a password against it, deriving the file key, and
 * making the dictionary of a new encryption. Revisions 2 to 4 (MD5 and RC4,
 * AES-128) and 5 and 6 (SHA-2, AES-256). Hashing and AES go through
 * node:crypto, but for the objects' MD5 keys (md5.ts); RC4 is ours (see
 * rc4.ts). Secrets are compared with crypto.timingSafeEqual, and nothing
 * here ever puts a password in a message.
 */
import { type Cipher, createCipheriv, createDecipheriv, createHash, type Decipher, randomBytes, timingSafeEqual } from 'node:crypto';
import { encodePdfDoc } from '../model/primitives.js';
import { md5OneBlock } from './md5.js';
import { rc4 } from './rc4.js';

/** How strings or streams under one crypt filter are encrypted. */
export type CipherMethod = 'None' | 'RC4' | 'AESV2' | 'AESV3';

/** What an /Encrypt dictionary says, as plain values. */
export interface EncryptionParameters {
  /** /Filter: `Standard`, or another handler (public-key handlers are not supported). */
  filter: string;
  V: number;
  R: number;
  /** File key length in bytes (5 to 16 for RC4 and AES-128, 32 for AES-256). */
  keyLength: number;
  /** /Length as the dictionary states it (bits, or whatever a writer put there; 0 when absent). */
  statedLength: number;
  O: Uint8Array;
  U: Uint8Array;
  OE?: Uint8Array;
  UE?: Uint8Array;
  Perms?: Uint8Array;
  P: number;
  encryptMetadata: boolean;
  /** Method per crypt filter name (`Identity` is always `None`). */
  filters: Map<string, CipherMethod>;
  /** Crypt filter names for streams, strings and embedded files. */
  stmF: string;
  strF: string;
  efF: string;
  /** The first element of the trailer /ID (revisions 2 to 4 hash it into the key). */
  id0: Uint8Array;
}

const PASSWORD_PADDING = Uint8Array.from([
  0x28, 0xbf, 0x4e, 0x5e, 0x4e, 0x75, 0x8a, 0x41, 0x64, 0x00, 0x4e, 0x56, 0xff, 0xfa, 0x01, 0x08, 0x2e, 0x2e, 0x00, 0xb6, 0xd0, 0x68, 0x3e, 0x80, 0x2f, 0x0c,
  0xa9, 0xfe, 0x64, 0x53, 0x69, 0x7a,
]);

const md5 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('md5');
  for (const part of parts) h.update(part);
  return h.digest();
};

const sha = (algorithm: 'sha256' | 'sha384' | 'sha512', ...parts: Uint8Array[]): Buffer => {
  const h = createHash(algorithm);
  for (const part of parts) h.update(part);
  return h.digest();
};

function int32le(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(value | 0);
  return b;
}

/** Constant-time equality of two byte strings (lengths are not secret). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Password bytes padded or cut to 32 with the standard padding (algorithm 2, step a). */
function padPassword(password: Uint8Array): Buffer {
  const out = Buffer.alloc(32);
  const n = Math.min(32, password.length);
  out.set(password.subarray(0, n));
  out.set(PASSWORD_PADDING.subarray(0, 32 - n), n);
  return out;
}

const NON_ASCII_SPACE = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each code unit is removed on its own, combining marks and variation selectors included.
const MAPPED_TO_NOTHING = /[\u00ad\u034f\u1806\u180b-\u180d\u200b-\u200d\u2060\ufe00-\ufe0f\ufeff]/g;

/**
 * Revisions 5 and 6: the password is SASLprep'd (RFC 4013), as UTF-8, cut to
 * 127 bytes. This applies its mapping and normalisation steps (spaces,
 * characters mapped to nothing, NFKC); for printable ASCII it is the identity.
 */
function aesPasswordBytes(password: string): Buffer {
  const prepared = password.replace(NON_ASCII_SPACE, ' ').replace(MAPPED_TO_NOTHING, '').normalize('NFKC');
  const bytes = Buffer.from(prepared, 'utf8');
  return bytes.subarray(0, Math.min(127, bytes.length));
}

/**
 * To open revisions 5 and 6: the SASLprep'd password, then its UTF-8 as
 * typed, which is what writers that skip SASLprep stored (qpdf: a decomposed
 * "ä" stays decomposed).
 */
function aesPasswordCandidates(password: string): Buffer[] {
  const prepared = aesPasswordBytes(password);
  const typed = Buffer.from(password, 'utf8');
  const asTyped = typed.subarray(0, Math.min(127, typed.length));
  return asTyped.equals(prepared) ? [prepared] : [prepared, asTyped];
}

/**
 * Revisions 2 to 4 take the password in PDFDocEncoding and use its first 32
 * bytes. Tried as Latin-1 (what a keyboard types, where PDFDocEncoding
 * agrees), as PDFDocEncoding (where it differs: "€", "—", "Š", "ł", as qpdf
 * and Acrobat write them), and as UTF-8, which is what some writers stored.
 */
function rc4PasswordCandidates(password: string): Buffer[] {
  const candidates: Buffer[] = [];
  if (/^[\u0000-\u00ff]*$/.test(password)) candidates.push(Buffer.from(password, 'latin1'));
  const pdfDoc = encodePdfDoc(password);
  if (pdfDoc && !candidates.some((c) => c.equals(pdfDoc))) candidates.push(Buffer.from(pdfDoc));
  const utf8 = Buffer.from(password, 'utf8');
  if (!candidates.some((c) => c.equals(utf8))) candidates.push(utf8);
  return candidates.map((c) => c.subarray(0, Math.min(32, c.length)));
}

/**
 * The slow derivations one encryption made (revisions 2 to 4: 51 MD5s for a
 * key, 20 RC4s for /U; revision 6: hashes of 64+ rounds of AES and SHA-2),
 * by all of their inputs. Its output check (check-output.ts) derives again
 * from the same passwords and from the values it reads back: a derivation of
 * the very same bytes has the same result, so it is taken, not computed
 * again; bytes read back that differ from those written find no entry and
 * are derived. Held as long as the encryption, which holds its passwords.
 */
export class Derivations {
  private readonly entries: { inputs: Uint8Array[]; value: Buffer }[] = [];

  derive(inputs: Uint8Array[], compute: () => Buffer): Buffer {
    for (const entry of this.entries) {
      if (entry.inputs.length === inputs.length && entry.inputs.every((input, i) => sameBytes(input, inputs[i]))) return entry.value;
    }
    const value = compute();
    this.entries.push({ inputs: inputs.map((input) => Uint8Array.from(input)), value });
    return value;
  }
}

/** What a derivation is, and the numbers it takes besides bytes: the first of its inputs. */
const FILE_KEY = 1;
const USER_VALUE = 2;
const OWNER_KEY = 3;
const HASH_R6 = 4;
const derivation = (kind: number, R: number, n = 0): Uint8Array => Uint8Array.of(kind, R, n);

// ---------------------------------------------------------------------------
// Revisions 2 to 4

/** Algorithm 2: the file key of `n` bytes from a (user) password. */
function fileKeyR4(params: EncryptionParameters, password: Uint8Array, n: number, memo: Derivations): Buffer {
  const parts = [padPassword(password), params.O.subarray(0, 32), int32le(params.P), params.id0];
  if (params.R >= 4 && !params.encryptMetadata) parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  return memo.derive([derivation(FILE_KEY, params.R, n), ...parts], () => {
    let digest = md5(...parts);
    if (params.R >= 3) for (let i = 0; i < 50; i++) digest = md5(digest.subarray(0, n));
    return digest.subarray(0, n);
  });
}

function xorKey(key: Uint8Array, i: number): Uint8Array {
  const out = new Uint8Array(key.length);
  for (let k = 0; k < key.length; k++) out[k] = key[k] ^ i;
  return out;
}

/** Algorithms 4 and 5: the /U value for a file key (R3+: 16 significant bytes). */
function userValueR4(params: Pick<EncryptionParameters, 'R' | 'id0'>, key: Uint8Array, memo: Derivations): Uint8Array {
  return memo.derive([derivation(USER_VALUE, params.R), key, params.id0], () => {
    if (params.R === 2) return Buffer.from(rc4(key, PASSWORD_PADDING));
    let x = rc4(key, md5(PASSWORD_PADDING, params.id0));
    for (let i = 1; i <= 19; i++) x = rc4(xorKey(key, i), x);
    return Buffer.from(x);
  });
}

/** Algorithm 3, steps a to d: the RC4 key of `n` bytes that encrypts the padded user password into /O. */
function ownerKeyR4(R: number, n: number, ownerPassword: Uint8Array, memo: Derivations): Buffer {
  return memo.derive([derivation(OWNER_KEY, R, n), ownerPassword], () => {
    let digest = md5(padPassword(ownerPassword));
    if (R >= 3) for (let i = 0; i < 50; i++) digest = md5(digest);
    return digest.subarray(0, n);
  });
}

/** Algorithm 6: the file key of `n` bytes when `password` is the user password, else undefined. */
function authenticateUserR4(params: EncryptionParameters, password: Uint8Array, n: number, memo: Derivations): Buffer | undefined {
  const key = fileKeyR4(params, password, n, memo);
  const expected = userValueR4(params, key, memo);
  const significant = params.R === 2 ? 32 : 16;
  if (params.U.length < significant) return undefined;
  return sameBytes(expected.subarray(0, significant), params.U.subarray(0, significant)) ? key : undefined;
}

/** Algorithm 7: the file key of `n` bytes when `password` is the owner password, else undefined. */
function authenticateOwnerR4(params: EncryptionParameters, password: Uint8Array, n: number, memo: Derivations): Buffer | undefined {
  const key = ownerKeyR4(params.R, n, password, memo);
  let user: Uint8Array = params.O.subarray(0, 32);
  if (params.R === 2) user = rc4(key, user);
  else for (let i = 19; i >= 0; i--) user = rc4(xorKey(key, i), user);
  return authenticateUserR4(params, user, n, memo);
}

/**
 * File key lengths in bytes to try for revisions 2 to 4, the standard's
 * reading first: 5 for revision 2, else /Length (readEncryption). Writers
 * disagree with it: /Length in bytes instead of bits, a V4 /Length that is
 * not its key's, a 128-bit key under revision 2. qpdf reads 40 bits for V1,
 * 128 for V4, and for V2 /Length when it is a multiple of 8 from 40 to 128,
 * else 128 (QPDF_encryption.cc, also under R2), and so opens such files;
 * after its reading every length from 40 to 128 bits is tried. Trying is
 * safe: a key opens only when it reproduces /U (16 or 32 bytes of it), and
 * costs microseconds a length.
 */
function keyLengthCandidates(params: EncryptionParameters): number[] {
  const standard = params.R === 2 ? 5 : params.keyLength;
  const qpdf =
    params.V <= 1
      ? 5
      : params.V === 4
        ? 16
        : params.statedLength % 8 === 0 && params.statedLength >= 40 && params.statedLength <= 128
          ? params.statedLength / 8
          : 16;
  const lengths = [standard, qpdf];
  for (let n = 5; n <= 16; n++) lengths.push(n);
  return [...new Set(lengths)];
}

// ---------------------------------------------------------------------------
// Revisions 5 and 6

function aesNoPadding(mode: 'encrypt' | 'decrypt', algorithm: string, key: Uint8Array, iv: Uint8Array | null, data: Uint8Array): Buffer {
  const cipher = mode === 'encrypt' ? createCipheriv(algorithm, key, iv) : createDecipheriv(algorithm, key, iv);
  cipher.setAutoPadding(false);
  const out = cipher.update(data);
  // Whole blocks in, nothing held back: final() is empty, and joining would copy the whole stream.
  const rest = cipher.final();
  return rest.length === 0 ? out : Buffer.concat([out, rest]);
}

/** Algorithm 2.B (revision 6); revision 5 is its first SHA-256 alone. */
function hashR6(R: number, password: Uint8Array, salt: Uint8Array, userKey: Uint8Array, memo: Derivations): Buffer {
  return memo.derive([derivation(HASH_R6, R), password, salt, userKey], () => hashR6Rounds(R, password, salt, userKey));
}

function hashR6Rounds(R: number, password: Uint8Array, salt: Uint8Array, userKey: Uint8Array): Buffer {
  let k = sha('sha256', password, salt, userKey);
  if (R === 5) return k;
  // The round's block and its 64 copies, in buffers of their longest (K is 32 to 64 bytes), reused by every round.
  const longest = password.length + 64 + userKey.length;
  const blocks = Buffer.allocUnsafe(longest);
  const copies = Buffer.allocUnsafe(longest * 64);
  let e: Buffer = Buffer.alloc(0);
  for (let round = 0; round < 64 || e[e.length - 1] > round - 32; round++) {
    const length = password.length + k.length + userKey.length;
    const block = blocks.subarray(0, length);
    block.set(password, 0);
    block.set(k, password.length);
    block.set(userKey, password.length + k.length);
    const k1 = copies.subarray(0, length * 64).fill(block);
    e = aesNoPadding('encrypt', 'aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32), k1);
    let sum = 0;
    for (let i = 0; i < 16; i++) sum += e[i];
    k = sha(SHA_BY_REMAINDER[sum % 3], e);
  }
  return k.subarray(0, 32);
}

const SHA_BY_REMAINDER = ['sha256', 'sha384', 'sha512'] as const;

const NO_USER_KEY = new Uint8Array(0);

/** Algorithm 2.A: the file key when `password` is the owner or (unless `only` says owner) the user password. */
function authenticateR6(params: EncryptionParameters, password: Buffer, only: 'owner' | undefined, memo: Derivations): Buffer | undefined {
  const { O, U, OE, UE, R } = params;
  if (O.length < 48 || U.length < 48) return undefined;
  const zeroIv = Buffer.alloc(16);
  const u48 = U.subarray(0, 48);
  if (OE && OE.length >= 32 && sameBytes(hashR6(R, password, O.subarray(32, 40), u48, memo), O.subarray(0, 32))) {
    return aesNoPadding('decrypt', 'aes-256-cbc', hashR6(R, password, O.subarray(40, 48), u48, memo), zeroIv, OE.subarray(0, 32));
  }
  if (only === 'owner') return undefined;
  if (UE && UE.length >= 32 && sameBytes(hashR6(R, password, U.subarray(32, 40), NO_USER_KEY, memo), U.subarray(0, 32))) {
    return aesNoPadding('decrypt', 'aes-256-cbc', hashR6(R, password, U.subarray(40, 48), NO_USER_KEY, memo), zeroIv, UE.subarray(0, 32));
  }
  return undefined;
}

// ---------------------------------------------------------------------------

/**
 * The file key that `password` (owner or user) opens, or undefined when it
 * opens nothing. Every candidate encoding and key length is tried; none is
 * short-circuited on a partial match.
 */
export function authenticate(params: EncryptionParameters, password: string, memo = new Derivations()): Uint8Array | undefined {
  if (params.R >= 5) {
    for (const candidate of aesPasswordCandidates(password)) {
      const key = authenticateR6(params, candidate, undefined, memo);
      if (key) return key;
    }
    return undefined;
  }
  for (const n of keyLengthCandidates(params)) {
    for (const candidate of rc4PasswordCandidates(password)) {
      const key = authenticateUserR4(params, candidate, n, memo) ?? authenticateOwnerR4(params, candidate, n, memo);
      if (key) return key;
    }
  }
  return undefined;
}

/** The file key when `password` is the owner password (not merely the user password), else undefined. */
export function authenticateOwner(params: EncryptionParameters, password: string, memo = new Derivations()): Uint8Array | undefined {
  if (params.R >= 5) {
    for (const candidate of aesPasswordCandidates(password)) {
      const key = authenticateR6(params, candidate, 'owner', memo);
      if (key) return key;
    }
    return undefined;
  }
  for (const n of keyLengthCandidates(params)) {
    for (const candidate of rc4PasswordCandidates(password)) {
      const key = authenticateOwnerR4(params, candidate, n, memo);
      if (key) return key;
    }
  }
  return undefined;
}

/**
 * The key for each object's strings and streams under one file key and
 * method (algorithm 1; revisions 5 and 6 use the file key itself): the MD5
 * of the file key, the object's number, generation and (AES) salt, hashed
 * from one buffer that keeps the file key. At most 25 bytes, one block:
 * hashed in JavaScript (md5.ts), where crypto.hash's call cost more than the
 * hash; a new array per object, since the caller keeps each key.
 */
export function objectKeys(fileKey: Uint8Array, method: CipherMethod): (objectNumber: number, generation: number) => Uint8Array {
  if (method === 'AESV3') return () => fileKey;
  const length = Math.min(fileKey.length + 5, 16);
  // The file key, then number (3 bytes) and generation (2), low byte first; then "sAlT" for AES.
  const input = Buffer.alloc(fileKey.length + (method === 'AESV2' ? 9 : 5));
  input.set(fileKey);
  if (method === 'AESV2') input.set(AES_SALT, fileKey.length + 5);
  const at = fileKey.length;
  return (objectNumber, generation) => {
    input[at] = objectNumber & 0xff;
    input[at + 1] = (objectNumber >> 8) & 0xff;
    input[at + 2] = (objectNumber >> 16) & 0xff;
    input[at + 3] = generation & 0xff;
    input[at + 4] = (generation >> 8) & 0xff;
    const key = md5OneBlock(input);
    // A 16-byte file key (every AES-128 document) keeps the whole digest: no view of it to make per object.
    return length === key.length ? key : key.subarray(0, length);
  };
}

const AES_SALT = Uint8Array.from([0x73, 0x41, 0x6c, 0x54]);

/** OpenSSL's name for a crypt filter's AES cipher (CBC). */
function aesCipherName(method: 'AESV2' | 'AESV3'): 'aes-128-cbc' | 'aes-256-cbc' {
  return method === 'AESV3' ? 'aes-256-cbc' : 'aes-128-cbc';
}

/** The PKCS#7 padding that ends `plain` (a whole number of blocks), or 0 when its last bytes are not valid padding. */
export function pkcs7PaddingOf(plain: Uint8Array): number {
  const pad = plain[plain.length - 1];
  if (!(pad >= 1 && pad <= 16 && pad <= plain.length)) return 0;
  for (let i = plain.length - pad; i < plain.length; i++) if (plain[i] !== pad) return 0;
  return pad;
}

/** Decrypts one string or stream. Damaged AES data (short, unpadded) is decrypted as far as it goes. */
export function decryptData(method: CipherMethod, key: Uint8Array, data: Uint8Array, aes: AesDecryptor = new AesDecryptor()): Uint8Array {
  if (method === 'None') return data;
  if (method === 'RC4') return rc4(key, data);
  // An IV and at least one block (an empty string is written as the IV and one block of padding).
  if (data.length < 32) return new Uint8Array(0);
  const whole = 16 + Math.floor((data.length - 16) / 16) * 16;
  const out = aes.decryptBehindIv(method, key, whole === data.length ? data : data.subarray(0, whole));
  // The padding is in the last block, after at least one of plaintext: found the same with the first block still on.
  return out.subarray(16, out.length - pkcs7PaddingOf(out));
}

/**
 * One document's AES-CBC, through one node:crypto cipher per key that runs
 * on from one string or stream to the next, instead of a cipher made for
 * each (AES-256 has one key for the whole document, AES-128 one per object,
 * which holds its strings and its stream). Making a cipher, giving it the key
 * and IV and ending it cost more than encrypting a short string, and a
 * document has tens of thousands of them. A CBC cipher that has just written
 * block C encrypts the next block X as E(X xor C): so any message can follow
 * any other when its first block is xored with C (encryption), or when the
 * first block put out is dropped (decryption, see AesDecryptor). Messages are
 * whole blocks (padding is added by hand, setAutoPadding(false)), so nothing
 * is held back between them; a cipher that failed part way is dropped.
 */
abstract class RunningAes<C extends Cipher | Decipher> {
  private key: Uint8Array | undefined;
  private method: 'AESV2' | 'AESV3' | undefined;
  private running: C | undefined;

  protected abstract make(name: 'aes-128-cbc' | 'aes-256-cbc', key: Uint8Array): C;

  /** The running cipher for `key`: the same object while the key is the same (AES-128's keys are made once per object). */
  protected cipher(method: 'AESV2' | 'AESV3', key: Uint8Array): C {
    // The same key object: callers make an object's key once (objectKeys), and AES-256's is the file key
    // itself. Keys equal but not the same object only cost a cipher more (no comparison of bytes per object).
    if (this.running && method === this.method && key === this.key) {
      return this.running;
    }
    this.running = this.make(aesCipherName(method), key);
    this.method = method;
    this.key = key;
    return this.running;
  }

  /** The cipher's state is no longer known: the next message gets a new one. */
  protected drop(): void {
    this.running = undefined;
  }
}

/** Any IV: what a new decipher writes first is dropped (node:crypto copies the IV, so one buffer serves every decipher). */
const ZERO_IV = Buffer.alloc(16);

/** Decryption (see RunningAes): a CBC decipher fed IV and ciphertext puts out one block of garbage, then the plaintext. */
export class AesDecryptor extends RunningAes<Decipher> {
  protected make(name: 'aes-128-cbc' | 'aes-256-cbc', key: Uint8Array): Decipher {
    return createDecipheriv(name, key, ZERO_IV).setAutoPadding(false);
  }

  /** `data` (an IV, then whole blocks) decrypted, padding still on. */
  decrypt(method: 'AESV2' | 'AESV3', key: Uint8Array, data: Uint8Array): Buffer {
    return this.decryptBehindIv(method, key, data).subarray(16);
  }

  /** The same with a block of garbage in front, where the IV was: for a caller that cuts the output anyway (one view per string, not two). */
  decryptBehindIv(method: 'AESV2' | 'AESV3', key: Uint8Array, data: Uint8Array): Buffer {
    return this.cipher(method, key).update(data);
  }

  /**
   * The same over data handed in chunks of any length (a stream read from its
   * file): the plaintext's first `size` bytes go to `emit`. `forEachChunk`
   * must hand over whole blocks in all.
   */
  decryptChunks(
    method: 'AESV2' | 'AESV3',
    key: Uint8Array,
    size: number,
    forEachChunk: (each: (chunk: Uint8Array) => void) => void,
    emit: (chunk: Uint8Array) => void,
  ): void {
    const decipher = this.cipher(method, key);
    let skip = 16;
    let left = size;
    try {
      forEachChunk((chunk) => {
        let plain = decipher.update(chunk);
        if (skip > 0) {
          const dropped = Math.min(skip, plain.length);
          plain = plain.subarray(dropped);
          skip -= dropped;
        }
        if (left > 0 && plain.length > 0) emit(plain.length <= left ? plain : plain.subarray(0, left));
        left -= Math.min(left, plain.length);
      });
    } catch (err) {
      this.drop();
      throw err;
    }
  }
}

/**
 * Encryption (see RunningAes). Each message starts with a block of fresh
 * random bytes R, xored with the block the cipher wrote last: the cipher
 * puts out E(R), a random block that is the message's IV, and encrypts the
 * message after it as CBC with that IV. So a message's ciphertext depends on
 * its own R and data only, not on what was encrypted before it (a deferred
 * stream made twice comes out the same).
 */
export class AesEncryptor extends RunningAes<Cipher> {
  private readonly random = new RandomBlocks();
  /** The block the running cipher wrote last (its IV, zero, when new). */
  private readonly last = Buffer.alloc(16);

  protected make(name: 'aes-128-cbc' | 'aes-256-cbc', key: Uint8Array): Cipher {
    // Made with `last` as its IV, a new cipher chains from `last` as the running one did.
    return createCipheriv(name, key, this.last).setAutoPadding(false);
  }

  /** A block of random bytes, for a message whose encryption is made later (encryptChunks). */
  nextRandom(): Uint8Array {
    return this.random.next();
  }

  /** The IV, then `data` encrypted and PKCS#7-padded, in one buffer: one string or a stream in memory. */
  encrypt(method: 'AESV2' | 'AESV3', key: Uint8Array, data: Uint8Array): Buffer {
    const cipher = this.cipher(method, key);
    const pad = 16 - (data.length % 16);
    const input = Buffer.allocUnsafe(16 + data.length + pad);
    this.random.nextXor(this.last, input);
    input.set(data, 16);
    // A loop, not fill(): Buffer's fill() checks its arguments in JavaScript first, per string (21,000 on small-objects).
    for (let i = 16 + data.length; i < input.length; i++) input[i] = pad;
    return this.track(cipher.update(input));
  }

  /**
   * The same over data handed in chunks of any length (a stream read from
   * its file), `byteLength` in all, put out in pieces to `emit`; `random`
   * from nextRandom(), drawn when the stream's size was announced.
   */
  encryptChunks(
    method: 'AESV2' | 'AESV3',
    key: Uint8Array,
    random: Uint8Array,
    byteLength: number,
    forEachChunk: (each: (chunk: Uint8Array) => void) => void,
    emit: (chunk: Uint8Array) => void,
  ): void {
    const cipher = this.cipher(method, key);
    try {
      emit(this.track(cipher.update(this.firstBlock(random, Buffer.allocUnsafe(16)))));
      forEachChunk((chunk) => {
        const out = cipher.update(chunk);
        if (out.length > 0) emit(this.track(out));
      });
      const pad = 16 - (byteLength % 16);
      emit(this.track(cipher.update(Buffer.alloc(pad, pad))));
    } catch (err) {
      this.drop();
      throw err;
    }
  }

  /** R xor the block written last, into `into`'s first 16 bytes. */
  private firstBlock(random: Uint8Array, into: Buffer): Buffer {
    for (let i = 0; i < 16; i++) into[i] = random[i] ^ this.last[i];
    return into;
  }

  /** Notes the last block of what the cipher wrote (whole blocks: never 1 to 15 bytes). */
  private track(out: Buffer): Buffer {
    // A loop, not copy() or set() of a subarray: both make a view of the block per message.
    const end = out.length;
    if (end >= 16) for (let i = 0; i < 16; i++) this.last[i] = out[end - 16 + i];
    return out;
  }
}

/** Random bytes drawn from the CSPRNG in blocks (one call per 1,024 messages). */
class RandomBlocks {
  private pool = new Uint8Array(0);
  private at = 0;
  next(): Uint8Array {
    const at = this.take();
    return this.pool.subarray(at, at + 16);
  }

  /** The next block xor `last`, into `into`'s first 16 bytes (no view of the block made: one per string or small stream). */
  nextXor(last: Uint8Array, into: Uint8Array): void {
    const at = this.take();
    const pool = this.pool;
    for (let i = 0; i < 16; i++) into[i] = pool[at + i] ^ last[i];
  }

  /** Where the next block starts in the pool. */
  private take(): number {
    if (this.at + 16 > this.pool.length) {
      const fresh = randomBytes(16 * 1024);
      this.pool = new Uint8Array(fresh.buffer, fresh.byteOffset, fresh.length);
      this.at = 0;
    }
    this.at += 16;
    return this.at - 16;
  }
}

/** Encrypts one string or stream: AES gets a fresh random IV in front of the PKCS#7-padded data. */
export function encryptData(method: CipherMethod, key: Uint8Array, data: Uint8Array, aes: AesEncryptor): Uint8Array {
  if (method === 'None') return data;
  if (method === 'RC4') return rc4(key, data);
  return aes.encrypt(method, key, data);
}

/** Data this large is encrypted as pieces (IV, ciphertext, last block), not copied into one buffer with its padding first. */
const LARGE_DATA = 1 << 16;

/** The same, as pieces: a large stream in memory is encrypted without copying it. */
export function encryptPieces(method: CipherMethod, key: Uint8Array, data: Uint8Array, aes: AesEncryptor): Uint8Array[] {
  if (method === 'None' || method === 'RC4' || data.length < LARGE_DATA) return [encryptData(method, key, data, aes)];
  const pieces: Uint8Array[] = [];
  aes.encryptChunks(
    method,
    key,
    aes.nextRandom(),
    data.length,
    (each) => each(data),
    (piece) => pieces.push(piece),
  );
  return pieces;
}

// ---------------------------------------------------------------------------
// New encryption

export type Algorithm = 'AES-128' | 'AES-256';

export interface NewEncryption {
  params: EncryptionParameters;
  fileKey: Uint8Array;
  /** The derivations /O, /U and the file key were made with, for the output check to find again. */
  memo: Derivations;
}

/**
 * The parameters and file key of a new encryption: AES-128 is V4/R4 with the
 * AESV2 crypt filter, AES-256 is V5/R6 with AESV3. Keys, salts and the
 * padding of /U come from crypto.randomBytes.
 */
export function newEncryption(algorithm: Algorithm, userPassword: string, ownerPassword: string, P: number, id0: Uint8Array): NewEncryption {
  if (algorithm === 'AES-128') {
    const user = Buffer.from(userPassword, 'latin1').subarray(0, 32);
    const owner = Buffer.from(ownerPassword, 'latin1').subarray(0, 32);
    let O: Uint8Array = padPassword(user);
    const memo = new Derivations();
    const ownerKey = ownerKeyR4(4, 16, owner, memo);
    for (let i = 0; i <= 19; i++) O = rc4(xorKey(ownerKey, i), O);
    const params: EncryptionParameters = {
      filter: 'Standard',
      V: 4,
      R: 4,
      keyLength: 16,
      statedLength: 128,
      O,
      U: new Uint8Array(32),
      P,
      encryptMetadata: true,
      filters: new Map([['StdCF', 'AESV2']]),
      stmF: 'StdCF',
      strF: 'StdCF',
      efF: 'StdCF',
      id0,
    };
    const fileKey = fileKeyR4(params, user, 16, memo);
    params.U = Buffer.concat([userValueR4(params, fileKey, memo), randomBytes(16)]);
    return { params, fileKey, memo };
  }
  const fileKey = randomBytes(32);
  const memo = new Derivations();
  const user = aesPasswordBytes(userPassword);
  const owner = aesPasswordBytes(ownerPassword);
  const zeroIv = Buffer.alloc(16);
  const userSalts = randomBytes(16);
  const U = Buffer.concat([hashR6(6, user, userSalts.subarray(0, 8), NO_USER_KEY, memo), userSalts]);
  const UE = aesNoPadding('encrypt', 'aes-256-cbc', hashR6(6, user, userSalts.subarray(8, 16), NO_USER_KEY, memo), zeroIv, fileKey);
  const ownerSalts = randomBytes(16);
  const O = Buffer.concat([hashR6(6, owner, ownerSalts.subarray(0, 8), U, memo), ownerSalts]);
  const OE = aesNoPadding('encrypt', 'aes-256-cbc', hashR6(6, owner, ownerSalts.subarray(8, 16), U, memo), zeroIv, fileKey);
  // /Perms: P, then 0xFFFFFFFF, 'T' (metadata encrypted), 'adb', four random bytes; AES-256-ECB.
  const perms = Buffer.concat([int32le(P), Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from('Tadb', 'latin1'), randomBytes(4)]);
  const Perms = aesNoPadding('encrypt', 'aes-256-ecb', fileKey, null, perms);
  const params: EncryptionParameters = {
    filter: 'Standard',
    V: 5,
    R: 6,
    keyLength: 32,
    statedLength: 256,
    O,
    U,
    OE,
    UE,
    Perms,
    P,
    encryptMetadata: true,
    filters: new Map([['StdCF', 'AESV3']]),
    stmF: 'StdCF',
    strF: 'StdCF',
    efF: 'StdCF',
    id0,
  };
  return { params, fileKey, memo };
}
