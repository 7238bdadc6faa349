/**
 * What a JavaScript caller of the library or the HTTP client passed where
 * the types want something else: the server and the command line read files
 * as bytes and fields as an object, so only those two callers can get this
 * wrong, and the messages here say what to pass instead. Web platform only
 * (the client runs in browsers).
 */

/** A value in a few words: `a string`, `an ArrayBuffer`, `a Buffer`, `null`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value !== 'object') return withArticle(typeof value);
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? withArticle(name) : 'an object';
}

function withArticle(noun: string): string {
  // Not before U: a Uint8Array, a URL.
  return `${/^[aeioAEIO]/.test(noun) ? 'an' : 'a'} ${noun}`;
}

/** An object of fields (`{ file, angle }`), not the bytes or a string passed in its place. */
export function isFieldObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !ArrayBuffer.isView(value) &&
    !(value instanceof ArrayBuffer) &&
    !(typeof Blob !== 'undefined' && value instanceof Blob)
  );
}

/** The refusal of a call whose argument is not an object of fields: `rotatePages(bytes)` for `rotatePages({ file: bytes, angle: 90 })`. */
export function notFieldObject(functionName: string, fieldNames: readonly string[], value: unknown): TypeError {
  const fields = fieldNames.length > 0 ? `, { ${fieldNames.join(', ')} }` : '';
  return new TypeError(`${functionName} takes one object of fields${fields}; got ${describeValue(value)}`);
}

/** How to turn a value that is not bytes into bytes, after `got …`: `: pass new Uint8Array(arrayBuffer)`. */
export function bytesRemedy(value: unknown): string {
  if (value instanceof ArrayBuffer) return ': pass new Uint8Array(arrayBuffer)';
  if (ArrayBuffer.isView(value)) return ': pass new Uint8Array(view.buffer, view.byteOffset, view.byteLength)';
  if (typeof Blob !== 'undefined' && value instanceof Blob) return ': pass new Uint8Array(await blob.arrayBuffer())';
  if (typeof value === 'string') return " (a path or text is not read as a file): pass the file's bytes";
  return '';
}
