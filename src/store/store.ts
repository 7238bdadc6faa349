/**
 * Accounts, keys, usage, and what the dashboard keeps (sessions, password
 * links, sign-in attempts, audit events), over either database
 * (database.ts). Every query is written once, in PostgreSQL's SQL.
 *
 * Secrets are stored as hashes only: API keys and tokens as SHA-256, passwords
 * with scrypt (secrets.ts). Every change a server's key cache must follow
 * (keys created, revoked, rotated; accounts suspended, resumed, re-planned,
 * deleted) adds one to store_state.version in the same transaction: servers
 * poll that one number and reload their keys when it moves.
 */
import { checkKeyName, rotatedOutName } from '../core/key-name.js';
import { randomBytes } from 'node:crypto';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import type { AuditRecord } from '../server/audit.js';
import { PLAN_REGIONS, PLANS, REGIONS, hashKey, newKey, newKeyId, type Plan, type Region, type StoredKey } from '../server/keys.js';
import { openDatabase, type Database, type DatabaseConfig, type Queryable, type Row } from './database.js';
import { migrate } from './migrations.js';
import { hashToken, newToken } from './secrets.js';

export const ACCOUNT_STATUSES = ['active', 'suspended'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export interface Account {
  id: string;
  name: string;
  email: string;
  plan: Plan;
  status: AccountStatus;
  /** The password's scrypt hash (secrets.ts, verifyPassword); null until the owner sets one. */
  passwordHash: string | null;
  created: Date;
}

export interface KeyRecord {
  id: string;
  accountId: string;
  accountName: string;
  name: string;
  /** The key's first characters (`pdfsvc_AbC123`), to tell it apart; null for keys imported from a keys file. */
  prefix: string | null;
  /** The account's plan: a key has no plan of its own. */
  plan: Plan;
  created: Date;
  expires: Date | null;
  lastUsed: Date | null;
  revokedAt: Date | null;
  /** Regions the key is limited to; null: every region of the plan. */
  regions: Region[] | null;
}

/** Who made a change, for the audit list: `operator` for the command line, else the signed-in owner's e-mail address. */
export interface Actor {
  actor: string;
  address?: string | null;
}

export const OPERATOR: Actor = { actor: 'operator', address: null };

export interface AuditEvent {
  id: number;
  accountId: string;
  at: Date;
  actor: string;
  address: string | null;
  kind: string;
  keyId: string | null;
  detail: Record<string, unknown>;
}

export const USAGE_COUNTERS = ['requests2xx', 'requests4xx', 'requests5xx', 'pages', 'bytesIn', 'bytesOut'] as const;

/** What is counted per key, region and UTC day: one number per counter. */
type UsageCounts = Record<(typeof USAGE_COUNTERS)[number], number>;

/** Counts to add for one key, region and UTC day (the server batches these). */
export interface UsageDelta extends UsageCounts {
  keyId: string;
  keyName: string;
  accountId: string;
  accountName: string;
  region: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
}

export interface UsageRow extends UsageCounts {
  accountId: string;
  /** The account's name (as it was counted, if the account has been deleted since). */
  account: string;
  keyId: string;
  key: string;
  region: string;
  day: string;
}

export interface Session {
  accountId: string;
  csrfSecret: string;
  created: Date;
  expires: Date;
  address: string | null;
}

/** The one-time password link's default lifetime. */
export const PASSWORD_LINK_TTL_MS = 24 * 3_600_000;

const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

export function newAccountId(): string {
  return `a_${randomBytes(6).toString('hex')}`;
}

/** The part of a key shown to tell it apart: the fixed `pdfsvc_` and 6 of its 43 random characters (36 of 256 bits). */
export function keyPrefix(key: string): string {
  return key.slice(0, 'pdfsvc_'.length + 6);
}

export function validateMonth(month: string): string {
  if (!MONTH.test(month)) throw ValidationError.field('month', `${JSON.stringify(month)} is not a month; write it as YYYY-MM, such as 2026-11`);
  return month;
}

/** Opens the database and brings its schema up to date (migrations.ts). */
export async function openStore(config: DatabaseConfig): Promise<Store> {
  const db = await openDatabase(config);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return new Store(db);
}

/** Every table with data, parents first. */
const COPIED_TABLES = ['accounts', 'api_keys', 'usage_daily', 'sessions', 'password_tokens', 'sign_in_attempts', 'audit_events', 'request_audit'];
const IDENTITY_TABLES = ['sign_in_attempts', 'audit_events', 'request_audit'];

const ACCOUNT_COLUMNS = 'id, name, email, plan, status, password_hash, created';
const KEY_COLUMNS = `k.id, k.account_id, a.name as account_name, k.name, k.prefix, a.plan, k.created, k.expires, k.last_used, k.revoked_at, k.regions`;

interface AccountRow {
  id: string;
  name: string;
  email: string;
  plan: Plan;
  status: AccountStatus;
  password_hash: string | null;
  created: Date;
}

interface KeyRow {
  id: string;
  account_id: string;
  account_name: string;
  name: string;
  prefix: string | null;
  plan: Plan;
  created: Date;
  expires: Date | null;
  last_used: Date | null;
  revoked_at: Date | null;
  regions: Region[] | null;
}

const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  email: r.email,
  plan: r.plan,
  status: r.status,
  passwordHash: r.password_hash,
  created: r.created,
});
const toKey = (r: KeyRow): KeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  accountName: r.account_name,
  name: r.name,
  prefix: r.prefix,
  plan: r.plan,
  created: r.created,
  expires: r.expires,
  lastUsed: r.last_used,
  revokedAt: r.revoked_at,
  regions: r.regions,
});

