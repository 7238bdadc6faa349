/**
 * A leaf of the page tree read from its input bytes, without parsing it:
 * where its top-level entries' values start. For the sound page tree
 * (page-tree.ts, pageEntriesKeeping): whether a page is already as
 * settleLeaf would leave it, so that an action that keeps a page unchanged
 * (reverse, reorder, remove, extract, the splits) neither parses nor
 * re-serializes it, and the writer copies its bytes. Parsing, settling and
 * writing the 2,013 pages of a long document was a fifth of reversing it
 * (bench/README.md, branch longtext). Rotate, which changes its pages, sets
 * their /Rotate in those bytes (setRotationInBytes, branch rotbytes).
 */
import type { PDFRef } from '../model/primitives.js';
import type { ObjectStore, RawOrigin, RawSource } from '../model/store.js';
import type { ObjectTable } from '../reader/object-table.js';
import { type RawObject, REF_END, REF_FIELDS, REF_START, skipLiteralString } from '../reader/skim.js';
import { CHAR_CLASS, ENDOBJ, isKeywordAt, plainView, skipWhite, tokenEnd } from '../reader/syntax.js';

/** The top-level entries a leaf's scan notes: where each value starts (-1: absent). */
export interface LeafScan {
  text: Uint8Array;
  type: number;
  mediaBox: number;
  cropBox: number;
  resources: number;
  contents: number;
  rotate: number;
  parent: number;
  annots: number;
  structParents: number;
  /** Where the /Rotate key starts (-1: absent), and where the dictionary's closing `>>` starts: for rotate, which edits the bytes. */
  rotateKey: number;
  close: number;
}

const KEYS = ['Type', 'MediaBox', 'CropBox', 'Resources', 'Contents', 'Rotate', 'Parent', 'Annots', 'StructParents', 'Kids'] as const;
type Key = (typeof KEYS)[number];
const KEY_BYTES = KEYS.map((key) => Uint8Array.from(key, (c) => c.charCodeAt(0)));

/**
 * The scan of `text` (an object's bytes, perhaps followed by `endobj`), when they are one dictionary with no top-level /Kids and
 * a /Type, if any, that is no /Pages: a leaf. Undefined when the bytes cannot
 * tell (a `#`, which could spell any key; a stream; anything unbalanced; an
 * entry written twice): the caller parses the object, as before.
 */
export function scanLeaf(text: Uint8Array): LeafScan | undefined {
  const end = text.length;
  // The array's own search: a Buffer made per page for Node's cost more (bench/README.md, ltrot2).
  if (text.indexOf(0x23) >= 0) return undefined;
  let pos = skipWhite(text, 0, end);
  if (text[pos] !== 0x3c || text[pos + 1] !== 0x3c) return undefined;
  pos += 2;
  const scan: LeafScan = {
    text,
    type: -1,
    mediaBox: -1,
    cropBox: -1,
    resources: -1,
    contents: -1,
    rotate: -1,
    parent: -1,
    annots: -1,
    structParents: -1,
    rotateKey: -1,
    close: -1,
  };
  let depth = 1;
  /** At the top level, after a key: a name there is its value, not the next key. */
  let afterKey = false;
  for (;;) {
    pos = skipWhite(text, pos, end);
    if (pos >= end) return undefined;
    const c = text[pos];
    if (c === 0x2f) {
      const nameEnd = tokenEnd(text, pos + 1, end);
      if (depth === 1) {
        if (afterKey) afterKey = false;
        else {
          const key = keyAt(text, pos + 1, nameEnd);
          if (key === 'Kids') return undefined;
          if (key !== undefined) {
            const field = FIELD[key];
            if (scan[field] >= 0) return undefined;
            scan[field] = skipWhite(text, nameEnd, end);
            if (field === 'rotate') scan.rotateKey = pos;
          }
          afterKey = true;
        }
      }
      pos = nameEnd;
      continue;
    }
    if (depth === 1) afterKey = false;
    if (c === 0x28) {
      pos = skipLiteralString(text, pos, end);
      if (pos < 0) return undefined;
    } else if (c === 0x3c && text[pos + 1] === 0x3c) {
      depth++;
      pos += 2;
    } else if (c === 0x3c) {
      const close = text.indexOf(0x3e, pos);
      if (close < 0) return undefined;
      pos = close + 1;
    } else if (c === 0x3e) {
      if (text[pos + 1] !== 0x3e) return undefined;
      pos += 2;
      if (--depth === 0) {
        scan.close = pos - 2;
        break;
      }
    } else if (c === 0x5b) {
      depth++;
      pos++;
    } else if (c === 0x5d) {
      if (--depth < 1) return undefined;
      pos++;
    } else if (CHAR_CLASS[c] === 0) pos = tokenEnd(text, pos, end);
    else return undefined;
  }
  // Then the object ends: `endobj`, or the end of an object stream's member. A stream is no page.
  pos = skipWhite(text, pos, end);
  if (pos < end && !isKeywordAt(text, pos, ENDOBJ, end)) return undefined;
  if (scan.type >= 0 && isNameAt(text, scan.type, PAGES)) return undefined;
  return scan;
}

