/**
 * The page-selection grammar shared by every action that takes pages.
 *
 *   spec   = item *( "," item )          whitespace allowed around items and ".."
 *   item   = number | [number] ".." [number]
 *   number = ["-"] digit+                1-based; negative counts from the end
 *
 * Parsing is a pure syntax check (requests are validated before the PDF is
 * loaded); resolving needs the page count and turns the spec into 0-based
 * indexes, either as a set (document order, no duplicates) or as an ordered list.
 * Every error is a ValidationError on the caller's field, naming the bad item.
 */
import { ValidationError } from './errors.js';

/** Longest accepted spec (whole text, before trimming); bounds parsing work per request. */
export const MAX_PAGE_SPEC_LENGTH = 1000;

/** A page number as written: `value` is signed and never 0; `text` is verbatim for messages. */
export interface PageNumber {
  readonly value: number;
  readonly text: string;
}

/** One comma-separated item; `text` is the item as written (trimmed). A null range end is open. */
export type PageItem =
  | { readonly kind: 'page'; readonly text: string; readonly page: PageNumber }
  | { readonly kind: 'range'; readonly text: string; readonly start: PageNumber | null; readonly end: PageNumber | null };

/** A parsed spec: the items in the order written. */
export type PageSpec = readonly PageItem[];

/** Syntax check only, no page count needed. Throws ValidationError.field(field, msg). */
export function parsePageSpec(text: string, field: string): PageSpec {
  // Callers may hand over raw request values; a clear message beats a TypeError.
  if (typeof text !== 'string') {
    throw ValidationError.field(field, 'must be page syntax text such as "1..3,5"');
  }
  if (text.length > MAX_PAGE_SPEC_LENGTH) {
    throw ValidationError.field(field, `is ${text.length} characters long; the maximum is ${MAX_PAGE_SPEC_LENGTH} (use ranges such as "1..200" to shorten it)`);
  }
  if (text.trim() === '') {
    throw ValidationError.field(field, `is empty: give pages such as "1..3,5", or ".." for every page`);
  }
  const parts = text.split(',');
  return parts.map((part, i) => {
    const item = part.trim();
    if (item === '') {
      throw ValidationError.field(field, `item ${i + 1} of ${quote(text.trim())} is empty: remove the extra "," or put a page number there`);
    }
    return parseItem(item, field);
  });
}

/** Set form: sorted, unique, 0-based indexes. A backwards range is the same set as the forward one. */
export function resolvePageSet(spec: PageSpec, pageCount: number, field: string): number[] {
  checkPageCount(pageCount);
  // One flag per page: filling ranges is a memset, never a list of the range's pages.
  const selected = new Uint8Array(pageCount);
  for (const item of spec) {
    const [a, b] = resolveItem(item, pageCount, field);
    selected.fill(1, Math.min(a, b), Math.max(a, b) + 1);
  }
  const out: number[] = [];
  for (let i = 0; i < pageCount; i++) if (selected[i]) out.push(i);
  return out;
}

/** Ordered form: 0-based indexes in the listed order, duplicates kept, backwards ranges walk down. */
export function resolvePageOrder(spec: PageSpec, pageCount: number, field: string): number[] {
  checkPageCount(pageCount);
  // Resolve everything first so an error late in the list is reported before any big allocation.
  const spans = spec.map((item) => resolveItem(item, pageCount, field));
  const out: number[] = [];
  for (const [a, b] of spans) {
    const step = a <= b ? 1 : -1;
    for (let i = a; i !== b + step; i += step) out.push(i);
  }
  return out;
}

/** One page in page syntax (e.g. '3' or '-1'); ranges and lists are an error. Returns the 0-based index. */
export function resolveSinglePage(text: string, pageCount: number, field: string): number {
  const spec = parsePageSpec(text, field);
  if (spec.length > 1) {
    throw ValidationError.field(field, `${quote(text.trim())} lists ${spec.length} items; give one page, such as "3", or "-1" for the last page`);
  }
  const item = spec[0]!;
  if (item.kind !== 'page') {
    throw ValidationError.field(field, `${quote(item.text)} is a range; give one page, such as "3", or "-1" for the last page`);
  }
  checkPageCount(pageCount);
  return resolveNumber(item.page, item, pageCount, field);
}

/** Convenience: parse + resolve as a set. */
export function selectPages(text: string, pageCount: number, field: string): number[] {
  return resolvePageSet(parsePageSpec(text, field), pageCount, field);
}

/** Convenience: parse + resolve as an ordered list. */
export function orderPages(text: string, pageCount: number, field: string): number[] {
  return resolvePageOrder(parsePageSpec(text, field), pageCount, field);
}

// ---------------------------------------------------------------------------

type Token = { kind: 'number'; num: PageNumber; spaceBefore: boolean } | { kind: 'range'; spaceBefore: boolean };

