/**
 * `pdfsvc usage --format csv` is opened in spreadsheets for invoices: a cell
 * must never be taken for a formula, and quoting must keep each cell whole.
 */
import { describe, expect, it } from 'vitest';
import { csvField } from '../../src/store/cli.js';

describe('usage CSV cells', () => {
  it('text a spreadsheet would run as a formula gets a leading apostrophe', () => {
    for (const name of ['=HYPERLINK("http://x","y")', '+1+2', '-2+3', '@SUM(A1)', '\tkey', '\rkey']) {
      const cell = csvField(name);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
      expect(unquoted, JSON.stringify(name)).toBe(`'${name}`);
    }
  });

  it('ordinary names, days and numbers are left as they are; commas and quotes are quoted', () => {
    expect(csvField('billing-app')).toBe('billing-app');
    expect(csvField('2026-11-27')).toBe('2026-11-27');
    expect(csvField(-3)).toBe('-3');
    expect(csvField('a, "b"')).toBe('"a, ""b"""');
  });
});
