/** `Accept` negotiation for split actions (docs/contract.md, "Split outputs"). */
import type { Packaging } from '../core/packaging.js';

const OFFERED: Record<string, Packaging> = {
  'application/zip': 'zip',
  'application/json': 'json',
  'multipart/mixed': 'multipart',
};

/** A weight as RFC 9110 §12.4.2 writes it: 0 to 1, at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The packaging the client ranks best among the three offered; no header
 * means ZIP. Wildcards do not count (`*\/*` alone is 406): a client that
 * accepts "anything" has not said which archive format it can read.
 * A range whose weight is not a qvalue (`q=high`, `q=1.5`, `q=`) counts as
 * not accepted, one rule for every malformed weight: guessing one would pick
 * a format the client may not have ranked. Returns undefined when none is
 * acceptable.
 */
export function negotiatePackaging(accept: string | null): Packaging | undefined {
  if (accept === null || accept.trim() === '') return 'zip';
  let best: { packaging: Packaging; q: number } | undefined;
  for (const item of accept.split(',')) {
    const [type, ...params] = item.split(';').map((s) => s.trim().toLowerCase());
    const packaging = OFFERED[type];
    if (!packaging) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=', 2).map((s) => s.trim());
      if (name !== 'q') continue;
      q = value !== undefined && QVALUE.test(value) ? Number(value) : 0;
    }
    if (q === 0) continue;
    if (!best || q > best.q) best = { packaging, q };
  }
  return best?.packaging;
}
