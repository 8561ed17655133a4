import type { Knex } from 'knex';
import { type Affected, type Writer } from '../auditLog.ts';

/** 1.0 keeps at most 500 characters of an event; a longer one loses its middle. */
const clipped = (event: string) => (event.length <= 500 ? event : `${event.slice(0, 248)}...${event.slice(-249)}`);

/**
 * Records an audit log entry. Called with the transaction that makes the change, so that the
 * change and its record are stored together or not at all.
 */
export async function recordAudit(trx: Knex.Transaction, writer: Writer, affected: Affected, event: string): Promise<void> {
  if (writer && 'unrecorded' in writer) return;
  const actor = writer;
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
