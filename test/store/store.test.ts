/**
 * The store (src/store/store.ts) against each database it runs on: the same
 * tests, the same queries, on the embedded default and on a real PostgreSQL.
 * What a server would see is judged through KeyStore, the lookup the server
 * uses: a key the store created, imported, rotated or revoked is found or
 * refused by it as a request would be.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { KeyStore, hashKey, newKey, type StoredKey } from '../../src/server/keys.js';
import { openDatabase } from '../../src/store/database.js';
import { LATEST_VERSION, migrate } from '../../src/store/migrations.js';
import { hashPassword, verifyPassword } from '../../src/store/secrets.js';
import { openStore, Store, type UsageDelta } from '../../src/store/store.js';
import { BACKENDS } from './backends.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let counter = 0;
/** A name no other test in the file uses. */
const unique = (prefix: string) => `${prefix}-${++counter}`;

async function validationField(promise: Promise<unknown>): Promise<string[]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  return Object.keys((err as ValidationError).errors);
}

function delta(over: Partial<UsageDelta> & Pick<UsageDelta, 'keyId' | 'accountId'>): UsageDelta {
  return {
    keyName: 'k',
    accountName: 'a',
    region: 'global',
    day: '2026-11-03',
    requests2xx: 0,
    requests4xx: 0,
    requests5xx: 0,
    pages: 0,
    bytesIn: 0,
    bytesOut: 0,
    ...over,
  };
}

/** A name the rule of before allowed (up to 100 characters, none a control character) and today's refuses. */
const OLD_STYLE_NAME = 'build #1 (ci/cd) — ünïcode';

