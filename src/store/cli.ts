/**
 * `pdfsvc accounts …`, the database side of `pdfsvc keys …`, and
 * `pdfsvc usage`: thin commands over store.ts. Secrets go to standard output
 * alone on their line (a key, a password link), so that a script can take
 * them; what was done goes to standard error.
 */
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { usableRegions } from '../core/plans.js';
import { PLANS, defaultKeysFile, parseDuration, parseGrace, readKeysFile, type StoredKey } from '../server/keys.js';
import { databaseConfig, type StoreOptions } from './location.js';
import type { OptionValues } from '../cli/options.js';
import { type ACCOUNTS_OPTIONS, DEFAULT_DASHBOARD_URL, type KEYS_OPTIONS } from '../server/options.js';
import { openStore, PASSWORD_LINK_TTL_MS, validateMonth, type KeyRecord, type Store, type UsageRow } from './store.js';
import { printOut } from '../cli/stdout.js';

/** The password link for a token; the token rides in the query (pdfsvc logs paths without their query). */
export function passwordLink(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/set-password?token=${token}`;
}

/**
 * Where the password link points: --dashboard-url (or $PDFSVC_DASHBOARD_URL),
 * else the dashboard of the `pdfsvc serve` that holds the embedded database
 * (asked through its socket), else DEFAULT_DASHBOARD_URL. A guess says so on
 * standard error: a link to the wrong address fails only when the customer
 * opens it.
 */
async function dashboardFor(store: Store, given: string | undefined): Promise<string> {
  if (given) return given;
  const holder = await store.db.holder?.();
  if (holder?.dashboardUrl && !holder.guessed) return holder.dashboardUrl;
  const url = holder?.dashboardUrl ?? DEFAULT_DASHBOARD_URL;
  const why = holder?.dashboardUrl
    ? 'the pdfsvc serve holding the database listens on every interface'
    : store.db.borrowed
      ? 'the pdfsvc serve holding the database has no dashboard, or is older'
      : 'no pdfsvc serve holds the database to tell its address';
  note(
    `the link's address ${url} is a guess (${why}): if the dashboard is elsewhere, make a new link with pdfsvc accounts link NAME --dashboard-url URL (or set PDFSVC_DASHBOARD_URL)`,
  );
  return url;
}

/** Runs `work` on the database the options name (never a keys file: these commands need accounts). */
export async function withStore<T>(options: StoreOptions, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(databaseConfig(options));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const out = (line: string): void => printOut(`${line}\n`);
const note = (line: string): void => void process.stderr.write(`${line}\n`);
const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

function linkTtl(text: string | undefined): number {
  if (text === undefined) return PASSWORD_LINK_TTL_MS;
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) throw ValidationError.field('link-ttl', `${JSON.stringify(text)} is not a duration; write it as 24h, 30m or 7d`);
  return ms;
}

// ---- accounts ---------------------------------------------------------------

export async function accountsCreate(name: string, options: StoreOptions & OptionValues<typeof ACCOUNTS_OPTIONS.create>): Promise<void> {
  const ttl = linkTtl(options.linkTtl);
  await withStore(options, async (store) => {
    const account = await store.createAccount({ name, email: options.email, plan: options.plan });
    const { token, expires } = await store.createPasswordToken(account.id, ttl);
    out(passwordLink(await dashboardFor(store, options.dashboardUrl), token));
    note(`created account ${account.name} (${account.id}, ${account.plan} plan, ${account.email}) in ${store.db.location}`);
    note(
      `send its owner the link above: it sets the dashboard password, works once, and expires at ${expires.toISOString()} (a new one: pdfsvc accounts link ${account.name})`,
    );
  });
}

export async function accountsLink(name: string, options: StoreOptions & OptionValues<typeof ACCOUNTS_OPTIONS.link>): Promise<void> {
  const ttl = linkTtl(options.linkTtl);
  await withStore(options, async (store) => {
    const account = await store.account(name);
    const { token, expires } = await store.createPasswordToken(account.id, ttl);
    out(passwordLink(await dashboardFor(store, options.dashboardUrl), token));
    note(`a password link for ${account.name}: it works once, until ${expires.toISOString()}; earlier links no longer work`);
  });
}

