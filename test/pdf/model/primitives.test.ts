/**
 * pdfsvc's objects write what pdf-lib's wrote (outputs stayed byte for byte
 * the same when pdfsvc moved off pdf-lib's objects), and read strings and
 * names the way the PDF specification says: checked here against pdf-lib's
 * own classes, an implementation written independently of ours.
 */
import * as lib from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import {
  KIND_ARRAY,
  KIND_DICT,
  KIND_NAME,
  KIND_NUMBER,
  KIND_REF,
  KIND_STREAM,
  kindOf,
  PDFArray,
  PDFBool,
  PDFContext,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNull,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  PDFString,
  UnexpectedObjectTypeError,
} from '../../../src/pdf/model/primitives.js';
import { PiecewiseStream } from '../../../src/pdf/security/file-crypto.js';
import { parseValue } from '../../../src/pdf/reader/parser.js';
import { memoryContext } from '../../helpers/memory-context.js';

/**
 * Numbers pdf-lib writes as we do; see below for those it does not: it writes
 * 1e-7 as 0.00000009999999999999999, 0.1 + 0.2 with its noise, and 1e21 as
 * an integer qpdf cannot read.
 */
const NUMBERS = [0, -0, 1, -1, 0.5, -0.25, 612, 792.0001, -1.5e-9, 123456789.123, Number.MAX_SAFE_INTEGER];
const NAMES = ['Type', 'A B', 'Name#With#Hashes', 'Paren(s)', 'Slash/Name', '\u00e9t\u00e9', 'Percent%', 'Tab\tand\nnewline', '#41'];
const STRINGS = ['plain', 'esc\\(aped\\)', 'back\\\\slash', 'line\\nfeed\\r\\t\\b\\f', 'octal \\101\\0102\\7', 'cont\\\ninued', '\\q unknown', 'trailing\\'];
const HEX = ['48656C6C6F', '48 65 6c 6C 6', 'FEFF00480069', 'FFFE4800', ''];
const TEXTS = ['Hello', 'Ελληνικά', 'emoji 😀', ''];

