/**
 * Reading a `multipart/mixed` answer (RFC 2046) on bytes: split actions send
 * one `application/pdf` part per document. Binary-safe: the parts are found
 * by searching the bytes for the delimiter, never by decoding the body as
 * text; only each part's header block is decoded.
 */

export interface MultipartPart {
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Uint8Array;
}

/** The boundary parameter of a multipart Content-Type, quoted or not. */
export function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

export interface ParseOptions {
  /** More parts than this is an error (a server bounds the work one body can cause). */
  maxParts?: number;
  /** Part bodies as views into `body` rather than copies (a server that keeps `body` anyway saves a copy of every upload). */
  views?: boolean;
}

export function parseMultipart(body: Uint8Array, boundary: string, options: ParseOptions = {}): MultipartPart[] {
  const maxParts = options.maxParts ?? Infinity;
  const encoder = new TextEncoder();
  // The first delimiter may open the body or follow a preamble; every later one follows CRLF.
  const first = encoder.encode(`--${boundary}`);
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const headerEnd = encoder.encode('\r\n\r\n');
  let at = 0;
  if (!startsWith(body, first, 0)) {
    const found = indexOf(body, delimiter, 0);
    if (found < 0) throw new Error('multipart body has no opening boundary');
    at = found + 2;
  }
  const parts: MultipartPart[] = [];
  for (;;) {
    at += first.length;
    // `--` after a delimiter closes the body.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts;
    // Transport padding (spaces, tabs) may follow the delimiter before its CRLF.
    while (body[at] === 0x20 || body[at] === 0x09) at++;
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) throw new Error('multipart delimiter is not followed by a line break');
    at += 2;
    // A part with no headers starts straight with its blank line.
    const headersEnd = startsWith(body, headerEnd.subarray(2), at) ? at : indexOf(body, headerEnd, at);
    if (headersEnd < 0) throw new Error('multipart part has no end of headers');
    const headers = parseHeaders(new TextDecoder().decode(body.subarray(at, headersEnd)));
    const start = headersEnd === at ? at + 2 : headersEnd + 4;
    const end = indexOf(body, delimiter, start);
    if (end < 0) throw new Error('multipart body ends before its closing boundary');
    if (parts.length >= maxParts) throw new Error(`multipart body has more than ${maxParts} parts`);
    parts.push({ headers, body: options.views ? body.subarray(start, end) : body.slice(start, end) });
    at = end + 2;
  }
}

function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  // Folded lines (a line starting with white space continues the previous one).
  for (const line of text.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** The filename of a Content-Disposition: `filename*=UTF-8''…` (RFC 6266) before `filename="…"`. */
export function filenameOf(disposition: string | undefined): string | undefined {
  if (!disposition) return undefined;
  const extended = /;\s*filename\*\s*=\s*(?:UTF-8|utf-8)''([^;\s]+)/.exec(disposition);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]);
    } catch {
      // Fall back to the plain parameter.
    }
  }
  const plain = /;\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(disposition);
  return plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2]) : undefined;
}

function startsWith(haystack: Uint8Array, needle: Uint8Array, at: number): boolean {
  if (at + needle.length > haystack.length) return false;
  for (let i = 0; i < needle.length; i++) if (haystack[at + i] !== needle[i]) return false;
  return true;
}

/** First index of `needle` in `haystack` from `from`, or -1. */
function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(first, from); i !== -1 && i <= last; i = haystack.indexOf(first, i + 1)) {
    if (startsWith(haystack, needle, i)) return i;
  }
  return -1;
}
