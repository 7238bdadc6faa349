import { describe, it, expect } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { MAX_PAGE_SPEC_LENGTH, orderPages, parsePageSpec, resolvePageOrder, resolvePageSet, resolveSinglePage, selectPages } from '../../src/core/pages.js';

/** Runs fn, asserts a ValidationError on exactly `field`, and returns its single message. */
function errorOf(fn: () => unknown, field: string): string {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ValidationError);
  const errors = (caught as ValidationError).errors;
  expect(Object.keys(errors)).toEqual([field]);
  expect(errors[field]).toHaveLength(1);
  return errors[field]![0]!;
}

// Expected results are 1-based page numbers for readability; the API returns 0-based indexes.
const oneBased = (indexes: number[]) => indexes.map((i) => i + 1);

describe('valid specs on a 5-page document', () => {
  // text, set form (document order, unique), ordered form (as listed)
  it.each<[string, number[], number[]]>([
    ['1', [1], [1]],
    ['5', [5], [5]],
    ['-1', [5], [5]],
    ['-5', [1], [1]],
    ['1..3', [1, 2, 3], [1, 2, 3]],
    ['1..3,5', [1, 2, 3, 5], [1, 2, 3, 5]],
    ['2..', [2, 3, 4, 5], [2, 3, 4, 5]],
    ['..-2', [1, 2, 3, 4], [1, 2, 3, 4]],
    ['..2', [1, 2], [1, 2]],
    ['-3..-1', [3, 4, 5], [3, 4, 5]],
    ['..', [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]],
    ['3..3', [3], [3]],
    ['5..2', [2, 3, 4, 5], [5, 4, 3, 2]],
    ['-1..1', [1, 2, 3, 4, 5], [5, 4, 3, 2, 1]],
    ['2..-1', [2, 3, 4, 5], [2, 3, 4, 5]],
    ['-2..2', [2, 3, 4], [4, 3, 2]],
    ['3,1,3,2', [1, 2, 3], [3, 1, 3, 2]],
    ['1..3,2..4', [1, 2, 3, 4], [1, 2, 3, 2, 3, 4]],
    ['5,..', [1, 2, 3, 4, 5], [5, 1, 2, 3, 4, 5]],
    [' 1 .. 3 , 5 ', [1, 2, 3, 5], [1, 2, 3, 5]],
    ['\t2\n..\n', [2, 3, 4, 5], [2, 3, 4, 5]],
    ['.. -2', [1, 2, 3, 4], [1, 2, 3, 4]],
    ['05', [5], [5]], // leading zeros are harmless
    ['-01', [5], [5]],
  ])('%j', (text, set, ordered) => {
    expect(oneBased(selectPages(text, 5, 'pages'))).toEqual(set);
    expect(oneBased(orderPages(text, 5, 'page_order'))).toEqual(ordered);
    const spec = parsePageSpec(text, 'pages');
    expect(oneBased(resolvePageSet(spec, 5, 'pages'))).toEqual(set);
    expect(oneBased(resolvePageOrder(spec, 5, 'page_order'))).toEqual(ordered);
  });
});

describe('parsePageSpec', () => {
  it.each<[string, unknown]>([
    ['3', [{ kind: 'page', text: '3', page: { value: 3, text: '3' } }]],
    ['-1', [{ kind: 'page', text: '-1', page: { value: -1, text: '-1' } }]],
    ['..', [{ kind: 'range', text: '..', start: null, end: null }]],
    ['2 ..', [{ kind: 'range', text: '2 ..', start: { value: 2, text: '2' }, end: null }]],
    [
      '1..-2, ..4',
      [
        { kind: 'range', text: '1..-2', start: { value: 1, text: '1' }, end: { value: -2, text: '-2' } },
        { kind: 'range', text: '..4', start: null, end: { value: 4, text: '4' } },
      ],
    ],
  ])('%j', (text, expected) => {
    expect(parsePageSpec(text, 'pages')).toEqual(expected);
  });

  it('needs no page count: out-of-range numbers parse', () => {
    expect(parsePageSpec('9..99', 'pages')).toHaveLength(1);
  });
});

