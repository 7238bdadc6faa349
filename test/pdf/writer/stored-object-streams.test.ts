/**
 * Input object streams written as their input bytes (writer.ts,
 * writeWithObjectStreams with `storeObjectStreams`): which streams may go out
 * stored, and that a stored stream never keeps what the output drops. Judged
 * by qpdf (--check, --show-xref, --json with every stream's data) and
 * pdftotext.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AnyAction } from '../../../src/core/action.js';
import type { RawValues } from '../../../src/core/fields.js';
import { runAction } from '../../../src/core/run.js';
import { openDocument } from '../../../src/pdf/document.js';
import { objectTableOf } from '../../../src/pdf/reader/object-table.js';
import addPassword from '../../../src/actions/add_password/action.js';
import addTextWatermark from '../../../src/actions/add_text_watermark/action.js';
import removePages from '../../../src/actions/remove_pages/action.js';
import removePassword from '../../../src/actions/remove_password/action.js';
import rotatePages from '../../../src/actions/rotate_pages/action.js';
import { buildPdf, FONT, simpleDoc, type Body, type RawObject, type Section } from '../../helpers/raw-pdf.js';
import { pageTexts, qpdfCheck, tempFile } from '../../helpers/pdf-tools.js';

const TEXTS = ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'];

/**
 * Three pages (1 catalog, 2 page tree, 3 font, pages 4, 6, 8 with contents
 * 5, 7, 9), each page dictionary holding `SECRET PAGE n`. Object streams
 * 10 [1 2], 11 [3 4] (the font and page 1), 12 [6 8]; cross-reference
 * stream 13. The streams are not compressed, so that their data is plain.
 * Numbers 10-13 are the ones a writer would give its next new objects: a
 * stored stream keeps its own, and new ones must not take it.
 */
function input(font = FONT, later: Section[] = []): { bytes: Uint8Array; objects: RawObject[] } {
  const doc = simpleDoc(TEXTS, { page: (i) => `/PieceInfo << /Marker (SECRET PAGE ${i + 1}) >>` });
  const objects = doc.objects.map((o) => (o.num === 3 ? { num: 3, body: font } : o));
  const objectStreams = [
    { num: 10, members: [1, 2] },
    { num: 11, members: [3, 4] },
    { num: 12, members: [6, 8] },
  ];
  return { bytes: buildPdf([{ objects, xref: 'stream', objectStreams, xrefNum: 13, compress: false }, ...later]).bytes, objects };
}

async function run(action: AnyAction, bytes: Uint8Array, values: RawValues = {}): Promise<Uint8Array> {
  const result = await runAction(action, { file: bytes, ...values });
  if (result.output !== 'document') throw new Error('expected one document');
  return result.bytes;
}

/** `qpdf --show-xref`: object number -> the object stream it is listed in (type 2), or undefined. */
async function listedIn(bytes: Uint8Array, password?: string): Promise<Map<number, number | undefined>> {
  const { stdout } = await execa('qpdf', ['--show-xref', ...(password ? [`--password=${password}`] : []), tempFile(bytes)]);
  const rows = new Map<number, number | undefined>();
  for (const line of stdout.split('\n')) {
    const m = /^(\d+)\/\d+: (compressed; stream = (\d+)|uncompressed)/.exec(line);
    if (m) rows.set(Number(m[1]), m[3] === undefined ? undefined : Number(m[3]));
  }
  return rows;
}

/** Every stream object qpdf lists (object streams included), its data decoded, by object key. */
async function streamData(bytes: Uint8Array, password?: string): Promise<Map<string, string>> {
  const { stdout } = await execa(
    'qpdf',
    ['--json=2', ...(password ? [`--password=${password}`] : []), '--json-stream-data=inline', '--decode-level=generalized', tempFile(bytes)],
    { maxBuffer: 1 << 28 },
  );
  const objects = JSON.parse(stdout).qpdf[1] as Record<string, { stream?: { data?: string } }>;
  const data = new Map<string, string>();
  for (const [key, value] of Object.entries(objects))
    if (value.stream?.data !== undefined) data.set(key, Buffer.from(value.stream.data, 'base64').toString('latin1'));
  return data;
}

/** The page dictionaries as qpdf resolves them (the cross-reference's copy, not a stale one). */
async function pageDictionaries(bytes: Uint8Array, password?: string): Promise<Array<Record<string, unknown>>> {
  const { stdout } = await execa('qpdf', ['--json=2', ...(password ? [`--password=${password}`] : []), tempFile(bytes)], { maxBuffer: 1 << 28 });
  const json = JSON.parse(stdout) as { pages: Array<{ object: string }>; qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>] };
  return json.pages.map((page) => json.qpdf[1][`obj:${page.object}`].value ?? {});
}

