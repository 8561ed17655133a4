import type { Knex } from 'knex';

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

export interface Row {
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

export const fromRow = (r: Row): Automation => ({
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

/**
 * The enabled automations, each with the account of its asset (whose account its runs are
 * recorded for; null when the asset is gone or belongs to none), in one read.
 */
export async function enabledAutomations(db: Knex): Promise<(Automation & { accountId: number | null })[]> {
  const rows = await db<Row & { account_id: number | null }>('automation')
    .leftJoin('generic_asset', 'generic_asset.id', 'automation.generic_asset_id')
    .where('automation.enabled', true)
    .orderBy('automation.id')
    .select('automation.*', 'generic_asset.account_id');
  return rows.map((r) => ({ ...fromRow(r), accountId: num(r.account_id) }));
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
