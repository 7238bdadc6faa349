/**
 * pdf-lib is reached through one adapter (src/pdf/model/lib.ts, with its drawing
 * half src/pdf/watermark/drawing-lib.ts, loaded only by the watermarks).
 * Outside it no file of src/ imports pdf-lib or assigns to a prototype, and
 * no file of src/pdf casts `as unknown as` (the way code reaches a pdf-lib
 * object's private members) or patches an instance or a class
 * (Object.defineProperty/Object.assign onto objects, replaced statics). What is left is listed below with its
 * reason and count: the list may only shrink, so a fixed site fails the test
 * until its entry goes too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const ADAPTER = new Set(['src/pdf/model/lib.ts', 'src/pdf/watermark/drawing-lib.ts']);

type Rule = 'import' | 'cast' | 'patch';

/** Sites still allowed, by file and rule, with how many there are and why. */
const ALLOWED: Array<{ file: string; rule: Rule; count: number; why: string }> = [
  {
    file: 'src/pdf/model/lib.ts',
    rule: 'cast',
    count: 4,
    why:
      "entriesOf/itemsOf read a dictionary's and an array's private storage (pdf-lib's accessors copy it on every call: " +
      'measured with them instead, add_password on bench small-objects.pdf took 6% more CPU and merging it with itself 4%); ' +
      'arrayOf makes an array at its exact size (26 MB on a chain of 200,000 arrays); moveInto gives a moved container ' +
      'its new context (copying made a merge a quarter slower)',
  },
  {
    file: 'src/pdf/model/lib.ts',
    rule: 'patch',
    count: 2,
    why:
      "PDFRef.of on a pool keyed by number, and its lazy tag (measured with pdf-lib's own pool instead, merging a chain of " +
      '200,000 objects with itself took 13 MB more peak memory and 15% more CPU)',
  },
  {
    file: 'src/pdf/watermark/text.ts',
    rule: 'cast',
    count: 2,
    why: "a font embedder's font as fontkit's (pdf-lib declares it without positions and boxes), and its subset name, set after layout",
  },
];

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
// An assignment to or through a prototype (anywhere in src/); under src/pdf also a property defined or
// assigned onto an object, or a replaced static of a PDF class.
const PROTOTYPE = /\.prototype\b[^;\n]*[^=!<>]=[^=>]/g;
const PATCH = /\.prototype\b[^;\n]*[^=!<>]=[^=>]|Object\.defineProperty\(|Object\.assign\(|\bPDF[A-Z]\w*\.\w+\s*=[^=>]/g;

function sites(file: string): Record<Rule, number> {
  const text = code(file);
  if (ADAPTER.has(file)) {
    // The adapter types pdf-lib's module files as pdf-lib's classes (`as unknown as typeof PdfLib.X`): no member is reached.
    const casts = count(text, CAST) - count(text, /\bas unknown as (?:typeof PdfLib\.\w+|new \([^)]*\) => (?:Omit<)?PdfLib\.\w+)/g);
    return { import: 0, cast: casts, patch: count(text, PATCH) };
  }
  const inPdf = file.startsWith('src/pdf/');
  return { import: count(text, IMPORTS_PDF_LIB), cast: inPdf ? count(text, CAST) : 0, patch: count(text, inPdf ? PATCH : PROTOTYPE) };
}

describe('pdf-lib behind one adapter', () => {
  const files = sourceFiles(join(ROOT, 'src'));
  const found = new Map<string, number>();
  for (const file of files) {
    for (const [rule, n] of Object.entries(sites(file))) if (n > 0) found.set(`${file} ${rule}`, n);
  }

  it('no file outside the adapter imports pdf-lib, casts into an object or patches one, beyond the list', () => {
    const allowed = new Map(ALLOWED.map((entry) => [`${entry.file} ${entry.rule}`, entry.count]));
    const over = [...found].filter(([key, n]) => n > (allowed.get(key) ?? 0)).map(([key, n]) => `${key}: ${n}`);
    expect(over).toEqual([]);
  });

  it('the list holds nothing that was fixed (it only shrinks)', () => {
    const stale = ALLOWED.filter((entry) => (found.get(`${entry.file} ${entry.rule}`) ?? 0) < entry.count).map((entry) => `${entry.file} ${entry.rule}`);
    expect(stale).toEqual([]);
  });

  it('sees a violation when there is one', () => {
    expect(count("import { PDFDict } from '@cantoo/pdf-lib';", IMPORTS_PDF_LIB)).toBe(1);
    expect(count('(x as unknown as { dict: Map<string, number> }).dict', CAST)).toBe(1);
    expect(count('PDFContext.prototype.flateStream = function () {};', PATCH)).toBe(1);
    expect(count("Object.defineProperty(stream, 'contents', {});", PATCH)).toBe(1);
    expect(count('PDFRef.of = (n) => n;', PATCH)).toBe(1);
    expect(count('if (PDFRef.of(1) === ref) x = PDFRef.prototype;', PATCH)).toBe(0);
  });
});
