/**
 * The schema, as numbered migrations applied in order at start-up. A
 * migration, once released, never changes: a new need is a new migration.
 * Each runs in a transaction with its row in schema_migrations, under an
 * advisory lock, so processes starting together apply it once, and a failure
 * leaves the database as it was (PostgreSQL's DDL is transactional). None
 * drops or rewrites data.
 */
import { PdfsvcError } from '../core/errors.js';
import type { Database } from './database.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, usage',
    sql: `
      -- One row; every change that a server's key cache must see adds one (store.ts, bumpVersion).
      create table store_state (
        id int primary key check (id = 1),
        version bigint not null
      );
      insert into store_state (id, version) values (1, 0);

      create table accounts (
        id text primary key,
        name text not null unique,
        email text not null,
        plan text not null check (plan in ('free', 'starter', 'business')),
        status text not null default 'active' check (status in ('active', 'suspended')),
        -- scrypt (passwords.ts); null until the owner sets one with the one-time link.
        password_hash text,
        created timestamptz not null default now()
      );
      create unique index accounts_email on accounts (lower(email));

      create table api_keys (
        id text primary key,
        account_id text not null references accounts (id) on delete cascade,
        name text not null,
        -- The key's first characters, shown to tell keys apart (never enough to use it); null for imported keys.
        prefix text,
        -- Hex SHA-256 of the key: the key itself is never stored.
        hash text not null unique,
        created timestamptz not null default now(),
        expires timestamptz,
        last_used timestamptz,
        revoked_at timestamptz,
        -- Null: every region of the account's plan.
        regions text[]
      );
      create index api_keys_account on api_keys (account_id);
      -- A live key's name tells it apart within its account.
      create unique index api_keys_live_name on api_keys (account_id, name) where revoked_at is null;

      -- Counts per key, region and UTC day. No foreign keys: a deleted
      -- account's or key's usage stays for billing.
      create table usage_daily (
        key_id text not null,
        account_id text not null,
        region text not null,
        day date not null,
        requests_2xx bigint not null default 0,
        requests_4xx bigint not null default 0,
        requests_5xx bigint not null default 0,
        pages bigint not null default 0,
        bytes_in bigint not null default 0,
        bytes_out bigint not null default 0,
        primary key (key_id, region, day)
      );
    `,
  },
  {
    version: 2,
    name: 'dashboard: sessions, password links, sign-in attempts, audit; usage by account',
    sql: `
      -- Usage is read by account and month (pdfsvc usage, the dashboard).
      create index usage_daily_account_day on usage_daily (account_id, day);
      -- Names as the counts were made, for the bill of an account deleted since.
      alter table usage_daily add column account_name text;
      alter table usage_daily add column key_name text;

      create table sessions (
        -- SHA-256 of the session token (the cookie); the token itself is never stored.
        id_hash text primary key,
        account_id text not null references accounts (id) on delete cascade,
        -- Random per session: the dashboard derives its anti-forgery tokens from it.
        csrf_secret text not null,
        created timestamptz not null default now(),
        expires timestamptz not null,
        ended_at timestamptz,
        address text
      );
      create index sessions_account on sessions (account_id);

      create table password_tokens (
        -- SHA-256 of the one-time token in the link.
        hash text primary key,
        account_id text not null references accounts (id) on delete cascade,
        created timestamptz not null default now(),
        expires timestamptz not null,
        used_at timestamptz
      );

      create table sign_in_attempts (
        id bigint generated always as identity primary key,
        -- Null when the e-mail address named no account.
        account_id text references accounts (id) on delete cascade,
        address text not null,
        at timestamptz not null default now(),
        succeeded boolean not null
      );
      create index sign_in_attempts_account on sign_in_attempts (account_id, at);
      create index sign_in_attempts_address on sign_in_attempts (address, at);

      -- Never a secret: no key, password, token or hash in detail.
      create table audit_events (
        id bigint generated always as identity primary key,
        account_id text not null,
        at timestamptz not null default now(),
        -- 'operator' (the command line), or the e-mail address of whoever was signed in.
        actor text not null,
        address text,
        kind text not null,
        key_id text,
        detail jsonb not null default '{}'
      );
      create index audit_events_account on audit_events (account_id, at);
    `,
  },
  {
    version: 3,
    name: 'dashboard: operator accounts',
    sql: `
      -- Whoever signs in to an operator account also sees every account's
      -- totals in the dashboard (pdfsvc accounts operator NAME).
      alter table accounts add column operator boolean not null default false;
    `,
  },
  {
    version: 4,
    name: 'audit log of API requests (--audit-log database)',
    sql: `
      -- One row per request a server with --audit-log database answered
      -- (src/server/audit.ts, AuditRecord): who did what, with what outcome.
      -- Counters and the server's own names only: never a file name, a field
      -- value, a password or a document byte. No foreign keys: the record of
      -- a request outlives the account and key it names.
      create table request_audit (
        id bigint generated always as identity primary key,
        time timestamptz not null,
        region text not null,
        key_id text,
        account text,
        action text not null,
        method text not null,
        status int not null,
        bytes_in bigint not null,
        bytes_out bigint not null,
        pages int,
        duration_ms double precision not null
      );
      create index request_audit_time on request_audit (time);
      create index request_audit_key on request_audit (key_id, time);
    `,
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** Any number: it only has to be the same in every pdfsvc process. */
const MIGRATION_LOCK = 0x70646673;

/**
 * Brings the schema to `target` (default: the latest); returns the versions
 * before and after. A database from a newer pdfsvc is refused rather than
 * used by code that does not know its schema.
 */
export async function migrate(db: Database, target = LATEST_VERSION): Promise<{ from: number; to: number }> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.exec(`create table if not exists schema_migrations (
      version int primary key,
      name text not null,
      applied timestamptz not null default now()
    )`);
    const [{ version }] = await tx.query<{ version: number | null }>('select max(version) as version from schema_migrations');
    const from = version ?? 0;
    if (from > LATEST_VERSION) {
      throw new PdfsvcError(
        409,
        `the database ${db.location} has schema version ${from}, made by a newer pdfsvc than this one (which knows up to ${LATEST_VERSION}); upgrade pdfsvc`,
      );
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= from || migration.version > target) continue;
      await tx.exec(migration.sql);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [migration.version, migration.name]);
    }
    return { from, to: Math.max(from, Math.min(target, LATEST_VERSION)) };
  });
}
