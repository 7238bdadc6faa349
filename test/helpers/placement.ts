/**
 * The page kinds every watermark is placed on, and the check that a rendered
 * watermark sits at its position (shared by both watermark test files).
 */
import { expect } from 'vitest';
import type { Box } from './render.js';

const DPI = 20;
const PX = DPI / 72;
/** Pixels of slack: one pixel is 3.6 pt at 20 dpi; anti-aliasing takes one more. */
const TOL = 2;

export const PAGE_KINDS = [
  { file: 'rotated.pdf', page: 1, kind: 'no /Rotate' },
  { file: 'rotated.pdf', page: 2, kind: '/Rotate 90' },
  { file: 'rotated.pdf', page: 3, kind: '/Rotate 180' },
  { file: 'rotated.pdf', page: 4, kind: '/Rotate 270' },
  { file: 'rotated.pdf', page: 5, kind: '/Rotate 90 inherited' },
  { file: 'boxes.pdf', page: 1, kind: 'MediaBox [100 200 712 992]' },
  { file: 'boxes.pdf', page: 2, kind: 'CropBox inside the MediaBox' },
  { file: 'boxes.pdf', page: 3, kind: 'MediaBox [-300 -400 312 392]' },
  { file: 'watermark-pages.pdf', page: 1, kind: 'unbalanced cm' },
  { file: 'watermark-pages.pdf', page: 4, kind: 'all at once (boxes off origin, CropBox, /Rotate 270, unbalanced cm)' },
  { file: 'watermark-pages.pdf', page: 5, kind: 'a q never closed, after a flipping cm' },
  { file: 'watermark-pages.pdf', page: 6, kind: 'a Q too many, then an unbalanced cm' },
] as const;

export const POSITIONS = ['center', 'top-left', 'top', 'top-right', 'left', 'right', 'bottom-left', 'bottom', 'bottom-right'] as const;

/** Checks a box against a position: `margin` (pt) from the anchored edges, centred otherwise. */
export function expectPlaced(box: Box, width: number, height: number, position: string, margin: number, where: string): void {
  const m = margin * PX;
  // Inside the visible page.
  expect(box.x0, `${where}: left edge`).toBeGreaterThanOrEqual(0);
  expect(box.y0, `${where}: top edge`).toBeGreaterThanOrEqual(0);
  expect(box.x1, `${where}: right edge`).toBeLessThan(width);
  expect(box.y1, `${where}: bottom edge`).toBeLessThan(height);
  const left = box.x0;
  const right = width - 1 - box.x1;
  const top = box.y0;
  const bottom = height - 1 - box.y1;
  if (position.endsWith('left')) expect(Math.abs(left - m), `${where}: left margin ${left}px, want ${m}px`).toBeLessThanOrEqual(TOL);
  else if (position.endsWith('right')) expect(Math.abs(right - m), `${where}: right margin ${right}px, want ${m}px`).toBeLessThanOrEqual(TOL);
  else expect(Math.abs(left - right), `${where}: centred horizontally (${left}px | ${right}px)`).toBeLessThanOrEqual(TOL);
  if (position.startsWith('top')) expect(Math.abs(top - m), `${where}: top margin ${top}px, want ${m}px`).toBeLessThanOrEqual(TOL);
  else if (position.startsWith('bottom')) expect(Math.abs(bottom - m), `${where}: bottom margin ${bottom}px, want ${m}px`).toBeLessThanOrEqual(TOL);
  else expect(Math.abs(top - bottom), `${where}: centred vertically (${top}px | ${bottom}px)`).toBeLessThanOrEqual(TOL);
}
