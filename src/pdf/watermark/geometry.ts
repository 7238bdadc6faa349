/**
 * Where a watermark goes: the page as the reader sees it.
 *
 * "Reader space" is the visible area (CropBox ∩ MediaBox) turned by the page's
 * /Rotate, upright, with its origin at the bottom-left corner of what the
 * reader sees and units of default user space. One matrix maps it into the
 * page's default user space, so every placement rule (position, margin,
 * rotation, fitting) is written once, in reader space, and holds on rotated
 * pages and on boxes that do not start at the origin alike.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber } from '../model/primitives.js';
import { effectiveRotation } from '../structure/page-tree.js';

/** A PDF transformation matrix [a b c d e f]: x' = a·x + c·y + e, y' = b·x + d·y + f. */
export type Matrix = readonly [number, number, number, number, number, number];

/** `outer × inner`: apply `inner` first, then `outer` (PDF's `inner outer` concatenation). */
export function compose(outer: Matrix, inner: Matrix): Matrix {
  const [a, b, c, d, e, f] = inner;
  const [A, B, C, D, E, F] = outer;
  return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F];
}

function translate(x: number, y: number): Matrix {
  return [1, 0, 0, 1, x, y];
}

export function scale(s: number): Matrix {
  return [s, 0, 0, s, 0, 0];
}