type Field = Exclude<keyof LeafScan, 'text' | 'rotateKey' | 'close'>;

/** Where the scan notes each key's value. */
const FIELD: Record<Exclude<Key, 'Kids'>, Field> = {
  Type: 'type',
  MediaBox: 'mediaBox',
  CropBox: 'cropBox',
  Resources: 'resources',
  Contents: 'contents',
  Rotate: 'rotate',
  Parent: 'parent',
  Annots: 'annots',
  StructParents: 'structParents',
};

/** The key among KEYS spelled by text[start, end), if any. */
function keyAt(text: Uint8Array, start: number, end: number): Key | undefined {
  const length = end - start;
  for (let k = 0; k < KEY_BYTES.length; k++) {
    const bytes = KEY_BYTES[k];
    if (bytes.length !== length || bytes[0] !== text[start]) continue;
    let i = 1;
    while (i < length && bytes[i] === text[start + i]) i++;
    if (i === length) return KEYS[k];
  }
  return undefined;
}

const PAGE = Uint8Array.from('Page', (c) => c.charCodeAt(0));
const PAGES = Uint8Array.from('Pages', (c) => c.charCodeAt(0));

/** Whether the name `/word` stands at `pos` as a whole token. */
export function isNameAt(text: Uint8Array, pos: number, word: Uint8Array = PAGE): boolean {
  return text[pos] === 0x2f && isKeywordAt(text, pos + 1, word, text.length);
}

/** A reference `N G R` at `pos`: [N, G], or undefined. */
export function refAt(text: Uint8Array, pos: number): [number, number] | undefined {
  const end = text.length;
  const numEnd = digitsEnd(text, pos, end);
  if (numEnd < 0) return undefined;
  const genAt = skipWhite(text, numEnd, end);
  const genEnd = digitsEnd(text, genAt, end);
  if (genEnd < 0 || genEnd === genAt) return undefined;
  const r = skipWhite(text, genEnd, end);
  if (text[r] !== 0x52 || (r + 1 < end && CHAR_CLASS[text[r + 1]] === 0)) return undefined;
  return [digitsValue(text, pos, numEnd), digitsValue(text, genAt, genEnd)];
}

/**
 * The references of a direct array `[N G R …]` at `pos` that holds nothing
 * else, or undefined.
 */
export function refArrayAt(text: Uint8Array, pos: number): Array<[number, number]> | undefined {
  if (text[pos] !== 0x5b) return undefined;
  const refs: Array<[number, number]> = [];
  for (let at = skipWhite(text, pos + 1, text.length); text[at] !== 0x5d; ) {
    const ref = refAt(text, at);
    if (!ref) return undefined;
    refs.push(ref);
    at = skipWhite(text, text.indexOf(0x52, at) + 1, text.length);
  }
  return refs;
}

/** Whether a direct array of four plain numbers stands at `pos` (what isRectangle accepts, written out). */
export function rectangleAt(text: Uint8Array, pos: number): boolean {
  const end = text.length;
  if (text[pos] !== 0x5b) return false;
  let at = pos + 1;
  for (let i = 0; i < 4; i++) {
    at = skipWhite(text, at, end);
    const numberEnd = tokenEnd(text, at, end);
    if (!isPlainNumber(text, at, numberEnd)) return false;
    at = numberEnd;
  }
  return text[skipWhite(text, at, end)] === 0x5d;
}

/** `[+-]digits[.digits]` or `[+-].digits`, with at least one digit: a number however a reader parses it. */
function isPlainNumber(text: Uint8Array, start: number, end: number): boolean {
  let i = start;
  if (text[i] === 0x2b || text[i] === 0x2d) i++;
  let digits = 0;
  let dot = false;
  for (; i < end; i++) {
    const c = text[i];
    if (c >= 0x30 && c <= 0x39) digits++;
    else if (c === 0x2e && !dot) dot = true;
    else return false;
  }
  return digits > 0;
}

/** The end of a run of at most 10 digits at `pos`, or -1 when there is none. */
function digitsEnd(text: Uint8Array, pos: number, end: number): number {
  let i = pos;
  while (i < end && i - pos <= 10 && text[i] >= 0x30 && text[i] <= 0x39) i++;
  return i === pos || i - pos > 10 || (i < end && CHAR_CLASS[text[i]] === 0) ? -1 : i;
}

function digitsValue(text: Uint8Array, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + text[i] - 0x30;
  return value;
}

/** What setPages and the arrangement need of a page left as its input bytes (settled there already). */
export interface SettledLeaf {
  /** Its /Parent as written. */
  parent: PDFRef;
  /** Whether its bytes hold an /Annots that is not an empty array. */
  annotated: boolean;
  structParents: boolean;
  /** Where, in its bytes (from their start), its /Rotate key and value start (-1: none), and its closing `>>`. */
  rotateKey: number;
  rotate: number;
  close: number;
}

/** Per input (a raw source's table), the pages found settled in their bytes. */
const settledLeaves = new WeakMap<RawOrigin, Map<PDFRef, SettledLeaf>>();

