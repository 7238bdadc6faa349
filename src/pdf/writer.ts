/**
 * Serializes a document. pdf-lib's own writer copies stream data one byte at
 * a time and, with object streams, deflates every small object again; on a
 * 60 MB document that was most of an action's time. Here dictionaries are
 * still serialized by pdf-lib, but stream data goes out as views of the
 * bytes already in memory, joined once at the end, under a classic
 * cross-reference table.
 */
import { PdfPieces } from '../core/pdf-data.js';
import { PDFContext, PDFDict, PDFName, PDFNumber, PDFObject, PDFRef, PDFStream } from './lib.js';

const encoder = new TextEncoder();
const STREAM_START = encoder.encode('\nstream\n');
const STREAM_END = encoder.encode('\nendstream');
const OBJECT_END = encoder.encode('\nendobj\n');
// A comment of bytes above 127 right after the header tells transfer tools the file is binary.
const BINARY_MARKER = new Uint8Array([0x25, 0xe2, 0xe3, 0xcf, 0xd3, 0x0a]);

function serialize(object: PDFObject): Uint8Array {
  const bytes = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(bytes, 0);
  return bytes;
}

interface StreamInternals {
  updateDict?(): void;
  getContents(): Uint8Array;
  /** Streams whose data is held in several pieces (encrypted: the IV, then the ciphertext) give them here. */
  getContentPieces?(): readonly Uint8Array[];
}

export function writeDocument(context: PDFContext): Uint8Array {
  return writeDocumentPieces(context).join();
}

/** The document as pieces: stream data stays as views of the bytes already in memory. */
export function writeDocumentPieces(context: PDFContext): PdfPieces {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  const push = (bytes: Uint8Array) => {
    chunks.push(bytes);
    offset += bytes.byteLength;
  };
  push(encoder.encode(`%PDF-${context.header.getVersionString()}\n`));
  push(BINARY_MARKER);

  const objects = context
    .enumerateIndirectObjects()
    .filter(([, object]) => !isStructural(object))
    .sort(([a], [b]) => a.objectNumber - b.objectNumber);
  const offsets = new Map<number, { offset: number; generation: number }>();
  for (const [ref, object] of objects) {
    offsets.set(ref.objectNumber, { offset, generation: ref.generationNumber });
    push(encoder.encode(`${ref.objectNumber} ${ref.generationNumber} obj\n`));
    if (object instanceof PDFStream) {
      const stream = object as unknown as StreamInternals;
      stream.updateDict?.();
      push(serialize(object.dict));
      push(STREAM_START);
      if (stream.getContentPieces) for (const piece of stream.getContentPieces()) push(piece);
      else push(stream.getContents());
      push(STREAM_END);
    } else {
      push(serialize(object));
    }
    push(OBJECT_END);
  }

  const size = objects.length > 0 ? objects[objects.length - 1][0].objectNumber + 1 : 1;
  const xrefOffset = offset;
  push(encoder.encode(crossReferenceTable(offsets, size)));
  push(encoder.encode('trailer\n'));
  push(serialize(trailerDict(context, size)));
  push(encoder.encode(`\nstartxref\n${xrefOffset}\n%%EOF\n`));
  return new PdfPieces(chunks, offset);
}

/**
 * Object streams and cross-reference streams of the input: their contents
 * were unpacked into the object table when it was read, and this writer
 * writes its own cross-reference table.
 */
function isStructural(object: PDFObject): boolean {
  if (!(object instanceof PDFStream)) return false;
  const type = object.dict.get(PDFName.of('Type'));
  return type === PDFName.of('ObjStm') || type === PDFName.of('XRef');
}

/** One subsection per run of consecutive object numbers; object 0 heads the free list. */
function crossReferenceTable(offsets: Map<number, { offset: number; generation: number }>, size: number): string {
  const lines: string[] = ['xref'];
  let start = 0;
  while (start < size) {
    if (start !== 0 && !offsets.has(start)) {
      start++;
      continue;
    }
    let end = start + 1;
    while (end < size && offsets.has(end)) end++;
    lines.push(`${start} ${end - start}`);
    for (let n = start; n < end; n++) {
      const entry = offsets.get(n);
      lines.push(entry ? `${String(entry.offset).padStart(10, '0')} ${String(entry.generation).padStart(5, '0')} n\r` : '0000000000 65535 f\r');
    }
    start = end;
  }
  return `${lines.join('\n')}\n`;
}

function trailerDict(context: PDFContext, size: number): PDFDict {
  const { Root, Info, ID, Encrypt } = context.trailerInfo;
  const trailer = context.obj({}) as PDFDict;
  trailer.set(PDFName.of('Size'), PDFNumber.of(size));
  if (Root) trailer.set(PDFName.of('Root'), Root as PDFRef);
  if (Info) trailer.set(PDFName.of('Info'), Info as PDFObject);
  if (ID) trailer.set(PDFName.of('ID'), ID as PDFObject);
  if (Encrypt) trailer.set(PDFName.of('Encrypt'), Encrypt as PDFObject);
  return trailer;
}