describe('written forms are those pdf-lib writes', () => {
  it('numbers, including those JavaScript would write with an exponent', () => {
    for (const n of NUMBERS) {
      expect(PDFNumber.of(n).toString(), String(n)).toBe(lib.PDFNumber.of(n).toString());
      expect(PDFNumber.of(n).sizeInBytes()).toBe(lib.PDFNumber.of(n).sizeInBytes());
    }
  });

  it('numbers: the shortest decimal that reads back as the number, to 15 significant digits, never an exponent', () => {
    const written: Array<[number, string]> = [
      [0, '0'],
      [-0, '0'],
      [1e-7, '0.0000001'],
      [-1e-7, '-0.0000001'],
      [0.1 + 0.2, '0.3'],
      [1 / 3, '0.333333333333333'],
      [-2 / 3, '-0.666666666666667'],
      [123456789.5, '123456789.5'],
      [-2.5e-5, '-0.000025'],
      [1e20, '100000000000000000000.0'],
      [-3e22, '-30000000000000000000000.0'],
      [1234567890123456 * 1e6, '1234567890123460000000.0'],
      [2.0000000000000004, '2'],
      [Number.NaN, '0'],
      [Number.POSITIVE_INFINITY, '0'],
      [5e-324, `0.${'0'.repeat(323)}5`],
      [Math.SQRT1_2, '0.707106781186548'],
      [12345.678901234, '12345.678901234'],
      [Number.MAX_SAFE_INTEGER, '9007199254740991'],
    ];
    for (const [n, text] of written) {
      expect(PDFNumber.of(n).toString(), String(n)).toBe(text);
      expect(PDFNumber.of(n).sizeInBytes()).toBe(text.length);
      // It reads back as the number, up to the 15 digits kept.
      if (Number.isFinite(n)) expect(Math.abs(Number(text) - n), text).toBeLessThanOrEqual(Math.abs(n) * 5e-15);
    }
  });

  it('numbers read back as given: asNumber hands whole numbers of 32 bits back as small integers, and nothing else changes', () => {
    const values = [
      0,
      -0,
      1,
      -1,
      0.5,
      -2.5,
      2 ** 31 - 1,
      -(2 ** 31),
      2 ** 31,
      -(2 ** 31) - 1,
      2 ** 40,
      Number.MAX_SAFE_INTEGER,
      1e21,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ];
    for (const n of values) expect(Object.is(PDFNumber.of(n).asNumber(), n), String(n)).toBe(true);
    // After reals: V8 then holds the field as a double for every PDFNumber, which is what asNumber turns back.
    for (const n of values) expect(Object.is(PDFNumber.of(n).asNumber(), n), String(n)).toBe(true);
  });

  it('names: delimiters, white space, # and non-ASCII written as #xx; one instance per name', () => {
    for (const name of NAMES) {
      expect(PDFName.of(name).toString(), name).toBe(lib.PDFName.of(name).toString());
      expect(PDFName.of(name).decodeText(), name).toBe(lib.PDFName.of(name).decodeText());
    }
    expect(PDFName.of('A B').toString()).toBe('/A#20B');
    expect(PDFName.of('A#20B')).toBe(PDFName.of('A B'));
  });

  it('strings decode their escapes to the bytes pdf-lib finds', () => {
    for (const text of STRINGS) {
      expect(PDFString.of(text).toString()).toBe(lib.PDFString.of(text).toString());
      expect([...PDFString.of(text).asBytes()], text).toEqual([...lib.PDFString.of(text).asBytes()]);
    }
    // At most three octal digits: \0102 is \010 (a backspace), then 2.
    expect(new TextDecoder().decode(PDFString.of('octal \\101\\0102').asBytes())).toBe('octal A\b2');
  });

  it('hex strings: white space ignored, an odd digit padded; text as UTF-16 with a byte-order mark', () => {
    for (const hex of HEX) {
      expect([...PDFHexString.of(hex).asBytes()], hex).toEqual([...lib.PDFHexString.of(hex).asBytes()]);
      expect(PDFHexString.of(hex).decodeText(), hex).toBe(lib.PDFHexString.of(hex).decodeText());
    }
    for (const text of TEXTS) {
      expect(PDFHexString.fromText(text).toString(), text).toBe(lib.PDFHexString.fromText(text).toString());
      expect(PDFHexString.fromText(text).decodeText()).toBe(text);
    }
  });

  it('text strings in PDFDocEncoding decode as pdf-lib decodes them', () => {
    const bytes = Array.from({ length: 256 }, (_, i) => i).filter((b) => b !== 0x28 && b !== 0x29 && b !== 0x5c && b !== 0x0d);
    const written = String.fromCharCode(...bytes);
    expect(PDFString.of(written).decodeText()).toBe(lib.PDFString.of(written).decodeText());
    // Strings that are their own text and strings that are not: escapes, a byte-order mark, bytes read otherwise than Latin-1.
    const more = [
      'section.1',
      'Caf\u00e9 au lait',
      '',
      'a\\(b\\)',
      'esc\\101',
      '\u00fe\u00ffx',
      '\u00fe\u00ff\u0000A',
      '\u00ff\u00feA\u0000',
      'bullet \u0080',
      'dash \u0084 end',
      '\u00fe',
      'x\u009f',
    ];
    for (const text of more) expect(PDFString.of(text).decodeText(), text).toBe(lib.PDFString.of(text).decodeText());
  });

  it('dictionaries, arrays, references, booleans and null', () => {
    const ours = new PDFContext();
    const theirs = lib.PDFContext.create();
    const literal = { Type: 'Page', MediaBox: [0, 0, 612.5, 792], Rotate: -90, Open: true, Gone: null, Nested: { Deep: [[1], []] } };
    expect(ours.obj(literal).toString()).toBe(theirs.obj(literal).toString());
    expect(ours.obj(literal).sizeInBytes()).toBe(theirs.obj(literal).sizeInBytes());
    expect(PDFRef.of(12).toString()).toBe(lib.PDFRef.of(12).toString());
    expect(PDFRef.of(12, 3).toString()).toBe('12 3 R');
    expect(PDFRef.of(12)).toBe(PDFRef.of(12, 0));
    expect(PDFRef.of(12, 3)).toBe(PDFRef.of(12, 3));
    // Numbers far past the others, and odd ones a damaged file may hold, still make one reference each.
    for (const n of [10 ** 12, 2 ** 31, -1, 1.5]) expect(PDFRef.of(n)).toBe(PDFRef.of(n, 0));
    const far = PDFRef.of(3_000_000);
    for (let n = 0; n <= 3_000_000; n += 1000) PDFRef.of(n);
    expect(PDFRef.of(3_000_000)).toBe(far);
    expect(PDFBool.False.toString()).toBe('false');
    expect(PDFNull.toString()).toBe('null');
  });

  it('a stream sets its /Length from its data', () => {
    const context = new PDFContext();
    const stream = context.stream('BT ET', { Filter: 'FlateDecode', Length: 99 });
    expect(stream.toString()).toBe('<<\n/Filter /FlateDecode\n/Length 5\n>>\nstream\nBT ET\nendstream');
    expect(stream.sizeInBytes()).toBe(lib.PDFContext.create().stream('BT ET', { Filter: 'FlateDecode', Length: 99 }).sizeInBytes());
    expect(stream).toBeInstanceOf(PDFRawStream);
  });
});

describe('look-ups', () => {
  it('follow references through the store, check the type asked for, and treat null as absent unless asked', () => {
    const context = memoryContext();
    const kids = context.obj([1, 2]);
    const ref = context.register(kids);
    const page = context.obj({ Kids: ref, Nothing: null });
    expect(page.lookup(PDFName.of('Kids'), PDFArray)).toBe(kids);
    expect(page.lookup(PDFName.of('Nothing'))).toBeUndefined();
    expect(page.lookup(PDFName.of('Nothing'), PDFNull)).toBe(PDFNull);
    expect(page.lookupMaybe(PDFName.of('Missing'), PDFDict)).toBeUndefined();
    expect(() => page.lookup(PDFName.of('Kids'), PDFDict)).toThrow(UnexpectedObjectTypeError);
    expect(() => page.lookup(PDFName.of('Kids'), PDFDict)).toThrow('Expected instance of PDFDict, but got instance of PDFArray');
    expect(context.enumerateIndirectObjects()).toEqual([[ref, kids]]);
    expect(ref.objectNumber).toBe(context.largestObjectNumber);
  });
});

