/**
 * Rate limits per plan: a key past its plan's limit gets 429 as problem+json
 * with Retry-After and the RateLimit-* fields (IETF draft), other plans and
 * other keys are not affected, and a bad --rate-limit is exit 2 naming it.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { parseRateLimits, RateLimiter } from '../../src/server/rate-limit.js';
import { fixture } from '../helpers/pdf-tools.js';
import { formRequest, inProcessApp, keys, problemOf } from './harness.js';
import { CLI, keysFile } from './spawn.js';

const rotate = (key: string) =>
  formRequest(
    'http://pdfsvc.test/v1/rotate_pages',
    [
      ['file', fixture('pages-1.pdf')],
      ['angle', '90'],
    ],
    { 'X-API-Key': key },
  );

describe('--rate-limit', () => {
  it('answers 429 with Retry-After and RateLimit-* once a free key has used its 3 requests; business keys go on', async () => {
    const app = inProcessApp('global', { rateLimiter: new RateLimiter(parseRateLimits('free=3/min')) });
    const statuses: number[] = [];
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 4; i++) {
      const response = await app.fetch(rotate(keys.free));
      statuses.push(response.status);
      remaining.push(response.headers.get('ratelimit-remaining'));
      if (response.status === 429) {
        expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
        const retry = Number(response.headers.get('retry-after'));
        expect(retry).toBeGreaterThan(0);
        expect(retry).toBeLessThanOrEqual(60);
        expect(response.headers.get('ratelimit-limit')).toBe('3');
        expect(response.headers.get('ratelimit-reset')).toBe(String(retry));
        const problem = await problemOf(response);
        expect(problem.status).toBe(429);
        expect(problem.detail).toMatch(/its 3 requests for now \(the free plan's limit\); retry in \d+ s/);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(remaining).toEqual(['2', '1', '0', '0']);
    // Another plan is not limited, nor counted.
    for (let i = 0; i < 5; i++) expect((await app.fetch(rotate(keys.business))).status).toBe(200);
  });

  it('every answer to a limited key carries its RateLimit-* fields, refusals too: each request counted is told', async () => {
    const app = inProcessApp('global', { rateLimiter: new RateLimiter(parseRateLimits('free=10/min')) });
    const send = (fields: Array<[string, string | Uint8Array]>, headers: Record<string, string> = {}, action = 'rotate_pages') =>
      app.fetch(formRequest(`http://pdfsvc.test/v1/${action}`, fields, { 'X-API-Key': keys.free, ...headers }));
    const answers = [
      await send([
        ['file', fixture('pages-1.pdf')],
        ['angle', '90'],
      ]),
      await send([
        ['file', fixture('pages-1.pdf')],
        ['angle', '45'],
      ]),
      await send([
        ['file', fixture('not-a-pdf.pdf')],
        ['angle', '90'],
      ]),
      await send(
        [
          ['file', fixture('pages-1.pdf')],
          ['page_count', '1'],
        ],
        { Accept: '*/*' },
        'split_by_page_count',
      ),
      await app.fetch(
        new Request('http://pdfsvc.test/v1/rotate_pages', {
          method: 'POST',
          body: '{}',
          headers: { 'X-API-Key': keys.free, 'Content-Type': 'application/json' },
        }),
      ),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 400, 400, 406, 415]);
    expect(answers.map((answer) => answer.headers.get('ratelimit-remaining'))).toEqual(['9', '8', '7', '6', '5']);
    for (const answer of answers) expect(answer.headers.get('ratelimit-limit')).toBe('10');
  });

  it('starts a new window when the old one ends', () => {
    const limiter = new RateLimiter(parseRateLimits('starter=2/s'));
    const key = { id: 'k_x', name: 'x', plan: 'starter' as const, hash: '', created: '' };
    expect([0, 10, 20].map((t) => limiter.take(key, 1_000_000 + t)?.allowed)).toEqual([true, true, false]);
    expect(limiter.take(key, 1_001_000)?.allowed).toBe(true);
  });

  it('a limit that does not parse is exit 2 naming --rate-limit', async () => {
    const { path } = await keysFile();
    const run = await execa('node', [CLI, 'serve', '--port', '0', '--keys-file', path, '--rate-limit', 'gold=5/min'], { reject: false, timeout: 20_000 });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/pdfsvc: rate-limit: "gold=5\/min" is not PLAN=N\/UNIT/);
  });
});
