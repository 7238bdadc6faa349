/**
 * add_password writes an object that is not a stream from its input bytes
 * with each string replaced by its encryption (writer.ts
 * Output.rawWithStrings, encrypt.ts encryptRawStrings): strings in
 * dictionaries and arrays at any depth, hex strings (odd digits, white space
 * inside), escapes, parentheses that balance, `%` and `<>` inside strings, a
 * comment outside them, strings of kilobytes, next to references the output
 * keeps and one it lacks, top-level and in an object stream. qpdf decrypts
 * each object to what it reads from the input; the bytes show that nothing
 * else was rewritten, and a signature dictionary's /Contents stays plain
 * (ISO 32000-2, 7.6.2). A name written with a `#` escape sends its object the
 * parsed way (it could spell /ByteRange): decrypted the same.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { qpdfCheck, tempFile } from '../../helpers/pdf-tools.js';
import { extraObjects, qpdfEncryptedThenRemoved } from '../../helpers/security.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';
import { CLI } from '../../server/spawn.js';

const PASSWORD = 'string-secret';
const SIGNATURE = '3082DEADBEEF0102030405060708090A';

const STRINGS = [
  '<< /Spelling 1.500000 /A (plain words) /B <48656C6C6F> /Odd <ABC> /Spaced <48 65\n6C 6C 6F>',
  '/C [(in an array) <00FF10> [(nested (balanced) parens) (escapes \\( \\) \\\\ \\n \\101 \\r\\\nend) (a % not a comment)]] % a comment (with a parenthesis',
  '/D << /E (deep) /F [<> ()] >> /Page 3 0 R /Gone 999 0 R /Angles (a <b> c)>>',
].join('\n');

/** Objects with strings and no stream: a probe first (the check keeps the first such object parsed), then the cases. */
const CASES = [
  { num: 60, body: '(the first string, the output check keeps it)', note: 'a top-level string, first' },
  { num: 61, body: STRINGS, note: 'strings at every depth' },
  { num: 62, body: '[(one) <74776F> 3 0 R 1.250]', note: 'an array' },
  { num: 63, body: '(a lone string)', note: 'a top-level string' },
  { num: 64, body: `<< /Type /Sig /Filter /Adobe.PPKLite /ByteRange [0 10 20 30] /Contents <${SIGNATURE}> /Name (Signer Name) >>`, note: 'a signature' },
  { num: 65, body: '<< /Na#6De (behind an escaped name) >>', note: 'a name with an escape' },
  {
    num: 66,
    body: `<< /Long (${'long text \\( '.repeat(300)}) /LongHex <${'0123456789abcdef'.repeat(200)}> /LongSpaced <${'4142 '.repeat(300)}A> >>`,
    note: 'long strings',
  },
  { num: 70, body: STRINGS.replace('/Spelling', '/Member true /Spelling'), note: 'strings in an object stream member' },
  { num: 71, body: '[(member array) <6D656D626572>]', note: 'an array in an object stream' },
];

const doc = simpleDoc(['STRINGS IN THEIR BYTES'], { catalog: `/Extra [${CASES.map((c) => `${c.num} 0 R`).join(' ')}]` });
const INPUT = buildPdf([
  {
    objects: [...doc.objects, ...CASES],
    objectStreams: [{ num: 80, members: [70, 71] }],
    xref: 'stream',
  },
]).bytes;

/** qpdf's view of object `num` (strings decrypted with `password`), white space normalised. */
async function show(path: string, num: number, password?: string): Promise<string> {
  const pw = password ? [`--password=${password}`] : [];
  const { stdout } = await execa('qpdf', [...pw, `--show-object=${num}`, path]);
  return stdout.replace(/\s+/g, ' ').trim();
}

