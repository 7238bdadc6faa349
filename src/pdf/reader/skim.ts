/**
 * Skimming an object: where its body ends and which references it holds,
 * without building any value. This is what lets an untouched object go to
 * the output as its input bytes: the writer needs its extent and its
 * references (to follow the graph, and to null the ones that lead nowhere),
 * never its parsed form. A stream's data is stepped over by its /Length.
 */
import { optimizesLate } from '../../core/heap-growth.js';
import { CHAR_CLASS, ENDOBJ, ENDSTREAM, STREAM, isDigit, isKeywordAt, skipWhite, tokenEnd } from './syntax.js';

/**
 * The references of a skimmed object, four numbers each: where `N G R`
 * starts and ends in `data`, N and G. Flat rather than an object per
 * reference: a skim is kept for every object a document writes, and an
 * object and its list cost 80 bytes per reference against 32 (6 MB over a
 * chain of 200,000 objects).
 */
export type RawRefs = readonly number[];
export const REF_START = 0;
export const REF_END = 1;
export const REF_NUM = 2;
export const REF_GEN = 3;
export const REF_FIELDS = 4;

/** An object as its input bytes: a value, or a stream's dictionary, data and `endstream`. */
export interface RawObject {
  data: Uint8Array;
  start: number;
  end: number;
  refs: RawRefs;
  stream: boolean;
  /** Whether the body holds a string: the only part of an object, besides a stream's data, that encryption changes. */
  strings: boolean;
  /** A stream's parts: where its dictionary ends (the `stream` keyword) and where its data lies. */
  dictEnd?: number;
  dataStart?: number;
  dataEnd?: number;
  /**
   * Where the value of a stream's /Length lies (its number, or `N G R`), when
   * the dictionary has one /Length: an encrypted output writes the
   * dictionary's bytes with only that value changed (security/encrypt.ts).
   */
  lengthAt?: number;
  lengthEnd?: number;
}

/**
 * Skims the body that starts at `start`. `topLevel`: an indirect object in
 * the file, which ends at `endobj` and may be a stream; otherwise an object
 * stream's member, which ends at `end`. Returns undefined when the bytes are
 * not clean enough to copy as they are (no `endobj`, a /Length that does not
 * lead to `endstream`): the caller then parses the object instead.
 */
export function skimBody(
  data: Uint8Array,
  start: number,
  end: number,
  topLevel: boolean,
  lengthOf: (num: number, gen: number) => number | undefined,
  ensure: (start: number, end: number) => void = NO_ENSURE,
): RawObject | undefined {
  if (!everyBranchTaken && (++skimsBeforeWarmUp > LATE_WARM_UP || !optimizesLate())) takeEveryBranch(ensure);
  // The references gather on one shared list, from `base` up to `gatheredTop` (a skim that lengthOf starts
  // works above this one's), and each skim keeps an exact copy: a list of its own per skim was grown, then
  // copied. The list is not shortened after each skim: setting an array's length is a call into V8's runtime,
  // about 0.4 us, 1.5 ms over merge-50's skims; only a long list left by a large object is let go.
  const base = gatheredTop;
  try {
    return skimFrom(data, start, end, topLevel, lengthOf, ensure, base);
  } finally {
    gatheredTop = base;
    if (base === 0 && gathered.length > GATHERED_KEPT) gathered.length = 0;
  }
}

const gathered: number[] = [];
/** Where the next reference's four numbers go in `gathered`. */
let gatheredTop = 0;
/** The room `gathered` keeps between skims: a few hundred references. */
const GATHERED_KEPT = 1024;
const NO_ENSURE = (): void => {};

let everyBranchTaken = false;
let skimsBeforeWarmUp = 0;
/**
 * The skims before the warm-up (takeEveryBranch) when TurboFan comes late
 * (core/heap-growth.ts, optimizeLaterWhenTiny: a tiny input, V8's budget x16,
 * four times the bin's, under which V8 marks skimFrom at about the 410th skim
 * of long-text's objects, `--trace-opt`; 700 pages of long-text in object
 * streams, 192 KB, never get it marked). The warm-up still comes first, and a
 * run with fewer skims never pays it: the 10-page rotate skims 161 objects,
 * and the warm-up's 40 skims took 0.23 ms of it (bench/README.md, startup3).
 */
