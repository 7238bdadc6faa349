/**
 * Image watermarks: PNG (its alpha channel kept as a soft mask) and JPEG
 * (baseline or progressive; grey, RGB or CMYK; embedded as it is), each turned
 * as its EXIF orientation says. Anything else is refused with a message that
 * says what the bytes look like.
 */
import { deflateSync, inflateSized, Z_SYNC_FLUSH } from '../../core/zlib-native.js';
import { PdfError } from '../errors.js';
import { unfilterPngRows } from '../reader/png-rows.js';
import { type Literal, type PDFContext, PDFName, PDFRawStream, type PDFRef } from '../model/primitives.js';
import { embedWithPdfLib, PngDecoder, PngEmbedder } from './drawing-lib.js';
import type { Matrix } from './geometry.js';

export interface PreparedImage {
  type: 'PNG' | 'JPEG';
  /** The size as viewers show the image: its EXIF orientation applied. */
  width: number;
  height: number;
  /** Maps the unit square the image is drawn in to the form's unit square, turned as its EXIF orientation says; undefined for upright. */
  turn?: Matrix;
  embed(context: PDFContext): Promise<PDFRef>;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: number[] | string, at = 0): boolean {
  const codes = typeof prefix === 'string' ? [...prefix].map((c) => c.charCodeAt(0)) : prefix;
  return codes.every((c, i) => bytes[at + i] === c);
}

/** What the bytes are, when they are not PNG or JPEG: for the message. */
function describeNonImage(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'an empty file';
  const known: Array<[boolean, string]> = [
    [startsWith(bytes, 'GIF8'), 'a GIF image'],
    [startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8), 'a WebP image'],
    [startsWith(bytes, 'BM'), 'a BMP image'],
    [startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a]), 'a TIFF image'],
    [startsWith(bytes, 'ftyp', 4) && /^(avif|avis)/.test(String.fromCharCode(...bytes.subarray(8, 12))), 'an AVIF image'],
    [startsWith(bytes, 'ftyp', 4) && /^(heic|heix|mif1|msf1)/.test(String.fromCharCode(...bytes.subarray(8, 12))), 'a HEIC image'],
    [startsWith(bytes, [0x00, 0x00, 0x01, 0x00]), 'an ICO icon'],
    [startsWith(bytes, '%PDF-'), 'a PDF document'],
    [/^\s*(<\?xml[^>]*>\s*)?<svg/i.test(new TextDecoder().decode(bytes.subarray(0, 256))), 'an SVG image'],
    [startsWith(bytes, [0xff, 0x0a]) || startsWith(bytes, [0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20]), 'a JPEG XL image'],
    [startsWith(bytes, [0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20]) || startsWith(bytes, [0xff, 0x4f, 0xff, 0x51]), 'a JPEG 2000 image'],
  ];
  const hit = known.find(([match]) => match);
  if (hit) return hit[1];
  const head = [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  return `${bytes.length} bytes of something else (it starts with ${head})`;
}

