/**
 * The values of the metrics' `action` label: the catalog's actions only.
 * Requests go through the in-process app, whose request log feeds the
 * metrics as `pdfsvc serve` wires them.
 */
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/server/app.js';
import { Metrics } from '../../src/server/metrics.js';
import { fixture } from '../helpers/pdf-tools.js';
import { formRequest, inProcessApp, keys } from './harness.js';

describe('metrics labels', () => {
  it('an unknown path under /v1/ adds no series, however many are asked for; an action does, by whichever path the router took', async () => {
    const metrics = new Metrics({
      pool: () => ({ threads: 1, busy: 0, queued: 0, max_queue: 1 }),
      inFlight: () => 0,
      uploadsInFlight: () => 0,
      memory: () => ({ max_bytes: 1, in_use_bytes: 0, refused: 0 }),
      keyLabels: false,
    });
    const app = inProcessApp('global', { log: (entry: RequestLogEntry) => metrics.observe(entry) });
    const base = 'http://pdfsvc.test';
    const seriesCount = async () => (await metrics.registry.metrics()).split('\n').filter((line) => line.startsWith('pdfsvc_')).length;

    for (const path of ['/v1/rotate_pages', '/v1/rotate_pages/', '/v1/rotate%5Fpages']) {
      const answered = await app.fetch(
        formRequest(
          `${base}${path}`,
          [
            ['file', fixture('pages-3.pdf')],
            ['angle', '90'],
          ],
          { 'X-API-Key': keys.business },
        ),
      );
      expect(answered.status, path).toBe(200);
    }
    const afterAction = await seriesCount();
    const exposition = await metrics.registry.metrics();
    expect(exposition).toMatch(/^pdfsvc_requests_total\{action="rotate_pages",status="200",region="global"\} 3$/m);
    expect(exposition).toMatch(/^pdfsvc_pages_processed_total\{action="rotate_pages"\} 9$/m);

    // No key needed: a 404 is answered before the key is checked. Names of letters, as actions' are.
    const letter = (n: number) => String.fromCharCode(97 + (n % 26));
    for (let i = 0; i < 50; i++) {
      const missing = await app.fetch(new Request(`${base}/v1/no_such_action_${letter(i)}${letter(i / 26)}`, { method: 'POST' }));
      expect(missing.status).toBe(404);
    }
    expect(await seriesCount()).toBe(afterAction);
    expect(await metrics.registry.metrics()).not.toMatch(/no_such_action/);
  });
});
