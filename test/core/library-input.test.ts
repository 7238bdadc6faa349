/**
 * What a JavaScript caller of the library passes where the types want
 * something else: the refusal says what was passed and what to pass instead,
 * and doing what it says works (the output judged by qpdf and pdfinfo).
 */
import { describe, expect, it } from 'vitest';
import { findAction, mergeDocuments, rotatePages, runAction, splitByPageCount, validateInput, ValidationError } from '../../src/index.js';
import { fixture, pageMarkers, pdfinfo, qpdfCheck } from '../helpers/pdf-tools.js';

/** The refusal `run` throws, or a failure when it does not throw. */
async function refusal(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a refusal');
}

describe('the library refuses arguments of the wrong shape in words that say what to pass', () => {
  it('the bytes in place of the object of fields: one TypeError naming the fields, not one "unknown field" per byte', async () => {
    const bytes = new Uint8Array(fixture('pages-3.pdf'));
    for (const [argument, got] of [
      [bytes, 'a Uint8Array'],
      ['in.pdf', 'a string'],
      [undefined, 'undefined'],
      [null, 'null'],
      [[bytes], 'an array'],
    ] as const) {
      const err = await refusal(() => rotatePages(argument as never));
      expect(err).toBeInstanceOf(TypeError);
      expect((err as Error).message).toBe(`rotatePages takes one object of fields, { file, angle, pages }; got ${got}`);
    }
  });

  it('a file as an ArrayBuffer: a ValidationError on file that says how to pass it, and passing it so works', async () => {
    const bytes = fixture('pages-3.pdf');
    const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const err = await refusal(() => rotatePages({ file: arrayBuffer as never, angle: 90 }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors).toEqual({
      file: ["must be the file's bytes, a Uint8Array (a Buffer is one); got an ArrayBuffer: pass new Uint8Array(arrayBuffer)"],
    });
    const rotated = await rotatePages({ file: new Uint8Array(arrayBuffer), angle: 90 });
    expect((await qpdfCheck(rotated)).exitCode).toBe(0);
    expect((await pdfinfo(rotated)).pages.map((page) => page.rotation)).toEqual([90, 90, 90]);
  });

  it('a path, a Blob among merged files: each named as what it is', async () => {
    const path = await refusal(() => rotatePages({ file: 'in.pdf' as never, angle: 90 }));
    expect((path as ValidationError).errors.file).toEqual([
      "must be the file's bytes, a Uint8Array (a Buffer is one); got a string (a path or text is not read as a file): pass the file's bytes",
    ]);
    const blob = await refusal(() => mergeDocuments({ file: [fixture('pages-3.pdf'), new Blob([fixture('pages-1.pdf')]) as never] }));
    expect((blob as ValidationError).errors.file).toEqual([
      "must be the file's bytes, a Uint8Array (a Buffer is one); got a Blob: pass new Uint8Array(await blob.arrayBuffer())",
    ]);
  });

  it("ignores options it does not document: the command line's keepPart made a split's parts unreadable", async () => {
    const parts = await splitByPageCount({ file: fixture('pages-10.pdf'), page_count: 4 }, { keepPart: () => 1 } as never);
    expect(parts.map((part) => part.name)).toEqual(['00001.pdf', '00002.pdf', '00003.pdf']);
    const markers: number[][] = [];
    for (const part of parts) {
      expect((await qpdfCheck(part.bytes)).exitCode).toBe(0);
      markers.push(await pageMarkers(part.bytes));
    }
    expect(markers).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
      [9, 10],
    ]);
  });

  it('runAction and validateInput, the generic forms: a name for the action or bytes for the fields is one TypeError', async () => {
    const bytes = new Uint8Array(fixture('pages-3.pdf'));
    const rotate = findAction('rotate')!;
    const byName = await refusal(async () => runAction('rotate_pages' as never, { file: bytes, angle: 90 }));
    expect(byName).toBeInstanceOf(TypeError);
    expect((byName as Error).message).toBe('runAction takes an action first, from actions or findAction(name); got a string: pass findAction("rotate_pages")');
    const byBytes = await refusal(async () => runAction(rotate, bytes as never));
    expect(byBytes).toBeInstanceOf(TypeError);
    expect((byBytes as Error).message).toBe('runAction(rotate_pages, fields) takes one object of fields, { file, angle, pages }; got a Uint8Array');
    expect(() => validateInput(undefined as never, { file: bytes })).toThrow(
      new TypeError('validateInput takes an action first, from actions or findAction(name); got undefined'),
    );
    expect(() => validateInput(rotate, null as never)).toThrow(
      new TypeError('validateInput(rotate_pages, fields) takes one object of fields, { file, angle, pages }; got null'),
    );
    // Doing what the messages say works.
    expect(validateInput(rotate, { file: bytes, angle: '90' })).toMatchObject({ angle: 90 });
    const result = await runAction(findAction('rotate_pages')!, { file: bytes, angle: 90 });
    if (result.output !== 'document') throw new Error('rotate_pages makes one document');
    expect((await qpdfCheck(result.bytes)).exitCode).toBe(0);
    expect((await pdfinfo(result.bytes)).pages.map((page) => page.rotation)).toEqual([90, 90, 90]);
  });
});