export async function accountsList(options: StoreOptions & OptionValues<typeof ACCOUNTS_OPTIONS.list>): Promise<void> {
  await withStore(options, async (store) => {
    const accounts = await store.listAccounts();
    const rows = accounts.map((a) => ({
      id: a.id,
      name: a.name,
      email: a.email,
      plan: a.plan,
      status: a.status,
      keys: a.keys,
      password_set: a.passwordHash !== null,
      created: iso(a.created),
    }));
    if (options.json) return out(JSON.stringify(rows, null, 2));
    if (rows.length === 0) note(`no accounts in ${store.db.location}; create one with pdfsvc accounts create`);
    else
      printTable(
        ['name', 'id', 'email', 'plan', 'status', 'keys', 'password', 'created'],
        rows.map((r) => [r.name, r.id, r.email, r.plan, r.status, String(r.keys), r.password_set ? 'set' : 'not set', r.created!]),
      );
  });
}

export async function accountsSetPlan(name: string, plan: string, options: StoreOptions): Promise<void> {
  await withStore(options, async (store) => {
    const account = await store.setPlan(name, plan);
    note(`${account.name} is on the ${account.plan} plan; its keys follow within 2 s on every server`);
    // A key keeps its region limit (widening it would let it into regions it was kept out of), so say which keys lose regions.
    for (const key of await store.listKeys({ account: account.id })) {
      const usable = usableRegions(account.plan, key.regions);
      if (!key.regions || usable.length === key.regions.length) continue;
      note(
        usable.length === 0
          ? `warning: the key ${key.name} (${key.id}) is limited to ${key.regions.join(', ')}, which the ${account.plan} plan does not include: every server refuses it (403) until the plan includes one of them again or its regions change (pdfsvc keys set-regions ${key.id} all, or the dashboard); or revoke it`
          : `the key ${key.name} (${key.id}) is limited to ${key.regions.join(', ')}: on the ${account.plan} plan, only ${usable.join(', ')}`,
      );
    }
  });
}

export async function accountsSetStatus(name: string, status: 'active' | 'suspended', options: StoreOptions): Promise<void> {
  await withStore(options, async (store) => {
    const account = await store.setStatus(name, status);
    note(
      status === 'suspended'
        ? `suspended ${account.name}: its keys get 403 within 2 s on every server`
        : `resumed ${account.name}: its keys work again within 2 s`,
    );
  });
}

export async function accountsDelete(name: string, options: StoreOptions): Promise<void> {
  await withStore(options, async (store) => {
    const account = await store.deleteAccount(name);
    note(`deleted ${account.name} (${account.id}) and its keys; its usage stays for billing`);
  });
}

// ---- keys (database) -----------------------------------------------------------

/** "30d", "12h": from now; else an ISO 8601 date or time. */
function parseExpiry(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  const date = ms !== undefined ? new Date(Date.now() + ms) : /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : undefined;
  if (!date || Number.isNaN(date.getTime()))
    throw ValidationError.field('expires', `${JSON.stringify(text)} is neither a duration (30d, 12h) nor a date (2027-01-31)`);
  return date;
}

function parseRegions(text: string | undefined): string[] | undefined {
  return text === undefined
    ? undefined
    : text
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean);
}

/** The account keys made with --plan and no --account go to, and keys import's default. */
const DEFAULT_ACCOUNT = 'default';

/** The account `name`, made with `plan` if missing: whether it was made, and the plan it has (keys create and import). */
async function accountMadeIfMissing(store: Store, name: string, plan: string, email: string): Promise<{ made: boolean; plan: string }> {
  const existing = await store.findAccount(name);
  if (existing) return { made: false, plan: existing.plan };
  await store.createAccount({ name, email, plan });
  return { made: true, plan };
}

/** `default-<plan>`, made if missing; refused if someone changed its plan since. */
async function planAccount(store: Store, plan: string): Promise<string> {
  const name = `${DEFAULT_ACCOUNT}-${plan}`;
  const account = await accountMadeIfMissing(store, name, plan, `${name}@localhost`);
  if (account.made) note(`created account ${name} (${plan} plan) for keys made with --plan and no --account`);
  else if (account.plan !== plan) throw ValidationError.field('plan', `the account ${name} has the ${account.plan} plan now; name an account with --account`);
  return name;
}

