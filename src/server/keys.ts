/**
 * API keys. The keys file holds only SHA-256 hashes of keys, with plan, name
 * and creation time; a key itself is shown once, when it is created.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

import { ValidationError } from '../core/errors.js';
import type { Plan, Region } from '../core/plans.js';

export { PLAN_REGIONS, PLANS, REGIONS, type Plan, type Region } from '../core/plans.js';

export interface StoredKey {
  id: string;
  name: string;
  plan: Plan;
  /** Hex SHA-256 of the key. */
  hash: string;
  created: string;
  /** After this time the key no longer works (set by `keys rotate` for the key it replaces). */
  expires?: string;
  /** Keys from the database (src/store): the owning account. Keys files have no accounts. */
  accountId?: string;
  accountName?: string;
  /** The account is suspended: the key is known, and refused. */
  suspended?: boolean;
  /** Regions the key is limited to; absent: every region of its plan. */
  regions?: Region[];
}

export interface KeysFile {
  version: 1;
  keys: StoredKey[];
}

/** `$PDFSVC_KEYS_FILE`, else `$XDG_CONFIG_HOME/pdfsvc/keys.json` (default `~/.config`). */
export function defaultKeysFile(): string {
  if (process.env.PDFSVC_KEYS_FILE) return process.env.PDFSVC_KEYS_FILE;
  const config = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(config, 'pdfsvc', 'keys.json');
}

export async function readKeysFile(path: string): Promise<KeysFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, keys: [] };
    throw err;
  }
  const parsed = JSON.parse(text) as KeysFile;
  if (!parsed || !Array.isArray(parsed.keys)) throw new Error(`${path} is not a pdfsvc keys file`);
  return parsed;
}

async function writeKeysFile(path: string, file: KeysFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/**
 * Runs `change` on the keys file under a lock (a lock file made with O_EXCL
 * beside it), so that two `keys` commands at once never lose a key: each
 * reads the file the other wrote. A lock older than 30 s is taken as left by
 * a crashed command.
 */
export async function updateKeysFile<T>(path: string, change: (file: KeysFile) => T | Promise<T>): Promise<T> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const lock = `${path}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > 30_000) await rm(lock, { force: true });
      else if (attempt > 300) throw new Error(`the keys file is locked by another pdfsvc keys command (${lock}); remove the lock file if none is running`);
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  try {
    const file = await readKeysFile(path);
    const result = await change(file);
    await writeKeysFile(path, file);
    return result;
  } finally {
    await rm(lock, { force: true });
  }
}

/** "24h", "30m", "7d", "90s": a duration in milliseconds, or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)\s*$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'];
}

/**
 * A rotation's grace period (`--grace`), in ms: a duration, or `0` / `none`
 * for none (the old key stops at once, as the dashboard's "none" does).
 */
export function parseGrace(text = '24h'): number {
  if (/^\s*(0|none)\s*$/i.test(text)) return 0;
  const ms = parseDuration(text);
  if (ms === undefined) throw ValidationError.field('grace', `${JSON.stringify(text)} is not a duration; write it as 24h, 30m, 7d or 90s, or 0 for none`);
  return ms;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new random key: a recognisable prefix and 256 random bits. */
export function newKey(): string {
  return `pdfsvc_${randomBytes(32).toString('base64url')}`;
}

export function newKeyId(): string {
  return `k_${randomBytes(6).toString('hex')}`;
}

/** The shape every key has; anything else is refused without hashing. */
const KEY_SHAPE = /^pdfsvc_[A-Za-z0-9_-]{43}$/;

/** Finds the key a request presents, comparing hashes in constant time. */
export class KeyStore {
  private entries: Array<{ key: StoredKey; hash: Buffer; expires: number }> = [];

  constructor(keys: StoredKey[]) {
    this.replace(keys);
  }

  /** Takes a new set of keys at once (the keys file changed): requests from now on see only these. */
  replace(keys: StoredKey[]): void {
    this.entries = keys.map((key) => ({ key, hash: Buffer.from(key.hash, 'hex'), expires: key.expires ? Date.parse(key.expires) : Infinity }));
  }

  get size(): number {
    return this.entries.length;
  }

  find(presented: string | null | undefined): StoredKey | undefined {
    if (!presented || !KEY_SHAPE.test(presented)) return undefined;
    const hash = createHash('sha256').update(presented).digest();
    let found: StoredKey | undefined;
    const now = Date.now();
    // Compare against every entry so the time taken does not reveal which one matched.
    for (const entry of this.entries) {
      if (entry.hash.length === hash.length && timingSafeEqual(entry.hash, hash) && !(entry.expires <= now)) found ??= entry.key;
    }
    return found;
  }
}