/** Reads the image (all of it, so a damaged file is refused now, not in a reader). */
export async function prepareImage(bytes: Uint8Array): Promise<PreparedImage> {
  const isPng = startsWith(bytes, PNG_SIGNATURE);
  const isJpeg = startsWith(bytes, [0xff, 0xd8, 0xff]);
  if (!isPng && !isJpeg) {
    throw badImage(`must be a PNG or JPEG image; got ${describeNonImage(bytes)}`);
  }
  const type = isPng ? 'PNG' : 'JPEG';
  // A PNG is decoded to its pixels to be embedded: its declared size is checked before (a few KB can declare gigabytes).
  const inflated = isPng ? checkPngSize(bytes) : undefined;
  try {
    const profile = isPng ? pngIccProfile(bytes) : undefined;
    // A grey PNG drawn through a grey profile keeps its one channel; without one it is widened to RGB, as pdf-lib widens it.
    const greyProfile = profile?.components === 1 ? profile.bytes : undefined;
    const plain = inflated && plainPng(bytes, inflated, greyProfile !== undefined);
    if (plain) {
      // Deflated now, before the document is opened: the pixels and zlib's state are freed before the reader's memory is taken, not held beside it.
      const deflated = deflatePngPixels(plain);
      return { type, ...turnedPng(bytes, plain.width, plain.height), embed: async (context) => embedPngPixels(context, deflated, profile?.bytes) };
    }
    if (isJpeg) {
      const jpeg = readJpeg(bytes);
      return {
        type,
        width: jpeg.shownWidth,
        height: jpeg.shownHeight,
        turn: orientationMatrix(jpeg.orientation),
        embed: async (context) => embedJpeg(context, bytes, jpeg),
      };
    }
    if (greyProfile) {
      // pdf-lib's decoder widens grey to RGB: its red channel is the grey.
      const decoded = PngDecoder.load(bytes);
      const deflated = deflatePngPixels({ ...decoded, colorChannel: redOf(decoded.rgbChannel), components: 1 });
      return { type, ...turnedPng(bytes, decoded.width, decoded.height), embed: async (context) => embedPngPixels(context, deflated, greyProfile) };
    }
    const embedder = await PngEmbedder.for(bytes);
    if (!(embedder.width > 0 && embedder.height > 0)) throw new Error('no size');
    return {
      type,
      ...turnedPng(bytes, embedder.width, embedder.height),
      embed: async (context) => {
        const ref = await embedWithPdfLib(context, (scratch) => embedder.embedIntoContext(scratch));
        // pdf-lib draws every PNG in DeviceRGB (grey and palette widened to RGB).
        const image = profile && context.lookup(ref);
        if (image instanceof PDFRawStream) image.dict.set(PDFName.of('ColorSpace'), context.obj(colorSpaceOf(context, 'DeviceRGB', profile?.bytes)));
        return ref;
      },
    };
  } catch (err) {
    if (err instanceof PdfError) throw err;
    if (pngChunkIndex(bytes, 'acTL') >= 0) throw badImage('is an animated PNG, which a page cannot play: save the frame to show as a still PNG');
    throw badImage('is a damaged or unsupported PNG image and cannot be read (the PNG data does not decode)');
  }
}

/**
 * The most pixels a PNG watermark may have: 4096 x 4096, more than a full
 * page at 300 dpi. Decoding takes four bytes per pixel and some copies, so
 * this keeps one image under a few hundred MB; a few KB of Flate can declare
 * 20000 x 20000 pixels of zeros. (A JPEG is embedded as it is, not decoded.)
 */
const MAX_IMAGE_PIXELS = 4096 * 4096;

/** An image refused: the message reads on from its field (`image: must be a PNG …`). */
const badImage = (predicate: string) => new PdfError('bad_image', predicate, 'bare');

/** Checks the PNG's declared size and that its pixel data does not inflate past it; returns that data, inflated (undefined when it does not inflate). */
function checkPngSize(bytes: Uint8Array): Buffer | undefined {
  // The signature, then the IHDR chunk: length, "IHDR", width, height (big-endian).
  if (bytes.length < 24 || !startsWith(bytes, 'IHDR', 12)) {
    throw badImage('is a damaged PNG image and cannot be read (no IHDR header); export it again');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  if (width === 0 || height === 0) throw badImage(`is a damaged PNG image and cannot be read (it declares ${width} x ${height} pixels)`);
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new PdfError(
      'limit',
      `declares ${width} x ${height} pixels (${((width * height) / 1e6).toFixed(1)} megapixels); a watermark image may have at most ${(MAX_IMAGE_PIXELS / 1e6).toFixed(1)} megapixels (4096 x 4096): scale it down. An image that claims more than its bytes can hold looks malicious.`,
      'bare',
    );
  }
  // The pixel data must not inflate past what that size needs (a 1 MB PNG of 4096 x 4096 can carry 1 GB of zeros).
  const channels = [1, 0, 3, 1, 2, 0, 4][bytes[25]] ?? 4;
  const bitDepth = bytes[24] || 8;
  const rowBytes = 1 + Math.ceil((width * channels * bitDepth) / 8);
  // Interlaced images store seven reduced passes, each row with its filter byte: less than twice the plain size.
  const needed = height * rowBytes * (bytes[28] === 1 ? 2 : 1) + 1024;
  try {
    return inflateSized(pngData(bytes), needed, Z_SYNC_FLUSH);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw badImage(`its pixel data inflates past the ${width} x ${height} pixels it declares; the image is damaged or malicious: export it again`);
    }
    // Damaged data: the decoder reports it in its own words.
    return undefined;
  }
}

