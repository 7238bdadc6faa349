/**
 * `pdfsvc keys create|list|revoke|rotate`: on the database (src/store/cli.ts)
 * or on a keys file, whichever src/store/location.ts picks; the database
 * code is loaded only when it is the one.
 */
import { checkKeyName, rotatedOutName } from '../core/key-name.js';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { keySource, type StoreOptions } from '../store/location.js';
import { parseOptions, type OptionValues } from '../cli/options.js';
import { PLANS, hashKey, newKey, newKeyId, parseGrace, readKeysFile, updateKeysFile, type StoredKey } from './keys.js';
import { KEYS_OPTIONS } from './options.js';
import { printOut } from '../cli/stdout.js';

type KeysOptions = StoreOptions & { account?: string };

/** The keys file to work on, or undefined when the database is the place (then `database` has run the command). */
async function keysFileFor(options: KeysOptions, database: (cli: typeof import('../store/cli.js')) => Promise<void>): Promise<string | undefined> {
  const source = await keySource(options);
  if (source.kind === 'database') {
    await database(await import('../store/cli.js'));
    return undefined;
  }
  if (options.account) {
    const how = source.legacy
      ? `move its keys into the database with pdfsvc keys import, or name a database with --data-dir or --database-url`
      : 'leave out --keys-file to use the database';
    throw ValidationError.field('account', `keys in a keys file (${source.path}) have no accounts: ${how}`);
  }
  return source.path;
}

/** `raw` is what commander parsed (text): the database checks it its own way, a keys file by the declarations. */
export async function createKey(raw: KeysOptions & Record<string, unknown>): Promise<void> {
  const path = await keysFileFor(raw, (cli) => cli.keysCreate(raw as Parameters<typeof cli.keysCreate>[0]));
  if (path === undefined) return;
  if (raw.regions || raw.expires)
    throw ValidationError.field(
      raw.regions ? 'regions' : 'expires',
      'keys in a keys file cannot be limited to regions or given an expiry; use the database (leave out --keys-file)',
    );
  // Checked here, not before: the database refuses --plan whatever its value (a key has its account's plan).
  const options = parseOptions(KEYS_OPTIONS.create, raw);
  const { plan } = options;
  if (plan === undefined) throw ValidationError.field('plan', `must be one of ${PLANS.join(', ')}; got undefined`);
  if (options.name !== undefined) checkKeyName(options.name);
  const key = newKey();
  const { id, name } = await updateKeysFile(path, (file) => {
    const id = newKeyId();
    const name = options.name ?? `key-${id.slice(2)}`;
    if (file.keys.some((k) => k.name === name))
      throw ValidationError.field('name', `a key named ${JSON.stringify(name)} already exists; choose another name or revoke it first`);
    file.keys.push({ id, name, plan, hash: hashKey(key), created: new Date().toISOString() });
    return { id, name };
  });
  printOut(`${key}\n`);
  process.stderr.write(`created key ${id} (${name}, plan ${options.plan}) in ${path}; it is shown only this once\n`);
}

export async function listKeys(options: KeysOptions & OptionValues<typeof KEYS_OPTIONS.list>): Promise<void> {
  const path = await keysFileFor(options, (cli) => cli.keysList(options));
  if (path === undefined) return;
  const { keys } = await readKeysFile(path);
  // Never the hash or the key: what a key is for and when it stops working.
  const rows = keys.map(({ id, name, plan, created, expires }) => ({ id, name, plan, created, expires: expires ?? null }));
  if (options.json) {
    printOut(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) process.stderr.write(`no keys in ${path}\n`);
  for (const row of rows) printOut(`${row.id}\t${row.name}\t${row.plan}\tcreated ${row.created}\t${row.expires ? `expires ${row.expires}` : 'no expiry'}\n`);
}

export async function revokeKey(nameOrId: string, options: KeysOptions): Promise<void> {
  const path = await keysFileFor(options, (cli) => cli.keysRevoke(nameOrId, options));
  if (path === undefined) return;
  const revoked = await updateKeysFile(path, (file) => {
    const before = file.keys.length;
    file.keys = file.keys.filter((k) => k.id !== nameOrId && k.name !== nameOrId);
    if (file.keys.length === before) throw new PdfsvcError(404, `no key with the name or id ${JSON.stringify(nameOrId)} in ${path}`);
    return before - file.keys.length;
  });
  process.stderr.write(`revoked ${revoked} key(s)\n`);
}

/**
 * Replaces a key: a new one with the same plan (named NAME, the old one
 * renamed NAME-old-<id>, core/key-name.ts's rotatedOutName), printed once; the old one keeps working for the
 * grace period so it can be replaced where it is deployed, then stops.
 */
export async function rotateKey(nameOrId: string, options: KeysOptions & OptionValues<typeof KEYS_OPTIONS.rotate>): Promise<void> {
  const grace = parseGrace(options.grace);
  const path = await keysFileFor(options, (cli) => cli.keysRotate(nameOrId, options));
  if (path === undefined) return;
  const key = newKey();
  const { replaced, expires } = await updateKeysFile(path, (file) => {
    const old = file.keys.find((k) => k.id === nameOrId || k.name === nameOrId);
    if (!old) throw new PdfsvcError(404, `no key with the name or id ${JSON.stringify(nameOrId)} in ${path}`);
    const expires = new Date(Date.now() + grace).toISOString();
    const replacement: StoredKey = { id: newKeyId(), name: old.name, plan: old.plan, hash: hashKey(key), created: new Date().toISOString() };
    old.name = rotatedOutName(old.name, old.id);
    // An earlier expiry stays: rotating again never lengthens an old key's life.
    old.expires = old.expires && old.expires < expires ? old.expires : expires;
    file.keys.push(replacement);
    return { replaced: old, expires: old.expires };
  });
  printOut(`${key}\n`);
  process.stderr.write(`rotated ${nameOrId}: the new key is shown only this once; the old one (${replaced.id}) stops working at ${expires}\n`);
}
