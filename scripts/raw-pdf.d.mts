/** An object body: PDF source text, or a stream (its /Length is added unless `length` says otherwise). */
export type Body =
  | string
  | {
      dict: string;
      stream: Uint8Array | string;
      /** What to write as /Length instead of the true length: a wrong number, or `'9 0 R'`. */
      length?: number | string;
    };

export interface RawObject {
  num: number;
  gen?: number;
  body: Body;
}

export interface Section {
  objects: RawObject[];
  /** How this revision's cross-reference section is written (default: a classic table). */
  xref?: 'table' | 'stream' | 'hybrid';
  /** Objects (non-stream, generation 0) to pack into object streams instead of writing them at top level. */
  objectStreams?: Array<{
    num: number;
    members: number[];
  }>;
  /** Number of the cross-reference stream object (stream and hybrid); default: one past the highest number used so far. */
  xrefNum?: number;
  /** /Root of the trailer (default `1 0 R`); null leaves /Root out. */
  root?: string | null;
  /** /Size to write instead of one past the highest number used so far (room for numbers a later revision adds). */
  size?: number;
  /** More trailer entries, e.g. `/Info 9 0 R`. */
  trailer?: string;
  /** /Prev: index of the section it points to (default: the previous one; none for the first). May point forward or at itself. */
  prev?: number | null;
  /** Flate-compress object streams and the cross-reference stream (default true). */
  compress?: boolean;
  /** Rows to write instead of the true ones in a cross-reference stream: num → [type, field 2, field 3]. */
  xrefRows?: Record<number, [number, number, number]>;
}

export interface SectionLayout {
  /** Offset of `xref` (table, hybrid) or of the cross-reference stream's `N 0 obj` (stream). */
  xrefAt: number;
  /** Offset of the hybrid's cross-reference stream (its /XRefStm). */
  xrefStmAt?: number;
  /** Offset of `trailer` (table, hybrid). */
  trailerAt?: number;
  /** Offset of `startxref`. */
  startxrefAt: number;
  /** Offset just past this revision's `%%EOF` line. */
  end: number;
  /** Offset of each top-level `N G obj` written in this revision. */
  offsets: Map<number, number>;
}

export interface RawPdf {
  bytes: Uint8Array;
  /** The file as a latin1 string (one char per byte), for searching and damaging. */
  text: string;
  sections: SectionLayout[];
  /** Offset of the latest top-level `N G obj` of each number. */
  offsets: Map<number, number>;
}

export declare const latin1: (bytes: Uint8Array) => string;

export declare const bytesOf: (text: string) => Uint8Array;

/**
 * Assembles a PDF: a header, then per section its objects, object streams
 * and cross-reference section with trailer, `startxref` and `%%EOF`.
 * Section 0 is the original file; later sections are incremental updates.
 */
export declare function buildPdf(
  sections: Section[],
  options?: {
    header?: string;
  },
): RawPdf;

/** A content stream drawing `text` in Helvetica 24 pt (text with no parentheses or backslashes). */
export declare function drawText(text: string, y?: number): string;

export interface SimpleDoc {
  objects: RawObject[];
  /** Object number of each page, in order. */
  pages: number[];
  /** Object number of each page's content stream. */
  contents: number[];
}

/**
 * A flat document: 1 catalog, 2 page tree, 3 Helvetica, then per page its
 * dictionary (4, 6, 8, …) and content stream (5, 7, 9, …).
 * `catalog` and `page(i)` add entries to those dictionaries.
 */
export declare function simpleDoc(
  texts: string[],
  extra?: {
    catalog?: string;
    page?: (i: number) => string;
    mediaBox?: string;
  },
): SimpleDoc;

export declare const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/** A page dictionary whose font /F1 is object 3 (the font of `simpleDoc`). */
export declare function pageDict(parent: number, contents: number, entries?: string): string;

/** Objects of `doc` except those numbered in `nums`. */
export declare function without(objects: RawObject[], ...nums: number[]): RawObject[];

/** Replaces `length` bytes at `at` with `text` (later offsets move unless the lengths match). */
export declare function splice(pdf: RawPdf | Uint8Array, at: number, length: number, text: string): Uint8Array;

/** Replaces the first occurrence of `find` at or after `from`; throws when it is not there (a test fixture must not silently stay intact). */
export declare function replaceOnce(pdf: RawPdf | Uint8Array, find: string | RegExp, by: string | ((match: string) => string), from?: number): Uint8Array;

/** Sets the number after the last `startxref` (or removes `startxref` and its number when `value` is null). */
export declare function setStartxref(pdf: RawPdf, value: number | null): Uint8Array;

/** Adds `delta` to every in-use offset of every classic table (each row keeps its 20 bytes). */
export declare function shiftTableOffsets(pdf: RawPdf, delta: number): Uint8Array;

/** Swaps the table rows of objects `a` and `b` in section `section` (each then points at the other's `obj`). */
export declare function swapTableRows(pdf: RawPdf, a: number, b: number, section?: number): Uint8Array;

/** Removes the `trailer << … >>` of section `section` (classic table), leaving `startxref` in place. */
export declare function cutTrailer(pdf: RawPdf, section?: number): Uint8Array;

/** The first `length` bytes. */
export declare function truncate(pdf: RawPdf | Uint8Array, length: number): Uint8Array;