/**
 * What pdf-lib's PNG embedder embeds: the colour as 8-bit RGB (or, for a grey
 * PNG drawn through its grey profile, 8-bit grey), and the alpha channel when
 * some pixel is not opaque.
 */
export interface PngPixels {
  width: number;
  height: number;
  colorChannel: Uint8Array;
  components: 1 | 3;
  alphaChannel?: Uint8Array;
}

/**
 * The pixels of a plain PNG (8 or 16 bits per channel, interlaced or not, grey
 * or RGB with or without alpha, no tRNS, not animated) from its inflated data,
 * exactly as pdf-lib's decoder (UPNG) makes them, in a fraction of its time
 * (its filters and format conversion run in generic JavaScript loops: 20-30
 * ms of a 600 x 200 watermark; a 4096 x 4096 16-bit RGBA PNG took it 5 s
 * and 560 MB). Undefined for any other PNG, or data that does not decode
 * cleanly: pdf-lib's decoder takes those, as before.
 *
 * Decodes in place: `inflated` is overwritten, and an RGB or RGBA image's
 * colour is a view of it (no second and third copy of the pixels). An
 * interlaced image's passes are gathered into one new array of 8-bit samples
 * (pdf-lib's decoder took 690 MB for a 4096 x 4096 16-bit RGBA one).
 */
export function plainPng(bytes: Uint8Array, inflated: Uint8Array, keepGrey = false): PngPixels | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  const [bitDepth, colorType, , , interlace] = bytes.subarray(24, 29);
  const channels = colorType === 0 ? 1 : colorType === 2 ? 3 : colorType === 4 ? 2 : colorType === 6 ? 4 : 0;
  if ((bitDepth !== 8 && bitDepth !== 16) || channels === 0 || interlace > 1) return undefined;
  if (pngChunkIndex(bytes, 'tRNS') >= 0 || pngChunkIndex(bytes, 'acTL') >= 0) return undefined;
  const sampleBytes = bitDepth / 8;
  // Each row a (spent) filter byte and its 8-bit samples.
  const rows = interlace === 1 ? gatherAdam7(inflated, width, height, channels, sampleBytes) : unfilterPlain(inflated, width, height, channels, sampleBytes);
  return rows && pixelsOfRows(rows, width, height, colorType, channels, keepGrey && (colorType === 0 || colorType === 4));
}

/** A not interlaced PNG's rows, unfiltered and (16-bit) narrowed to their high bytes in place: `inflated` itself. */
function unfilterPlain(inflated: Uint8Array, width: number, height: number, channels: number, sampleBytes: number): Uint8Array | undefined {
  const rawStride = width * channels * sampleBytes;
  if (inflated.length < height * (rawStride + 1)) return undefined;
  if (!unfilterPngRows(inflated, height, rawStride, channels * sampleBytes, 'in place', 'refuse')) return undefined;
  if (sampleBytes === 2) {
    // 16-bit samples narrow to their high byte, as UPNG narrows them; each row moves to where an 8-bit row lies, behind the reading.
    const stride = width * channels;
    for (let y = 0; y < height; y++) {
      const from = y * (rawStride + 1) + 1;
      const to = y * (stride + 1) + 1;
      for (let k = 0; k < stride; k++) inflated[to + k] = inflated[from + 2 * k];
    }
  }
  return inflated;
}