function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

function checkPlan(plan: string): Plan {
  if (!PLANS.includes(plan as Plan)) throw ValidationError.field('plan', `must be one of ${PLANS.join(', ')}; got ${JSON.stringify(plan)}`);
  return plan as Plan;
}

/** `every`: how the command asks for every region of the plan instead (the option left out, or `all`). */
function checkRegions(regions: readonly string[] | null | undefined, plan: Plan, every = 'leave the option out'): Region[] | null {
  if (!regions) return null;
  if (regions.length === 0) throw ValidationError.field('regions', `name at least one region, or ${every} for every region of the plan`);
  for (const region of regions) {
    if (!REGIONS.includes(region as Region))
      throw ValidationError.field('regions', `unknown region ${JSON.stringify(region)}; use some of ${REGIONS.join(', ')}`);
    if (!PLAN_REGIONS[plan].includes(region as Region))
      throw ValidationError.field('regions', `the ${plan} plan does not include the ${region} region; it includes ${PLAN_REGIONS[plan].join(', ')}`);
  }
  return [...new Set(regions as Region[])];
}

export class Store {
  constructor(readonly db: Database) {}

  close(): Promise<void> {
    return this.db.close();
  }

  // ---- change counter ---------------------------------------------------

  /** The number servers poll: it moves whenever what a key may do changes. */
  async version(): Promise<number> {
    const [row] = await this.db.query<{ version: number }>('select version from store_state where id = 1');
    return row.version;
  }

  private async bumpVersion(tx: Queryable): Promise<void> {
    await tx.query('update store_state set version = version + 1 where id = 1');
  }

  // ---- accounts -----------------------------------------------------------