/** Counter-clockwise by `degrees`, as the reader sees it. */
export function rotate(degrees: number): Matrix {
  const r = (degrees * Math.PI) / 180;
  // Snap exact quarter turns so that 90° gives 0, not 6e-17.
  const cos = Math.abs(Math.cos(r)) < 1e-12 ? 0 : Math.cos(r);
  const sin = Math.abs(Math.sin(r)) < 1e-12 ? 0 : Math.sin(r);
  return [cos, sin, -sin, cos, 0, 0];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** A rectangle as [x0, y0, x1, y1] with x0 ≤ x1 and y0 ≤ y1. */
export type Box = readonly [number, number, number, number];

export interface ReaderView {
  /** Width and height of the visible area as the reader sees it (after /Rotate). */
  width: number;
  height: number;
  /** Maps reader space into the page's default user space. */
  toUser: Matrix;
  /** The visible area in default user space, the page's rotation and its /UserUnit (points per unit). */
  box: Box;
  rotation: number;
  unit: number;
}

const MEDIA_BOX = PDFName.of('MediaBox');
const CROP_BOX = PDFName.of('CropBox');

/** A page's box (asked for each page watermarked: plain loops, no arrays made on the way). */
function boxOf(page: PDFDict, key: PDFName): Box | undefined {
  const value = page.lookup(key);
  if (!(value instanceof PDFArray) || value.size() !== 4) return undefined;
  const items = value.asArray();
  const n = [0, 0, 0, 0];
  for (let k = 0; k < 4; k++) {
    const v = page.context.lookup(items[k]);
    if (!(v instanceof PDFNumber)) return undefined;
    n[k] = v.asNumber();
    if (!Number.isFinite(n[k])) return undefined;
  }
  // Readers accept any two opposite corners.
  return [Math.min(n[0], n[2]), Math.min(n[1], n[3]), Math.max(n[0], n[2]), Math.max(n[1], n[3])];
}

/** CropBox ∩ MediaBox (what a reader shows); the MediaBox when they do not meet. */
function visibleBox(page: PDFDict): Box {
  const media = boxOf(page, MEDIA_BOX) ?? [0, 0, 612, 792];
  const crop = boxOf(page, CROP_BOX);
  if (!crop) return media;
  const box: Box = [Math.max(media[0], crop[0]), Math.max(media[1], crop[1]), Math.min(media[2], crop[2]), Math.min(media[3], crop[3])];
  return box[2] - box[0] > 0 && box[3] - box[1] > 0 ? box : media;
}

const ROTATE = PDFName.of('Rotate');
const USER_UNIT = PDFName.of('UserUnit');

/** Points per unit of the page's user space (PDF 1.6): 1 unless a positive /UserUnit says otherwise. */
function userUnit(page: PDFDict): number {
  const value = page.lookup(USER_UNIT);
  const unit = value instanceof PDFNumber ? value.asNumber() : 1;
  return Number.isFinite(unit) && unit > 0 ? unit : 1;
}

/**
 * Whether `page` has the same boxes, rotation and unit as `other`, told from their
 * direct values (numbers compared; anything else, such as a reference to a
 * number, counts as different): then it has the same view (readerView). Most
 * pages share the one before's, and asking is cheaper than working the view
 * out again (2,000 pages, interpreted).
 */
export function sameGeometry(page: PDFDict, other: PDFDict): boolean {
  return (
    sameValue(page.get(MEDIA_BOX), other.get(MEDIA_BOX)) &&
    sameValue(page.get(CROP_BOX), other.get(CROP_BOX)) &&
    sameValue(page.get(ROTATE), other.get(ROTATE)) &&
    sameValue(page.get(USER_UNIT), other.get(USER_UNIT))
  );
}

function sameValue(a: unknown, b: unknown): boolean {
  // The same object (or both absent) reads the same.
  if (a === b) return true;
  if (a instanceof PDFNumber) return b instanceof PDFNumber && a.asNumber() === b.asNumber();
  if (!(a instanceof PDFArray && b instanceof PDFArray) || a.size() !== 4 || b.size() !== 4) return false;
  const x = a.asArray();
  const y = b.asArray();
  for (let k = 0; k < 4; k++) {
    const u = x[k];
    const v = y[k];
    if (!(u instanceof PDFNumber && v instanceof PDFNumber && u.asNumber() === v.asNumber())) return false;
  }
  return true;
}

/**
 * Reader space of a page. /Rotate turns the page clockwise for display, so
 * the reader's bottom-left corner is the visible box's bottom-left (0°),
 * bottom-right (90°), top-right (180°) or top-left (270°).
 */
export function readerView(page: PDFDict): ReaderView {
  const box = visibleBox(page);
  const rotation = effectiveRotation(page);
  const unit = userUnit(page);
  const [x0, y0, x1, y1] = box;
  const w = x1 - x0;
  const h = y1 - y0;
  const view = (width: number, height: number, toUser: Matrix): ReaderView =>
    unit === 1
      ? { width, height, toUser, box, rotation, unit }
      : { width: width * unit, height: height * unit, toUser: compose(toUser, scale(1 / unit)), box, rotation, unit };
  switch (rotation) {
    case 90:
      return view(h, w, [0, 1, -1, 0, x1, y0]);
    case 180:
      return view(w, h, [-1, 0, 0, -1, x1, y1]);
    case 270:
      return view(h, w, [0, -1, 1, 0, x0, y1]);
    default:
      return view(w, h, [1, 0, 0, 1, x0, y0]);
  }
}

const POSITIONS = ['center', 'top-left', 'top', 'top-right', 'left', 'right', 'bottom-left', 'bottom', 'bottom-right'] as const;
export type Position = (typeof POSITIONS)[number];

/** The default rotation: along the visible page's diagonal, bottom-left to top-right. */
export function diagonalDegrees(view: { width: number; height: number }): number {
  return (Math.atan2(view.height, view.width) * 180) / Math.PI;
}

/** The margin actually used: never so large that less than half of the shorter side is left. */
export function usableMargin(view: { width: number; height: number }, margin: number): number {
  return Math.min(margin, Math.min(view.width, view.height) / 4);
}

/** Bounding box of points after a transformation. */
export function boundsOf(points: ReadonlyArray<readonly [number, number]>, m: Matrix): Box {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (const [px, py] of points) {
    const [x, y] = apply(m, px, py);
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return [x0, y0, x1, y1];
}

/**
 * The matrix that puts content at `position` on a page: `shape` maps the
 * content's own space into reader space up to a translation (its rotation and
 * scale); `points` outline the content's ink in its own space. The content's
 * bounding box is then moved to the anchor, `margin` from the visible edges
 * it is anchored to, and kept inside the visible area whenever it fits there
 * (a box wider than the area minus both margins is centred on that axis).
 */
export function placement(view: ReaderView, shape: Matrix, points: ReadonlyArray<readonly [number, number]>, position: Position, margin: number): Matrix {
  const [bx0, by0, bx1, by1] = boundsOf(points, shape);
  const bw = bx1 - bx0;
  const bh = by1 - by0;
  const m = usableMargin(view, margin);
  const axis = (size: number, extent: number, where: 'low' | 'mid' | 'high'): number => {
    // Where the box's low edge goes on this axis.
    if (where === 'mid' || extent >= size - 2 * m) {
      if (extent > size - 2 * m && where !== 'mid' && extent <= size) {
        // Fits the page but not inside both margins: as close to the anchored edge as the page allows.
        return where === 'low' ? Math.min(m, size - extent) : Math.max(size - m - extent, 0);
      }
      return (size - extent) / 2;
    }
    return where === 'low' ? m : size - m - extent;
  };
  const horizontal = position.endsWith('left') ? 'low' : position.endsWith('right') ? 'high' : 'mid';
  const vertical = position.startsWith('top') ? 'high' : position.startsWith('bottom') ? 'low' : 'mid';
  const x = axis(view.width, bw, horizontal);
  const y = axis(view.height, bh, vertical);
  return compose(view.toUser, compose(translate(x - bx0, y - by0), shape));
}

/** A matrix as PDF operands: short, no exponents. */
export function formatMatrix(m: Matrix): string {
  return m.map(formatNumber).join(' ');
}

export function formatNumber(n: number): string {
  if (Math.abs(n) < 1e-9) return '0';
  const text = n.toFixed(5).replace(/0+$/, '').replace(/\.$/, '');
  return text === '-0' ? '0' : text;
}