/** Adam7's seven passes: first column and row, then the step between columns and rows. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/**
 * An interlaced PNG's passes, each unfiltered in place, their pixels put where they belong in rows laid out as
 * unfilterPlain's (8-bit samples, high bytes of 16-bit ones, as UPNG narrows them).
 */
function gatherAdam7(inflated: Uint8Array, width: number, height: number, channels: number, sampleBytes: number): Uint8Array | undefined {
  const stride = width * channels;
  const rows = new Uint8Array(height * (stride + 1));
  let offset = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    const passWidth = Math.ceil((width - x0) / dx);
    const passHeight = Math.ceil((height - y0) / dy);
    // A pass with no pixels has no rows at all, not even filter bytes.
    if (passWidth <= 0 || passHeight <= 0) continue;
    const passStride = passWidth * channels * sampleBytes;
    const size = passHeight * (passStride + 1);
    if (offset + size > inflated.length) return undefined;
    const pass = inflated.subarray(offset, offset + size);
    if (!unfilterPngRows(pass, passHeight, passStride, channels * sampleBytes, 'in place', 'refuse')) return undefined;
    for (let py = 0; py < passHeight; py++) {
      const to = (y0 + py * dy) * (stride + 1) + 1;
      for (let px = 0, from = py * (passStride + 1) + 1; px < passWidth; px++) {
        const at = to + (x0 + px * dx) * channels;
        for (let c = 0; c < channels; c++, from += sampleBytes) rows[at + c] = pass[from];
      }
    }
    offset += size;
  }
  return rows;
}

/** The colour (RGB, or grey kept as it is) and alpha channels of rows of 8-bit samples (each after a filter byte), reusing the rows' memory where it can. */
function pixelsOfRows(rows: Uint8Array, width: number, height: number, colorType: number, channels: number, keepGrey: boolean): PngPixels {
  const stride = width * channels;
  const count = width * height;
  const components = keepGrey ? 1 : 3;
  if (colorType === 2 || (colorType === 0 && keepGrey)) {
    // The rows moved up over their filter bytes: the colour as it is.
    for (let y = 0; y < height; y++) rows.copyWithin(y * stride, y * (stride + 1) + 1, (y + 1) * (stride + 1));
    return { width, height, colorChannel: rows.subarray(0, count * components), components };
  }
  // Grey widens to three bytes a pixel: its own buffer. RGBA and kept grey with alpha narrow: written over the rows they are read from, behind the reading.
  const colorChannel = colorType === 6 || keepGrey ? rows.subarray(0, count * components) : new Uint8Array(count * 3);
  const alphaChannel = colorType === 4 || colorType === 6 ? new Uint8Array(count) : undefined;
  let translucent = false;
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0, at = y * (stride + 1) + 1; x < width; x++, i++, at += channels) {
      if (colorType === 6) {
        colorChannel[3 * i] = rows[at];
        colorChannel[3 * i + 1] = rows[at + 1];
        colorChannel[3 * i + 2] = rows[at + 2];
      } else if (keepGrey) {
        colorChannel[i] = rows[at];
      } else {
        colorChannel[3 * i] = colorChannel[3 * i + 1] = colorChannel[3 * i + 2] = rows[at];
      }
      if (alphaChannel) {
        const alpha = rows[at + channels - 1];
        alphaChannel[i] = alpha;
        if (alpha < 255) translucent = true;
      }
    }
  }
  return { width, height, colorChannel, components, alphaChannel: translucent ? alphaChannel : undefined };
}

/** The first of every three bytes: the grey of RGB pixels whose channels are equal. */
function redOf(rgb: Uint8Array): Uint8Array {
  const grey = new Uint8Array(rgb.length / 3);
  for (let i = 0; i < grey.length; i++) grey[i] = rgb[3 * i];
  return grey;
}

