/**
 * The usage chart: an inline SVG drawn on the server from the month's
 * numbers, so the page needs no script, no font and no request for it. One
 * bar per day, stacked by key; the table beside it has the exact numbers
 * (and is what a screen reader reads: the SVG has a title and description).
 */
import { escapeHtml } from './html.js';

export interface ChartSeries {
  label: string;
  /** One value per day of the month, day 1 first. */
  values: number[];
}

/** Colours that stay apart for the common kinds of colour blindness (Okabe-Ito). */
const SERIES_COLOURS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#000000'];

const WIDTH = 720;
const HEIGHT = 240;
const LEFT = 56;
const RIGHT = 8;
const TOP = 12;
const BOTTOM = 28;

/** A round top for the axis (4 ticks of 1, 2 or 5 times a power of ten, never below 1: counts are whole), and its step. */
function axis(max: number): { top: number; step: number } {
  for (let magnitude = 1; ; magnitude *= 10) {
    for (const factor of [1, 2, 5]) {
      const step = factor * magnitude;
      if (step * 4 >= max) return { top: step * 4, step };
    }
  }
}

export function usageChart(id: string, title: string, series: ChartSeries[], days: number, format: (n: number) => string): string {
  const totals = Array.from({ length: days }, (_, day) => series.reduce((sum, s) => sum + (s.values[day] ?? 0), 0));
  const { top, step } = axis(Math.max(0, ...totals));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / days;
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const parts: string[] = [];
  for (let tick = 0; tick <= top + step / 2; tick += step) {
    const ty = y(tick).toFixed(1);
    parts.push(`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${ty}" y2="${ty}" stroke="#d0d0d0" stroke-width="1"/>`);
    parts.push(`<text x="${LEFT - 6}" y="${ty}" text-anchor="end" dominant-baseline="middle" font-size="11" fill="#333">${escapeHtml(format(tick))}</text>`);
  }
  for (let day = 0; day < days; day++) {
    let base = 0;
    const x = (LEFT + day * slot + (slot - barWidth) / 2).toFixed(1);
    series.forEach((s, index) => {
      const value = s.values[day] ?? 0;
      if (value <= 0) return;
      const y0 = y(base);
      const y1 = y(base + value);
      base += value;
      parts.push(
        `<rect x="${x}" y="${y1.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${Math.max(0.5, y0 - y1).toFixed(1)}" fill="${SERIES_COLOURS[index % SERIES_COLOURS.length]}"><title>day ${day + 1}, ${escapeHtml(s.label)}: ${escapeHtml(format(value))}</title></rect>`,
      );
    });
    if (day === 0 || (day + 1) % 5 === 0) {
      parts.push(
        `<text x="${(LEFT + day * slot + slot / 2).toFixed(1)}" y="${HEIGHT - BOTTOM + 16}" text-anchor="middle" font-size="11" fill="#333">${day + 1}</text>`,
      );
    }
  }
  parts.push(`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(0)}" y2="${y(0)}" stroke="#333" stroke-width="1"/>`);
  const total = totals.reduce((a, b) => a + b, 0);
  const busiest = totals.indexOf(Math.max(...totals));
  const description = total === 0 ? 'No usage this month.' : `Total ${format(total)}; busiest day ${busiest + 1} with ${format(totals[busiest])}.`;
  const legend = series
    .map(
      (s, index) =>
        `<li><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${SERIES_COLOURS[index % SERIES_COLOURS.length]}"/></svg> ${escapeHtml(s.label)}</li>`,
    )
    .join('');
  return (
    `<figure class="chart"><svg id="${escapeHtml(id)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${escapeHtml(id)}-title ${escapeHtml(id)}-desc" preserveAspectRatio="xMidYMid meet">` +
    `<title id="${escapeHtml(id)}-title">${escapeHtml(title)}</title><desc id="${escapeHtml(id)}-desc">${escapeHtml(description)}</desc>${parts.join('')}</svg>` +
    `<figcaption>${escapeHtml(title)}. ${escapeHtml(description)}${legend ? `<ul class="legend">${legend}</ul>` : ''}</figcaption></figure>`
  );
}
