/**
 * Stream data read from the input file by the command line (a lazily read
 * file): data up to 4 KB goes through the cipher when its object is read,
 * larger data as it is written (security/file-crypto.ts, SMALL_DATA). Both
 * sides of the boundary, for both algorithms, each with a string in its
 * dictionary (the same object key, under AES-128), are checked through qpdf:
 * what it decrypts from add_password's output, and what remove_password
 * writes from qpdf's own encryption, is the data and the string of the input.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { qpdfCheck, tempFile } from '../../helpers/pdf-tools.js';
import { extraObjects, qpdfEncryptedThenRemoved } from '../../helpers/security.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';
import { CLI } from '../../server/spawn.js';

const PASSWORD = 'stream-secret';
// Encrypted sizes 32, 48, 4080, 4096 (the last read at once), 4112 (the first written later), 5024, 70016.
const LENGTHS = [1, 16, 4063, 4079, 4080, 5000, 70_000];
const FIRST = 10;

/** Bytes of every value, the ones a literal string escapes included, in an order that differs per stream. */
function data(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let x = seed * 2654435761;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  // Never "endstream" by chance: no 'e' at all.
  for (let i = 0; i < length; i++) if (bytes[i] === 0x65) bytes[i] = 0x66;
  return bytes;
}

const streams = LENGTHS.map((length, i) => ({ num: FIRST + i, data: data(length, i + 1), note: `stream ${FIRST + i} (${length} bytes)` }));
const doc = simpleDoc(['SMALL AND LARGE STREAMS'], { catalog: `/Extra [${streams.map((s) => `${s.num} 0 R`).join(' ')}]` });
const INPUT = buildPdf([
  {
    objects: [...doc.objects, ...streams.map((s) => ({ num: s.num, body: { dict: `/Note (${s.note.replace(/[()]/g, '\\$&')})`, stream: s.data } }))],
  },
]).bytes;

/** What qpdf reads from `path` for object `num`: its dictionary as text and its data, decrypted. */
async function qpdfObject(path: string, num: number, password?: string): Promise<{ dict: string; data: Buffer }> {
  const pw = password ? [`--password=${password}`] : [];
  const dict = await execa('qpdf', [...pw, `--show-object=${num}`, path]);
  const raw = await execa('qpdf', [...pw, `--show-object=${num}`, '--raw-stream-data', path], { encoding: 'buffer' });
  return { dict: dict.stdout, data: Buffer.from(raw.stdout) };
}

async function expectStreams(path: string, password?: string): Promise<void> {
  const numbers = await extraObjects(path, password);
  expect(numbers).toHaveLength(streams.length);
  for (const [i, s] of streams.entries()) {
    const object = await qpdfObject(path, numbers[i], password);
    expect(object.data.equals(s.data), `data of ${s.note}`).toBe(true);
    expect(object.dict).toContain(`/Note (${s.note.replace(/[()]/g, '\\$&')})`);
  }
}

describe.each([
  ['AES-128', '128', ['--use-aes=y']],
  ['AES-256', '256', []],
] as const)('streams read from the input file, %s', (algorithm, bits, qpdfOptions) => {
  it('add_password: qpdf decrypts every stream and its string back to the input', async () => {
    const output = tempFile(new Uint8Array(0));
    await execa('node', [CLI, 'add-password', '--password', PASSWORD, '--encryption-algorithm', algorithm, tempFile(INPUT), '-o', output, '--force']);
    expect((await qpdfCheck(readFileSync(output), PASSWORD)).exitCode).toBe(0);
    await expectStreams(output, PASSWORD);
  });

  it('remove_password: every stream qpdf encrypted comes out as the input had it', async () => {
    const encrypted = tempFile(new Uint8Array(0));
    // Not compressed (qpdf compresses unfiltered streams by default): the encrypted sizes stay those above.
    await execa('qpdf', ['--compress-streams=n', '--encrypt', PASSWORD, PASSWORD, bits, ...qpdfOptions, '--', tempFile(INPUT), encrypted]);
    const output = tempFile(new Uint8Array(0));
    await execa('node', [CLI, 'remove-password', '--password', PASSWORD, encrypted, '-o', output, '--force']);
    expect((await qpdfCheck(readFileSync(output))).exitCode).toBe(0);
    await expectStreams(output);
  });
});

/**
 * Streams whose dictionary holds no string: add_password writes their
 * dictionary's input bytes with only /Length changed (writer.ts,
 * Output.rawStream). /Length first, last, as a reference to another object,
 * or given twice (then the object is parsed instead), next to references
 * the output keeps and one it lacks; data read at once and as written.
 */