function parseItem(item: string, field: string): PageItem {
  const tokens = tokenize(item, field);
  if (tokens.filter((t) => t.kind === 'range').length > 1) {
    throw ValidationError.field(field, `${quote(item)} has more than one "..": a range has one start and one end, such as "1..3"`);
  }
  // Two numbers side by side: "1-3" reads as a dash range, "1 2" as a missing comma.
  for (let i = 1; i < tokens.length; i++) {
    const prev = tokens[i - 1]!;
    const cur = tokens[i]!;
    if (prev.kind === 'number' && cur.kind === 'number') {
      const dash = !cur.spaceBefore && cur.num.text.startsWith('-');
      throw ValidationError.field(
        field,
        dash
          ? `${quote(item)} is not valid: write a range with "..", such as "1..3" (a "-" only starts a negative page number)`
          : `${quote(item)} is not valid: an item is one page or one range; separate pages with "," (no spaces inside a number)`,
      );
    }
  }
  const numbers = tokens.flatMap((t) => (t.kind === 'number' ? [t.num] : []));
  for (const num of numbers) {
    if (num.value === 0) {
      throw ValidationError.field(field, `${pageLabel(num, item)} does not exist: pages are numbered from 1, and -1 is the last page`);
    }
  }
  const rangeAt = tokens.findIndex((t) => t.kind === 'range');
  if (rangeAt === -1) return { kind: 'page', text: item, page: numbers[0]! };
  const before = tokens[rangeAt - 1];
  const after = tokens[rangeAt + 1];
  return {
    kind: 'range',
    text: item,
    start: before?.kind === 'number' ? before.num : null,
    end: after?.kind === 'number' ? after.num : null,
  };
}

/** Splits one trimmed, non-empty item into numbers and ".." tokens; rejects anything else with a specific hint. */
function tokenize(item: string, field: string): Token[] {
  const tokens: Token[] = [];
  let spaceBefore = false;
  let i = 0;
  while (i < item.length) {
    const ch = item[i]!;
    if (/\s/.test(ch)) {
      spaceBefore = true;
      i++;
      continue;
    }
    if (ch === '-' || isDigit(ch)) {
      const start = i;
      if (ch === '-') i++;
      const digitsStart = i;
      while (i < item.length && isDigit(item[i]!)) i++;
      if (i === digitsStart) {
        throw ValidationError.field(
          field,
          `${quote(item)} has a "-" without digits after it: write a negative page such as "-1" (the last page), or ".." for a range`,
        );
      }
      const text = item.slice(start, i);
      tokens.push({ kind: 'number', num: { value: toPageValue(text), text }, spaceBefore });
    } else if (ch === '.') {
      const start = i;
      while (i < item.length && item[i] === '.') i++;
      const dots = i - start;
      if (dots === 1) {
        throw ValidationError.field(field, `${quote(item)} is not valid: pages are whole numbers; a range uses two dots, such as "1..3"`);
      }
      if (dots > 2) {
        throw ValidationError.field(field, `${quote(item)} is not valid: a range uses exactly two dots, such as "1..3"`);
      }
      tokens.push({ kind: 'range', spaceBefore });
    } else if (ch === '+') {
      throw ValidationError.field(
        field,
        `${quote(item)} is not valid: a leading "+" is not allowed; write the page without it (such as "3"), or with "-" to count from the end`,
      );
    } else {
      const bad = String.fromCodePoint(item.codePointAt(i)!);
      throw ValidationError.field(
        field,
        `${quote(item)} contains ${quote(bad)}, which is not allowed: use page numbers, ".." for ranges and "," between items`,
      );
    }
    spaceBefore = false;
  }
  return tokens;
}

/**
 * Numeric value of "-?digits". Absurdly long numbers are clamped to the largest
 * safe integer: they are past the end of any document, so resolution reports them
 * as out of range instead of computing with Infinity or imprecise floats.
 */
function toPageValue(text: string): number {
  const n = Math.min(Number(text.replace('-', '')), Number.MAX_SAFE_INTEGER);
  return text.startsWith('-') ? -n : n;
}

/** 0-based [from, to] of an item, in written direction (from may exceed to). */
function resolveItem(item: PageItem, pageCount: number, field: string): [number, number] {
  if (item.kind === 'page') {
    const index = resolveNumber(item.page, item, pageCount, field);
    return [index, index];
  }
  // An open end means first/last page, which only fails on an empty document.
  if ((item.start === null || item.end === null) && pageCount === 0) {
    throw ValidationError.field(field, `${quote(item.text)} selects nothing: the document has no pages`, 'no_pages');
  }
  const from = item.start === null ? 0 : resolveNumber(item.start, item, pageCount, field);
  const to = item.end === null ? pageCount - 1 : resolveNumber(item.end, item, pageCount, field);
  return [from, to];
}

function resolveNumber(num: PageNumber, item: PageItem, pageCount: number, field: string): number {
  const n = num.value;
  if (n >= 1 && n <= pageCount) return n - 1;
  if (n <= -1 && -n <= pageCount) return pageCount + n;
  const has = pageCount === 0 ? 'no pages' : pageCount === 1 ? '1 page' : `${pageCount} pages`;
  const valid = pageCount === 0 ? '' : pageCount === 1 ? '; use 1 or -1' : `; use 1 to ${pageCount}, or -${pageCount} to -1 counting from the end`;
  throw ValidationError.field(field, `${pageLabel(num, item)} does not exist (the document has ${has})${valid}`, 'page_out_of_range');
}

/** `page "9"`, or `page "9" in "3..9"` when the number is part of a larger item. */
function pageLabel(num: PageNumber, item: PageItem | string): string {
  const itemText = typeof item === 'string' ? item : item.text;
  return itemText === num.text ? `page ${quote(num.text)}` : `page ${quote(num.text)} in ${quote(itemText)}`;
}

/** The page count comes from the PDF, never from the user: a bad one is a programming error. */
function checkPageCount(pageCount: number): void {
  if (!Number.isSafeInteger(pageCount) || pageCount < 0) {
    throw new RangeError(`pageCount must be a non-negative integer, got ${pageCount}`);
  }
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9';
}

/** Quotes user text for a message; JSON escaping keeps control characters visible, and long text is cut. */
function quote(text: string): string {
  const chars = Array.from(text);
  return JSON.stringify(chars.length > 60 ? chars.slice(0, 57).join('') + '…' : text);
}
