/**
 * Rate limits per plan, enforced per key by one process (`--rate-limit
 * free=60/min,starter=600/min,business=6000/min`; off by default). Several
 * processes behind a load balancer need the limit where all requests pass:
 * deploy/nginx.conf's limit_req. Fixed windows: simple, and a client reads
 * from RateLimit-Reset when the next one starts.
 */
import { ValidationError } from '../core/errors.js';
import { PLANS, type Plan, type StoredKey } from './keys.js';

export interface RateLimit {
  limit: number;
  windowMs: number;
}

const UNITS: Record<string, number> = { s: 1000, sec: 1000, min: 60_000, m: 60_000, h: 3_600_000, hour: 3_600_000 };

/** "free=60/min,starter=600/min": the limit of each plan named; plans not named are not limited. */
export function parseRateLimits(text: string): Map<Plan, RateLimit> {
  const limits = new Map<Plan, RateLimit>();
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([a-z]+)=(\d+)\/(s|sec|min|m|h|hour)$/.exec(part);
    if (!match || !PLANS.includes(match[1] as Plan) || Number(match[2]) < 1) {
      throw ValidationError.field(
        'rate-limit',
        `${JSON.stringify(part)} is not PLAN=N/UNIT with a plan of ${PLANS.join(', ')} and a unit of s, min or h (for example free=60/min)`,
      );
    }
    limits.set(match[1] as Plan, { limit: Number(match[2]), windowMs: UNITS[match[3]] });
  }
  return limits;
}

export interface RateVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window starts again. */
  reset: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; used: number }>();

  constructor(private readonly limits: Map<Plan, RateLimit>) {}

  /** Counts one request of `key`; undefined when its plan is not limited. */
  take(key: StoredKey, now = Date.now()): RateVerdict | undefined {
    const rule = this.limits.get(key.plan);
    if (!rule) return undefined;
    let window = this.windows.get(key.id);
    if (!window || now - window.start >= rule.windowMs) {
      window = { start: now, used: 0 };
      this.windows.set(key.id, window);
    }
    const reset = Math.max(1, Math.ceil((window.start + rule.windowMs - now) / 1000));
    if (window.used >= rule.limit) return { allowed: false, limit: rule.limit, remaining: 0, reset };
    window.used++;
    return { allowed: true, limit: rule.limit, remaining: rule.limit - window.used, reset };
  }
}

/** The IETF draft's fields (RateLimit header fields for HTTP): limit, what is left, seconds to the next window. */
export function rateLimitHeaders(verdict: RateVerdict): Record<string, string> {
  return { 'RateLimit-Limit': String(verdict.limit), 'RateLimit-Remaining': String(verdict.remaining), 'RateLimit-Reset': String(verdict.reset) };
}
