/**
 * `serve` on the database: the keys every request is checked against, kept
 * in memory and followed within a second, and the usage counted for billing.
 *
 * Keys: the whole set of live keys is held in a KeyStore (the same lookup a
 * keys file feeds), so a request never waits on the database. Every 500 ms
 * the server reads the store's change counter (one row); when it has moved,
 * it loads the keys again. So a revoked key, a suspended account or a new
 * plan takes effect within about a second on every process that shares the
 * database. A database that cannot be reached keeps the last good set.
 *
 * Usage: each answered action request adds to counters in memory, per key,
 * region and UTC day; every second they are written in one statement (and
 * the keys' last use with them), and once more on shutdown. A crash loses at
 * most the last second; a write that fails is kept and retried.
 */
import type { RequestLogEntry } from './app.js';
import { KeyStore, type Region, type StoredKey } from './keys.js';
import type { Store, UsageDelta } from '../store/store.js';

export const KEYS_POLL_MS = 500;
export const USAGE_FLUSH_MS = 1000;

type Log = (event: string, fields?: Record<string, unknown>) => void;

export class DatabaseKeys {
  readonly keys: KeyStore;
  private version = -1;
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private failing = false;

  private constructor(
    private readonly store: Store,
    private readonly log: Log,
    keys: StoredKey[],
    version: number,
  ) {
    this.keys = new KeyStore(keys);
    this.version = version;
  }

  /** Loads the keys and starts following the database. */
  static async start(store: Store, log: Log, pollMs = KEYS_POLL_MS): Promise<DatabaseKeys> {
    // The counter first: a change made between the two reads is loaded again at the next poll.
    const version = await store.version();
    const watcher = new DatabaseKeys(store, log, await store.loadKeys(), version);
    watcher.timer = setInterval(() => void watcher.poll(), pollMs);
    watcher.timer.unref();
    return watcher;
  }

  /** Reads the counter, and the keys when it moved (or always, with `force`). */
  poll(force = false, reason = 'changed'): Promise<void> {
    this.polling ??= (async () => {
      try {
        const version = await this.store.version();
        if (force || version !== this.version) {
          const keys = await this.store.loadKeys();
          this.keys.replace(keys);
          this.version = version;
          this.log('keys_reloaded', { reason, keys: keys.length, version });
        }
        if (this.failing) this.log('keys_reload_recovered', {});
        this.failing = false;
      } catch (err) {
        // Logged once per run of failures; the last good keys stay in force.
        if (!this.failing) this.log('keys_reload_failed', { kept: this.keys.size, error: (err as Error).message });
        this.failing = true;
      } finally {
        this.polling = undefined;
      }
    })();
    return this.polling;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
  }
}

/** The status class a request is billed under; undefined for a request nobody got an answer to (499). */
function statusClass(status: number): 'requests2xx' | 'requests4xx' | 'requests5xx' | undefined {
  if (status >= 200 && status < 300) return 'requests2xx';
  if (status >= 400 && status < 499) return 'requests4xx';
  if (status >= 500) return 'requests5xx';
  return undefined;
}

export class UsageMeter {
  private counts = new Map<string, UsageDelta>();
  private lastUsed = new Map<string, Date>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(
    private readonly store: Store,
    private readonly region: Region,
    private readonly log: Log,
    flushMs = USAGE_FLUSH_MS,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  /** Counts one answered action request (a few map operations: no I/O). */
  record(key: StoredKey, entry: RequestLogEntry): void {
    if (!key.accountId) return;
    const kind = statusClass(entry.status);
    if (!kind) return;
    const day = entry.time.slice(0, 10);
    const id = `${key.id}\u0000${day}`;
    let delta = this.counts.get(id);
    if (!delta) {
      delta = {
        keyId: key.id,
        keyName: key.name,
        accountId: key.accountId,
        accountName: key.accountName ?? key.accountId,
        region: this.region,
        day,
        requests2xx: 0,
        requests4xx: 0,
        requests5xx: 0,
        pages: 0,
        bytesIn: 0,
        bytesOut: 0,
      };
      this.counts.set(id, delta);
    }
    delta[kind]++;
    delta.pages += entry.pages ?? 0;
    delta.bytesIn += entry.bytes_in;
    delta.bytesOut += entry.bytes_out;
    this.lastUsed.set(key.id, new Date(entry.time));
  }

  /** Writes what has been counted; what cannot be written is kept for the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.counts.size === 0 && this.lastUsed.size === 0) return;
      const counts = this.counts;
      const lastUsed = this.lastUsed;
      this.counts = new Map();
      this.lastUsed = new Map();
      try {
        await this.store.addUsage([...counts.values()]);
        if (this.failing) this.log('usage_flush_recovered', {});
        this.failing = false;
      } catch (err) {
        for (const [id, delta] of counts) this.merge(id, delta);
        for (const [id, at] of lastUsed) if (!(this.lastUsed.get(id)! >= at)) this.lastUsed.set(id, at);
        if (!this.failing) this.log('usage_flush_failed', { pending: this.counts.size, error: (err as Error).message });
        this.failing = true;
        return;
      }
      // Last use is a courtesy for the key list: a failure there loses no count.
      await this.store.touchKeys(lastUsed).catch(() => {});
    });
    return this.flushing;
  }

  private merge(id: string, delta: UsageDelta): void {
    const current = this.counts.get(id);
    if (!current) return void this.counts.set(id, delta);
    for (const name of ['requests2xx', 'requests4xx', 'requests5xx', 'pages', 'bytesIn', 'bytesOut'] as const) current[name] += delta[name];
  }

  /**
   * Stops the timer and writes the rest (shutdown). A database that does not
   * answer gets up to `retries` more tries a second apart; what is still
   * unwritten then is logged as lost (how many rows), never silently.
   */
  async stop(retries = 10): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    for (let attempt = 0; this.failing && attempt < retries; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await this.flush();
    }
    if (this.failing)
      this.log('usage_lost', {
        rows: this.counts.size,
        requests: [...this.counts.values()].reduce((n, d) => n + d.requests2xx + d.requests4xx + d.requests5xx, 0),
      });
  }
}
