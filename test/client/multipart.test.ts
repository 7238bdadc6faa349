/** The multipart/mixed reader on bytes a server might send: binary parts, preambles, quoted boundaries, RFC 6266 names. */
import { describe, expect, it } from 'vitest';
import { boundaryOf, filenameOf, parseMultipart } from '../../src/client/multipart.js';
import { packageDocuments } from '../../src/core/packaging.js';

const bytes = (...parts: Array<string | number[]>) => new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'latin1')] : p)));

describe('multipart/mixed reader', () => {
  it('reads back what packaging.ts writes, binary-safe (CR, LF, dashes, NUL and 0xFF inside a part)', async () => {
    const tricky = bytes('%PDF\r\n--not-the-boundary\r\n', [0, 255, 13, 10, 45, 45], '\r\n--');
    const packaged = await packageDocuments(
      [
        { name: '00001.pdf', bytes: tricky },
        { name: '00002.pdf', bytes: new Uint8Array() },
      ],
      'multipart',
    );
    const parts = parseMultipart(packaged.body, boundaryOf(packaged.contentType)!);
    expect(parts.map((p) => filenameOf(p.headers['content-disposition']))).toEqual(['00001.pdf', '00002.pdf']);
    expect([...parts[0].body]).toEqual([...tricky]);
    expect(parts[1].body.byteLength).toBe(0);
  });

  it('skips a preamble and an epilogue, takes a quoted boundary and transport padding', () => {
    const body = bytes('preamble\r\n--b 1  \r\nContent-Type: application/pdf\r\n\r\nAB\r\n--b 1--\r\nepilogue');
    const boundary = boundaryOf('multipart/mixed; boundary="b 1"; charset=x')!;
    expect(boundary).toBe('b 1');
    expect(boundaryOf('multipart/mixed;boundary=plain')).toBe('plain');
    const parts = parseMultipart(body, boundary);
    expect(parts).toHaveLength(1);
    expect(Buffer.from(parts[0].body).toString()).toBe('AB');
    expect(parts[0].headers['content-type']).toBe('application/pdf');
  });

  it('refuses a body that ends before its closing boundary', () => {
    expect(() => parseMultipart(bytes('--b\r\n\r\nAB'), 'b')).toThrow(/closing boundary/);
  });

  it('reads filename*= (UTF-8) before filename=, and unquoted names', () => {
    expect(filenameOf(`attachment; filename="x.pdf"; filename*=UTF-8''%C3%A9t%C3%A9.pdf`)).toBe('été.pdf');
    expect(filenameOf('attachment; filename=plain.pdf')).toBe('plain.pdf');
    expect(filenameOf('attachment; filename="a \\"q\\".pdf"')).toBe('a "q".pdf');
    expect(filenameOf(undefined)).toBe(undefined);
  });
});
