/** Escaping and formatting shared by the dashboard's pages. */

export function escapeHtml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Bytes in binary units, one decimal above a KiB. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** An instant as "2026-11-25 19:42 UTC": one time zone for every reader, as the audit log needs. */
export function formatTime(iso: string | Date | null | undefined): string {
  if (iso === null || iso === undefined) return '';
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(date.getTime())) return '';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "2026-11": the month a date falls in (UTC). */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function daysInMonth(month: string): number {
  const [year, m] = month.split('-').map(Number);
  return new Date(Date.UTC(year, m, 0)).getUTCDate();
}

/** A month as YYYY-MM from 2000 on, or undefined. */
export function parseMonth(text: string | null | undefined): string | undefined {
  if (!text || !/^(\d{4})-(0[1-9]|1[0-2])$/.test(text) || text < '2000-01') return undefined;
  return text;
}