const LATE_WARM_UP = 256;

/**
 * Bodies that take every branch of skimFrom, clean and damaged, skimmed
 * (and dropped) before the first real skim. V8 optimizes skimFrom only
 * after many skims, compiling it for 15-50 ms on a thread beside the main
 * one, and threw that code away whenever a skim first took a branch the
 * earlier ones had not ("insufficient type feedback": a string, a stream,
 * a reference in an array): two or three times in a rotate of long-text,
 * whose 5,709 skims then ran mostly unoptimized. Skimming only long-text's
 * objects took 42 ms of CPU, after these 34 (medians of 6).
 */
const EVERY_BRANCH = [
  '<< /A 1 0 R /B [ 1 -2.5 +3 .5 4 0 R (a\\)b(c)) <41 42> true false null /N ] /C << /D 2 0 R >> /Length 3 0 R >>\nstream\nxy\nendstream\nendobj',
  '<< /Length 2 /E 12345678901 /F /G >>\r\nstream\r\nxy\r\nendstream endobj',
  '[ 1 2 R 3 ]\nendobj',
  '<< /A 1 2 >>',
  '<< /A ] >>',
  '<< /A >>',
  '[ /A { ] endobj',
  '<< /A word >> endobj',
  '<< /Length 9 >>\nstream\nxy\nendstream\nendobj',
  '<< /A (open',
  // A string in a body that runs past the skim's first window, whose own window is then made readable: met first in
  // a real skim, that call threw the optimized code away (object-streams remove page 1: +22-46 ms of CPU).
  `<< /A (${'y'.repeat(4200)}) >>\nendobj`,
];

/**
 * Once with the first real skim's `ensure` (a file's) and once with NO_ENSURE (an object stream's members'): a
 * call site that had seen only NO_ENSURE met the file's in a real skim, or the other way, and threw the optimized
 * code away ("wrong call target": the window of a string in an object longer than LOOK_AHEAD, in small-objects,
 * object-streams and incremental). The warm-up's bodies lie within a file's first 8 KB, which a lazily read file
 * holds from its opening.
 */
function takeEveryBranch(ensure: (start: number, end: number) => void): void {
  everyBranchTaken = true;
  const lengthOf = (): number => 2;
  // Made here, not at load: a run on a tiny input may never warm up (LATE_WARM_UP).
  const bodies = EVERY_BRANCH.map((text) => Buffer.from(text, 'latin1'));
  for (let round = 0; round < 2; round++) {
    for (const bytes of bodies) {
      const each = round === 0 ? ensure : NO_ENSURE;
      skimBody(bytes, 0, bytes.length, true, lengthOf, each);
      skimBody(bytes, 0, bytes.length, false, lengthOf, each);
    }
  }
}

/** What the skim makes readable past the start of each token before it reads the token. */
const LOOK_AHEAD = 1024;
/**
 * A lazily read file reads whole 4 KB chunks (core/lazy-file.ts; a top-level object's bytes are the file's, from
 * its start): the skim's window ends where the chunk that holds its look-ahead ends. A window of 4 KB from each
 * body's start read the chunk after most dictionaries, stream data the skim never looks at (images: 2,769 reads,
 * 2,024 now).
 */
const CHUNK = 4096;