export async function keysCreate(
  options: StoreOptions & { account?: string; name?: string; regions?: string; expires?: string; plan?: string },
): Promise<void> {
  const { plan } = options;
  if (!options.account && !plan)
    throw ValidationError.field(
      'account',
      `name the account the key is for (--account NAME; see pdfsvc accounts list), or give --plan for the account ${DEFAULT_ACCOUNT}-<plan>`,
    );
  if (options.account && plan)
    throw ValidationError.field('plan', "a key has its account's plan; change it with pdfsvc accounts set-plan (or leave out --account)");
  const expires = parseExpiry(options.expires);
  await withStore(options, async (store) => {
    // DECISIONS.md §4's form, `keys create --plan free`, names no account: the key goes to that plan's own account, as keys import names them.
    const account = options.account ?? (await planAccount(store, plan!));
    const { key, record } = await store.createKey({ account, name: options.name, regions: parseRegions(options.regions), expires });
    out(key);
    note(
      `created key ${record.id} (${record.name}, account ${record.accountName}, ${record.plan} plan${record.regions ? `, only ${record.regions.join(', ')}` : ''}${record.expires ? `, expires ${iso(record.expires)}` : ''}); it is shown only this once`,
    );
  });
}

export async function keysList(options: StoreOptions & { account?: string; all?: boolean; json?: boolean }): Promise<void> {
  await withStore(options, async (store) => {
    const keys = await store.listKeys({ account: options.account, revoked: options.all });
    const rows = keys.map(keyRow);
    if (options.json) return out(JSON.stringify(rows, null, 2));
    if (rows.length === 0) note(`no keys${options.account ? ` in the account ${options.account}` : ''} in ${store.db.location}`);
    else {
      printTable(
        ['id', 'account', 'name', 'prefix', 'plan', 'regions', 'created', 'last used', 'expires', 'revoked'],
        rows.map((r) => [
          r.id,
          r.account,
          r.name,
          r.prefix ?? '(imported)',
          r.plan,
          regionsCell(r),
          r.created!,
          r.last_used ?? 'never',
          r.expires ?? 'never',
          r.revoked ?? '',
        ]),
      );
      const nowhere = rows.filter((r) => !r.revoked && r.usable_regions.length === 0);
      if (nowhere.length)
        note(
          `warning: usable in no region, being limited to regions outside their account's plan: ${nowhere.map((r) => `${r.name} (${r.id})`).join(', ')}; change the key's regions (pdfsvc keys set-regions NAME all, or the dashboard) or the plan, or revoke the key`,
        );
    }
  });
}

/** A key's regions in the table: `all`, or its limit, marked when its plan takes away some or all of it. */
function regionsCell(r: ReturnType<typeof keyRow>): string {
  // "all" alone read as every region, when a Free key works in global only: the plan's regions, as the dashboard says.
  if (!r.regions) return `plan's: ${r.usable_regions.join(',')}`;
  const limit = r.regions.join(',');
  if (r.usable_regions.length === r.regions.length) return limit;
  return r.usable_regions.length === 0 ? `${limit} (none on ${r.plan}: works nowhere)` : `${limit} (on ${r.plan} only ${r.usable_regions.join(',')})`;
}

/** What a listing shows of a key: never the key or its hash. */
function keyRow(k: KeyRecord) {
  return {
    id: k.id,
    account: k.accountName,
    name: k.name,
    prefix: k.prefix,
    plan: k.plan,
    regions: k.regions,
    /** Where the plan and the limit let it work; empty: refused everywhere. */
    usable_regions: usableRegions(k.plan, k.regions),
    created: iso(k.created),
    last_used: iso(k.lastUsed),
    expires: iso(k.expires),
    revoked: iso(k.revokedAt),
  };
}

export async function keysRevoke(nameOrId: string, options: StoreOptions & { account?: string }): Promise<void> {
  await withStore(options, async (store) => {
    const key = await store.revokeKey(nameOrId, { account: options.account });
    note(`revoked ${key.id} (${key.name}, account ${key.accountName}): every server refuses it within 2 s`);
  });
}

