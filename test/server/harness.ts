/**
 * Builds the HTTP app in process with keys for every plan, and sends
 * multipart requests to it: through app.fetch, or to a real listening
 * server, with the same helper.
 */
import { actions } from '../../src/actions/index.js';
import type { AnyAction } from '../../src/core/action.js';
import { createApp, type AppOptions } from '../../src/server/app.js';
import { KeyStore, hashKey, newKey, type Plan, type Region } from '../../src/server/keys.js';

export const keys: Record<Plan, string> = { free: newKey(), starter: newKey(), business: newKey() };

export function inProcessApp(
  region: Region = 'global',
  options: Partial<
    Pick<AppOptions, 'maxUploadBytes' | 'errorTypeBase' | 'run' | 'poolStatus' | 'requestTimeoutMs' | 'log' | 'memoryBudget' | 'rateLimiter'>
  > = {},
) {
  const store = new KeyStore(
    (Object.keys(keys) as Plan[]).map((plan) => ({ id: `k_${plan}`, name: `${plan}-key`, plan, hash: hashKey(keys[plan]), created: '2026-01-01T00:00:00Z' })),
  );
  return createApp({
    actions: actions as readonly AnyAction[],
    region,
    keys: store,
    maxUploadBytes: options.maxUploadBytes ?? 100 * 1024 * 1024,
    errorTypeBase: options.errorTypeBase,
    run: options.run,
    poolStatus: options.poolStatus,
    requestTimeoutMs: options.requestTimeoutMs,
    log: options.log,
    memoryBudget: options.memoryBudget,
    rateLimiter: options.rateLimiter,
    version: 'test',
  });
}

export type Part = string | Uint8Array | { bytes: Uint8Array; filename?: string; type?: string };

/** A multipart/form-data request; repeated names are sent as repeated parts, in order. */
export function formRequest(url: string, fields: Array<[string, Part]>, headers: Record<string, string> = {}): Request {
  const form = new FormData();
  for (const [name, value] of fields) {
    if (typeof value === 'string') form.append(name, value);
    else if (value instanceof Uint8Array) form.append(name, new Blob([value], { type: 'application/pdf' }), `${name}.pdf`);
    else form.append(name, new Blob([value.bytes], { type: value.type ?? 'application/octet-stream' }), value.filename ?? name);
  }
  return new Request(url, { method: 'POST', body: form, headers });
}

/** A problem object (RFC 9457) as pdfsvc answers one. */
interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: Record<string, string[]>;
}

export async function problemOf(response: Response): Promise<Problem> {
  if (response.headers.get('content-type') !== 'application/problem+json') {
    throw new Error(`expected a problem object, got ${response.status} ${response.headers.get('content-type')}`);
  }
  return (await response.json()) as Problem;
}
