import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.ts';
import { changeEvents } from './auditEvents.ts';
import { recordAudit, type Writer } from './auditLog.ts';
import { defined } from './defined.ts';

export interface Sensor {
  id: number;
  name: string;
  unit: string;
  timezone: string;
  event_resolution_ms: number;
  attributes: Record<string, unknown>;
  generic_asset_id: number;
}

/** A sensor together with the account and type of its asset, which permissions and schedulers need. */
export interface SensorInContext extends Sensor {
  account_id: number | null;
  /** The consultancy of that account, which permissions need too (null: none, or no account). */
  consultancy_account_id: number | null;
  asset_type: string;
}

type DbSensor = Omit<Sensor, 'attributes'> & { attributes: string };

const fromRow = <T extends DbSensor>(r: T): Omit<T, 'attributes'> & { attributes: Record<string, unknown> } => ({
  ...r,
  event_resolution_ms: Number(r.event_resolution_ms),
  attributes: JSON.parse(r.attributes) as Record<string, unknown>,
});

/** @returns the sensor with its asset's account and type, or undefined. */
export async function getSensor(db: Knex, id: number): Promise<SensorInContext | undefined> {
  // Read by every request that names a sensor: a kept statement (see `Dialect.query`).
  const [row] = await dialectOf(db).query<DbSensor & Omit<SensorInContext, keyof Sensor>>(
    db,
    `SELECT s.*, a.account_id, o.consultancy_account_id, t.name AS asset_type FROM sensor s
     JOIN generic_asset a ON a.id = s.generic_asset_id
     JOIN generic_asset_type t ON t.id = a.generic_asset_type_id
     LEFT JOIN account o ON o.id = a.account_id
     WHERE s.id = ?`,
    [id],
  );
  return row && fromRow(row);
}

/** @returns the sensors on assets of the account. */
export async function listSensors(
  db: Knex,
  filter: { accountId?: number; accountIds?: number[]; includePublic?: boolean; assetId?: number },
): Promise<Sensor[]> {
  const q = db('sensor as s').join('generic_asset as a', 'a.id', 's.generic_asset_id').select<DbSensor[]>('s.*');
  if (filter.accountId !== undefined) q.where('a.account_id', filter.accountId);
  if (filter.accountIds !== undefined) {
    const ids = filter.accountIds;
    q.where((w) => {
      w.whereIn('a.account_id', ids);
      if (filter.includePublic) w.orWhereNull('a.account_id');
    });
  }
  if (filter.assetId !== undefined) q.where('s.generic_asset_id', filter.assetId);
  return (await q.orderBy('s.id')).map(fromRow);
}

/** Where a sensor's entries go: the log of its asset. */
const onAsset = (sensor: SensorInContext) => ({ assetId: sensor.generic_asset_id, accountId: sensor.account_id });

/**
 * Creates a sensor and records it on its asset's log.
 * @returns the new sensor.
 */
export async function createSensor(trx: Knex.Transaction, by: Writer, props: Omit<Sensor, 'id'>): Promise<Sensor> {
  const [{ id }] = await trx('sensor')
    .insert({ ...props, attributes: JSON.stringify(props.attributes) })
    .returning<{ id: number }[]>('id');
  const sensor = (await getSensor(trx, id))!;
  await recordAudit(trx, by, onAsset(sensor), `Created sensor '${sensor.name}': ${id}`);
  return sensor;
}

/** Updates the given fields of a sensor, recording one entry per changed field and attribute. */
export async function updateSensor(
  trx: Knex.Transaction,
  by: Writer,
  before: SensorInContext,
  changes: Partial<Pick<Sensor, 'name' | 'unit' | 'timezone' | 'event_resolution_ms' | 'attributes'>>,
): Promise<void> {
  const row: Record<string, unknown> = defined(changes);
  if (changes.attributes) row.attributes = JSON.stringify(changes.attributes);
  if (Object.keys(row).length) await trx('sensor').where({ id: before.id }).update(row);
  for (const event of changeEvents(before, changes)) {
    await recordAudit(trx, by, onAsset(before), `Updated sensor '${before.name}': ${before.id}, ${event}`);
  }
}

/** Deletes a sensor and records it; its data cascades. */
export async function deleteSensor(trx: Knex.Transaction, by: Writer, sensor: SensorInContext): Promise<boolean> {
  const deleted = (await trx('sensor').where({ id: sensor.id }).delete()) > 0;
  if (deleted) await recordAudit(trx, by, onAsset(sensor), `Deleted sensor '${sensor.name}': ${sensor.id}`);
  return deleted;
}