/** `all`: every region of the account's plan (the dashboard's limits form with none ticked); else a list such as `us,eu`. */
export async function keysSetRegions(
  nameOrId: string,
  regions: string,
  options: StoreOptions & OptionValues<(typeof KEYS_OPTIONS)['set-regions']>,
): Promise<void> {
  const limit = regions.trim() === 'all' ? null : (parseRegions(regions) ?? []);
  await withStore(options, async (store) => {
    const key = await store.setKeyRegions(nameOrId, limit, { account: options.account });
    const where = key.regions ? `only ${key.regions.join(', ')}` : `every region of the ${key.plan} plan (${usableRegions(key.plan, null).join(', ')})`;
    note(`${key.name} (${key.id}, account ${key.accountName}) now works in ${where}: every server applies it within 2 s`);
  });
}

export async function keysRename(nameOrId: string, name: string, options: StoreOptions & OptionValues<typeof KEYS_OPTIONS.rename>): Promise<void> {
  await withStore(options, async (store) => {
    const key = await store.renameKey(nameOrId, name, { account: options.account });
    note(`renamed ${key.id} to ${key.name}`);
  });
}

export async function keysRotate(nameOrId: string, options: StoreOptions & { account?: string; grace?: string }): Promise<void> {
  const graceMs = parseGrace(options.grace);
  await withStore(options, async (store) => {
    const { key, replaced } = await store.rotateKey(nameOrId, { account: options.account, graceMs });
    out(key);
    note(`rotated ${nameOrId}: the new key is shown only this once; the old one (${replaced.id}) stops working at ${iso(replaced.expires)}`);
  });
}

/**
 * Imports a keys file into the database, once: hashes only, so every key
 * keeps working. Keys files have no accounts: the keys go to the account
 * named by --account (default `default`), made if missing with --email. A
 * plan belongs to an account, so when the file mixes plans each plan's keys
 * go to an account of their own (`default-free`, `default-business`…): no
 * key gains or loses a region.
 */
export async function keysImport(options: StoreOptions & OptionValues<typeof KEYS_OPTIONS.import>): Promise<void> {
  const path = options.keysFile ?? defaultKeysFile();
  const file = await readKeysFile(path).catch((err) => {
    throw new PdfsvcError(400, `cannot read the keys file ${path}: ${(err as Error).message}`);
  });
  if (file.keys.length === 0) throw new PdfsvcError(404, `no keys in ${path}; name the keys file with --keys-file`);
  const base = options.account ?? DEFAULT_ACCOUNT;
  const plans = PLANS.filter((plan) => file.keys.some((k) => k.plan === plan));
  const accountFor = (key: StoredKey) => (plans.length === 1 ? base : `${base}-${key.plan}`);
  // The keys file is the source here, never the destination: the database is whatever the other options name.
  await withStore({ databaseUrl: options.databaseUrl, dataDir: options.dataDir }, async (store) => {
    for (const plan of plans) {
      const name = plans.length === 1 ? base : `${base}-${plan}`;
      const account = await accountMadeIfMissing(store, name, plan, plans.length === 1 && options.email ? options.email : `${name}@localhost`);
      if (account.made) {
        note(`created account ${name} (${plan} plan) for the keys of the ${plan} plan`);
      } else if (account.plan !== plan) {
        throw ValidationError.field(
          'account',
          `the account ${name} has the ${account.plan} plan, but the file's keys have the ${plan} plan; name another account with --account`,
        );
      }
    }
    const { imported, skipped } = await store.importKeys(file.keys, accountFor);
    for (const key of imported) note(`imported ${key.id} (${key.name}) into ${key.accountName}`);
    note(
      `imported ${imported.length} key(s) from ${path} into ${store.db.location}${skipped.length ? `; ${skipped.length} were there already` : ''}. Servers that read the file go on doing so until started without --keys-file`,
    );
  });
}

// ---- moving to PostgreSQL --------------------------------------------------