/** A plain PNG's channels, each deflated as `PDFContext.flateStream` deflates a stream's contents. */
interface DeflatedPng {
  width: number;
  height: number;
  color: Uint8Array;
  components: 1 | 3;
  alpha?: Uint8Array;
}

/** The alpha channel first, then the colour: the order pdf-lib's embedder deflates them in. */
function deflatePngPixels(pixels: PngPixels): DeflatedPng {
  const alpha = pixels.alphaChannel && deflateSync(pixels.alphaChannel);
  return { width: pixels.width, height: pixels.height, alpha, color: deflateSync(pixels.colorChannel), components: pixels.components };
}

/**
 * Pixels decoded here, embedded as pdf-lib's PNG embedder embeds its own
 * decoder's: the alpha channel (when there is one) as a soft mask first,
 * then the colour, with the same entries in the same order.
 */
function embedPngPixels(context: PDFContext, pixels: DeflatedPng, profile: Uint8Array | undefined): PDFRef {
  const { width, height } = pixels;
  const image = { Type: 'XObject', Subtype: 'Image' };
  const SMask =
    pixels.alpha &&
    context.register(
      context.deflatedStream(pixels.alpha, { ...image, Height: height, Width: width, BitsPerComponent: 8, ColorSpace: 'DeviceGray', Decode: [0, 1] }),
    );
  const ColorSpace = colorSpaceOf(context, pixels.components === 1 ? 'DeviceGray' : 'DeviceRGB', profile);
  return context.register(context.deflatedStream(pixels.color, { ...image, BitsPerComponent: 8, Width: width, Height: height, ColorSpace, SMask }));
}

/** The most an ICC profile may inflate to (a display or press profile is a few KB to a few hundred). */
const MAX_ICC_BYTES = 4 * 2 ** 20;

/** A PNG's ICC profile and how many colours it is of. */
interface PngProfile {
  bytes: Uint8Array;
  components: 1 | 3;
}

/**
 * The ICC profile of a PNG's iCCP chunk (a screenshot's display profile, an
 * export's Display P3, a grey scan's dot gain), which viewers draw it
 * through; undefined when it has none, a damaged one, or a grey one in a PNG
 * of colour. Chromium draws a grey PNG through an RGB profile too (as the
 * PNG widened to RGB), and so does pdfsvc.
 */
function pngIccProfile(bytes: Uint8Array): PngProfile | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let pos = 8; pos + 8 <= bytes.length && !startsWith(bytes, 'IDAT', pos + 4); pos += 12 + view.getUint32(pos)) {
    if (!startsWith(bytes, 'iCCP', pos + 4)) continue;
    // A profile name, NUL, the compression method (0: zlib), the profile.
    const data = bytes.subarray(pos + 8, Math.min(bytes.length, pos + 8 + view.getUint32(pos)));
    const nameEnd = data.indexOf(0);
    if (nameEnd < 1 || data[nameEnd + 1] !== 0) return undefined;
    try {
      const profile = inflateSized(data.subarray(nameEnd + 2), MAX_ICC_BYTES);
      const rgb = fittingIccProfile(profile, 3);
      if (rgb) return { bytes: rgb, components: 3 };
      // Colour types 0 and 4: grey, without and with alpha.
      const grey = (bytes[25] === 0 || bytes[25] === 4) && fittingIccProfile(profile, 1);
      return grey ? { bytes: grey, components: 1 } : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The size a PNG is shown at and how to turn it, from the orientation in its
 * eXIf chunk (a phone's screenshot or an export that kept the photo's EXIF).
 * Browsers apply it when the chunk comes before the image data (Chromium,
 * and the web platform's PNG tests: one after it is ignored, as the image
 * may be shown before it arrives); pdfsvc reads it there too.
 */
function turnedPng(bytes: Uint8Array, width: number, height: number): Pick<PreparedImage, 'width' | 'height' | 'turn'> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let orientation = 1;
  for (let pos = 8; pos + 8 <= bytes.length && !startsWith(bytes, 'IDAT', pos + 4); pos += 12 + view.getUint32(pos)) {
    if (startsWith(bytes, 'eXIf', pos + 4)) {
      orientation = exifOrientation(bytes.subarray(pos + 8, Math.min(bytes.length, pos + 8 + view.getUint32(pos)))) ?? 1;
      break;
    }
  }
  const turned = orientation >= 5;
  return { width: turned ? height : width, height: turned ? width : height, turn: orientationMatrix(orientation) };
}

/** Where the PNG's first chunk of `type` starts, or -1. */
function pngChunkIndex(bytes: Uint8Array, type: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let pos = 8; pos + 8 <= bytes.length; pos += 12 + view.getUint32(pos)) if (startsWith(bytes, type, pos + 4)) return pos;
  return -1;
}

