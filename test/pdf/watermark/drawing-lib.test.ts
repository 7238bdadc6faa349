/**
 * pdf-lib is reached through one adapter, src/pdf/watermark/drawing-lib.ts
 * (its font and JPEG embedders, loaded only by the watermarks). Outside it no
 * file of src/ imports pdf-lib; no file of src/pdf casts `as unknown as` (the
 * way code reaches an object's private members), the adapter included, which
 * may only type pdf-lib's module files as the index's classes; no file
 * of src/ assigns to a prototype, and none of src/pdf patches an instance or a
 * class (defines or assigns properties onto an object, replaces a static).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const ADAPTER = 'src/pdf/watermark/drawing-lib.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    // An action's tests live in its folder; like those under test/, they may read outputs with pdf-lib.
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

/** Comments left out, so that a comment may talk about what the code must not do. */
function code(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

const IMPORTS_PDF_LIB = /(?:from\s+|import\s*\(\s*)['"][^'"]*@cantoo\/pdf-lib[^'"]*['"]/g;
const CAST = /\bas unknown as\b/g;
const TYPING = /\bas unknown as typeof PdfLib\.\w+;/g;
// An assignment to or through a prototype (anywhere in src/); under src/pdf also a property defined or
// assigned onto an object, or a replaced static of a PDF class.
const PROTOTYPE = /\.prototype\b[^;\n]*[^=!<>]=[^=>]/g;
const PATCH = /\.prototype\b[^;\n]*[^=!<>]=[^=>]|Object\.defineProperty\(|Object\.assign\(|\bPDF[A-Z]\w*\.\w+\s*=[^=>]/g;

function violations(file: string): string[] {
  const text = code(file);
  const found: string[] = [];
  if (file !== ADAPTER && count(text, IMPORTS_PDF_LIB) > 0) found.push(`${file}: imports pdf-lib`);
  // The adapter gives pdf-lib's module files the index's types (`as unknown as typeof PdfLib.X`): no member is reached.
  const casts = count(text, CAST) - (file === ADAPTER ? count(text, TYPING) : 0);
  if (file.startsWith('src/pdf/') && casts > 0) found.push(`${file}: casts as unknown as`);
  if (count(text, file.startsWith('src/pdf/') ? PATCH : PROTOTYPE) > 0) found.push(`${file}: patches an object or a class`);
  return found;
}

describe('pdf-lib behind one adapter', () => {
  const files = sourceFiles(join(ROOT, 'src'));

  it('no file outside the adapter imports pdf-lib, and no file casts into an object or patches one', () => {
    expect(files).toContain(ADAPTER);
    expect(files.flatMap(violations)).toEqual([]);
  });

  it('the adapter is imported by the watermarks alone', () => {
    const importers = files.filter((file) => /from '\.\/drawing-lib\.js'|watermark\/drawing-lib\.js'/.test(code(file)));
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((file) => !file.startsWith('src/pdf/watermark/'))).toEqual([]);
  });

  it('sees a violation when there is one', () => {
    expect(count("import { PDFDict } from '@cantoo/pdf-lib';", IMPORTS_PDF_LIB)).toBe(1);
    expect(count("const lib = await import('@cantoo/pdf-lib');", IMPORTS_PDF_LIB)).toBe(1);
    expect(count('(x as unknown as { dict: Map<string, number> }).dict', CAST)).toBe(1);
    expect(count('const A = AModule as unknown as typeof PdfLib.PDFArray;', TYPING)).toBe(1);
    expect(count('new (Embedder as unknown as new (png: P) => PdfLib.PngEmbedder)(png)', TYPING)).toBe(0);
    expect(count('PDFContext.prototype.flateStream = function () {};', PATCH)).toBe(1);
    expect(count("Object.defineProperty(stream, 'contents', {});", PATCH)).toBe(1);
    expect(count('PDFRef.of = (n) => n;', PATCH)).toBe(1);
    expect(count('if (PDFRef.of(1) === ref) x = PDFRef.prototype;', PATCH)).toBe(0);
  });
});