async function expectClean(bytes: Uint8Array, texts: string[]): Promise<void> {
  const check = await qpdfCheck(bytes);
  expect(check.exitCode, check.output).toBe(0);
  expect((await pageTexts(bytes)).map((t) => t.trim())).toEqual(texts);
}

/** An object stream made by hand: `extra` goes into its dictionary. */
function objectStream(members: Array<[number, string]>, extra = ''): Body {
  let offset = 0;
  const pairs: string[] = [];
  for (const [num, body] of members) {
    pairs.push(`${num} ${offset}`);
    offset += body.length + 1;
  }
  const head = `${pairs.join(' ')}\n`;
  return { dict: `/Type /ObjStm /N ${members.length} /First ${head.length}${extra}`, stream: head + members.map(([, body]) => `${body} `).join('') };
}

describe('stored object streams', () => {
  it('rotate_pages: a stream with an untouched member goes out as its bytes, the changed page superseding its stale copy', async () => {
    const { bytes } = input();
    const output = await run(rotatePages, bytes, { angle: 90 });
    await expectClean(output, TEXTS);
    const rows = await listedIn(output);
    // 11 holds the font, untouched: listed where it was, the stream written as its input bytes.
    expect(rows.get(3)).toBe(11);
    const before = await streamData(bytes);
    const after = await streamData(output);
    expect(after.get('obj:11 0 R')).toBe(before.get('obj:11 0 R'));
    // Page 1 (rotated) is listed in a new stream, numbered past every stored one.
    expect(rows.get(4)).toBeGreaterThan(13);
    // 10 (the catalog and page tree, parsed when the document is opened) and 12 (pages only) have
    // nothing listed from them: they are not written.
    expect([rows.get(1), rows.get(2), rows.get(6)].every((stream) => stream !== undefined && stream > 13)).toBe(true);
    expect(after.has('obj:10 0 R') || after.has('obj:12 0 R')).toBe(false);
    // The cross-reference's copy of page 1 wins over the stale one in stream 11.
    expect((await pageDictionaries(output)).map((page) => page['/Rotate'])).toEqual([90, 90, 90]);
  });

  it('add_text_watermark: the same, the pages holding the watermark', async () => {
    const { bytes } = input();
    const output = await run(addTextWatermark, bytes, { line_1: 'CONFIDENTIAL' });
    const check = await qpdfCheck(output);
    expect(check.exitCode, check.output).toBe(0);
    expect((await pageTexts(output)).every((text, i) => text.includes(TEXTS[i]) && text.includes('CONFIDENTIAL'))).toBe(true);
    expect((await listedIn(output)).get(3)).toBe(11);
  });

  it('remove_pages: a stream holding the removed page is packed anew, so no copy of that page survives', async () => {
    const { bytes } = input();
    const output = await run(removePages, bytes, { pages: '1' });
    await expectClean(output, TEXTS.slice(1));
    const rows = await listedIn(output);
    // Stream 11 held the font (kept) and page 1 (removed): the font is packed anew.
    expect(rows.get(3)).not.toBe(11);
    expect(rows.has(4)).toBe(false);
    const data = [...(await streamData(output)).values()].join('\n');
    expect(data).not.toContain('SECRET PAGE 1');
    expect(data).toContain('SECRET PAGE 2');
  });

  it('a member whose reference the output lacks (written as null) makes its stream packed anew', async () => {
    // The font (untouched) refers to an object the input lacks.
    const { bytes } = input(FONT.replace('>>', '/Probe 99 0 R >>'));
    const output = await run(rotatePages, bytes, { angle: 90 });
    await expectClean(output, TEXTS);
    expect((await listedIn(output)).get(3)).not.toBe(11);
    expect([...(await streamData(output)).values()].join('\n')).not.toContain('99 0 R');
  });

  it('a stream whose member a later revision replaced is packed anew: the old version does not come back', async () => {
    const later: Section = { objects: [{ num: 3, body: FONT.replace('>>', '/Note (NEW FONT) >>') }], xref: 'stream', xrefNum: 14 };
    const { bytes } = input(FONT.replace('>>', '/Note (OLD FONT) >>'), [later]);
    // Page 1 (object 4, beside the font in stream 11) is not turned: it stays untouched.
    const output = await run(rotatePages, bytes, { angle: 90, pages: '2' });
    await expectClean(output, TEXTS);
    expect((await listedIn(output)).get(3)).not.toBe(11);
    const data = [...(await streamData(output)).values()].join('\n');
    expect(data).not.toContain('OLD FONT');
    expect(data).toContain('NEW FONT');
  });

  it('a stream that /Extends another is packed anew', async () => {
    const { objects } = input();
    const body = (num: number) => objects.find((o) => o.num === num)!.body as string;
    const top = objects.filter((o) => ![1, 2, 3, 4, 6, 8].includes(o.num));
    const streams: RawObject[] = [
      {
        num: 10,
        body: objectStream([
          [1, body(1)],
          [2, body(2)],
        ]),
      },
      {
        num: 11,
        body: objectStream(
          [
            [3, body(3)],
            [4, body(4)],
          ],
          ' /Extends 12 0 R',
        ),
      },
      {
        num: 12,
        body: objectStream([
          [6, body(6)],
          [8, body(8)],
        ]),
      },
    ];
    const xrefRows: Record<number, [number, number, number]> = { 1: [2, 10, 0], 2: [2, 10, 1], 3: [2, 11, 0], 4: [2, 11, 1], 6: [2, 12, 0], 8: [2, 12, 1] };
    const bytes = buildPdf([{ objects: [...top, ...streams], xref: 'stream', xrefNum: 13, compress: false, xrefRows }]).bytes;
    await expectClean(bytes, TEXTS);
    const output = await run(rotatePages, bytes, { angle: 90 });
    await expectClean(output, TEXTS);
    expect((await listedIn(output)).get(3)).not.toBe(11);
  });

  for (const algorithm of ['AES-128', 'AES-256']) {
    it(`add_password ${algorithm}: input streams go out stored, each encrypted whole; every other object top-level`, async () => {
      const { bytes } = input();
      const output = await run(addPassword, bytes, { password: 'pass', encryption_algorithm: algorithm });
      const check = await qpdfCheck(output, 'pass');
      expect(check.exitCode, check.output).toBe(0);
      expect((await pageTexts(output, 'pass')).map((t) => t.trim())).toEqual(TEXTS);
      // The input's streams are not compressed: their strings would show if a stream went out in the clear.
      expect(Buffer.from(output).includes('SECRET PAGE')).toBe(false);
      const rows = await listedIn(output, 'pass');
      // 11 (the font and page 1) and 12 (pages 2 and 3), untouched, are stored: their members stay listed in them.
      expect([3, 4, 6, 8].map((num) => rows.get(num))).toEqual([11, 11, 12, 12]);
      // Nothing is packed anew: the catalog and page tree (parsed when the document is opened; stream 10 lists
      // nothing any more) and the encryption dictionary are top-level objects, as in the classic layout.
      const { stdout } = await execa('qpdf', ['--show-object=trailer', '--password=pass', tempFile(output)]);
      const encryptNum = Number(/\/Encrypt (\d+) 0 R/.exec(stdout)![1]);
      for (const num of [1, 2, encryptNum]) expect(rows.has(num) && rows.get(num) === undefined, `object ${num}`).toBe(true);
      expect(rows.has(10)).toBe(false);
      expect([...rows.values()].filter((stream) => stream !== undefined)).toEqual([11, 11, 12, 12]);
      // Decrypted, stream 11 is the input's stream: encrypted whole, its members' strings not encrypted on their own.
      const before = await streamData(bytes);
      const after = await streamData(output, 'pass');
      expect([after.get('obj:11 0 R'), after.get('obj:12 0 R')]).toEqual([before.get('obj:11 0 R'), before.get('obj:12 0 R')]);
      expect((await pageDictionaries(output, 'pass')).map((page) => (page['/PieceInfo'] as Record<string, string>)['/Marker'])).toEqual([
        'u:SECRET PAGE 1',
        'u:SECRET PAGE 2',
        'u:SECRET PAGE 3',
      ]);
    });
  }

  it('a decrypted input: its object streams are ciphertext, never offered to be stored', async () => {
    const { bytes } = input();
    const encrypted = tempFile(new Uint8Array());
    await execa('qpdf', ['--encrypt', 'pw', 'pw', '256', '--', tempFile(bytes), encrypted]);
    const ciphertext = readFileSync(encrypted);
    const plain = await openDocument(bytes);
    expect(objectTableOf(plain.context)!.objectStreamOf(1)?.ref.objectNumber).toBe(10);
    // qpdf renumbers: any member of an object stream of the encrypted file.
    const member = [...(await listedIn(ciphertext, 'pw'))].find(([, stream]) => stream !== undefined)![0];
    const decrypted = await openDocument(ciphertext, { password: 'pw', allowEncrypted: true });
    expect(objectTableOf(decrypted.context)!.objectStreamOf(member)).toBeUndefined();
    // remove_password does not store streams at all (a stale copy could keep what it changed); its output reads.
    await expectClean(await run(removePassword, ciphertext, { password: 'pw' }), TEXTS);
  });
});
