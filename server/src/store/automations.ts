import type { Knex } from 'knex';
import { recordAudit, type Writer } from './auditLog.ts';

/** A recurring task of an asset: forecast some sensors, then schedule one, on a cron in the site's time zone. */
export interface Automation {
  id: number;
  assetId: number;
  name: string;
  cron: string;
  timezone: string;
  ownerId: number | null;
  forecastSensorIds: number[];
  scheduleSensorId: number | null;
  /** ISO 8601 duration each run forecasts and schedules ahead. */
  horizon: string;
  enabled: boolean;
  createdAtMs: number;
  /** Due time of the last run that was queued. */
  lastDueMs: number | null;
  lastJobId: string | null;
}

export type AutomationProps = Pick<
  Automation,
  'name' | 'cron' | 'timezone' | 'forecastSensorIds' | 'scheduleSensorId' | 'horizon' | 'enabled'
>;

interface Row {
  id: number;
  generic_asset_id: number;
  name: string;
  cron: string;
  timezone: string;
  owner_id: number | null;
  forecast_sensor_ids: string;
  schedule_sensor_id: number | null;
  horizon: string;
  enabled: boolean | number;
  created_at: number;
  last_due: number | null;
  last_job_id: string | null;
}

const num = (v: number | null) => (v === null ? null : Number(v));

const fromRow = (r: Row): Automation => ({
  id: Number(r.id),
  assetId: Number(r.generic_asset_id),
  name: r.name,
  cron: r.cron,
  timezone: r.timezone,
  ownerId: num(r.owner_id),
  forecastSensorIds: JSON.parse(r.forecast_sensor_ids) as number[],
  scheduleSensorId: num(r.schedule_sensor_id),
  horizon: r.horizon,
  enabled: Boolean(r.enabled),
  createdAtMs: Number(r.created_at),
  lastDueMs: num(r.last_due),
  lastJobId: r.last_job_id,
});

const toRow = (p: Partial<AutomationProps>) => ({
  ...(p.name !== undefined ? { name: p.name } : {}),
  ...(p.cron !== undefined ? { cron: p.cron } : {}),
  ...(p.timezone !== undefined ? { timezone: p.timezone } : {}),
  ...(p.forecastSensorIds !== undefined ? { forecast_sensor_ids: JSON.stringify(p.forecastSensorIds) } : {}),
  ...(p.scheduleSensorId !== undefined ? { schedule_sensor_id: p.scheduleSensorId } : {}),
  ...(p.horizon !== undefined ? { horizon: p.horizon } : {}),
  ...(p.enabled !== undefined ? { enabled: p.enabled } : {}),
});

/** @returns the automation, or undefined. */
export async function getAutomation(db: Knex, id: number): Promise<Automation | undefined> {
  const row = await db<Row>('automation').where({ id }).first();
  return row && fromRow(row);
}

/** @returns the automations of an asset, or of every asset when none is named. */
export async function listAutomations(db: Knex, filter: { assetId?: number; enabled?: boolean } = {}): Promise<Automation[]> {
  const q = db<Row>('automation').orderBy('id');
  if (filter.assetId !== undefined) q.where({ generic_asset_id: filter.assetId });
  if (filter.enabled !== undefined) q.where({ enabled: filter.enabled });
  return (await q).map(fromRow);
}

/** How many automations an asset, or the assets of an account, have. */
export async function countAutomations(db: Knex, filter: { assetId: number } | { accountId: number | null }): Promise<number> {
  const q = db('automation').join('generic_asset', 'generic_asset.id', 'automation.generic_asset_id');
  if ('assetId' in filter) q.where('automation.generic_asset_id', filter.assetId);
  else if (filter.accountId === null) q.whereNull('generic_asset.account_id');
  else q.where('generic_asset.account_id', filter.accountId);
  const [{ n }] = await q.count({ n: '*' });
  return Number(n);
}

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
  const changes = toRow(props);
  if (Object.keys(changes).length) await trx('automation').where({ id }).update(changes);
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
  const updated = await db('automation')
    .where({ id })
    .andWhere((q) => q.whereNull('last_due').orWhere('last_due', '<', dueMs))
    .update({ last_due: dueMs, last_job_id: jobId });
  return updated > 0;
}