function skimFrom(
  data: Uint8Array,
  start: number,
  end: number,
  topLevel: boolean,
  lengthOf: (num: number, gen: number) => number | undefined,
  ensure: (start: number, end: number) => void,
  base: number,
): RawObject | undefined {
  const refs = gathered;
  let strings = false;
  // Bytes are made readable a window at a time, as far as the skim goes.
  let ready = start;
  let depth = 0;
  /** Bit n set: the container open at depth n is a dictionary (else an array). */
  let dictAt = 0;
  /** Bit n set: the dictionary open at depth n wants a key next (else the value of the key just read). */
  let keyNext = 0;
  /** 1 after an integer value in a dictionary, 2 after a second one: the `G` and `R` of `N G R` may follow. */
  let refTail = 0;
  let pos = start;
  // The last two tokens, when they were integers (start, end, value; start -1 when not): `N G R` is a reference.
  // Scalars, not token objects: a skim runs over every object a document writes.
  let prev1Start = -1;
  let prev1Value = 0;
  let prev2Start = -1;
  let prev2Value = 0;
  let awaitingLength = false;
  // The top-level /Length's value: where its first integer starts (-1: none yet) and its value.
  let lengthStart = -1;
  let lengthEnd = -1;
  // Top-level /Length names met: with two, which one counts is the parser's business.
  let lengthNames = 0;
  let lengthValue = 0;
  // The /Length given as `N G R`: its N and G (-1: not a reference).
  let lengthRefNum = -1;
  let lengthRefGen = 0;
  for (;;) {
    if (pos + LOOK_AHEAD > ready && ready < end) {
      ready = pos + LOOK_AHEAD + CHUNK - ((pos + LOOK_AHEAD) % CHUNK);
      ensure(pos, ready);
    }
    pos = skipWhite(data, pos, end);
    if (pos >= end) {
      if (topLevel || depth !== 0) return undefined;
      return { data, start, end: trimEnd(data, start, end), refs: kept(refs, base), stream: false, strings };
    }
    const c = data[pos];
    const bit = 1 << depth;
    const inDict = depth > 0 && (dictAt & bit) !== 0;
    // In a dictionary a value must follow each key, and only a name can be a key: `<< /A 1 (x) >>` and
    // `<< /A >>` are not clean either (qpdf: "expected dictionary key but found non-name object").
    // `refTail` lets the `G R` of a reference that is a value through.
    const tail = refTail;
    refTail = 0;
    let intStart = -1;
    let intValue = 0;
    let lengthKey = false;
    if (c === 0x28 || (c === 0x3c && data[pos + 1] !== 0x3c)) {
      strings = true;
      // A string may be long (private application data of megabytes): read a window, and a larger one while it is not closed.
      let stringEnd = pos;
      let close = -1;
      for (let window = 1 << 16; close < 0 && stringEnd < end; window *= 4) {
        stringEnd = Math.min(end, pos + window);
        if (stringEnd > ready) {
          ensure(pos, stringEnd);
          ready = stringEnd;
        }
        if (c === 0x28) close = skipLiteralString(data, pos, stringEnd);
        else {
          const gt = data.subarray(pos, stringEnd).indexOf(0x3e);
          close = gt < 0 ? -1 : pos + gt + 1;
        }
      }
      if (close < 0 || (keyNext = takeValue(keyNext, bit, inDict)) < 0) return undefined;
      pos = close;
    } else if (c === 0x3c) {
      if ((keyNext = takeValue(keyNext, bit, inDict)) < 0 || ++depth > MAX_SKIM_DEPTH) return undefined;
      dictAt |= 1 << depth;
      keyNext |= 1 << depth;
      pos += 2;
    } else if (c === 0x3e) {
      // `>>` must close a dictionary that waits for no value, `]` an array: `<< /A ] >>` is not clean.
      if (data[pos + 1] !== 0x3e || !inDict || !(keyNext & bit)) return undefined;
      dictAt &= ~bit;
      keyNext &= ~bit;
      depth--;
      pos += 2;
    } else if (c === 0x5b) {
      if ((keyNext = takeValue(keyNext, bit, inDict)) < 0 || ++depth > MAX_SKIM_DEPTH) return undefined;
      dictAt &= ~(1 << depth);
      pos++;
    } else if (c === 0x5d) {
      if (depth <= 0 || inDict) return undefined;
      depth--;
      pos++;
    } else if (c === 0x2f) {
      // A name is a key where one is due, else a value.
      if (inDict) keyNext ^= bit;
      const nameEnd = tokenEnd(data, pos + 1, end);
      const isLength = depth === 1 && nameEnd - pos === 7 && isKeywordAt(data, pos + 1, LENGTH_NAME, end);
      if (isLength) lengthNames++;
      lengthKey = isLength && lengthStart < 0;
      pos = nameEnd;
    } else if (CHAR_CLASS[c] === 2) {
      return undefined; // `{`, `}`, `)`: not clean
    } else {
      const stop = tokenEnd(data, pos, end);
      if (isDigit(c)) {
        let number = 0;
        let digits = true;
        for (let i = pos; i < stop; i++) {
          if (!isDigit(data[i])) digits = false;
          else number = number * 10 + (data[i] - 0x30);
        }
        if (digits && stop - pos <= 10) {
          intStart = pos;
          intValue = number;
        }
        if (tail === 1 && intStart >= 0) refTail = 2;
        else if ((keyNext = takeValue(keyNext, bit, inDict)) < 0) return undefined;
        else if (intStart >= 0 && inDict) refTail = 1;
      } else if (c === 0x52 && stop === pos + 1 && prev1Start >= 0 && prev2Start >= 0) {
        if (inDict && tail !== 2) return undefined;
        const top = gatheredTop;
        refs[top] = prev2Start;
        refs[top + 1] = stop;
        refs[top + 2] = prev2Value;
        refs[top + 3] = prev1Value;
        gatheredTop = top + 4;
        if (lengthStart >= 0 && lengthStart === prev2Start) {
          lengthRefNum = prev2Value;
          lengthRefGen = prev1Value;
          lengthEnd = stop;
        }
      } else if (depth === 0 && topLevel && isKeywordAt(data, pos, ENDOBJ, end)) {
        return { data, start, end: trimEnd(data, start, pos), refs: kept(refs, base), stream: false, strings };
      } else if (depth === 0 && topLevel && isKeywordAt(data, pos, STREAM, end)) {
        return skimStream(
          data,
          start,
          pos,
          end,
          kept(refs, base),
          strings,
          lengthStart < 0 ? undefined : lengthValue,
          lengthRefNum,
          lengthRefGen,
          lengthNames === 1 ? lengthStart : -1,
          lengthEnd,
          lengthOf,
          ensure,
        );
      } else if (!isValueWord(data, pos, stop, c) || (keyNext = takeValue(keyNext, bit, inDict)) < 0) {
        // Anything else (`endstream` after a dictionary, a stray word, the next `obj`) is damage:
        // the object is parsed instead, and written as what it parses to.
        return undefined;
      }
      pos = stop;
    }
    // The token right after a top-level /Length key is its value (`N` or the `N` of `N G R`).
    if (awaitingLength && intStart >= 0) {
      lengthStart = intStart;
      lengthValue = intValue;
      lengthEnd = pos;
    }
    awaitingLength = lengthKey;
    if (intStart >= 0) {
      prev2Start = prev1Start;
      prev2Value = prev1Value;
    } else prev2Start = -1;
    prev1Start = intStart;
    prev1Value = intValue;
    if (depth < 0) return undefined;
  }
}

