/**
 * Decoding the two kinds of stream the reader itself must read: object
 * streams and cross-reference streams. Both are Flate with an optional PNG
 * predictor in practice. Output is capped: a few kilobytes of Flate data can
 * claim gigabytes (a decompression bomb), and the reader never needs more
 * than the cap to read structure.
 */
import { inflateSync, Z_SYNC_FLUSH } from '../../core/zlib-native.js';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFObject } from '../model/primitives.js';
import { unfilterPngRows } from './png-rows.js';
import { PdfSyntaxError } from './syntax.js';

/**
 * The most one structural stream may inflate to: 100 times its compressed
 * size, at least 4 MB and at most 32 MB. Real object streams inflate 3 to 10
 * times and stay well under 10 MB; a bomb inflates a thousand times.
 */
function structureLimit(compressedBytes: number): number {
  return Math.min(32 * 2 ** 20, Math.max(4 * 2 ** 20, 100 * compressedBytes));
}

function filtersOf(dict: PDFDict): { filters: PDFObject[]; parms: PDFObject[] } {
  const filter = dict.lookup(PDFName.of('Filter'));
  const parms = dict.lookup(PDFName.of('DecodeParms'));
  const filters = filter instanceof PDFArray ? filter.asArray().map((f) => dict.context.lookup(f) ?? f) : filter ? [filter] : [];
  const parmList = parms instanceof PDFArray ? parms.asArray().map((p) => dict.context.lookup(p) ?? p) : parms ? [parms] : [];
  return { filters, parms: parmList };
}

/** A structural stream's decoded data, or a PdfSyntaxError for a filter it cannot have. */
export function decodeStructureStream(dict: PDFDict, data: Uint8Array, maxBytes = structureLimit(data.byteLength)): Uint8Array {
  const { filters, parms } = filtersOf(dict);
  let out = data;
  // One budget for the chain: what each filter made is not there for the next (Flate inside Flate).
  let left = maxBytes;
  filters.forEach((filter, i) => {
    const name = filter instanceof PDFName ? filter.decodeText() : String(filter);
    if (name !== 'FlateDecode' && name !== 'Fl') throw new PdfSyntaxError(`structure stream with filter /${name}`);
    if (left <= 0) throw new PdfSyntaxError(`a structure stream inflates to more than ${maxBytes} bytes`);
    out = inflate(out, left, maxBytes);
    if (i + 1 < filters.length) left -= out.length;
    const p = parms[i];
    if (p instanceof PDFDict) out = unpredict(out, p);
  });
  return out;
}

/** Inflates `data` into at most `left` bytes; `maxBytes` is the budget of the whole chain, for the message. */
function inflate(data: Uint8Array, left: number, maxBytes: number): Uint8Array {
  try {
    // Sync flush: a truncated stream gives what it has, as qpdf and pdf.js recover it.
    return inflateSync(data, { finishFlush: Z_SYNC_FLUSH, maxOutputLength: left });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PdfSyntaxError(`a structure stream inflates to more than ${maxBytes} bytes`);
    }
    throw new PdfSyntaxError(`undecodable structure stream (${(err as Error).message})`);
  }
}

const numberIn = (dict: PDFDict, key: string, fallback: number): number => {
  const value = dict.lookup(PDFName.of(key));
  return value instanceof PDFNumber ? value.asNumber() : fallback;
};

/** Undoes a PNG predictor (the one real files use for cross-reference streams). */
function unpredict(data: Uint8Array, parms: PDFDict): Uint8Array {
  const predictor = numberIn(parms, 'Predictor', 1);
  if (predictor === 1) return data;
  const colors = numberIn(parms, 'Colors', 1);
  const bits = numberIn(parms, 'BitsPerComponent', 8);
  const columns = numberIn(parms, 'Columns', 1);
  const bpp = Math.max(1, Math.ceil((colors * bits) / 8));
  const rowLength = Math.ceil((colors * bits * columns) / 8);
  if (!(rowLength > 0) || rowLength > 1 << 20) throw new PdfSyntaxError('structure stream with an impossible predictor row');
  if (predictor === 2) {
    // TIFF: each byte adds the one a pixel to its left (8-bit components, as structure streams have).
    if (bits !== 8) throw new PdfSyntaxError(`structure stream with TIFF predictor at ${bits} bits`);
    const out = Uint8Array.from(data);
    for (let row = 0; row + rowLength <= out.length; row += rowLength) {
      for (let i = bpp; i < rowLength; i++) out[row + i] = (out[row + i] + out[row + i - bpp]) & 0xff;
    }
    return out;
  }
  if (predictor < 10) throw new PdfSyntaxError(`structure stream with predictor ${predictor}`);
  // PNG: each row after a byte naming its filter; a type that does not exist is taken as None.
  const rows = Math.floor(data.length / (rowLength + 1));
  return unfilterPngRows(data, rows, rowLength, bpp, 'packed', 'none')!;
}
