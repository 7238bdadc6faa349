/**
 * The one door to pdf-lib, where it earns its place: its font embedder
 * (subsetting a Noto face) and its PNG
 * embedder (decoding a PNG into colour and alpha). Only
 * the watermarks load this module.
 *
 * pdf-lib's embedders write into a pdf-lib document. They write into a
 * scratch one here, and what they made is brought across into pdfsvc's
 * objects (model/primitives.ts), through pdf-lib's public API only.
 *
 * The classes come from pdf-lib's own module files, not from its index: the
 * index loads the whole library (forms, the drawing API, every standard
 * font's metrics), about 80 ms of a run, so the watermarks fit in a
 * one-file CLI, dist/cli-watermark.cjs (scripts/build.mjs). The
 * module files' own type declarations do not resolve on their own, so each
 * is given the index's type of the same class (`as unknown as typeof
 * PdfLib.X`): a typing, not a reach into private members. The build gives
 * pdf-lib Node's native zlib in fflate's place (fflate-node.ts).
 */
import type * as PdfLib from '@cantoo/pdf-lib';
import PDFContextModule from '../../../node_modules/@cantoo/pdf-lib/es/core/PDFContext.js';
import CustomFontSubsetEmbedderModule from '../../../node_modules/@cantoo/pdf-lib/es/core/embedders/CustomFontSubsetEmbedder.js';
import PngEmbedderModule from '../../../node_modules/@cantoo/pdf-lib/es/core/embedders/PngEmbedder.js';
import PDFArrayModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFArray.js';
import PDFBoolModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFBool.js';
import PDFDictModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFDict.js';
import PDFHexStringModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFHexString.js';
import PDFNameModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFName.js';
import PDFNumberModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFNumber.js';
import PDFRefModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFRef.js';
import PDFStreamModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFStream.js';
import PDFStringModule from '../../../node_modules/@cantoo/pdf-lib/es/core/objects/PDFString.js';
import { PNG as PNGModule } from '../../../node_modules/@cantoo/pdf-lib/es/utils/png.js';
import {
  PDFArray,
  PDFBool,
  type PDFContext,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNull,
  PDFNumber,
  type PDFObject,
  PDFRawStream,
  type PDFRef,
  PDFString,
} from '../model/primitives.js';

export const CustomFontSubsetEmbedder = CustomFontSubsetEmbedderModule as unknown as typeof PdfLib.CustomFontSubsetEmbedder;
export type CustomFontSubsetEmbedder = PdfLib.CustomFontSubsetEmbedder;
export const PngEmbedder = PngEmbedderModule as unknown as typeof PdfLib.PngEmbedder;
/** The decoder PngEmbedder embeds from (not in pdf-lib's index): every PNG as 8-bit RGB, the alpha channel when some pixel is not opaque. */
export const PngDecoder: { load(bytes: Uint8Array): { width: number; height: number; rgbChannel: Uint8Array; alphaChannel?: Uint8Array } } = PNGModule;

const LibContext = PDFContextModule as unknown as typeof PdfLib.PDFContext;
type LibContext = PdfLib.PDFContext;
const LibArray = PDFArrayModule as unknown as typeof PdfLib.PDFArray;
const LibBool = PDFBoolModule as unknown as typeof PdfLib.PDFBool;
const LibDict = PDFDictModule as unknown as typeof PdfLib.PDFDict;
type LibDict = PdfLib.PDFDict;
const LibHexString = PDFHexStringModule as unknown as typeof PdfLib.PDFHexString;
const LibName = PDFNameModule as unknown as typeof PdfLib.PDFName;
const LibNumber = PDFNumberModule as unknown as typeof PdfLib.PDFNumber;
const LibRef = PDFRefModule as unknown as typeof PdfLib.PDFRef;
type LibRef = PdfLib.PDFRef;
const LibStream = PDFStreamModule as unknown as typeof PdfLib.PDFStream;
const LibString = PDFStringModule as unknown as typeof PdfLib.PDFString;
type LibObject = PdfLib.PDFObject;

/**
 * Runs `embed` (one of pdf-lib's embedders) in a scratch pdf-lib document and
 * adds every object it made to `context`, numbered in the order they were
 * made; returns the new reference of the one `embed` returns.
 */
export async function embedWithPdfLib(context: PDFContext, embed: (scratch: LibContext) => LibRef | Promise<LibRef>): Promise<PDFRef> {
  const scratch = LibContext.create();
  const made = await embed(scratch);
  const objects = scratch.enumerateIndirectObjects();
  const refs = new Map<LibRef, PDFRef>(objects.map(([ref]) => [ref, context.nextRef()]));
  for (const [ref, object] of objects) context.assign(refs.get(ref)!, ours(object, context, refs));
  const result = refs.get(made);
  if (!result) throw new Error('the embedder returned a reference to nothing it made');
  return result;
}

/** `object` (of the scratch document) as pdfsvc's object in `context`, its references renumbered by `refs`. */
function ours(object: LibObject, context: PDFContext, refs: ReadonlyMap<LibRef, PDFRef>): PDFObject {
  if (object instanceof LibRef) return refs.get(object) ?? PDFNull;
  if (object instanceof LibName) return PDFName.ofDecoded(object.decodeText());
  if (object instanceof LibNumber) return PDFNumber.of(object.asNumber());
  if (object instanceof LibString) return PDFString.of(object.asString());
  if (object instanceof LibHexString) return PDFHexString.of(object.asString());
  if (object instanceof LibBool) return object.asBoolean() ? PDFBool.True : PDFBool.False;
  if (object instanceof LibArray)
    return new PDFArray(
      context,
      object.asArray().map((item) => ours(item, context, refs)),
    );
  if (object instanceof LibDict) return dictOf(object, context, refs);
  if (object instanceof LibStream) return PDFRawStream.of(dictOf(object.dict, context, refs), object.getContents());
  return PDFNull;
}

function dictOf(dict: LibDict, context: PDFContext, refs: ReadonlyMap<LibRef, PDFRef>): PDFDict {
  const map = new Map<PDFName, PDFObject>();
  for (const [key, value] of dict.entries()) map.set(PDFName.ofDecoded(key.decodeText()), ours(value, context, refs));
  return PDFDict.fromMapWithContext(map, context);
}