/**
 * A value at the level of `bit`: `keyNext` with the dictionary's next token
 * now a key, or -1 when the dictionary wanted a key. A plain function, not a
 * closure made per token: that closure was half of all a rotate allocated
 * (24 of 48 MB on the images shape).
 */
function takeValue(keyNext: number, bit: number, inDict: boolean): number {
  if (!inDict) return keyNext;
  return keyNext & bit ? -1 : keyNext | bit;
}

/** Deeper nesting is not skimmed (the bits of `dictAt`): the object is parsed instead, which has its own limit. */
const MAX_SKIM_DEPTH = 30;

const NO_REFS: RawRefs = [];

/**
 * The list to keep with a skimmed object: an array grown by push holds room
 * for 17 items, and a skim is kept for every object a document writes (a
 * chain of 200,000 small objects spent 26 MB on that room alone).
 */
const kept = (refs: number[], base: number): RawRefs => (gatheredTop === base ? NO_REFS : refs.slice(base, gatheredTop));

const LENGTH_NAME = Uint8Array.from('Length', (ch) => ch.charCodeAt(0));
const TRUE = Uint8Array.from('true', (ch) => ch.charCodeAt(0));
const FALSE = Uint8Array.from('false', (ch) => ch.charCodeAt(0));
const NULL_WORD = Uint8Array.from('null', (ch) => ch.charCodeAt(0));

