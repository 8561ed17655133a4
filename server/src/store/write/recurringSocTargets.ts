import type { Knex } from 'knex';
import { weekdays } from '../../contracts/devices.ts';
import type { Writer } from '../auditLog.ts';
import { listRecurringSocTargets, type RecurringSocTarget } from '../recurringSocTargets.ts';
import { recordAudit } from './auditLog.ts';

/** Replaces the device's (an asset's) recurring targets, recording how many it now has. */
export async function replaceRecurringSocTargets(
  trx: Knex.Transaction,
  by: Writer,
  asset: { id: number; account_id: number | null },
  targets: Omit<RecurringSocTarget, 'id' | 'assetId'>[],
): Promise<RecurringSocTarget[]> {
  const assetId = asset.id;
  await trx('recurring_soc_target').where({ asset_id: assetId }).delete();
  if (targets.length) {
    await trx('recurring_soc_target').insert(
      targets.map((t) => ({
        asset_id: assetId,
        days: t.days.map((d) => weekdays.indexOf(d) + 1).join(','),
        time: t.time,
        timezone: t.timezone,
        value: t.value,
      })),
    );
  }
  const event = `Set recurring state-of-charge targets of asset ${assetId}: ${targets.length}`;
  await recordAudit(trx, by, { assetId, accountId: asset.account_id }, event);
  return listRecurringSocTargets(trx, assetId);
}