/** The PNG's compressed pixel data: its IDAT chunks, joined (one chunk is not copied). */
function pngData(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Uint8Array[] = [];
  for (let pos = 8; pos + 8 <= bytes.length; ) {
    const length = view.getUint32(pos);
    if (startsWith(bytes, 'IDAT', pos + 4)) parts.push(bytes.subarray(pos + 8, Math.min(bytes.length, pos + 8 + length)));
    pos += 12 + length;
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** What pdfsvc needs of a JPEG, read from its marker segments (the image data is embedded as it is, never decoded). */
interface JpegHeader {
  width: number;
  height: number;
  components: 1 | 3 | 4;
  /** An APP14 "Adobe" marker: its CMYK is stored inverted (0 is full ink), as Photoshop writes it. */
  adobe: boolean;
  /** The EXIF orientation, 1 (upright) to 8. */
  orientation: number;
  shownWidth: number;
  shownHeight: number;
  /** The ICC profile of its colours (APP2 segments), when it carries a whole one of its colour space. */
  iccProfile?: Uint8Array;
}

/**
 * The most pixels a JPEG watermark may have. pdfsvc does not decode a JPEG,
 * but every reader of the output does, at 3 or 4 bytes a pixel: a few MB of
 * flat JPEG can declare 20000 x 20000 pixels (1.2 GB to draw). 8192 x 8192
 * takes a 48-megapixel phone photo as it is.
 */
const MAX_JPEG_PIXELS = 8192 * 8192;

const END_OF_IMAGE = Buffer.from([0xff, 0xd9]);

const JPEG_COLOR_SPACES = { 1: 'DeviceGray', 3: 'DeviceRGB', 4: 'DeviceCMYK' } as const;

/**
 * Reads the marker segments up to the first scan, and refuses what PDF
 * readers do not draw: a precision other than 8 bits, and lossless,
 * hierarchical or arithmetic-coded frames (PDF's DCTDecode is baseline and
 * progressive Huffman JPEG), or a file cut off before or in its image data.
 */
function readJpeg(bytes: Uint8Array): JpegHeader {
  const damaged = (why: string) => badImage(`is a damaged JPEG image and cannot be read (${why}); export it again`);
  let frame: Pick<JpegHeader, 'width' | 'height' | 'components'> | undefined;
  let adobe = false;
  let orientation = 1;
  // The ICC profile's pieces by their sequence number (from 1), and how many it says there are.
  const iccPieces: Uint8Array[] = [];
  let iccPieceCount = 0;
  let pos = 2;
  while (pos + 4 <= bytes.length) {
    if (bytes[pos] !== 0xff) throw damaged(`no marker at byte ${pos}`);
    const marker = bytes[pos + 1];
    // Fill bytes, and markers without a length.
    if (marker === 0xff) {
      pos += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      pos += 2;
      continue;
    }
    const length = (bytes[pos + 2] << 8) | bytes[pos + 3];
    const body = bytes.subarray(pos + 4, pos + 2 + length);
    if (length < 2 || pos + 2 + length > bytes.length) throw damaged('a marker segment runs past the end of the file');
    if (marker === 0xe1 && startsWith(body, 'Exif\0\0')) orientation = exifOrientation(body.subarray(6)) ?? orientation;
    if (marker === 0xee && startsWith(body, 'Adobe')) adobe = true;
    if (marker === 0xe2 && startsWith(body, 'ICC_PROFILE\0') && body.length > 14) {
      iccPieces[body[12]] = body.subarray(14);
      iccPieceCount = body[13];
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc && !frame) {
      if (marker !== 0xc0 && marker !== 0xc1 && marker !== 0xc2) {
        throw badImage(
          'is a lossless, hierarchical or arithmetic-coded JPEG, which PDF readers do not draw: save it as an ordinary (baseline or progressive) JPEG',
        );
      }
      if (body.length < 6) throw damaged('its frame header is cut short');
      const [precision, heightHigh, heightLow, widthHigh, widthLow, components] = body;
      if (precision !== 8) throw badImage(`is a ${precision}-bit JPEG; PDF readers draw 8-bit JPEGs only: save it as an ordinary 8-bit JPEG`);
      if (components !== 1 && components !== 3 && components !== 4)
        throw badImage(`is a JPEG of ${components} colour channels; only grey (1), RGB (3) and CMYK (4) are drawn`);
      frame = { width: (widthHigh << 8) | widthLow, height: (heightHigh << 8) | heightLow, components };
      if (frame.width === 0 || frame.height === 0) throw damaged(`its frame header declares ${frame.width} x ${frame.height} pixels`);
      if (frame.width * frame.height > MAX_JPEG_PIXELS) {
        throw new PdfError(
          'limit',
          `declares ${frame.width} x ${frame.height} pixels (${((frame.width * frame.height) / 1e6).toFixed(1)} megapixels); a JPEG watermark may have at most ${(MAX_JPEG_PIXELS / 1e6).toFixed(1)} megapixels (8192 x 8192), as every reader decodes all of them to draw each page: scale it down`,
          'bare',
        );
      }
    }
    if (marker === 0xd9) break;
    if (marker === 0xda) {
      if (!frame) throw damaged('no frame header before the image data');
      if (pos + 2 + length >= bytes.length) throw damaged('it ends before its image data');
      // A file cut off in its image data (an upload broken off) has no end-of-image marker after it; FF D9 cannot occur inside the data (FF is stuffed).
      if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).lastIndexOf(END_OF_IMAGE) < pos) {
        throw damaged('it is cut off inside its image data, with no end-of-image marker');
      }
      const turned = orientation >= 5;
      const iccProfile = wholeIccProfile(iccPieces, iccPieceCount, frame.components);
      return { ...frame, adobe, orientation, shownWidth: turned ? frame.height : frame.width, shownHeight: turned ? frame.width : frame.height, iccProfile };
    }
    pos += 2 + length;
  }
  throw damaged(frame ? 'it ends before its image data' : 'no frame header');
}