describe('kindOf', () => {
  it('says what instanceof says, for every class and the streams the reader and the encryption make', () => {
    const context = memoryContext();
    const dict = context.obj({});
    const objects = [
      PDFName.of('A'),
      PDFNumber.of(1.5),
      PDFRef.of(7, 0),
      dict,
      context.obj([1]),
      PDFRawStream.of(context.obj({}), new Uint8Array(1)),
      new PiecewiseStream(context.obj({}), [new Uint8Array(2)]),
      PDFString.of('a'),
      PDFHexString.of('41'),
      PDFBool.True,
      PDFNull,
    ];
    const expectedKind = (object: object) =>
      [
        [PDFName, KIND_NAME],
        [PDFNumber, KIND_NUMBER],
        [PDFRef, KIND_REF],
        [PDFDict, KIND_DICT],
        [PDFArray, KIND_ARRAY],
        [PDFRawStream, KIND_STREAM],
      ].find(([type]) => object instanceof (type as abstract new (...args: never[]) => object))?.[1] ?? 0;
    expect(objects.map(kindOf)).toEqual(objects.map(expectedKind));
    expect(new Set(objects.map(kindOf)).size).toBe(7);
  });
});

describe('dictionaries, small (pairs) and large (a Map)', () => {
  const ctx = { context: new PDFContext(), exists: () => true, lengthOf: () => undefined };
  const entriesOf = (dict: PDFDict) => dict.entries().map(([key, value]) => [key.asString(), value.toString()]);
  const mapEntries = (map: Map<string, string>) => [...map.entries()].map(([key, value]) => [`/${key}`, value]);

  it('keep the order and values a Map keeps through sets and deletes, across the size where they change form', () => {
    const dict = PDFDict.withContext(new PDFContext());
    const oracle = new Map<string, string>();
    // A fixed pseudo-random walk: sets of new and present keys, deletes, up to 30 keys and down again.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 2000; step++) {
      const key = `K${next(step < 1000 ? 30 : 14)}`;
      if (next(4) === 0) expect(dict.delete(PDFName.of(key))).toBe(oracle.delete(key));
      else {
        dict.set(PDFName.of(key), PDFNumber.of(step));
        oracle.set(key, String(step));
      }
      expect(entriesOf(dict)).toEqual(mapEntries(oracle));
      expect(dict.size).toBe(oracle.size);
      expect(dict.get(PDFName.of(key))?.toString()).toBe(oracle.get(key));
    }
  });

  it('parsed: a key written twice keeps its first place and takes its last value, in small and large dictionaries', () => {
    const parse = (text: string) => parseValue(Buffer.from(text, 'latin1'), 0, text.length, ctx) as PDFDict;
    expect(entriesOf(parse('<< /A 1 /B 2 /A 3 /C >>'))).toEqual([
      ['/A', '3'],
      ['/B', '2'],
      ['/C', 'null'],
    ]);
    const keys = Array.from({ length: 20 }, (_, i) => `/K${i % 15}`);
    const oracle = new Map<string, string>();
    keys.forEach((key, i) => oracle.set(key.slice(1), String(i)));
    const large = parse(`<< ${keys.map((key, i) => `${key} ${i}`).join(' ')} >>`);
    expect(entriesOf(large)).toEqual(mapEntries(oracle));
    expect(large.get(PDFName.of('K3'))?.toString()).toBe('18');
  });

  it('parsed: a name whose escapes spell # and hex digits keeps them as text, not decoded a second time', () => {
    // /#2388 is the three characters #88 (a CJK form's radio value, escaped byte by byte, had them); decoded twice it became byte 0x88.
    const text = '[/#2388 /A#23E9#2341 /#23e9#2388#23b6]';
    const names = (parseValue(Buffer.from(text, 'latin1'), 0, text.length, ctx) as PDFArray).asArray() as PDFName[];
    expect(names.map((name) => name.decodeText())).toEqual(['#88', 'A#E9#41', '#e9#88#b6']);
    expect(names.map(String)).toEqual(['/#2388', '/A#23E9#2341', '/#23e9#2388#23b6']);
  });

  it('a copy has the same entries and changes apart from the original', () => {
    for (const size of [0, 3, 20]) {
      const original = PDFDict.withContext(new PDFContext());
      for (let i = 0; i < size; i++) original.set(PDFName.of(`K${i}`), PDFNumber.of(i));
      const copy = original.copyIn(original.context);
      copy.set(PDFName.of('Added'), PDFNull);
      copy.delete(PDFName.of('K0'));
      expect(original.size).toBe(size);
      expect(entriesOf(original)).toEqual(Array.from({ length: size }, (_, i) => [`/K${i}`, String(i)]));
    }
  });
});