/** A bare word that is a value: a number, `R` (checked by the caller), true, false or null. */
function isValueWord(data: Uint8Array, pos: number, stop: number, c: number): boolean {
  if (isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e) return true;
  return isKeywordAt(data, pos, TRUE, stop) || isKeywordAt(data, pos, FALSE, stop) || isKeywordAt(data, pos, NULL_WORD, stop);
}

function skimStream(
  data: Uint8Array,
  start: number,
  keyword: number,
  end: number,
  refs: RawRefs,
  strings: boolean,
  length: number | undefined,
  lengthRefNum: number,
  lengthRefGen: number,
  lengthAt: number,
  lengthEnd: number,
  lengthOf: (num: number, gen: number) => number | undefined,
  ensure: (start: number, end: number) => void,
): RawObject | undefined {
  let dataStart = keyword + STREAM.length;
  if (data[dataStart] === 0x0d) dataStart++;
  if (data[dataStart] === 0x0a) dataStart++;
  const declared = lengthRefNum >= 0 ? lengthOf(lengthRefNum, lengthRefGen) : length;
  if (declared === undefined || declared < 0 || dataStart + declared > end) return undefined;
  // The data itself is never read here: only where `endstream` must stand.
  ensure(dataStart + declared, dataStart + declared + 256);
  const after = skipWhite(data, dataStart + declared, end);
  if (!isKeywordAt(data, after, ENDSTREAM, end)) return undefined;
  const streamEnd = after + ENDSTREAM.length;
  const close = skipWhite(data, streamEnd, end);
  if (close < end && !isKeywordAt(data, close, ENDOBJ, end)) return undefined;
  // One shape for every stream's skim, /Length's place known or not: added afterwards (by a destructuring, an
  // iterator in code not yet optimized), it made a third shape of skim that every reader of one had to tell apart.
  const known = lengthAt >= 0;
  return {
    data,
    start,
    end: streamEnd,
    refs,
    stream: true,
    strings,
    dictEnd: keyword,
    dataStart,
    dataEnd: dataStart + declared,
    lengthAt: known ? lengthAt : undefined,
    lengthEnd: known ? lengthEnd : undefined,
  };
}

/**
 * Where the strings of a body the skim found clean lie, as [start, end)
 * pairs (delimiters included), in order: an encrypted output replaces only
 * them (security/encrypt.ts). Found again when asked rather than kept with
 * every skim: few objects are ever asked.
 */
export function stringSpans(data: Uint8Array, start: number, end: number): number[] {
  const spans: number[] = [];
  let pos = start;
  while ((pos = skipWhite(data, pos, end)) < end) {
    const c = data[pos];
    const pair = c === 0x3c || c === 0x3e ? data[pos + 1] === c : false;
    let close = -1;
    if (c === 0x28) close = skipLiteralString(data, pos, end);
    else if (c === 0x3c && !pair) close = data.subarray(pos, end).indexOf(0x3e) + pos + 1;
    if (close > pos) {
      spans.push(pos, close);
      pos = close;
    } else if (c === 0x2f) pos = tokenEnd(data, pos + 1, end);
    else if (CHAR_CLASS[c] === 2) pos += pair ? 2 : 1;
    else pos = tokenEnd(data, pos, end);
  }
  return spans;
}

/** Past a literal string that starts at `pos` (nested parentheses, escapes); -1 when unterminated. */
export function skipLiteralString(data: Uint8Array, pos: number, end: number): number {
  let depth = 0;
  for (let i = pos; i < end; i++) {
    const c = data[i];
    if (c === 0x5c) i++;
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  return -1;
}

function trimEnd(data: Uint8Array, start: number, end: number): number {
  while (end > start && CHAR_CLASS[data[end - 1]] === 1) end--;
  return end;
}