describe('syntax errors', () => {
  // text, substrings the message must contain (the offending item, and a hint)
  it.each<[string, string[]]>([
    ['', ['is empty']],
    ['   ', ['is empty']],
    ['0', ['"0"', 'numbered from 1', '-1 is the last page']],
    ['-0', ['"-0"', 'numbered from 1']],
    ['0..3', ['"0"', '"0..3"', 'numbered from 1']],
    ['1,,2', ['item 2', '"1,,2"', 'empty']],
    ['1,2,', ['item 3', '"1,2,"', 'empty']],
    [',1', ['item 1', '",1"', 'empty']],
    ['1, ,2', ['item 2', 'empty']],
    ['-', ['"-"', 'without digits']],
    ['1..-', ['"1..-"', 'without digits']],
    ['- 1', ['"- 1"', 'without digits']],
    ['+', ['"+"', 'leading "+" is not allowed']],
    ['+3', ['"+3"', 'leading "+" is not allowed']],
    ['1..+3', ['"1..+3"', 'leading "+"']],
    ['...', ['"..."', 'exactly two dots']],
    ['1...3', ['"1...3"', 'exactly two dots']],
    ['1..2..3', ['"1..2..3"', 'one start and one end']],
    ['.. ..', ['".. .."', 'one start and one end']],
    ['1.5', ['"1.5"', 'whole numbers']],
    ['.5', ['".5"', 'whole numbers']],
    ['3.', ['"3."', 'whole numbers']],
    ['a', ['"a"', 'not allowed']],
    ['1,a', ['"a"', 'not allowed']],
    ['#', ['"#"', 'not allowed']],
    ['1a', ['"1a"', '"a"']],
    ['1-3', ['"1-3"', '".."']],
    ['1 2', ['"1 2"', 'separate pages with ","']],
    ['1 -2', ['"1 -2"', 'separate pages with ","']],
    ['1;2', ['"1;2"', '";"']],
    ['٣', ['"٣"', 'not allowed']], // non-ASCII digits are not page numbers
    ['1\u0000', ['"1\\u0000"']], // control characters are shown escaped
  ])('%j', (text, parts) => {
    const message = errorOf(() => parsePageSpec(text, 'pages'), 'pages');
    for (const part of parts) expect(message).toContain(part);
  });

  it.each(['pages', 'page_order', 'groups', 'page'])('reports on the caller field %s', (field) => {
    errorOf(() => parsePageSpec('x', field), field);
    errorOf(() => selectPages('1,,2', 5, field), field);
    errorOf(() => orderPages('0', 5, field), field);
    errorOf(() => resolveSinglePage('+1', 5, field), field);
  });

  it('rejects non-string input with a message instead of a TypeError', () => {
    expect(errorOf(() => parsePageSpec(3 as unknown as string, 'pages'), 'pages')).toContain('"1..3,5"');
  });
});

describe('length limit', () => {
  it('accepts exactly the maximum, counting surrounding whitespace', () => {
    expect(MAX_PAGE_SPEC_LENGTH).toBe(1000);
    const text = '1,'.repeat(499) + ' 1'; // 998 + 2 = 1000 characters
    expect(text).toHaveLength(1000);
    expect(selectPages(text, 5, 'pages')).toEqual([0]);
    expect(orderPages(text, 5, 'page_order')).toHaveLength(500);
    expect(parsePageSpec(' '.repeat(999) + '1', 'pages')).toHaveLength(1);
  });

  it.each([
    ['1,'.repeat(500) + '1', 1001],
    [' '.repeat(1000) + '1', 1001],
    ['1'.repeat(5000), 5000],
  ])('rejects longer text (%#) with its length and the maximum', (text, length) => {
    const message = errorOf(() => parsePageSpec(text, 'pages'), 'pages');
    expect(message).toContain(`${length} characters`);
    expect(message).toContain('maximum is 1000');
  });
});

