/** `pdfsvc keys create|list|revoke`. */
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { PLANS, defaultKeysFile, hashKey, newKey, newKeyId, readKeysFile, writeKeysFile, type Plan } from './keys.js';

interface KeysOptions {
  keysFile?: string;
}

export async function createKey(options: KeysOptions & { plan: string; name?: string }): Promise<void> {
  if (!PLANS.includes(options.plan as Plan)) throw ValidationError.field('plan', `must be one of ${PLANS.join(', ')}; got ${JSON.stringify(options.plan)}`);
  const path = options.keysFile ?? defaultKeysFile();
  const file = await readKeysFile(path);
  const id = newKeyId();
  const name = options.name ?? `key-${id.slice(2)}`;
  if (file.keys.some((k) => k.name === name)) throw ValidationError.field('name', `a key named ${JSON.stringify(name)} already exists; choose another name or revoke it first`);
  const key = newKey();
  file.keys.push({ id, name, plan: options.plan as Plan, hash: hashKey(key), created: new Date().toISOString() });
  await writeKeysFile(path, file);
  process.stdout.write(`${key}\n`);
  process.stderr.write(`created key ${id} (${name}, plan ${options.plan}) in ${path}; it is shown only this once\n`);
}

export async function listKeys(options: KeysOptions & { json?: boolean }): Promise<void> {
  const path = options.keysFile ?? defaultKeysFile();
  const { keys } = await readKeysFile(path);
  const rows = keys.map(({ id, name, plan, created }) => ({ id, name, plan, created }));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) process.stderr.write(`no keys in ${path}\n`);
  for (const row of rows) process.stdout.write(`${row.id}\t${row.name}\t${row.plan}\t${row.created}\n`);
}

export async function revokeKey(nameOrId: string, options: KeysOptions): Promise<void> {
  const path = options.keysFile ?? defaultKeysFile();
  const file = await readKeysFile(path);
  const remaining = file.keys.filter((k) => k.id !== nameOrId && k.name !== nameOrId);
  if (remaining.length === file.keys.length) throw new PdfsvcError(404, `no key with the name or id ${JSON.stringify(nameOrId)} in ${path}`);
  await writeKeysFile(path, { ...file, keys: remaining });
  process.stderr.write(`revoked ${file.keys.length - remaining.length} key(s)\n`);
}
