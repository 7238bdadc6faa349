/**
 * What the dashboard reads and writes, as one interface. sql-store.ts
 * implements it on the accounts store's database (embedded or PostgreSQL);
 * the app depends on nothing else, so every query that concerns an account
 * takes that account's id and cannot reach another account's rows.
 */
import type { AuditView, KeyView, OperatorRow, UsageRow } from './pages.js';

export interface DashboardAccount {
  id: string;
  name: string;
  email: string;
  plan: string;
  status: string;
  operator: boolean;
  /** scrypt string (password.ts), null until the one-time link has been used. */
  passwordHash: string | null;
}

export interface KeyLimits {
  /** null: every region of the plan. */
  regions: string[] | null;
  /** ISO instant, or null: never. */
  expires: string | null;
}

export interface AuditEntry {
  accountId: string;
  event: string;
  actor: string;
  address: string | null;
  detail: string;
}

export interface DashboardStore {
  accountByEmail(email: string): Promise<DashboardAccount | undefined>;
  /** The account a one-time password link is for, while it is unused and unexpired. */
  passwordTokenAccount(tokenHash: string): Promise<DashboardAccount | undefined>;
  /** Uses the link (once: a second call finds nothing) and sets the password; returns the account. */
  usePasswordToken(tokenHash: string, passwordHash: string): Promise<DashboardAccount | undefined>;

  /** `csrfSecret`: random per session; the forms' anti-forgery token is derived from it. */
  createSession(session: { hash: string; accountId: string; csrfSecret: string; expires: Date; address: string | null }): Promise<void>;
  /** The account of a session not ended and not expired, with the session's CSRF secret. */
  sessionAccount(hash: string): Promise<{ account: DashboardAccount; csrfSecret: string } | undefined>;
  deleteSession(hash: string): Promise<void>;
  deleteSessionsOf(accountId: string): Promise<void>;

  recordSignIn(attempt: { accountId: string | null; address: string; ok: boolean }): Promise<void>;
  /** Failed sign-ins since `since` for this account (if there is one) and from this network address. */
  failedSignIns(accountId: string | null, address: string, since: Date): Promise<{ account: number; address: number }>;

  listKeys(accountId: string, month: string): Promise<KeyView[]>;
  getKey(accountId: string, keyId: string, month: string): Promise<KeyView | undefined>;
  /** A new key of the account's plan; returns its id and the key itself (shown once). */
  createKey(accountId: string, name: string): Promise<{ id: string; key: string }>;
  renameKey(accountId: string, keyId: string, name: string): Promise<boolean>;
  setKeyLimits(accountId: string, keyId: string, limits: KeyLimits): Promise<boolean>;
  /** As `pdfsvc keys rotate`: a new key takes the name and limits; the old one stops after the grace period. */
  rotateKey(accountId: string, keyId: string, graceMs: number): Promise<{ id: string; key: string } | undefined>;
  revokeKey(accountId: string, keyId: string): Promise<boolean>;

  usage(accountId: string, month: string): Promise<UsageRow[]>;
  operatorTotals(month: string): Promise<OperatorRow[]>;

  audit(entry: AuditEntry): Promise<void>;
  auditList(accountId: string, limit: number): Promise<AuditView[]>;
}