describe('streams without strings, their dictionary kept as it is', () => {
  const SIZES = [16, 5000];
  const LENGTH_OBJECT = 40;
  const kinds = ['Last', 'First', 'Indirect', 'Twice'] as const;
  const plain = kinds.flatMap((kind, k) => SIZES.map((size, s) => ({ num: 50 + k * 2 + s, kind, data: data(size, 100 + k * 2 + s) })));
  const doc = simpleDoc(['RAW STREAM DICTIONARIES'], { catalog: `/Extra [${plain.map((p) => `${p.num} 0 R`).join(' ')}]` });
  const bodyOf = (p: (typeof plain)[number]) => {
    const text = p.data.toString('latin1');
    if (p.kind === 'First') return `<< /Length ${p.data.length} /Page 3 0 R /Gone 999 0 R /Kind /First /Spelling 1.500000 >>\nstream\n${text}\nendstream`;
    if (p.kind === 'Indirect') return { dict: '/Kind /Indirect /Page 3 0 R /Spelling 1.500000', stream: p.data, length: `${LENGTH_OBJECT + p.num} 0 R` };
    if (p.kind === 'Twice') return { dict: `/Length ${p.data.length} /Kind /Twice /Page 3 0 R /Spelling 1.500000`, stream: p.data };
    return { dict: '/Page 3 0 R /Kind /Last /Spelling 1.500000', stream: p.data };
  };
  const input = buildPdf([
    {
      objects: [
        ...doc.objects,
        ...plain.map((p) => ({ num: p.num, body: bodyOf(p) })),
        ...plain.filter((p) => p.kind === 'Indirect').map((p) => ({ num: LENGTH_OBJECT + p.num, body: String(p.data.length) })),
      ],
    },
  ]).bytes;

  it.each(['AES-128', 'AES-256'])('%s: qpdf checks the output and decrypts every stream and its dictionary back', async (algorithm) => {
    const output = tempFile(new Uint8Array(0));
    await execa('node', [CLI, 'add-password', '--password', PASSWORD, '--encryption-algorithm', algorithm, tempFile(input), '-o', output, '--force']);
    const check = await qpdfCheck(readFileSync(output), PASSWORD);
    expect(check.exitCode, check.output).toBe(0);
    const numbers = await extraObjects(output, PASSWORD);
    expect(numbers).toHaveLength(plain.length);
    for (const [i, p] of plain.entries()) {
      const object = await qpdfObject(output, numbers[i], PASSWORD);
      expect(object.data.equals(p.data), `data of the ${p.kind} stream of ${p.data.length} bytes`).toBe(true);
      expect(object.dict).toContain(`/Kind /${p.kind}`);
      expect(object.dict).toMatch(/\/Page \d+ 0 R/);
    }
  });

  /**
   * remove_password of such streams, as qpdf encrypted them: the data is
   * decrypted and the dictionary's bytes are kept (the serializer would
   * write 1.5), /Length set to the plaintext's size (qpdf writes one /Length,
   * direct, in every dictionary).
   */
  it.each([
    ['AES-128', [], ['128', '--use-aes=y']],
    ['AES-256', [], ['256']],
    ['RC4 128-bit', ['--allow-weak-crypto'], ['128', '--use-aes=n']],
  ])('remove_password %s: every stream decrypted, its dictionary as qpdf wrote it', async (_name, qpdfGlobal, qpdfOptions) => {
    const output = await qpdfEncryptedThenRemoved(tempFile(input), PASSWORD, [...qpdfGlobal, '--compress-streams=n'], qpdfOptions, CLI);
    const check = await qpdfCheck(readFileSync(output));
    expect(check.exitCode, check.output).toBe(0);
    const numbers = await extraObjects(output);
    expect(numbers).toHaveLength(plain.length);
    const bytes = Buffer.from(readFileSync(output)).toString('latin1');
    for (const [i, p] of plain.entries()) {
      const object = await qpdfObject(output, numbers[i]);
      expect(object.data.equals(p.data), `data of the ${p.kind} stream of ${p.data.length} bytes`).toBe(true);
      expect(object.dict).toContain(`/Kind /${p.kind}`);
      const written = bytes.slice(bytes.indexOf(`\n${numbers[i]} 0 obj\n`), bytes.indexOf('stream', bytes.indexOf(`\n${numbers[i]} 0 obj\n`)));
      expect(written, `dictionary of the ${p.kind} stream`).toContain(`/Spelling 1.500000 /Length ${p.data.length} >>`);
    }
  });
});
