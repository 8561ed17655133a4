import type { Knex } from 'knex';

/** One audit log entry as stored. */
export interface AuditEntry {
  id: number;
  event_datetime: number;
  event: string;
  active_user_id: number | null;
  active_user_name: string | null;
  affected_user_id: number | null;
  affected_account_id: number | null;
  affected_asset_id: number | null;
}

/** Who did it: the user acting (an automation's maker), or nobody (the operator at the CLI). */
export type Actor = { id: number; username: string } | null;

/**
 * Whom a store write records as its maker. Every write of an audited record (assets, sensors,
 * users, accounts, automations, recurring targets, data deletions) takes one and records its own
 * entry in the same transaction, so no writer can forget it. `unrecorded` names why a write has no
 * entry of its own: a step of a larger change that records itself as a whole (a copy), or a
 * fixture that builds a store for tests and benchmarks.
 */
export type Writer = Actor | { unrecorded: string };

/** A write that records no entry of its own, and why. */
export const unrecorded = (why: string): Writer => ({ unrecorded: why });

/** The actor a signed-in user is. */
export const actorOf = (u: { id: number; username: string }): Actor => ({ id: u.id, username: u.username });

/** What an entry is about: a user (and their account), an account, an asset (and its account). */
export type Affected = { userId: number; accountId: number } | { accountId: number } | { assetId: number; accountId: number | null };

/**
 * @returns the entries about one user, account or asset, oldest first. An account's are those
 *   about it and its users, as in 1.0, where assets keep a log of their own.
 */
export async function auditEntries(
  db: Knex,
  about: { userId: number } | { accountId: number } | { assetId: number },
): Promise<AuditEntry[]> {
  const q = db<AuditEntry>('audit_log').orderBy('id');
  if ('userId' in about) q.where('affected_user_id', about.userId);
  else if ('assetId' in about) q.where('affected_asset_id', about.assetId);
  else q.where('affected_account_id', about.accountId).whereNull('affected_asset_id');
  const rows = await q;
  return rows.map((r) => ({ ...r, event_datetime: Number(r.event_datetime) }));
}
