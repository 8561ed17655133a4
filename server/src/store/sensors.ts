import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.ts';

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

/**
 * Sensors' units and resolutions by id, as a caller has just read them (within the same piece of
 * work, not kept): what reads their data then need not read them again.
 */
export type SensorsRead = ReadonlyMap<number, Pick<Sensor, 'unit' | 'event_resolution_ms'>>;

type DbSensor = Omit<Sensor, 'attributes'> & { attributes: string };

const fromRow = <T extends DbSensor>(r: T): Omit<T, 'attributes'> & { attributes: Record<string, unknown> } => ({
  ...r,
  event_resolution_ms: Number(r.event_resolution_ms),
  attributes: JSON.parse(r.attributes) as Record<string, unknown>,
});

const IN_CONTEXT = `SELECT s.*, a.account_id, o.consultancy_account_id, t.name AS asset_type FROM sensor s
     JOIN generic_asset a ON a.id = s.generic_asset_id
     JOIN generic_asset_type t ON t.id = a.generic_asset_type_id
     LEFT JOIN account o ON o.id = a.account_id`;

/** @returns the sensor with its asset's account and type, or undefined. */
export async function getSensor(db: Knex, id: number): Promise<SensorInContext | undefined> {
  // Read by every request that names a sensor: a kept statement (see `Dialect.query`).
  const [row] = await dialectOf(db).query<DbSensor & Omit<SensorInContext, keyof Sensor>>(db, `${IN_CONTEXT} WHERE s.id = ?`, [id]);
  return row && fromRow(row);
}

/** Sensors per statement of `getSensors`. */
const IDS_PER_READ = 1000;

/**
 * Sensors as `getSensor` reads them, several in one statement (a job's or a trigger's references
 * name some ten sensors; read one by one, each costs a statement).
 * @returns the sensors found, by id (an unknown id has no entry).
 */
export async function getSensors(db: Knex, ids: readonly number[]): Promise<Map<number, SensorInContext>> {
  const unique = [...new Set(ids)];
  if (unique.length <= 1) {
    const one = unique.length ? await getSensor(db, unique[0]) : undefined;
    return new Map(one ? [[one.id, one]] : []);
  }
  const found = new Map<number, SensorInContext>();
  // A request may name any number of sensors; SQLite binds at most 32766 values per statement.
  for (let i = 0; i < unique.length; i += IDS_PER_READ) {
    const ids = unique.slice(i, i + IDS_PER_READ);
    const rows = await dialectOf(db).query<DbSensor & Omit<SensorInContext, keyof Sensor>>(
      db,
      `${IN_CONTEXT} WHERE s.id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    for (const r of rows) found.set(Number(r.id), fromRow(r));
  }
  return found;
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
