/**
 * A classic cross-reference table spelled every way the reader must take
 * without repairing it: the fixed 20-byte entries (read by a fast path),
 * entries with a one-byte end of line, short or space-padded numbers,
 * a comment between entries, and an object numbered far past the others
 * (kept apart from the table's arrays: reader/xref.ts, XrefEntries). Read
 * right, every offset leads to its object and no repair is reported; read
 * wrong, the table is rebuilt by scanning, with a warning.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import rotatePages from '../../../src/actions/rotate_pages/action.js';
import { runAction } from '../../../src/core/run.js';
import type { Warning } from '../../../src/core/warnings.js';
import { buildPdf, bytesOf, simpleDoc } from '../../helpers/raw-pdf.js';
import { tempFile } from '../../helpers/pdf-tools.js';
import { expectCleanAction, PAGE_ACTIONS, qpdfPageList } from '../../helpers/reader-checks.js';

const TEXTS = ['PAGE ONE', 'PAGE TWO', 'PAGE THREE'];
/** Far past twice the entries and the arrays' gap: the document information goes to the Map. */
const FAR = 70_000;

/** simpleDoc's objects 1-9 and the document information at FAR, with the table written by hand. */
function respelled(): Uint8Array {
  const objects = [...simpleDoc(TEXTS).objects, { num: FAR, body: '<< /Title (FAR INFORMATION) >>' }];
  const built = buildPdf([{ objects }]);
  const at = (num: number) => built.offsets.get(num)!;
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const fixed = (num: number, end: string) => `${pad(at(num), 10)} 00000 n${end}`;
  const body = built.text.slice(0, built.sections[0].xrefAt);
  const table = [
    'xref',
    '0 1',
    '0000000000 65535 f\r', // the fixed form, a carriage return and a line feed
    '1 5',
    fixed(1, ' '), // space and line feed
    `${pad(at(2), 10)} 00000 n`, // a one-byte end of line: 19 bytes
    '% a comment between entries',
    `${fixed(3, ' \r')}${fixed(4, '\r')}`, // space and carriage return, then a carriage return and the line feed
    `${at(5)} 0 n`, // short numbers
    '6 4',
    `${pad(at(6), 10)}   00000  n `, // padded with spaces
    fixed(7, ' '),
    fixed(8, ' '),
    fixed(9, ' '),
    `${FAR} 1`,
    fixed(FAR, ' '),
    'trailer',
    `<< /Size ${FAR + 1} /Root 1 0 R /Info ${FAR} 0 R >>`,
    'startxref',
    String(body.length),
    '%%EOF',
    '',
  ].join('\n');
  return bytesOf(body + table);
}

const input = respelled();

describe('a classic table in every spelling the reader takes', () => {
  it('fixture: every entry spelled as intended, and qpdf reads the pages', async () => {
    const text = Buffer.from(input).toString('latin1');
    expect(text).toContain('0000000000 65535 f\r\n1 5\n');
    expect(text).toMatch(/\n\d{10} 00000 n\n% a comment/);
    expect(await qpdfPageList(input)).toEqual(['4 0 R', '6 0 R', '8 0 R']);
  });

  it('read without repair: no warning, and the far object is the document information', async () => {
    const warnings: Warning[] = [];
    const result = await runAction(rotatePages, { file: input, angle: 90 }, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
    const info = await execa('pdfinfo', [tempFile(result.output === 'document' ? result.bytes : new Uint8Array())]);
    expect(info.stdout).toMatch(/^Title:\s+FAR INFORMATION$/m);
  });

  it.each(PAGE_ACTIONS)('$name: every page once, in order', async (action) => {
    await expectCleanAction(action, input, TEXTS, 'a respelled table');
  });
});
