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

/** Who did it: the signed-in user, or nobody (the CLI, a job). */
export type Actor = { id: number; username: string } | null;

/** The actor a signed-in user is. */
export const actorOf = (u: { id: number; username: string }): Actor => ({ id: u.id, username: u.username });

/** What an entry is about: a user (and their account), an account, an asset (and its account). */
export type Affected = { userId: number; accountId: number } | { accountId: number } | { assetId: number; accountId: number | null };

/** 1.0 keeps at most 500 characters of an event; a longer one loses its middle. */
const clipped = (event: string) => (event.length <= 500 ? event : `${event.slice(0, 248)}...${event.slice(-249)}`);

/**
 * Records an audit log entry. Called with the transaction that makes the change, so that the
 * change and its record are stored together or not at all.
 */
export async function recordAudit(trx: Knex.Transaction, actor: Actor, affected: Affected, event: string): Promise<void> {
  await trx('audit_log').insert({
    event_datetime: Date.now(),
    event: clipped(event),
    active_user_id: actor?.id ?? null,
    active_user_name: actor?.username ?? null,
    affected_user_id: 'userId' in affected ? affected.userId : null,
    affected_account_id: affected.accountId,
    affected_asset_id: 'assetId' in affected ? affected.assetId : null,
  });
}

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
