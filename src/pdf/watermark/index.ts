/**
 * Watermarks, text and image: the content is prepared (and checked) before
 * the document is parsed, drawn once into a Form XObject, and placed on each
 * selected page with its own matrix (see geometry.ts and stamp.ts).
 */
import { saveDocumentPieces } from '../document.js';
import type { PdfPieces } from '../../core/pdf-data.js';
import { type PDFDocument, PDFRef } from '../model/primitives.js';
import { pageEntries } from '../structure/page-tree.js';
import { boundsOf, compose, diagonalDegrees, placement, rotate, scale, usableMargin, type Matrix, type Position, type ReaderView } from './geometry.js';
import { registerForm } from './form.js';
import { prepareImage } from './image.js';
import { stampPages, type Layer } from './stamp.js';
import { prepareText, REFERENCE_SIZE, textForm, type TextLine } from './text.js';

interface Common {
  /** Opens the document to mark; called once the watermark is prepared, so that a bad line or image is refused first. */
  open: () => Promise<PDFDocument>;
  /** The pages to mark (0-based) of a document of `count` pages; undefined: every page. */
  pages?: (count: number) => Iterable<number>;
  transparency: number;
  margin: number;
  position: Position;
  layer: Layer;
}

export interface TextWatermark extends Common {
  lines: TextLine[];
  /** Points; undefined: fitted to each page. */
  fontSize?: number;
  /** `#rrggbb`. */
  color: string;
  /** Degrees counter-clockwise; undefined: along each page's diagonal. */
  rotation?: number;
}

export interface ImageWatermark extends Common {
  image: Uint8Array;
  /** Percent of the visible page's width. */
  scale: number;
}

/** Share of the visible page's shorter side the longest line spans at the fitted size. */
const FITTED_SHARE = 0.6;

export async function addTextWatermark(options: TextWatermark): Promise<PdfPieces> {
  const text = await prepareText(options.lines);
  const form = textForm(text, rgbOf(options.color));
  const doc = await options.open();
  const pages = pageEntries(doc);
  const selected = options.pages === undefined ? pages.keys() : options.pages(pages.length);
  const fonts = new Map<string, PDFRef>();
  for (const [name, font] of text.fonts) fonts.set(name, await font.embed(doc.context));
  const formRef = registerForm(doc.context, { content: form.content, bbox: form.bbox, fonts, transparency: options.transparency });
  const widest = Math.max(text.widestPerPoint, 1e-3);

  const matrixFor = (view: ReaderView): Matrix => {
    const angle = options.rotation ?? diagonalDegrees(view);
    const size = options.fontSize ?? (FITTED_SHARE * Math.min(view.width, view.height)) / widest;
    let shape = compose(rotate(angle), scale(size / REFERENCE_SIZE));
    if (options.fontSize === undefined) {
      // Fitted: also small enough to stay inside the margins whatever the angle.
      const [x0, y0, x1, y1] = boundsOf(form.points, shape);
      const m = usableMargin(view, options.margin);
      const shrink = Math.min(1, (view.width - 2 * m) / (x1 - x0), (view.height - 2 * m) / (y1 - y0));
      if (shrink < 1) shape = compose(rotate(angle), scale((shrink * size) / REFERENCE_SIZE));
    }
    return placement(view, shape, form.points, options.position, options.margin);
  };
  stampPages(doc.context, pages, selected, { form: formRef, layer: options.layer, matrixFor });
  // Pieces: the CLI writes them out without joining 60 MB into one buffer.
  return saveDocumentPieces(doc, { storeObjectStreams: true });
}

const UNIT_SQUARE: Array<[number, number]> = [
  [0, 0],
  [1, 0],
  [0, 1],
  [1, 1],
];

export async function addImageWatermark(options: ImageWatermark): Promise<PdfPieces> {
  const image = await prepareImage(options.image);
  const doc = await options.open();
  const pages = pageEntries(doc);
  const selected = options.pages === undefined ? pages.keys() : options.pages(pages.length);
  const imageRef = await image.embed(doc.context);
  // The image fills the form's unit square; each page scales it to its size.
  const formRef = registerForm(doc.context, {
    content: image.turn ? `${image.turn.join(' ')} cm /PdfsvcImage Do` : '/PdfsvcImage Do',
    bbox: [0, 0, 1, 1],
    images: new Map([['PdfsvcImage', imageRef]]),
    transparency: options.transparency,
  });
  const aspect = image.height / image.width;
  const matrixFor = (view: ReaderView): Matrix => {
    let width = (options.scale / 100) * view.width;
    let height = width * aspect;
    const m = usableMargin(view, options.margin);
    const shrink = Math.min(1, (view.width - 2 * m) / width, (view.height - 2 * m) / height);
    width *= shrink;
    height *= shrink;
    return placement(view, [width, 0, 0, height, 0, 0], UNIT_SQUARE, options.position, options.margin);
  };
  stampPages(doc.context, pages, selected, { form: formRef, layer: options.layer, matrixFor });
  // Pieces: the CLI writes them out without joining 60 MB into one buffer.
  return saveDocumentPieces(doc, { storeObjectStreams: true });
}

function rgbOf(color: string): [number, number, number] {
  const n = parseInt(color.slice(1), 16);
  return [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
}
