/** `Accept` negotiation for split actions (docs/contract.md, "Split outputs"). */
import type { Packaging } from '../core/packaging.js';

const OFFERED: Record<string, Packaging> = {
  'application/zip': 'zip',
  'application/json': 'json',
  'multipart/mixed': 'multipart',
};

/**
 * The packaging the client ranks best among the three offered; no header
 * means ZIP. Wildcards do not count (`*\/*` alone is 406): a client that
 * accepts "anything" has not said which archive format it can read.
 * Returns undefined when none is acceptable.
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
      const match = /^q=([0-9.]+)$/.exec(param);
      if (match) q = Number(match[1]);
    }
    if (!(q > 0) || q > 1) continue;
    if (!best || q > best.q) best = { packaging, q };
  }
  return best?.packaging;
}