describe('out of range', () => {
  const huge = '123456789012345678901234567890';
  // text, page count, the offending number as quoted, the page-count phrase
  it.each<[string, number, string, string]>([
    ['9', 5, '"9"', 'has 5 pages'],
    ['-9', 5, '"-9"', 'has 5 pages'],
    ['6', 5, '"6"', 'has 5 pages'],
    ['-6', 5, '"-6"', 'has 5 pages'],
    ['3..9', 5, 'page "9" in "3..9"', 'has 5 pages'],
    ['-9..2', 5, 'page "-9" in "-9..2"', 'has 5 pages'],
    ['9..', 5, 'page "9" in "9.."', 'has 5 pages'],
    ['..-9', 5, 'page "-9" in "..-9"', 'has 5 pages'],
    ['1,2,11', 10, '"11"', 'has 10 pages'],
    ['2', 1, '"2"', 'has 1 page)'],
    ['1', 0, '"1"', 'has no pages'],
    ['..', 0, '".."', 'has no pages'],
    ['2..', 0, '"2.."', 'has no pages'],
    [huge, 5, `"${huge}"`, 'has 5 pages'],
    [`-${huge}`, 5, `"-${huge}"`, 'has 5 pages'],
    [`1..${'9'.repeat(400)}`, 5, '…', 'has 5 pages'], // beyond float range: still out of range, quoted shortened
  ])('%j on %i pages', (text, pageCount, item, count) => {
    for (const [field, fn] of [
      ['pages', () => selectPages(text, pageCount, 'pages')],
      ['page_order', () => orderPages(text, pageCount, 'page_order')],
    ] as const) {
      const message = errorOf(fn, field);
      expect(message).toContain(item);
      expect(message).toContain(count);
      expect(message).not.toMatch(/Infinity|NaN/);
    }
  });

  it('says what to use instead', () => {
    expect(errorOf(() => selectPages('9', 5, 'pages'), 'pages')).toBe(
      'page "9" does not exist (the document has 5 pages); use 1 to 5, or -5 to -1 counting from the end',
    );
  });
});

describe('resolveSinglePage', () => {
  it.each<[string, number]>([
    ['1', 0],
    ['-1', 4],
    [' 3 ', 2],
    ['5', 4],
    ['-5', 0],
  ])('%j → index %i', (text, index) => {
    expect(resolveSinglePage(text, 5, 'page')).toBe(index);
  });

  it.each<[string, string[]]>([
    ['0', ['"0"', 'numbered from 1']],
    ['2..3', ['"2..3"', 'is a range']],
    ['..', ['".."', 'is a range']],
    ['4..', ['"4.."', 'is a range']],
    ['1,2', ['"1,2"', '2 items']],
    ['6', ['"6"', '5 pages']],
    ['-6', ['"-6"', '5 pages']],
    ['', ['is empty']],
    ['x', ['"x"']],
  ])('%j is an error', (text, parts) => {
    const message = errorOf(() => resolveSinglePage(text, 5, 'page'), 'page');
    for (const part of parts) expect(message).toContain(part);
  });
});

describe('big documents', () => {
  it('resolves ranges over 100000 pages in both forms', () => {
    const n = 100_000;
    const set = selectPages('..,..,5..', n, 'pages');
    expect(set).toHaveLength(n);
    expect(set[0]).toBe(0);
    expect(set[n - 1]).toBe(n - 1);
    const order = orderPages('-1..1,1', n, 'page_order');
    expect(order).toHaveLength(n + 1);
    expect(order.slice(0, 2)).toEqual([n - 1, n - 2]);
    expect(order.slice(-2)).toEqual([0, 0]);
  });

  it('reports a late error before expanding earlier ranges', () => {
    expect(errorOf(() => orderPages('..,..,0', 100_000, 'page_order'), 'page_order')).toContain('"0"');
    expect(errorOf(() => orderPages('..,..,100001', 100_000, 'page_order'), 'page_order')).toContain('100000 pages');
  });
});

describe('programming errors', () => {
  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('a page count of %s is a RangeError', (count) => {
    expect(() => selectPages('1', count, 'pages')).toThrow(RangeError);
    expect(() => orderPages('1', count, 'page_order')).toThrow(RangeError);
  });
});
