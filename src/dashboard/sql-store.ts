/**
 * The dashboard's store on the accounts store (src/store): every call takes
 * the signed-in account's id and passes it on as the account a key must
 * belong to, so another account's key is "not found" by construction.
 */
import { PdfsvcError } from '../core/errors.js';
import { PLAN_REGIONS, REGIONS, type Region } from '../server/keys.js';
import type { Account, AuditEvent, KeyRecord, Store } from '../store/store.js';
import type { AuditView, KeyView, OperatorRow, UsageRow } from './pages.js';
import type { Actor, DashboardAccount, DashboardStore, KeyLimits } from './store.js';

const toAccount = (a: Account, operator = false): DashboardAccount => ({
  id: a.id,
  name: a.name,
  email: a.email,
  plan: a.plan,
  status: a.status,
  operator,
  passwordHash: a.passwordHash,
});

/** The operator flag (migration 3, the dashboard's own column). */
async function isOperator(store: Store, accountId: string): Promise<boolean> {
  const [row] = await store.db.query<{ operator: boolean }>('select operator from accounts where id = $1', [accountId]);
  return Boolean(row?.operator);
}

/** `pdfsvc accounts operator NAME [--off]`: lets the account's owner see every account's totals, or stops it. */
export async function setOperator(store: Store, nameOrId: string, operator: boolean): Promise<Account> {
  return store.db.transaction(async (tx) => {
    const account = await store.account(nameOrId, tx);
    await tx.query('update accounts set operator = $2 where id = $1', [account.id, operator]);
    await store.audit(tx, { accountId: account.id, kind: operator ? 'operator_granted' : 'operator_revoked' }, { actor: 'operator', address: null });
    return account;
  });
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toKeyView(k: KeyRecord, requests: number): KeyView {
  return {
    id: k.id,
    name: k.name,
    // Keys imported from a keys file have no prefix: their id tells them apart.
    prefix: k.prefix ?? `(imported) ${k.id}`,
    created: k.created.toISOString(),
    lastUsed: iso(k.lastUsed),
    expires: iso(k.expires),
    regions: k.regions,
    requestsThisMonth: requests,
  };
}

/** Plain words for the audit list, from the store's event kinds and details (which hold no secret). */
function describeAudit(e: AuditEvent): string {
  const d = e.detail as Record<string, unknown>;
  const name = typeof d.name === 'string' ? `“${d.name}”` : '';
  const key = e.keyId ? ` (${e.keyId})` : '';
  switch (e.kind) {
    case 'key_created':
      return `key ${name}${key} created${Array.isArray(d.regions) ? `, regions ${d.regions.join(', ')}` : ''}${d.expires ? `, expires ${d.expires}` : ''}`;
    case 'key_renamed':
      return `key${key} renamed from “${d.from}” to “${d.to}”`;
    case 'key_rotated':
      return `key ${name} rotated: new key${key} replaces ${d.replaces}${d.old_key_expires ? `, which works until ${d.old_key_expires}` : ''}`;
    case 'key_revoked':
      return `key ${name}${key} revoked`;
    case 'key_regions':
      return `key ${name}${key} regions: ${Array.isArray(d.regions) ? d.regions.join(', ') : 'all of the plan'}`;
    case 'key_limits':
      return `key ${name}${key} limits: regions ${Array.isArray(d.regions) ? d.regions.join(', ') : 'all of the plan'}, expires ${d.expires ?? 'never'}`;
    case 'key_imported':
      return `key ${name}${key} imported from a keys file`;
    case 'signed_in':
      return typeof d.how === 'string' ? d.how : 'signed in';
    case 'signed_out':
      return 'signed out';
    case 'password_set':
      return 'password set with a one-time link';
    case 'password_link_created':
      return `one-time password link made${d.expires ? `, valid until ${d.expires}` : ''}`;
    default:
      return `${e.kind.replace(/_/g, ' ')}${
        Object.keys(d).length
          ? `: ${Object.entries(d)
              .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(', ') : String(v)}`)
              .join(', ')}`
          : ''
      }`;
  }
}

export function sqlDashboardStore(store: Store): DashboardStore {
  /** Requests this month per key of the account. */
  async function monthRequests(accountId: string, month: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const row of await store.usage({ month, account: accountId }))
      counts.set(row.keyId, (counts.get(row.keyId) ?? 0) + row.requests2xx + row.requests4xx + row.requests5xx);
    return counts;
  }

  return {
    accountByEmail: async (email) => {
      const found = await store.findAccountByEmail(email);
      return found && toAccount(found);
    },
    passwordTokenAccount: async (token) => {
      const found = await store.passwordTokenAccount(token);
      return found && toAccount(found);
    },
    usePasswordToken: async (token, passwordHash, address) => {
      const account = await store.passwordTokenAccount(token);
      if (!account) return undefined;
      const used = await store.setPasswordWithToken(token, passwordHash, { actor: account.email, address });
      return used && toAccount(used);
    },
    createSession: (accountId, ttlMs, address) => store.createSession(accountId, ttlMs, address),
    sessionAccount: async (token) => {
      const found = await store.findSession(token);
      return found && { account: toAccount(found.account, await isOperator(store, found.account.id)), csrfSecret: found.session.csrfSecret };
    },
    endSession: (token) => store.endSession(token),
    recordSignIn: ({ accountId, address, ok }) => store.recordSignIn({ accountId, address, succeeded: ok }),
    failedSignIns: (accountId, address, windowMs) => store.recentFailures({ accountId, address, windowMs }),

    async listKeys(accountId, month) {
      const counts = await monthRequests(accountId, month);
      return (await store.listKeys({ account: accountId })).map((k) => toKeyView(k, counts.get(k.id) ?? 0));
    },
    async getKey(accountId, keyId, month) {
      const key = (await store.listKeys({ account: accountId })).find((k) => k.id === keyId);
      if (!key) return undefined;
      return toKeyView(key, (await monthRequests(accountId, month)).get(key.id) ?? 0);
    },
    async createKey(accountId, name, by) {
      const { key, record } = await store.createKey({ account: accountId, name }, by);
      return { id: record.id, key };
    },
    async renameKey(accountId, keyId, name, by) {
      await store.renameKey(keyId, name, { account: accountId }, by);
    },
    async setKeyLimits(accountId, keyId, limits: KeyLimits, by: Actor) {
      const key = await store.findLiveKey(keyId, accountId);
      const regions = limits.regions?.filter((r): r is Region => (REGIONS as readonly string[]).includes(r)) ?? null;
      const account = await store.account(accountId);
      if (regions?.some((r) => !PLAN_REGIONS[account.plan].includes(r)))
        throw new PdfsvcError(400, `the ${account.plan} plan does not include all of ${regions.join(', ')}`);
      await store.db.transaction(async (tx) => {
        await tx.query('update api_keys set regions = $2, expires = $3 where id = $1 and account_id = $4 and revoked_at is null', [
          key.id,
          regions,
          limits.expires ? new Date(limits.expires) : null,
          accountId,
        ]);
        await store.audit(tx, { accountId, kind: 'key_limits', keyId: key.id, detail: { name: key.name, regions, expires: limits.expires } }, by);
        // Servers reload their keys when this number moves (src/store/store.ts).
        await tx.query('update store_state set version = version + 1 where id = 1');
      });
    },
    async rotateKey(accountId, keyId, graceMs, by) {
      const { key, record } = await store.rotateKey(keyId, { account: accountId, graceMs }, by);
      return { id: record.id, key };
    },
    async revokeKey(accountId, keyId, by) {
      await store.revokeKey(keyId, { account: accountId }, by);
    },

    async usage(accountId, month): Promise<UsageRow[]> {
      // Regions add up: the dashboard shows a key's day, wherever it was served.
      const byKeyDay = new Map<string, UsageRow>();
      for (const r of await store.usage({ month, account: accountId })) {
        const id = `${r.keyId} ${r.day}`;
        const row = byKeyDay.get(id) ?? { day: r.day, keyId: r.keyId, keyName: r.key, requests: 0, pages: 0, bytesIn: 0, bytesOut: 0 };
        row.requests += r.requests2xx + r.requests4xx + r.requests5xx;
        row.pages += r.pages;
        row.bytesIn += r.bytesIn;
        row.bytesOut += r.bytesOut;
        byKeyDay.set(id, row);
      }
      return [...byKeyDay.values()];
    },
    async operatorTotals(month): Promise<OperatorRow[]> {
      const rows = new Map<string, OperatorRow>();
      for (const a of await store.listAccounts()) {
        rows.set(a.id, { account: a.name, email: a.email, plan: a.plan, status: a.status, keys: a.keys, requests: 0, pages: 0, bytesIn: 0, bytesOut: 0 });
      }
      for (const r of await store.usage({ month })) {
        // A deleted account's usage still counts for the month's bill.
        const row = rows.get(r.accountId) ?? {
          account: r.account,
          email: '',
          plan: '',
          status: 'deleted',
          keys: 0,
          requests: 0,
          pages: 0,
          bytesIn: 0,
          bytesOut: 0,
        };
        row.requests += r.requests2xx + r.requests4xx + r.requests5xx;
        row.pages += r.pages;
        row.bytesIn += r.bytesIn;
        row.bytesOut += r.bytesOut;
        rows.set(r.accountId, row);
      }
      return [...rows.values()];
    },

    audit: (entry) => store.audit(null, { accountId: entry.accountId, kind: entry.kind, detail: entry.detail }, { actor: entry.actor, address: entry.address }),
    auditList: async (accountId, limit): Promise<AuditView[]> =>
      (await store.listAudit(accountId, limit)).map((e) => ({
        time: e.at.toISOString(),
        event: e.kind.replace(/_/g, ' '),
        actor: e.actor,
        address: e.address,
        detail: describeAudit(e),
      })),
  };
}