describe.each(BACKENDS)('store on $name', (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore(await backend.fresh());
  });
  afterAll(async () => {
    await store?.close();
  });

  it('accounts: created with a plan and status; names and e-mail addresses are unique; bad input names its field', async () => {
    const name = unique('acme');
    const account = await store.createAccount({ name, email: `${name}@example.test`, plan: 'starter' });
    expect(account).toMatchObject({ name, email: `${name}@example.test`, plan: 'starter', status: 'active', passwordHash: null });
    expect(account.id).toMatch(/^a_[0-9a-f]{12}$/);
    expect(await validationField(store.createAccount({ name, email: 'other@example.test', plan: 'free' }))).toEqual(['name']);
    expect(await validationField(store.createAccount({ name: unique('b'), email: `${name.toUpperCase()}@EXAMPLE.TEST`, plan: 'free' }))).toEqual(['email']);
    expect(await validationField(store.createAccount({ name: unique('c'), email: 'c@example.test', plan: 'gold' }))).toEqual(['plan']);
    expect(await validationField(store.createAccount({ name: 'has space', email: 'd@example.test', plan: 'free' }))).toEqual(['name']);
    expect(await validationField(store.createAccount({ name: unique('e'), email: 'not-an-address', plan: 'free' }))).toEqual(['email']);

    expect((await store.setPlan(name, 'business')).plan).toBe('business');
    expect((await store.setStatus(name, 'suspended')).status).toBe('suspended');
    expect((await store.findAccount(account.id))?.status).toBe('suspended');
    expect((await store.findAccountByEmail(`${name.toUpperCase()}@example.test`))?.id).toBe(account.id);
    const listed = (await store.listAccounts()).find((a) => a.id === account.id);
    expect(listed).toMatchObject({ name, plan: 'business', status: 'suspended', keys: 0 });
    await expect(store.setPlan('nobody', 'free')).rejects.toMatchObject({ status: 404 });
  });

  it("keys: shown once, stored as SHA-256 only, with the account's plan; a server finds them through KeyStore", async () => {
    const name = unique('keys');
    const account = await store.createAccount({ name, email: `${name}@example.test`, plan: 'starter' });
    const { key, record } = await store.createKey({ account: name, name: 'ci' });
    expect(key).toMatch(/^pdfsvc_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({
      accountId: account.id,
      accountName: name,
      name: 'ci',
      plan: 'starter',
      regions: null,
      expires: null,
      lastUsed: null,
      revokedAt: null,
    });
    expect(record.prefix).toBe(key.slice(0, 13));
    // What the database holds: the hash, never the key.
    const [row] = await store.db.query<Record<string, unknown>>('select * from api_keys where id = $1', [record.id]);
    expect(row.hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(key);

    const lookup = new KeyStore(await store.loadKeys());
    expect(lookup.find(key)).toMatchObject({ id: record.id, plan: 'starter', accountId: account.id, accountName: name });
    expect(lookup.find(key)?.suspended).toBeUndefined();
    expect(lookup.find(newKey())).toBeUndefined();

    // The plan is the account's: changing it changes every key's.
    await store.setPlan(name, 'business');
    expect(new KeyStore(await store.loadKeys()).find(key)?.plan).toBe('business');
    await store.setStatus(name, 'suspended');
    expect(new KeyStore(await store.loadKeys()).find(key)?.suspended).toBe(true);

    // A live key's name is unique within its account.
    expect(await validationField(store.createKey({ account: name, name: 'ci' }))).toEqual(['name']);
    const listed = await store.listKeys({ account: name });
    expect(listed.map((k) => k.name)).toEqual(['ci']);
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(JSON.stringify(listed)).not.toContain(hashKey(key));
  });

  it("keys: regions must be the plan's; an expiry must be in the future; an expired key is not loaded", async () => {
    const name = unique('regions');
    await store.createAccount({ name, email: `${name}@example.test`, plan: 'starter' });
    expect(await validationField(store.createKey({ account: name, regions: ['jp'] }))).toEqual(['regions']);
    expect(await validationField(store.createKey({ account: name, regions: ['mars'] }))).toEqual(['regions']);
    expect(await validationField(store.createKey({ account: name, regions: [] }))).toEqual(['regions']);
    expect(await validationField(store.createKey({ account: name, expires: new Date(Date.now() - 1000) }))).toEqual(['expires']);
    const eu = await store.createKey({ account: name, name: 'eu-only', regions: ['eu', 'eu'] });
    expect(eu.record.regions).toEqual(['eu']);
    expect(new KeyStore(await store.loadKeys()).find(eu.key)?.regions).toEqual(['eu']);
    const brief = await store.createKey({ account: name, name: 'brief', expires: new Date(Date.now() + 1500) });
    expect(brief.record.expires!.getTime()).toBeGreaterThan(Date.now());
    expect(new KeyStore(await store.loadKeys()).find(brief.key)).toBeDefined();
    await sleep(1600);
    expect((await store.loadKeys()).some((k) => k.id === brief.record.id)).toBe(false);
  });

  it('revoke, rotate and rename: each moves the version servers poll; rotate keeps the old key for its grace only', async () => {
    const name = unique('rotate');
    await store.createAccount({ name, email: `${name}@example.test`, plan: 'business' });
    const first = await store.createKey({ account: name, name: 'app', regions: ['eu', 'us'] });
    const v0 = await store.version();
    const { key, record, replaced } = await store.rotateKey('app', { account: name, graceMs: 60_000 });
    expect(await store.version()).toBeGreaterThan(v0);
    expect(record).toMatchObject({ name: 'app', regions: ['eu', 'us'], expires: null });
    expect(replaced.name).toBe(`app-old-${first.record.id.slice(2)}`);
    expect(replaced.expires!.getTime()).toBeGreaterThan(Date.now() + 55_000);
    expect(replaced.expires!.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    let lookup = new KeyStore(await store.loadKeys());
    expect(lookup.find(key)?.id).toBe(record.id);
    expect(lookup.find(first.key)?.id).toBe(first.record.id);
    // Rotating the old key again never lengthens its life.
    const again = await store.rotateKey(replaced.id, { graceMs: 3_600_000 });
    expect(again.replaced.expires!.getTime()).toBe(replaced.expires!.getTime());

    const v2 = await store.version();
    expect(await store.setKeyRegions('app', ['jp', 'jp'], { account: name }).then((k) => k.regions)).toEqual(['jp']);
    expect(await store.version()).toBeGreaterThan(v2);
    expect(new KeyStore(await store.loadKeys()).find(key)?.regions).toEqual(['jp']);
    expect(await store.setKeyRegions(record.id, null).then((k) => k.regions)).toBeNull();
    expect(new KeyStore(await store.loadKeys()).find(key)?.regions).toBeUndefined();

    const v1 = await store.version();
    const revoked = await store.revokeKey('app', { account: name });
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(await store.version()).toBeGreaterThan(v1);
    lookup = new KeyStore(await store.loadKeys());
    expect(lookup.find(key)).toBeUndefined();
    await expect(store.revokeKey('app', { account: name })).rejects.toMatchObject({ status: 404 });
    // A revoked key's name is free again; the revoked row stays (listed with `revoked`).
    await store.createKey({ account: name, name: 'app' });
    expect((await store.listKeys({ account: name, revoked: true })).filter((k) => k.name === 'app').length).toBe(2);

    const renamed = await store.renameKey('app', 'app-2', { account: name });
    expect(renamed.name).toBe('app-2');
    // A name two accounts share is ambiguous without the account.
    const other = unique('rotate-other');
    await store.createAccount({ name: other, email: `${other}@example.test`, plan: 'free' });
    await store.createKey({ account: other, name: 'app-2' });
    expect(await validationField(store.revokeKey('app-2'))).toEqual(['account']);
  });

  it('deleting an account removes its keys at once and keeps its usage, named as it was', async () => {
    const name = unique('gone');
    const account = await store.createAccount({ name, email: `${name}@example.test`, plan: 'free' });
    const { key, record } = await store.createKey({ account: name, name: 'k1' });
    await store.addUsage([delta({ keyId: record.id, keyName: 'k1', accountId: account.id, accountName: name, day: '2026-10-30', requests2xx: 3, pages: 7 })]);
    const v = await store.version();
    await store.deleteAccount(name);
    expect(await store.version()).toBeGreaterThan(v);
    expect(new KeyStore(await store.loadKeys()).find(key)).toBeUndefined();
    expect(await store.findAccount(name)).toBeUndefined();
    const rows = await store.usage({ month: '2026-10', account: undefined });
    expect(rows.filter((r) => r.accountId === account.id)).toEqual([
      expect.objectContaining({ account: name, key: 'k1', day: '2026-10-30', requests2xx: 3, pages: 7 }),
    ]);
  });

  it('usage: deltas add up exactly, even flushed concurrently; the month and the account filter rows', async () => {
    const name = unique('usage');
    const account = await store.createAccount({ name, email: `${name}@example.test`, plan: 'business' });
    const a = await store.createKey({ account: name, name: 'a' });
    const b = await store.createKey({ account: name, name: 'b' });
    const flushes = Array.from({ length: 20 }, (_, i) => [
      delta({ keyId: a.record.id, accountId: account.id, region: 'eu', requests2xx: 1, requests4xx: i % 2, pages: 10, bytesIn: 1000, bytesOut: 2_000_000_000 }),
      delta({ keyId: b.record.id, accountId: account.id, region: 'eu', day: '2026-11-04', requests5xx: 1, bytesIn: 5 }),
      delta({ keyId: a.record.id, accountId: account.id, region: 'us', day: '2026-12-01', requests2xx: 1 }),
    ]);
    await Promise.all(flushes.map((f) => store.addUsage(f)));
    const rows = await store.usage({ month: '2026-11', account: name });
    expect(rows.map((r) => [r.key, r.region, r.day, r.requests2xx, r.requests4xx, r.requests5xx, r.pages, r.bytesIn, r.bytesOut])).toEqual([
      ['a', 'eu', '2026-11-03', 20, 10, 0, 200, 20_000, 40_000_000_000],
      ['b', 'eu', '2026-11-04', 0, 0, 20, 0, 100, 0],
    ]);
    expect((await store.usage({ month: '2026-12', account: name })).map((r) => [r.key, r.requests2xx])).toEqual([['a', 20]]);
    expect(await store.usage({ month: '2026-09', account: name })).toEqual([]);
    expect(await validationField(store.usage({ month: '2026-13' }))).toEqual(['month']);
    // Usage is not a key change: servers need not reload for it.
    const v = await store.version();
    await store.addUsage(flushes[0]);
    expect(await store.version()).toBe(v);
  });

  it('last used: batched, and never moves back', async () => {
    const name = unique('touch');
    await store.createAccount({ name, email: `${name}@example.test`, plan: 'free' });
    const { record } = await store.createKey({ account: name, name: 'k' });
    const later = new Date('2026-11-20T10:00:00Z');
    await store.touchKeys(new Map([[record.id, later]]));
    await store.touchKeys(new Map([[record.id, new Date('2026-11-19T10:00:00Z')]]));
    expect((await store.listKeys({ account: name }))[0].lastUsed?.toISOString()).toBe(later.toISOString());
  });

  it('password links work once, expire, and a new one replaces the old; setting a password ends sessions', async () => {
    const name = unique('pw');
    const account = await store.createAccount({ name, email: `${name}@example.test`, plan: 'free' });
    const first = await store.createPasswordToken(account.id);
    expect(first.expires.getTime()).toBeGreaterThan(Date.now() + 23.9 * 3_600_000);
    const second = await store.createPasswordToken(account.id);
    expect(await store.passwordTokenAccount(first.token)).toBeUndefined();
    expect((await store.passwordTokenAccount(second.token))?.id).toBe(account.id);

    const session = await store.createSession(account.id, 60_000, '192.0.2.1');
    expect((await store.findSession(session.token))?.account.id).toBe(account.id);
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).not.toContain('correct');
    expect((await store.setPasswordWithToken(second.token, hash))?.passwordHash).toBe(hash);
    expect(await verifyPassword('correct horse battery staple', (await store.findAccount(name))!.passwordHash)).toBe(true);
    expect(await verifyPassword('wrong', (await store.findAccount(name))!.passwordHash)).toBe(false);
    expect(await store.setPasswordWithToken(second.token, hash)).toBeUndefined();
    expect(await store.findSession(session.token)).toBeUndefined();

    const brief = await store.createPasswordToken(account.id, 200);
    await sleep(300);
    expect(await store.setPasswordWithToken(brief.token, hash)).toBeUndefined();
    // No token is stored in clear.
    const rows = await store.db.query('select * from password_tokens where account_id = $1', [account.id]);
    for (const token of [first.token, second.token, brief.token]) expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('sessions end on sign-out and on expiry; sign-in failures are counted per account and per address', async () => {
    const name = unique('session');
    const account = await store.createAccount({ name, email: `${name}@example.test`, plan: 'free' });
    const s = await store.createSession(account.id, 60_000, '198.51.100.7');
    const found = await store.findSession(s.token);
    expect(found?.session).toMatchObject({ accountId: account.id, csrfSecret: s.csrfSecret, address: '198.51.100.7' });
    await store.endSession(s.token);
    expect(await store.findSession(s.token)).toBeUndefined();
    const brief = await store.createSession(account.id, 150);
    await sleep(250);
    expect(await store.findSession(brief.token)).toBeUndefined();
    expect(await store.findSession('not-a-token')).toBeUndefined();

    const address = `203.0.113.${counter}`;
    for (let i = 0; i < 3; i++) await store.recordSignIn({ accountId: account.id, address, succeeded: false });
    await store.recordSignIn({ accountId: null, address, succeeded: false });
    await store.recordSignIn({ accountId: account.id, address: '203.0.113.250', succeeded: false });
    await store.recordSignIn({ accountId: account.id, address, succeeded: true });
    expect(await store.recentFailures({ accountId: account.id, address, windowMs: 60_000 })).toEqual({ account: 4, address: 4 });
    await store.prune(0);
    expect(await store.recentFailures({ accountId: account.id, address, windowMs: 60_000 })).toEqual({ account: 0, address: 0 });
  });

  it('the audit list names what happened, by whom and from where, and holds no secret', async () => {
    const name = unique('audit');
    const account = await store.createAccount({ name, email: `${name}@example.test`, plan: 'business' });
    const owner = { actor: `${name}@example.test`, address: '192.0.2.44' };
    const created = await store.createKey({ account: name, name: 'web' }, owner);
    await store.renameKey('web', 'site', { account: name }, owner);
    const rotated = await store.rotateKey('site', { account: name, graceMs: 1000 }, owner);
    await store.revokeKey(rotated.record.id, {}, owner);
    const events = await store.listAudit(account.id);
    expect(events.map((e) => e.kind)).toEqual(['key_revoked', 'key_rotated', 'key_renamed', 'key_created', 'account_created']);
    expect(events[0]).toMatchObject({ actor: owner.actor, address: owner.address, keyId: rotated.record.id });
    expect(events[4]).toMatchObject({ actor: 'operator', address: null });
    const text = JSON.stringify(events);
    for (const secret of [created.key, rotated.key, hashKey(created.key), hashKey(rotated.key)]) expect(text).not.toContain(secret);
  });

  it("rotate: the old key's name follows the key-name rule for the longest name and an old-style one, rotated once or again", async () => {
    const name = unique('rotate-names');
    await store.createAccount({ name, email: `${name}@example.test`, plan: 'business' });
    const longest = `L${'o'.repeat(62)}g`;
    const first = await store.createKey({ account: name, name: longest });
    const idOf = (record: { id: string }) => record.id.slice(2);
    const once = await store.rotateKey(longest, { account: name, graceMs: 60_000 });
    // `-old-<id>` is 17 characters: the name keeps its first 47.
    expect(once.replaced.name).toBe(`${longest.slice(0, 47)}-old-${idOf(first.record)}`);
    // The rotated-out key rotated again: its replacement takes its name, and it the next count.
    const again = await store.rotateKey(once.replaced.id, { graceMs: 60_000 });
    expect(again.record.name).toBe(once.replaced.name);
    expect(again.replaced.name).toBe(`${longest.slice(0, 45)}-old-${idOf(first.record)}-2`);
    // That replacement rotated: NAME-old-<its id>, not NAME-old-x-old-y.
    const thenIts = await store.rotateKey(again.record.id, { graceMs: 60_000 });
    expect(thenIts.replaced.name).toBe(`${longest.slice(0, 47)}-old-${idOf(again.record)}`);
    // A key named before the rule (imported) is rotated too, its old name made to follow the rule.
    const [imported] = (
      await store.importKeys(
        [{ id: 'k_00000000000a', name: OLD_STYLE_NAME, plan: 'business', hash: hashKey(newKey()), created: '2026-01-02T03:04:05.000Z' }],
        () => name,
      )
    ).imported;
    expect((await store.rotateKey(imported.id, { graceMs: 60_000 })).replaced.name).toBe('build _1 _ci_cd_ _ _n_code-old-00000000000a');
    const names = (await store.listKeys({ account: name })).map((k) => k.name);
    expect(new Set(names).size, 'no two live keys share a name').toBe(names.length);
    for (const keyName of names.filter((n) => n !== OLD_STYLE_NAME)) {
      expect(keyName.length, keyName).toBeLessThanOrEqual(64);
      // Every name the rotations made can be given back to a key as it is: it follows the rule.
      expect(await store.renameKey(keyName, keyName, { account: name }).then((k) => k.name)).toBe(keyName);
    }
  });

  it('key names: a new name and a rename follow the one rule (src/core/key-name.ts), with its message', async () => {
    const name = unique('names');
    await store.createAccount({ name, email: `${name}@example.test`, plan: 'free' });
    const longest = `a${'b'.repeat(62)}9`;
    for (const good of ['ci', 'Build server 2', 'v1.2_eu-batch', longest])
      expect((await store.createKey({ account: name, name: good })).record.name).toBe(good);
    for (const bad of ['', ' leading space', '-dash-first', `${longest}x`, 'slash/in', 'tab\there', 'émoji', OLD_STYLE_NAME]) {
      const refused = await store.createKey({ account: name, name: bad }).catch((err: unknown) => err);
      expect(refused, JSON.stringify(bad)).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).errors.name).toEqual([
        `${JSON.stringify(bad)} is not a key name: a key name is 1 to 64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit`,
      ]);
      expect(await validationField(store.renameKey('ci', bad, { account: name }))).toEqual(['name']);
    }
    // Nothing was made or renamed by the refusals.
    expect((await store.listKeys({ account: name })).map((k) => k.name).sort()).toEqual(['Build server 2', 'ci', longest, 'v1.2_eu-batch'].sort());
  });

  it('importKeys: keys from a keys file keep working, and a second import changes nothing', async () => {
    const name = unique('import');
    await store.createAccount({ name, email: `${name}@example.test`, plan: 'business' });
    const keys = [newKey(), newKey()];
    const fileKeys: StoredKey[] = keys.map((key, i) => ({
      id: `k_00000000000${i}`,
      // Key 1's name follows the rule of before (any characters but control ones), not today's.
      name: i === 1 ? OLD_STYLE_NAME : `old-${i}`,
      plan: 'business',
      hash: hashKey(key),
      created: '2026-01-02T03:04:05.000Z',
      ...(i === 1 ? { expires: '2099-01-01T00:00:00.000Z' } : {}),
    }));
    const first = await store.importKeys(fileKeys, () => name);
    expect(first.imported.map((k) => [k.name, k.prefix, k.created.toISOString(), k.expires?.toISOString() ?? null])).toEqual([
      ['old-0', null, '2026-01-02T03:04:05.000Z', null],
      [OLD_STYLE_NAME, null, '2026-01-02T03:04:05.000Z', '2099-01-01T00:00:00.000Z'],
    ]);
    const lookup = new KeyStore(await store.loadKeys());
    for (const key of keys) expect(lookup.find(key)?.accountName).toBe(name);
    expect((await store.listKeys({ account: name })).map((k) => k.name)).toContain(OLD_STYLE_NAME);
    // Such a key is still revoked by its name; only new names are held to the rule.
    await store.revokeKey(OLD_STYLE_NAME, { account: name });
    expect(new KeyStore(await store.loadKeys()).find(keys[1])).toBeUndefined();
    const second = await store.importKeys(fileKeys, () => name);
    expect(second).toEqual({ imported: [], skipped: fileKeys });
  });

  it('migrations: a database made by schema version 1 opens under the latest with its data', async () => {
    const db = await openDatabase(await backend.fresh(true));
    try {
      expect(await migrate(db, 1)).toEqual({ from: 0, to: 1 });
      await db.query(`insert into accounts (id, name, email, plan) values ('a_000000000001', 'v1', 'v1@example.test', 'starter')`);
      const key = newKey();
      await db.query(`insert into api_keys (id, account_id, name, prefix, hash) values ('k_000000000001', 'a_000000000001', 'v1-key', $1, $2)`, [
        key.slice(0, 13),
        hashKey(key),
      ]);
      await db.query(
        `insert into usage_daily (key_id, account_id, region, day, requests_2xx, pages) values ('k_000000000001', 'a_000000000001', 'eu', '2026-11-02', 5, 9)`,
      );
      expect(await migrate(db)).toEqual({ from: 1, to: LATEST_VERSION });
      expect(await migrate(db)).toEqual({ from: LATEST_VERSION, to: LATEST_VERSION });
      expect((await db.query<{ version: number }>('select version from schema_migrations order by version')).map((r) => r.version)).toEqual(
        Array.from({ length: LATEST_VERSION }, (_, i) => i + 1),
      );
      // Version 3 (the dashboard's operator flag): existing accounts are not operators.
      expect(await db.query('select name, operator from accounts')).toEqual([{ name: 'v1', operator: false }]);
      const upgraded = new Store(db);
      expect(new KeyStore(await upgraded.loadKeys()).find(key)).toMatchObject({ name: 'v1-key', plan: 'starter', accountName: 'v1' });
      expect(await upgraded.usage({ month: '2026-11' })).toEqual([
        expect.objectContaining({ account: 'v1', key: 'v1-key', region: 'eu', requests2xx: 5, pages: 9 }),
      ]);
      // Version 2's tables work on the upgraded database.
      const session = await upgraded.createSession('a_000000000001', 60_000);
      expect((await upgraded.findSession(session.token))?.account.name).toBe('v1');
      // A schema newer than this code is refused, not used.
      await db.query(`insert into schema_migrations (version, name) values (99, 'from the future')`);
      await expect(migrate(db)).rejects.toThrow(/schema version 99.*upgrade pdfsvc/);
    } finally {
      await db.close();
    }
  });

  if (backend.name === 'postgres') {
    it('processes starting together migrate once (advisory lock)', async () => {
      const config = await backend.fresh();
      const stores = await Promise.all([openStore(config), openStore(config), openStore(config)]);
      try {
        expect((await stores[0].db.query<{ n: number }>('select count(*)::int as n from schema_migrations'))[0].n).toBe(LATEST_VERSION);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });
  } else {
    it('the embedded database persists in its directory, and one process at a time holds it', async () => {
      const config = await backend.fresh(true);
      const first = await openStore(config);
      const name = unique('persist');
      await first.createAccount({ name, email: `${name}@example.test`, plan: 'free' });
      const { takeDirectoryLock } = await import('../../src/store/database.js');
      await expect(takeDirectoryLock(config.dataDir!, 200)).rejects.toThrow(new RegExp(`in use by process ${process.pid}`));
      await first.close();
      const reopened = await openStore(config);
      try {
        expect((await reopened.findAccount(name))?.plan).toBe('free');
      } finally {
        await reopened.close();
      }
    });
  }
});

describe.runIf(BACKENDS.some((b) => b.name === 'postgres'))('moving from the embedded database to PostgreSQL', () => {
  it('copyTo: every key keeps working, usage, sessions and audit events come along, and the copy takes new rows', async () => {
    const [embedded, postgres] = ['embedded', 'postgres'].map((name) => BACKENDS.find((b) => b.name === name)!);
    const source = await openStore(await embedded.fresh());
    const target = await openStore(await postgres.fresh());
    try {
      const account = await source.createAccount({ name: 'acme', email: 'ops@acme.test', plan: 'starter' });
      const eu = await source.createKey({ account: 'acme', name: 'eu', regions: ['eu'] });
      const rotated = await source.rotateKey('eu', { account: 'acme', graceMs: 3_600_000 });
      await source.addUsage([delta({ keyId: eu.record.id, accountId: account.id, region: 'eu', requests2xx: 4, pages: 12, bytesIn: 5_000_000_000 })]);
      const session = await source.createSession(account.id, 60_000, '192.0.2.9');
      await source.recordSignIn({ accountId: account.id, address: '192.0.2.9', succeeded: false });

      const counts = await source.copyTo(target);
      expect(counts).toEqual({
        accounts: 1,
        api_keys: 2,
        usage_daily: 1,
        sessions: 1,
        password_tokens: 0,
        sign_in_attempts: 1,
        audit_events: 3,
        request_audit: 0,
      });
      const lookup = new KeyStore(await target.loadKeys());
      expect(lookup.find(eu.key)).toMatchObject({ id: eu.record.id, plan: 'starter', regions: ['eu'], expires: rotated.replaced.expires!.toISOString() });
      expect(lookup.find(rotated.key)).toMatchObject({ name: 'eu', regions: ['eu'] });
      expect(await target.usage({ month: '2026-11' })).toEqual(await source.usage({ month: '2026-11' }));
      expect((await target.findSession(session.token))?.session.address).toBe('192.0.2.9');
      expect(await target.recentFailures({ accountId: account.id, address: '192.0.2.9', windowMs: 60_000 })).toEqual({ account: 1, address: 1 });
      expect(await target.listAudit(account.id)).toEqual(await source.listAudit(account.id));
      expect(await target.version()).toBeGreaterThan(0);
      // New rows after the copy: identities continue past the copied ones.
      await target.revokeKey('eu', { account: 'acme' });
      expect((await target.listAudit(account.id))[0].kind).toBe('key_revoked');
      await expect(source.copyTo(target)).rejects.toThrow(/already has accounts/);
    } finally {
      await source.close();
      await target.close();
    }
  });
});
