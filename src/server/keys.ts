/**
 * API keys. The keys file holds only SHA-256 hashes of keys, with plan, name
 * and creation time; a key itself is shown once, when it is created.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const PLANS = ['free', 'starter', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export const REGIONS = ['global', 'us', 'us-hipaa', 'eu', 'uk', 'ca', 'au', 'jp', 'in', 'br'] as const;
export type Region = (typeof REGIONS)[number];

/** SERVICE.md, "Region availability by plan". */
export const PLAN_REGIONS: Record<Plan, readonly Region[]> = {
  free: ['global'],
  starter: ['global', 'us', 'eu'],
  business: REGIONS,
};

export interface StoredKey {
  id: string;
  name: string;
  plan: Plan;
  /** Hex SHA-256 of the key. */
  hash: string;
  created: string;
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

export async function writeKeysFile(path: string, file: KeysFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
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
  private entries: Array<{ key: StoredKey; hash: Buffer }> = [];

  constructor(keys: StoredKey[]) {
    this.replace(keys);
  }

  /** Takes a new set of keys at once (the keys file changed): requests from now on see only these. */
  replace(keys: StoredKey[]): void {
    this.entries = keys.map((key) => ({ key, hash: Buffer.from(key.hash, 'hex') }));
  }

  get size(): number {
    return this.entries.length;
  }

  find(presented: string | null | undefined): StoredKey | undefined {
    if (!presented || !KEY_SHAPE.test(presented)) return undefined;
    const hash = createHash('sha256').update(presented).digest();
    let found: StoredKey | undefined;
    // Compare against every entry so the time taken does not reveal which one matched.
    for (const entry of this.entries) {
      if (entry.hash.length === hash.length && timingSafeEqual(entry.hash, hash)) found ??= entry.key;
    }
    return found;
  }
}