describe.each(['AES-128', 'AES-256'])('objects without a stream, their strings replaced in their bytes, %s', (algorithm) => {
  it('qpdf decrypts every object to what it reads from the input; only strings changed', async () => {
    const input = tempFile(INPUT);
    const output = tempFile(new Uint8Array(0));
    await execa('node', [CLI, 'add-password', '--password', PASSWORD, '--encryption-algorithm', algorithm, input, '-o', output, '--force']);
    const check = await qpdfCheck(readFileSync(output), PASSWORD);
    expect(check.exitCode, check.output).toBe(0);
    // The writer keeps object numbers: each case is compared with itself in the input.
    for (const c of CASES) {
      const expected = (await show(input, c.num)).replace('999 0 R', 'null');
      expect(await show(output, c.num, PASSWORD), c.note).toBe(expected);
    }
    const bytes = Buffer.from(readFileSync(output)).toString('latin1');
    // No string in clear text but the signature's /Contents, which a reader takes as it is written.
    for (const plain of [
      'plain words',
      'nested',
      'escapes',
      'not a comment',
      'deep',
      'lone string',
      'Signer Name',
      'escaped name',
      'member array',
      'long text',
    ]) {
      expect(bytes, plain).not.toContain(plain);
    }
    expect(bytes).toContain(`/Contents <${SIGNATURE}>`);
    // Written from their bytes (the serializer would write 1.5 and drop the comment), references the output lacks as null.
    const object = (num: number) => bytes.slice(bytes.indexOf(`\n${num} 0 obj\n`), bytes.indexOf('endobj', bytes.indexOf(`\n${num} 0 obj\n`)));
    expect(object(61)).toContain('/Spelling 1.500000 /A (');
    expect(object(61)).toContain('% a comment (with a parenthesis\n/D << /E (');
    expect(object(61)).toContain('/Page 3 0 R /Gone null /Angles (');
    expect(object(70)).toContain('/Member true /Spelling 1.500000 /A (');
    expect(object(62)).toMatch(/^\n62 0 obj\n\s*\[\(.*\) \(.*\) 3 0 R 1\.250\]/s);
  });
});

/**
 * remove_password the other way: the same objects encrypted by qpdf (which
 * writes every string in hex and keeps a signature's /Contents plain), each
 * string decrypted in the object's bytes.
 */
describe.each([
  ['AES-128', [], ['128', '--use-aes=y']],
  ['AES-256', [], ['256']],
  ['RC4 128-bit', ['--allow-weak-crypto'], ['128', '--use-aes=n']],
])('remove_password, strings decrypted in their bytes, %s', (_name, qpdfGlobal, qpdfOptions) => {
  it('every object reads as in the input; only strings changed', async () => {
    const input = tempFile(INPUT);
    // Without object streams: remove_password then writes the classic layout, each object on its own.
    const output = await qpdfEncryptedThenRemoved(input, PASSWORD, [...qpdfGlobal, '--object-streams=disable'], qpdfOptions, CLI);
    const check = await qpdfCheck(readFileSync(output));
    expect(check.exitCode, check.output).toBe(0);
    // qpdf numbers the objects anew: each case is found by its place in the catalog's /Extra.
    const numbers = await extraObjects(output);
    expect(numbers).toHaveLength(CASES.length);
    for (const [i, c] of CASES.entries()) {
      // qpdf drops the reference to what the input lacks, writes reals without trailing zeros, numbers objects anew.
      const normal = (text: string) => text.replace(/\d+ 0 R/g, 'N 0 R').replace(/(\d\.\d*?)0+(?=[\s\]>])/g, '$1');
      const expected = normal((await show(input, c.num)).replace(' /Gone 999 0 R', ''));
      const got = normal((await show(output, numbers[i])).replace(' /Gone null', ''));
      expect(got, c.note).toBe(expected);
    }
    const bytes = Buffer.from(readFileSync(output)).toString('latin1');
    expect(bytes).toContain('(plain words)');
    // qpdf writes hex in lower case.
    expect(bytes.toLowerCase()).toContain(`/contents <${SIGNATURE.toLowerCase()}>`);
  });
});