  async createAccount(input: { name: string; email: string; plan: string }, by: Actor = OPERATOR): Promise<Account> {
    if (!ACCOUNT_NAME.test(input.name))
      throw ValidationError.field(
        'name',
        `${JSON.stringify(input.name)} is not an account name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
      );
    if (!EMAIL.test(input.email)) throw ValidationError.field('email', `${JSON.stringify(input.email)} is not an e-mail address`);
    const plan = checkPlan(input.plan);
    try {
      return await this.db.transaction(async (tx) => {
        const [row] = await tx.query<AccountRow>(`insert into accounts (id, name, email, plan) values ($1, $2, $3, $4) returning ${ACCOUNT_COLUMNS}`, [
          newAccountId(),
          input.name,
          input.email,
          plan,
        ]);
        await this.audit(tx, { accountId: row.id, kind: 'account_created', detail: { name: row.name, plan } }, by);
        return toAccount(row);
      });
    } catch (err) {
      if (isUniqueViolation(err, 'accounts_name_key')) throw ValidationError.field('name', `an account named ${JSON.stringify(input.name)} already exists`);
      if (isUniqueViolation(err, 'accounts_email')) throw ValidationError.field('email', `an account with the e-mail address ${input.email} already exists`);
      throw err;
    }
  }

  async listAccounts(): Promise<Array<Account & { keys: number }>> {
    const rows = await this.db.query<AccountRow & { keys: number }>(
      `select ${ACCOUNT_COLUMNS}, (select count(*)::int from api_keys k where k.account_id = a.id and k.revoked_at is null and (k.expires is null or k.expires > now())) as keys
       from accounts a order by name`,
    );
    return rows.map((r) => ({ ...toAccount(r), keys: r.keys }));
  }

  /** By name or id; undefined when there is none. */
  async findAccount(nameOrId: string, tx: Queryable = this.db): Promise<Account | undefined> {
    const [row] = await tx.query<AccountRow>(`select ${ACCOUNT_COLUMNS} from accounts where name = $1 or id = $1`, [nameOrId]);
    return row && toAccount(row);
  }

  /** By e-mail address, in any case (sign-in). */
  async findAccountByEmail(email: string): Promise<Account | undefined> {
    const [row] = await this.db.query<AccountRow>(`select ${ACCOUNT_COLUMNS} from accounts where lower(email) = lower($1)`, [email]);
    return row && toAccount(row);
  }

  /** Like findAccount, but a missing account is a 404 naming it. */
  async account(nameOrId: string, tx: Queryable = this.db): Promise<Account> {
    const found = await this.findAccount(nameOrId, tx);
    if (!found) throw new PdfsvcError(404, `no account named ${JSON.stringify(nameOrId)}; see pdfsvc accounts list`);
    return found;
  }

  async setPlan(nameOrId: string, plan: string, by: Actor = OPERATOR): Promise<Account> {
    const checked = checkPlan(plan);
    return this.changeAccount(nameOrId, 'plan = $2', [checked], 'plan_changed', by);
  }

  async setStatus(nameOrId: string, status: AccountStatus, by: Actor = OPERATOR): Promise<Account> {
    return this.changeAccount(nameOrId, 'status = $2', [status], status === 'suspended' ? 'account_suspended' : 'account_resumed', by);
  }

  private async changeAccount(nameOrId: string, set: string, values: unknown[], kind: string, by: Actor): Promise<Account> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<AccountRow>(`update accounts set ${set} where name = $1 or id = $1 returning ${ACCOUNT_COLUMNS}`, [nameOrId, ...values]);
      if (!row) throw new PdfsvcError(404, `no account named ${JSON.stringify(nameOrId)}; see pdfsvc accounts list`);
      await this.audit(tx, { accountId: row.id, kind, detail: { plan: row.plan, status: row.status } }, by);
      await this.bumpVersion(tx);
      return toAccount(row);
    });
  }

  /** Deletes the account with its keys, sessions and links; its usage and audit events stay (billing, records). */
  async deleteAccount(nameOrId: string, by: Actor = OPERATOR): Promise<Account> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<AccountRow>(`delete from accounts where name = $1 or id = $1 returning ${ACCOUNT_COLUMNS}`, [nameOrId]);
      if (!row) throw new PdfsvcError(404, `no account named ${JSON.stringify(nameOrId)}; see pdfsvc accounts list`);
      await this.audit(tx, { accountId: row.id, kind: 'account_deleted', detail: { name: row.name } }, by);
      await this.bumpVersion(tx);
      return toAccount(row);
    });
  }

  // ---- password links and passwords --------------------------------------

  /** A one-time token that lets the account's owner set a password, valid for `ttlMs`. Earlier unused links stop working. */
  async createPasswordToken(accountId: string, ttlMs = PASSWORD_LINK_TTL_MS, by: Actor = OPERATOR): Promise<{ token: string; expires: Date }> {
    const token = newToken();
    return this.db.transaction(async (tx) => {
      await tx.query('update password_tokens set used_at = now() where account_id = $1 and used_at is null', [accountId]);
      const [row] = await tx.query<{ expires: Date }>(
        `insert into password_tokens (hash, account_id, expires) values ($1, $2, now() + $3 * interval '1 millisecond') returning expires`,
        [hashToken(token), accountId, ttlMs],
      );
      await this.audit(tx, { accountId, kind: 'password_link_created', detail: { expires: row.expires.toISOString() } }, by);
      return { token, expires: row.expires };
    });
  }

  /** The account a password token is for while it is unused and unexpired (the dashboard shows its form). */
  async passwordTokenAccount(token: string): Promise<Account | undefined> {
    const [row] = await this.db.query<AccountRow>(
      `select ${ACCOUNT_COLUMNS.split(', ')
        .map((c) => `a.${c}`)
        .join(', ')} from password_tokens t join accounts a on a.id = t.account_id
       where t.hash = $1 and t.used_at is null and t.expires > now()`,
      [hashToken(token)],
    );
    return row && toAccount(row);
  }

  /**
   * Uses the token (once) to set the password to `passwordHash` (secrets.ts,
   * hashPassword); ends the account's sessions. Undefined when the token is
   * unknown, used or expired.
   */
  async setPasswordWithToken(token: string, passwordHash: string, by?: Actor): Promise<Account | undefined> {
    return this.db.transaction(async (tx) => {
      const [used] = await tx.query<{ account_id: string }>(
        'update password_tokens set used_at = now() where hash = $1 and used_at is null and expires > now() returning account_id',
        [hashToken(token)],
      );
      if (!used) return undefined;
      const [row] = await tx.query<AccountRow>(`update accounts set password_hash = $2 where id = $1 returning ${ACCOUNT_COLUMNS}`, [
        used.account_id,
        passwordHash,
      ]);
      await tx.query('update sessions set ended_at = now() where account_id = $1 and ended_at is null', [used.account_id]);
      await this.audit(tx, { accountId: row.id, kind: 'password_set' }, by ?? { actor: row.email });
      return toAccount(row);
    });
  }

  // ---- keys ---------------------------------------------------------------

  /** Creates a key for the account; the key itself is returned once and never stored. */
  async createKey(
    input: { account: string; name?: string; regions?: readonly string[] | null; expires?: Date | null },
    by: Actor = OPERATOR,
  ): Promise<{ key: string; record: KeyRecord }> {
    const account = await this.account(input.account);
    const regions = checkRegions(input.regions, account.plan);
    if (input.expires && !(input.expires.getTime() > Date.now())) throw ValidationError.field('expires', 'the expiry must be in the future');
    const key = newKey();
    const id = newKeyId();
    const name = checkKeyName(input.name ?? `key-${id.slice(2)}`);
    try {
      const record = await this.db.transaction(async (tx) => {
        await tx.query('insert into api_keys (id, account_id, name, prefix, hash, expires, regions) values ($1, $2, $3, $4, $5, $6, $7)', [
          id,
          account.id,
          name,
          keyPrefix(key),
          hashKey(key),
          input.expires ?? null,
          regions,
        ]);
        await this.audit(
          tx,
          {
            accountId: account.id,
            kind: 'key_created',
            keyId: id,
            detail: { name, ...(regions ? { regions } : {}), ...(input.expires ? { expires: input.expires.toISOString() } : {}) },
          },
          by,
        );
        await this.bumpVersion(tx);
        return this.keyById(tx, id);
      });
      return { key, record };
    } catch (err) {
      if (isUniqueViolation(err, 'api_keys_live_name'))
        throw ValidationError.field(
          'name',
          `the account ${account.name} already has a key named ${JSON.stringify(name)}; choose another name, or revoke that key first`,
        );
      throw err;
    }
  }

  private async keyById(tx: Queryable, id: string): Promise<KeyRecord> {
    const [row] = await tx.query<KeyRow>(`select ${KEY_COLUMNS} from api_keys k join accounts a on a.id = k.account_id where k.id = $1`, [id]);
    return toKey(row);
  }

  /** Keys, newest last; revoked ones only with `revoked`. */
  async listKeys(options: { account?: string; revoked?: boolean } = {}): Promise<KeyRecord[]> {
    const accountId = options.account ? (await this.account(options.account)).id : null;
    const rows = await this.db.query<KeyRow>(
      `select ${KEY_COLUMNS} from api_keys k join accounts a on a.id = k.account_id
       where ($1::text is null or k.account_id = $1) and ($2 or k.revoked_at is null)
       order by a.name, k.created, k.id`,
      [accountId, Boolean(options.revoked)],
    );
    return rows.map(toKey);
  }

  /** The one live key with this id, or this name (within `account` when given); 404 or an ambiguity is an error that says what to do. */
  async findLiveKey(nameOrId: string, account?: string, tx: Queryable = this.db): Promise<KeyRecord> {
    // Inside a transaction every query must go through it: PGlite is one connection, held by the transaction.
    const accountId = account ? (await this.account(account, tx)).id : null;
    const rows = await tx.query<KeyRow>(
      `select ${KEY_COLUMNS} from api_keys k join accounts a on a.id = k.account_id
       where (k.id = $1 or k.name = $1) and k.revoked_at is null and ($2::text is null or k.account_id = $2)`,
      [nameOrId, accountId],
    );
    if (rows.length === 0)
      throw new PdfsvcError(
        404,
        `no live key with the name or id ${JSON.stringify(nameOrId)}${account ? ` in the account ${account}` : ''}; see pdfsvc keys list`,
      );
    if (rows.length > 1) {
      throw ValidationError.field(
        'account',
        `several accounts have a key named ${JSON.stringify(nameOrId)} (${rows.map((r) => r.account_name).join(', ')}); name the account with --account, or use the key's id`,
      );
    }
    return toKey(rows[0]);
  }

  /** Revokes a key: it stops working on every server within their next poll; its row stays for usage and audit. */
  async revokeKey(nameOrId: string, options: { account?: string } = {}, by: Actor = OPERATOR): Promise<KeyRecord> {
    return this.db.transaction(async (tx) => {
      const key = await this.findLiveKey(nameOrId, options.account, tx);
      await tx.query('update api_keys set revoked_at = now() where id = $1', [key.id]);
      await this.audit(tx, { accountId: key.accountId, kind: 'key_revoked', keyId: key.id, detail: { name: key.name } }, by);
      await this.bumpVersion(tx);
      return this.keyById(tx, key.id);
    });
  }

  /**
   * Limits a key to some of its account's plan's regions, or (null) lets it work in every one of them, as the
   * dashboard's limits form does: a key left with no usable region after a change of plan works again.
   */
  async setKeyRegions(nameOrId: string, regions: readonly string[] | null, options: { account?: string } = {}, by: Actor = OPERATOR): Promise<KeyRecord> {
    return this.db.transaction(async (tx) => {
      const key = await this.findLiveKey(nameOrId, options.account, tx);
      const limit = checkRegions(regions, key.plan, 'all');
      await tx.query('update api_keys set regions = $2 where id = $1', [key.id, limit]);
      await this.audit(tx, { accountId: key.accountId, kind: 'key_regions', keyId: key.id, detail: { name: key.name, regions: limit } }, by);
      await this.bumpVersion(tx);
      return this.keyById(tx, key.id);
    });
  }

  async renameKey(nameOrId: string, name: string, options: { account?: string } = {}, by: Actor = OPERATOR): Promise<KeyRecord> {
    checkKeyName(name);
    try {
      return await this.db.transaction(async (tx) => {
        const key = await this.findLiveKey(nameOrId, options.account, tx);
        await tx.query('update api_keys set name = $2 where id = $1', [key.id, name]);
        await this.audit(tx, { accountId: key.accountId, kind: 'key_renamed', keyId: key.id, detail: { from: key.name, to: name } }, by);
        return this.keyById(tx, key.id);
      });
    } catch (err) {
      if (isUniqueViolation(err, 'api_keys_live_name')) throw ValidationError.field('name', `this account already has a key named ${JSON.stringify(name)}`);
      throw err;
    }
  }

  /**
   * Replaces a key: a new one (printed once) takes its name, regions and
   * account; the old one is renamed NAME-old-<id> (rotatedOutName) and keeps working for the
   * grace period only. An earlier expiry of the old key stays.
   */
  async rotateKey(
    nameOrId: string,
    options: { account?: string; graceMs: number },
    by: Actor = OPERATOR,
  ): Promise<{ key: string; record: KeyRecord; replaced: KeyRecord }> {
    const key = newKey();
    const id = newKeyId();
    return this.db.transaction(async (tx) => {
      const old = await this.findLiveKey(nameOrId, options.account, tx);
      await tx.query(`update api_keys set name = $2, expires = least(coalesce(expires, 'infinity'), now() + $3 * interval '1 millisecond') where id = $1`, [
        old.id,
        rotatedOutName(old.name, old.id),
        options.graceMs,
      ]);
      await tx.query('insert into api_keys (id, account_id, name, prefix, hash, regions) values ($1, $2, $3, $4, $5, $6)', [
        id,
        old.accountId,
        old.name,
        keyPrefix(key),
        hashKey(key),
        old.regions,
      ]);
      const replaced = await this.keyById(tx, old.id);
      await this.audit(
        tx,
        {
          accountId: old.accountId,
          kind: 'key_rotated',
          keyId: id,
          detail: { name: old.name, replaces: old.id, old_key_expires: replaced.expires?.toISOString() },
        },
        by,
      );
      await this.bumpVersion(tx);
      return { key, record: await this.keyById(tx, id), replaced };
    });
  }

  /**
   * Imports keys from a keys file (their hashes: every key keeps working).
   * Keys already in the database (same hash) are skipped, so importing twice
   * is harmless. Each key goes to `accountFor(key)`, which must exist.
   */
  async importKeys(
    keys: readonly StoredKey[],
    accountFor: (key: StoredKey) => string,
    by: Actor = OPERATOR,
  ): Promise<{ imported: KeyRecord[]; skipped: StoredKey[] }> {
    return this.db.transaction(async (tx) => {
      const imported: KeyRecord[] = [];
      const skipped: StoredKey[] = [];
      for (const key of keys) {
        const [account] = await tx.query<{ id: string }>('select id from accounts where name = $1', [accountFor(key)]);
        if (!account) throw new PdfsvcError(404, `no account named ${JSON.stringify(accountFor(key))}`);
        const [exists] = await tx.query('select 1 from api_keys where hash = $1', [key.hash]);
        if (exists || !/^[0-9a-f]{64}$/.test(key.hash)) {
          skipped.push(key);
          continue;
        }
        // A name taken by a live key of the account (a second import of another file) gets the id appended.
        const [clash] = await tx.query('select 1 from api_keys where account_id = $1 and name = $2 and revoked_at is null', [account.id, key.name]);
        const id = (await tx.query('select 1 from api_keys where id = $1', [key.id])).length > 0 ? newKeyId() : key.id;
        await tx.query('insert into api_keys (id, account_id, name, prefix, hash, created, expires) values ($1, $2, $3, null, $4, $5, $6)', [
          id,
          account.id,
          clash ? `${key.name}-${id.slice(2)}` : key.name,
          key.hash,
          new Date(key.created),
          key.expires ? new Date(key.expires) : null,
        ]);
        await this.audit(tx, { accountId: account.id, kind: 'key_imported', keyId: id, detail: { name: key.name } }, by);
        imported.push(await this.keyById(tx, id));
      }
      await this.bumpVersion(tx);
      return { imported, skipped };
    });
  }

  /**
   * Every key a server should know, with what it may do: not revoked, not
   * expired, with its account's plan and status (a suspended account's keys
   * are here, marked, so the server can say why it refuses them).
   */
  async loadKeys(): Promise<StoredKey[]> {
    const rows = await this.db.query<{
      id: string;
      name: string;
      hash: string;
      created: Date;
      expires: Date | null;
      regions: Region[] | null;
      account_id: string;
      account_name: string;
      plan: Plan;
      status: AccountStatus;
    }>(
      `select k.id, k.name, k.hash, k.created, k.expires, k.regions, a.id as account_id, a.name as account_name, a.plan, a.status
       from api_keys k join accounts a on a.id = k.account_id
       where k.revoked_at is null and (k.expires is null or k.expires > now())`,
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      plan: r.plan,
      hash: r.hash,
      created: r.created.toISOString(),
      ...(r.expires ? { expires: r.expires.toISOString() } : {}),
      accountId: r.account_id,
      accountName: r.account_name,
      ...(r.status === 'suspended' ? { suspended: true } : {}),
      ...(r.regions ? { regions: r.regions } : {}),
    }));
  }

  /** Records when keys were last used (the server batches these; a time never moves back). */
  async touchKeys(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    if (lastUsed.size === 0) return;
    await this.db.query(
      `update api_keys k set last_used = greatest(k.last_used, v.t)
       from unnest($1::text[], $2::timestamptz[]) as v(id, t) where k.id = v.id`,
      [[...lastUsed.keys()], [...lastUsed.values()]],
    );
  }

  // ---- usage --------------------------------------------------------------

  /** Adds counts, all in one statement (one round trip for a whole flush). */
  async addUsage(deltas: readonly UsageDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const column = <K extends keyof UsageDelta>(k: K) => deltas.map((d) => d[k]);
    await this.db.query(
      `insert into usage_daily (key_id, key_name, account_id, account_name, region, day, requests_2xx, requests_4xx, requests_5xx, pages, bytes_in, bytes_out)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::date[], $7::int8[], $8::int8[], $9::int8[], $10::int8[], $11::int8[], $12::int8[])
       on conflict (key_id, region, day) do update set
         key_name = excluded.key_name, account_name = excluded.account_name,
         requests_2xx = usage_daily.requests_2xx + excluded.requests_2xx,
         requests_4xx = usage_daily.requests_4xx + excluded.requests_4xx,
         requests_5xx = usage_daily.requests_5xx + excluded.requests_5xx,
         pages = usage_daily.pages + excluded.pages,
         bytes_in = usage_daily.bytes_in + excluded.bytes_in,
         bytes_out = usage_daily.bytes_out + excluded.bytes_out`,
      [
        column('keyId'),
        column('keyName'),
        column('accountId'),
        column('accountName'),
        column('region'),
        column('day'),
        column('requests2xx'),
        column('requests4xx'),
        column('requests5xx'),
        column('pages'),
        column('bytesIn'),
        column('bytesOut'),
      ],
    );
  }

  /** The month's counts per account, key, region and day (UTC), ordered so. */
  async usage(options: { month: string; account?: string }): Promise<UsageRow[]> {
    const month = validateMonth(options.month);
    const accountId = options.account ? (await this.account(options.account)).id : null;
    const rows = await this.db.query<{
      account_id: string;
      account: string;
      key_id: string;
      key: string;
      region: string;
      day: string;
      requests_2xx: number;
      requests_4xx: number;
      requests_5xx: number;
      pages: number;
      bytes_in: number;
      bytes_out: number;
    }>(
      `select u.account_id, coalesce(a.name, u.account_name, u.account_id) as account, u.key_id, coalesce(k.name, u.key_name, u.key_id) as key,
              u.region, u.day, u.requests_2xx, u.requests_4xx, u.requests_5xx, u.pages, u.bytes_in, u.bytes_out
       from usage_daily u
       left join accounts a on a.id = u.account_id
       left join api_keys k on k.id = u.key_id
       where u.day >= to_date($1, 'YYYY-MM') and u.day < to_date($1, 'YYYY-MM') + interval '1 month' and ($2::text is null or u.account_id = $2)
       order by account, u.account_id, key, u.key_id, u.region, u.day`,
      [month, accountId],
    );
    return rows.map((r) => ({
      accountId: r.account_id,
      account: r.account,
      keyId: r.key_id,
      key: r.key,
      region: r.region,
      day: r.day,
      requests2xx: r.requests_2xx,
      requests4xx: r.requests_4xx,
      requests5xx: r.requests_5xx,
      pages: r.pages,
      bytesIn: r.bytes_in,
      bytesOut: r.bytes_out,
    }));
  }

  // ---- sessions and sign-in attempts (the dashboard) ----------------------

  /** A new session; the token goes in the cookie and is never stored (only its SHA-256). */
  async createSession(accountId: string, ttlMs: number, address: string | null = null): Promise<{ token: string; csrfSecret: string; expires: Date }> {
    const token = newToken();
    const csrfSecret = newToken();
    const [row] = await this.db.query<{ expires: Date }>(
      `insert into sessions (id_hash, account_id, csrf_secret, expires, address) values ($1, $2, $3, now() + $4 * interval '1 millisecond', $5) returning expires`,
      [hashToken(token), accountId, csrfSecret, ttlMs, address],
    );
    return { token, csrfSecret, expires: row.expires };
  }

  /** The live session a cookie's token names, with its account; undefined when unknown, ended or expired. */
  async findSession(token: string): Promise<{ session: Session; account: Account } | undefined> {
    const [row] = await this.db.query<AccountRow & { csrf_secret: string; session_created: Date; expires: Date; address: string | null }>(
      `select ${ACCOUNT_COLUMNS.split(', ')
        .map((c) => `a.${c}`)
        .join(', ')}, s.csrf_secret, s.created as session_created, s.expires, s.address
       from sessions s join accounts a on a.id = s.account_id
       where s.id_hash = $1 and s.ended_at is null and s.expires > now()`,
      [hashToken(token)],
    );
    if (!row) return undefined;
    return {
      session: { accountId: row.id, csrfSecret: row.csrf_secret, created: row.session_created, expires: row.expires, address: row.address },
      account: toAccount(row),
    };
  }

  /** Ends the session (sign-out): its cookie no longer works, even if kept. */
  async endSession(token: string): Promise<void> {
    await this.db.query('update sessions set ended_at = now() where id_hash = $1 and ended_at is null', [hashToken(token)]);
  }

  async endSessions(accountId: string): Promise<void> {
    await this.db.query('update sessions set ended_at = now() where account_id = $1 and ended_at is null', [accountId]);
  }

  async recordSignIn(attempt: { accountId: string | null; address: string; succeeded: boolean }): Promise<void> {
    await this.db.query('insert into sign_in_attempts (account_id, address, succeeded) values ($1, $2, $3)', [
      attempt.accountId,
      attempt.address,
      attempt.succeeded,
    ]);
  }

  /** Failed sign-ins within the window, for the account and for the address (the dashboard throttles on both). */
  async recentFailures(options: { accountId: string | null; address: string; windowMs: number }): Promise<{ account: number; address: number }> {
    const [row] = await this.db.query<{ account: number; address: number }>(
      `select count(*) filter (where account_id = $1)::int as account, count(*) filter (where address = $2)::int as address
       from sign_in_attempts where not succeeded and at > now() - $3 * interval '1 millisecond' and (account_id = $1 or address = $2)`,
      [options.accountId, options.address, options.windowMs],
    );
    return row;
  }

  /** Forgets sign-in attempts, ended or expired sessions and used or expired links older than `ms`. */
  async prune(ms: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`delete from sign_in_attempts where at < now() - $1 * interval '1 millisecond'`, [ms]);
      await tx.query(`delete from sessions where coalesce(ended_at, expires) < now() - $1 * interval '1 millisecond'`, [ms]);
      await tx.query(`delete from password_tokens where coalesce(used_at, expires) < now() - $1 * interval '1 millisecond'`, [ms]);
    });
  }

  // ---- moving between databases ------------------------------------------

  /**
   * Copies everything into `target`, an empty database of the same schema
   * (moving from the embedded database to PostgreSQL): one statement per
   * table, all in one transaction, so the copy is whole or absent. Returns
   * the rows copied per table.
   */
  async copyTo(target: Store): Promise<Record<string, number>> {
    if ((await target.db.query('select 1 from accounts limit 1')).length > 0) {
      throw new PdfsvcError(409, `the database ${target.db.location} already has accounts; copy into an empty one`);
    }
    const tables: Record<string, Row[]> = {};
    // Parents before children (foreign keys).
    for (const table of COPIED_TABLES) tables[table] = await this.db.query<Row>(`select * from ${table}`);
    const version = await this.version();
    return target.db.transaction(async (tx) => {
      const counts: Record<string, number> = {};
      for (const table of COPIED_TABLES) {
        counts[table] = tables[table].length;
        if (tables[table].length === 0) continue;
        await tx.query(`insert into ${table} overriding system value select * from json_populate_recordset(null::${table}, $1::json)`, [
          JSON.stringify(tables[table]),
        ]);
        if (IDENTITY_TABLES.includes(table)) await tx.query(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`);
      }
      await tx.query('update store_state set version = greatest(version, $1) + 1 where id = 1', [version]);
      return counts;
    });
  }

  // ---- audit --------------------------------------------------------------

  /**
   * Appends API requests' audit records (--audit-log database) in one
   * statement: the records travel as one JSON parameter, whatever their number.
   */
  async appendRequestAudit(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.query(
      `insert into request_audit (time, region, key_id, account, action, method, status, bytes_in, bytes_out, pages, duration_ms)
       select time, region, key_id, account, action, method, status, bytes_in, bytes_out, pages, duration_ms
       from json_to_recordset($1::json) as r(time timestamptz, region text, key_id text, account text, action text, method text, status int, bytes_in bigint, bytes_out bigint, pages int, duration_ms double precision)
       order by time`,
      [JSON.stringify(records)],
    );
  }

  /** Adds an audit event (inside `tx` when given). `detail` must hold no secret. */
  async audit(
    tx: Queryable | null,
    event: { accountId: string; kind: string; keyId?: string | null; detail?: Record<string, unknown> },
    by: Actor,
  ): Promise<void> {
    await (tx ?? this.db).query('insert into audit_events (account_id, actor, address, kind, key_id, detail) values ($1, $2, $3, $4, $5, $6)', [
      event.accountId,
      by.actor,
      by.address ?? null,
      event.kind,
      event.keyId ?? null,
      JSON.stringify(event.detail ?? {}),
    ]);
  }

  /** The account's audit events, newest first. */
  async listAudit(accountId: string, limit = 100): Promise<AuditEvent[]> {
    const rows = await this.db.query<{
      id: number;
      account_id: string;
      at: Date;
      actor: string;
      address: string | null;
      kind: string;
      key_id: string | null;
      detail: Record<string, unknown>;
    }>('select id, account_id, at, actor, address, kind, key_id, detail from audit_events where account_id = $1 order by at desc, id desc limit $2', [
      accountId,
      limit,
    ]);
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      at: r.at,
      actor: r.actor,
      address: r.address,
      kind: r.kind,
      keyId: r.key_id,
      detail: r.detail,
    }));
  }
}
