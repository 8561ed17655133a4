import type { Knex } from 'knex';
import type { Writer } from '../auditLog.ts';
import { fromRow, getAutomation, type Automation, type AutomationProps, type Row } from '../automations.ts';
import { recordAudit } from './auditLog.ts';
import { dialectOf } from '../../db/dialect.ts';

const toRow = (p: Partial<AutomationProps>) => ({
  ...(p.name !== undefined ? { name: p.name } : {}),
  ...(p.cron !== undefined ? { cron: p.cron } : {}),
  ...(p.timezone !== undefined ? { timezone: p.timezone } : {}),
  ...(p.forecastSensorIds !== undefined ? { forecast_sensor_ids: JSON.stringify(p.forecastSensorIds) } : {}),
  ...(p.scheduleSensorId !== undefined ? { schedule_sensor_id: p.scheduleSensorId } : {}),
  ...(p.horizon !== undefined ? { horizon: p.horizon } : {}),
  ...(p.enabled !== undefined ? { enabled: p.enabled } : {}),
});

let changes = 0;

/**
 * How many automations this process has created or changed, counted once each write is committed:
 * the automation clock keeps its list while this stays the same (see `AutomationClock`).
 */
export const automationChanges = (): number => changes;

const countWhenCommitted = (trx: Knex.Transaction) =>
  trx.executionPromise.then(
    () => changes++,
    // A rolled-back write changed nothing; its error is the caller's.
    () => undefined,
  );

/** The asset an automation belongs to, on whose log its entries go. */
type OnAsset = { id: number; account_id: number | null };

const onAsset = (asset: OnAsset) => ({ assetId: asset.id, accountId: asset.account_id });

/** Adds an automation to an asset and records it. */
export async function createAutomation(
  trx: Knex.Transaction,
  by: Writer,
  made: { asset: OnAsset; ownerId: number; props: AutomationProps; nowMs: number },
): Promise<Automation> {
  const { asset, ownerId, props, nowMs } = made;
  // Created now: runs due before its creation are not caught up.
  const [row] = await trx<Row>('automation')
    .insert({ generic_asset_id: asset.id, owner_id: ownerId, created_at: nowMs, last_due: nowMs, ...toRow(props) } as Partial<Row>)
    .returning('*');
  const automation = fromRow(row as Row);
  void countWhenCommitted(trx);
  await recordAudit(trx, by, onAsset(asset), `Created automation '${automation.name}': ${automation.id}`);
  return automation;
}

/** Changes the given fields of an automation, recording the fields named. */
export async function updateAutomation(
  trx: Knex.Transaction,
  by: Writer,
  target: { asset: OnAsset; automation: Automation },
  props: Partial<AutomationProps>,
): Promise<Automation> {
  const { id, name } = target.automation;
  const changed = toRow(props);
  if (Object.keys(changed).length) await trx('automation').where({ id }).update(changed);
  void countWhenCommitted(trx);
  const fields = Object.keys(props).filter((k) => props[k as keyof AutomationProps] !== undefined);
  await recordAudit(trx, by, onAsset(target.asset), `Updated automation '${name}': ${id}, Field: ${fields.join(', ')}`);
  return (await getAutomation(trx, id))!;
}

/** Deletes an automation and records it. */
export async function deleteAutomation(
  trx: Knex.Transaction,
  by: Writer,
  target: { asset: OnAsset; automation: Automation },
): Promise<void> {
  const { id, name } = target.automation;
  await trx('automation').where({ id }).delete();
  await recordAudit(trx, by, onAsset(target.asset), `Deleted automation '${name}': ${id}`);
}

/**
 * Records that the run due at `dueMs` was queued, unless a later or equal run already was (by
 * another process, or before a restart).
 * @returns whether this call recorded it.
 */
export async function markQueued(db: Knex, id: number, dueMs: number, jobId: string): Promise<boolean> {
  // Every automation run marks one (every minute for some): one kept statement, without the query builder.
  const updated = await dialectOf(db).query(
    db,
    'UPDATE automation SET last_due = ?, last_job_id = ? WHERE id = ? AND (last_due IS NULL OR last_due < ?) RETURNING id',
    [dueMs, jobId, id, dueMs],
  );
  return updated.length > 0;
}
