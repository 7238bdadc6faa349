/** Small human-readable pages: /v1/errors/<status>. */
import { STATUSES } from '../core/problem.js';

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export function errorPage(status: number): string {
  const { title, explanation } = STATUSES[status];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status} ${escape(title)}</title></head><body><h1>${status}: ${escape(title)}</h1><p>${escape(explanation)}</p><p>Problem objects of this type carry <code>"status": ${status}</code>. See <a href="/v1/openapi.json">the OpenAPI document</a>.</p></body></html>`;
}