/**
 * The ICC profile from its pieces, when every piece is there and it
 * describes the JPEG's colours (grey, RGB or CMYK); else undefined, and the
 * JPEG is drawn in device colours as before. Viewers draw a JPEG through its
 * profile (a phone's Display P3 photo, a print CMYK scan); PDF readers
 * ignore the one inside a DCT stream and use /ColorSpace only.
 */
function wholeIccProfile(pieces: Uint8Array[], count: number, components: number): Uint8Array | undefined {
  const ordered = Array.from({ length: count }, (_, i) => pieces[i + 1]);
  if (count === 0 || ordered.some((piece) => !piece)) return undefined;
  return fittingIccProfile(Buffer.concat(ordered), components);
}

/** `profile` (to its declared size) when it is an ICC profile of `components` colours (grey, RGB or CMYK); else undefined. */
function fittingIccProfile(profile: Uint8Array, components: number): Uint8Array | undefined {
  if (profile.length < 128 || !startsWith(profile, 'acsp', 36)) return undefined;
  const declared = new DataView(profile.buffer, profile.byteOffset, profile.byteLength).getUint32(0);
  const space = { 1: 'GRAY', 3: 'RGB ', 4: 'CMYK' }[components as 1 | 3 | 4];
  return declared >= 128 && declared <= profile.length && startsWith(profile, space, 16) ? profile.subarray(0, declared) : undefined;
}

