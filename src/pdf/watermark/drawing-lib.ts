/**
 * The one door to pdf-lib, where it earns its place: its font embedders
 * (Helvetica's metrics and encoding; subsetting a Noto face) and its image
 * embedders (decoding a PNG into colour and alpha; a JPEG's header). Only the watermarks load this module: pdf-lib's index loads the
 * whole library, about 0.1 s of a run.
 *
 * pdf-lib's embedders write into a pdf-lib document. They write into a
 * scratch one here, and what they made is brought across into pdfsvc's
 * objects (model/primitives.ts), through pdf-lib's public API only. (The
 * build gives pdf-lib Node's native zlib in fflate's place: fflate-node.ts.)
 */
import {
  PDFArray as LibArray,
  PDFBool as LibBool,
  PDFContext as LibContext,
  PDFDict as LibDict,
  PDFHexString as LibHexString,
  PDFName as LibName,
  PDFNumber as LibNumber,
  type PDFObject as LibObject,
  PDFRef as LibRef,
  PDFStream as LibStream,
  PDFString as LibString,
} from '@cantoo/pdf-lib';
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

export { CustomFontSubsetEmbedder, JpegEmbedder, PngEmbedder, StandardFontEmbedder, StandardFonts } from '@cantoo/pdf-lib';

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
  if (object instanceof LibName) return PDFName.of(object.decodeText());
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
  for (const [key, value] of dict.entries()) map.set(PDFName.of(key.decodeText()), ours(value, context, refs));
  return PDFDict.fromMapWithContext(map, context);
}