export function noteSettledLeaf(origin: RawOrigin, ref: PDFRef, scan: LeafScan, parent: PDFRef): void {
  let leaves = settledLeaves.get(origin);
  if (!leaves) {
    leaves = new Map();
    settledLeaves.set(origin, leaves);
  }
  const { text, annots } = scan;
  const annotated = annots >= 0 && !(text[annots] === 0x5b && text[skipWhite(text, annots + 1, text.length)] === 0x5d);
  leaves.set(ref, { parent, annotated, structParents: scan.structParents >= 0, rotateKey: scan.rotateKey, rotate: scan.rotate, close: scan.close });
}

/**
 * The page `ref` as its input bytes show it, when it is still those bytes
 * (not parsed since, nor copied into a fork) and was found settled there.
 */
export function settledLeaf(store: ObjectStore, ref: PDFRef): SettledLeaf | undefined {
  return settledSource(store, ref)?.leaf;
}

/** A page left as its input bytes (settledLeaf): those bytes, and what they show. */
export interface SettledSource {
  raw: RawObject;
  leaf: SettledLeaf;
}

export function settledSource(store: ObjectStore, ref: PDFRef): SettledSource | undefined {
  const source = store.source(ref);
  const leaf = source?.kind === 'raw' ? settledLeaves.get(source.table)?.get(ref) : undefined;
  return leaf && { raw: (source as RawSource).raw, leaf };
}

/**
 * The rotation written in the bytes of a page left as them (settledSource):
 * its /Rotate, when that is a plain integer, else 0 when it has none (what
 * an ancestor gives is its own already). Undefined when the bytes cannot
 * tell: a /Rotate that is a reference or a real.
 */
export function writtenRotation(settled: SettledSource): number | undefined {
  const { raw, leaf } = settled;
  if (leaf.rotate < 0) return 0;
  const { data, start, end } = raw;
  let at = start + leaf.rotate;
  if (refAt(data, at)) return undefined;
  const sign = data[at] === 0x2d ? -1 : 1;
  if (data[at] === 0x2d || data[at] === 0x2b) at++;
  const digitsEnd = tokenEnd(data, at, end);
  // Nine digits at most: a plain number, not one past what a reader keeps exact.
  if (digitsEnd === at || digitsEnd - at > 9) return undefined;
  let value = 0;
  for (let i = at; i < digitsEnd; i++) {
    if (data[i] < 0x30 || data[i] > 0x39) return undefined;
    value = value * 10 + data[i] - 0x30;
  }
  return sign * value;
}

/**
 * Sets the /Rotate of a page whose rotation its bytes tell (writtenRotation;
 * `settled`: its settledSource) to `degrees` (undefined: none), in those bytes: the value replaced, or
 * `/Rotate N` written before the closing `>>`, or the entry taken out. They
 * become the page's bytes in the input's table (ObjectTable.rewrite): the
 * writer copies them, and anything that parses the page later reads them.
 * Parsing, setting and re-serializing every page was most of what a rotate
 * of a long document did (bench/README.md, branch rotbytes).
 */
export function setRotationInBytes(table: ObjectTable, ref: PDFRef, settled: SettledSource, degrees: number | undefined): void {
  const { raw, leaf } = settled;
  const { data, start, end } = raw;
  const absent = leaf.rotate < 0;
  if (absent && degrees === undefined) return;
  const from = absent ? leaf.close : degrees === undefined ? leaf.rotateKey : leaf.rotate;
  const to = absent ? from : tokenEnd(data, start + leaf.rotate, end) - start;
  // Between the last entry and `>>`: white space on the side that has none.
  const lead = absent && CHAR_CLASS[data[start + from - 1]] !== 1 ? ' ' : '';
  const insert = degrees === undefined ? '' : !absent ? String(degrees) : lead ? ` /Rotate ${degrees}` : `/Rotate ${degrees} `;
  const shift = insert.length - (to - from);
  const length = end - start + shift;
  const bytes = Buffer.allocUnsafe(length);
  bytes.set(plainView(data, start, from), 0);
  bytes.write(insert, from, 'latin1');
  bytes.set(plainView(data, start + to, end - start - to), from + insert.length);
  // The references, where they are in the new bytes (none lies inside an integer).
  const refs = raw.refs.slice();
  for (let i = 0; i < refs.length; i += REF_FIELDS) {
    const refStart = refs[i + REF_START] - start;
    const refEnd = refs[i + REF_END] - start;
    refs[i + REF_START] = refStart >= to ? refStart + shift : refStart;
    refs[i + REF_END] = refEnd >= to ? refEnd + shift : refEnd;
  }
  table.rewrite(ref, { data: bytes, start: 0, end: length, refs, stream: false, strings: raw.strings });
  if (degrees === undefined) leaf.rotateKey = leaf.rotate = -1;
  else if (absent) {
    leaf.rotateKey = from + lead.length;
    leaf.rotate = leaf.rotateKey + '/Rotate '.length;
  }
  if (leaf.close >= to) leaf.close += shift;
}
