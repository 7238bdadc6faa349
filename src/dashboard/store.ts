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
  kind: string;
  actor: string;
  address: string | null;
  /** Never a secret. */
  detail: Record<string, unknown>;
}

export interface DashboardStore {
  accountByEmail(email: string): Promise<DashboardAccount | undefined>;
  /** The account a one-time password link is for, while it is unused and unexpired. */
  passwordTokenAccount(token: string): Promise<DashboardAccount | undefined>;
  /** Uses the link (once: a second call finds nothing), sets the password and ends the account's sessions. */
  usePasswordToken(token: string, passwordHash: string, address: string | null): Promise<DashboardAccount | undefined>;

  /** A new session: the token goes in the cookie (the database keeps its hash); the forms' CSRF token derives from `csrfSecret`. */
  createSession(accountId: string, ttlMs: number, address: string | null): Promise<{ token: string; csrfSecret: string }>;
  /** The account of a session not ended and not expired, with the session's CSRF secret. */
  sessionAccount(token: string): Promise<{ account: DashboardAccount; csrfSecret: string } | undefined>;
  endSession(token: string): Promise<void>;

  recordSignIn(attempt: { accountId: string | null; address: string; ok: boolean }): Promise<void>;
  /** Failed sign-ins within the window for this account (if there is one) and from this network address. */
  failedSignIns(accountId: string | null, address: string, windowMs: number): Promise<{ account: number; address: number }>;

  listKeys(accountId: string, month: string): Promise<KeyView[]>;
  /** The account's live key with this id; undefined for any other account's key. */
  getKey(accountId: string, keyId: string, month: string): Promise<KeyView | undefined>;
  /** A new key of the account's plan; returns its id and the key itself (shown once). */
  createKey(accountId: string, name: string, by: Actor): Promise<{ id: string; key: string }>;
  renameKey(accountId: string, keyId: string, name: string, by: Actor): Promise<void>;
  setKeyLimits(accountId: string, keyId: string, limits: KeyLimits, by: Actor): Promise<void>;
  /** As `pdfsvc keys rotate`: a new key takes the name and limits; the old one stops after the grace period. */
  rotateKey(accountId: string, keyId: string, graceMs: number, by: Actor): Promise<{ id: string; key: string }>;
  revokeKey(accountId: string, keyId: string, by: Actor): Promise<void>;

  usage(accountId: string, month: string): Promise<UsageRow[]>;
  operatorTotals(month: string): Promise<OperatorRow[]>;

  audit(entry: AuditEntry): Promise<void>;
  auditList(accountId: string, limit: number): Promise<AuditView[]>;
}

/** Who does something in the dashboard, for the audit list. */
export interface Actor {
  actor: string;
  address: string | null;
}