/** The colour space of an image of `device` colours drawn through `profile`; a reader that cannot use the profile draws the Alternate, the device colours pdfsvc drew before. */
function colorSpaceOf(context: PDFContext, device: 'DeviceGray' | 'DeviceRGB' | 'DeviceCMYK', profile: Uint8Array | undefined): Literal {
  if (!profile) return device;
  const N = { DeviceGray: 1, DeviceRGB: 3, DeviceCMYK: 4 }[device];
  return ['ICCBased', context.register(context.flateStream(profile, { N, Alternate: device }))];
}

/** Orientation (tag 0x0112) from IFD0 of the EXIF TIFF structure `tiff`; undefined when it has none or one out of range. */
function exifOrientation(tiff: Uint8Array): number | undefined {
  if (tiff.length < 8) return undefined;
  const little = startsWith(tiff, 'II');
  if (!little && !startsWith(tiff, 'MM')) return undefined;
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > tiff.length) return undefined;
  const count = view.getUint16(ifd, little);
  for (let i = 0, entry = ifd + 2; i < count && entry + 12 <= tiff.length; i++, entry += 12) {
    // A SHORT, its value in the entry's first two bytes.
    if (view.getUint16(entry, little) === 0x0112 && view.getUint16(entry + 2, little) === 3) {
      const value = view.getUint16(entry + 8, little);
      return value >= 1 && value <= 8 ? value : undefined;
    }
  }
  return undefined;
}

/**
 * The matrix that draws a stored image in the unit square as viewers show
 * it, for EXIF orientations 2 to 8 (the rows of the stored image run
 * down from its top, as in the image space of PDF images). Photos from phones
 * are stored as the sensor read them and turned by this tag: browsers and
 * viewers apply it, so the user chose the image as it is shown turned.
 */
function orientationMatrix(orientation: number): Matrix | undefined {
  const matrices: Record<number, Matrix> = {
    2: [-1, 0, 0, 1, 1, 0],
    3: [-1, 0, 0, -1, 1, 1],
    4: [1, 0, 0, -1, 0, 1],
    5: [0, -1, -1, 0, 1, 1],
    6: [0, -1, 1, 0, 0, 1],
    7: [0, 1, 1, 0, 0, 0],
    8: [0, 1, -1, 0, 1, 0],
  };
  return matrices[orientation];
}

/**
 * The JPEG as an image XObject, its bytes as they are. /Decode inverts CMYK
 * only under an Adobe marker: PDF readers (pdf.js, poppler, MuPDF) take a
 * DCT stream's CMYK as it is stored and leave inverting to /Decode, while
 * image viewers invert only files with that marker; pdf-lib inverts every
 * CMYK JPEG, which showed one without the marker as its negative. Its ICC
 * profile, when it has a whole one, becomes an /ICCBased colour space.
 */
function embedJpeg(context: PDFContext, bytes: Uint8Array, jpeg: JpegHeader): PDFRef {
  const inverted = jpeg.components === 4 && jpeg.adobe;
  const colorSpace = colorSpaceOf(context, JPEG_COLOR_SPACES[jpeg.components], jpeg.iccProfile);
  return context.register(
    context.stream(bytes, {
      Type: 'XObject',
      Subtype: 'Image',
      BitsPerComponent: 8,
      Width: jpeg.width,
      Height: jpeg.height,
      ColorSpace: colorSpace,
      Filter: 'DCTDecode',
      Decode: inverted ? [1, 0, 1, 0, 1, 0, 1, 0] : undefined,
    }),
  );
}