/** Copies the database the options name (by default the embedded one) into the empty PostgreSQL database `to`. */
export async function databaseCopy(options: StoreOptions & { to: string }): Promise<void> {
  if (!/^postgres(ql)?:\/\//.test(options.to))
    throw ValidationError.field('to', 'give the PostgreSQL database to copy into as postgres://user:password@host/db');
  await withStore(options, async (source) => {
    const target = await openStore({ url: options.to });
    try {
      const counts = await source.copyTo(target);
      note(
        `copied ${Object.entries(counts)
          .map(([table, n]) => `${n} ${table}`)
          .join(', ')} from ${source.db.location} to ${target.db.location}`,
      );
      note('start the servers with --database-url (or PDFSVC_DATABASE_URL) pointing there; the source is left as it was');
    } finally {
      await target.close();
    }
  });
}

// ---- usage -----------------------------------------------------------------

const FORMATS = ['table', 'csv', 'json'] as const;

export async function usageReport(options: StoreOptions & { month?: string; account?: string; format?: string }): Promise<void> {
  const month = validateMonth(options.month ?? new Date().toISOString().slice(0, 7));
  const format = (options.format ?? 'table') as (typeof FORMATS)[number];
  if (!FORMATS.includes(format)) throw ValidationError.field('format', `must be one of ${FORMATS.join(', ')}; got ${JSON.stringify(options.format)}`);
  const rows = await withStore(options, (store) => store.usage({ month, account: options.account }));
  if (format === 'csv') return printCsv(rows);
  const byAccount = totals(rows, (r) => r.accountId);
  const accounts = byAccount.map(({ first, sums }) => ({ account: first.account, account_id: first.accountId, ...sums }));
  if (format === 'json') {
    const daily = rows.map((r) => ({ account: r.account, account_id: r.accountId, key: r.key, key_id: r.keyId, region: r.region, day: r.day, ...counters(r) }));
    return out(JSON.stringify({ month, accounts, rows: daily }, null, 2));
  }
  if (rows.length === 0) return note(`no usage in ${month}${options.account ? ` for ${options.account}` : ''}`);
  const keys = totals(rows, (r) => `${r.accountId} ${r.keyId}`);
  const line = (account: string, key: string, s: Record<string, number>) => [
    account,
    key,
    String(s.requests),
    String(s.requests_2xx),
    String(s.requests_4xx),
    String(s.requests_5xx),
    String(s.pages),
    String(s.bytes_in),
    String(s.bytes_out),
  ];
  printTable(
    ['account', 'key', 'requests', '2xx', '4xx', '5xx', 'pages', 'bytes in', 'bytes out'],
    [...keys.map(({ first, sums }) => line(first.account, first.key, sums)), ...byAccount.map(({ first, sums }) => line(first.account, '(total)', sums))],
  );
}

function counters(r: UsageRow): Record<string, number> {
  return {
    requests: r.requests2xx + r.requests4xx + r.requests5xx,
    requests_2xx: r.requests2xx,
    requests_4xx: r.requests4xx,
    requests_5xx: r.requests5xx,
    pages: r.pages,
    bytes_in: r.bytesIn,
    bytes_out: r.bytesOut,
  };
}

/** Sums of the counters over rows grouped by `by`, in the rows' order. */
export function totals(rows: readonly UsageRow[], by: (r: UsageRow) => string): Array<{ first: UsageRow; sums: Record<string, number> }> {
  const groups = new Map<string, { first: UsageRow; sums: Record<string, number> }>();
  for (const row of rows) {
    const group = groups.get(by(row)) ?? groups.set(by(row), { first: row, sums: {} }).get(by(row))!;
    for (const [name, value] of Object.entries(counters(row))) group.sums[name] = (group.sums[name] ?? 0) + value;
  }
  return [...groups.values()];
}

/** One line per account, key, region and day: what a billing system imports. */
/**
 * One CSV cell. Text that a spreadsheet would take for a formula (a legacy key
 * name starting with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a
 * leading `'`, so that opening the invoice export runs nothing.
 */
export function csvField(value: string | number): string {
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function printCsv(rows: readonly UsageRow[]): void {
  out(
    [
      'day',
      'account',
      'account_id',
      'key',
      'key_id',
      'region',
      'requests',
      'requests_2xx',
      'requests_4xx',
      'requests_5xx',
      'pages',
      'bytes_in',
      'bytes_out',
    ].join(','),
  );
  for (const r of rows) out([r.day, r.account, r.accountId, r.key, r.keyId, r.region, ...Object.values(counters(r))].map(csvField).join(','));
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  out(line(header));
  for (const row of rows) out(line(row));
}
