import type { Knex } from 'knex';
import { SOURCE_TYPES } from './sources.ts';

/** Measurements: what devices and people reported, not what schedulers and forecasters expected. */
export const MEASURING_SOURCE_TYPES = SOURCE_TYPES.filter((t) => t !== 'scheduler' && t !== 'forecaster');

/** Which sources count as measuring, when a sensor reference says (FlexMeasures 1.0's `source-types` / `exclude-source-types`). */
export interface Counted {
  sourceTypes?: string[];
  excludeSourceTypes?: string[];
}

/**
 * Keeps measurements only: beliefs from measuring sources, not made before their event began.
 * A belief about an event that had not started yet is a forecast, whoever uploaded it (a user
 * posting tomorrow's PV forecast would otherwise be the sensor's latest reading and keep it fresh).
 * @param counted the sources a sensor reference counts; without filters, all but schedulers and forecasters.
 */
function measured(q: Knex.QueryBuilder, counted: Counted = {}): Knex.QueryBuilder {
  const { sourceTypes, excludeSourceTypes } = counted;
  if (sourceTypes) q.whereIn('s.type', sourceTypes);
  if (excludeSourceTypes) q.whereNotIn('s.type', excludeSourceTypes);
  if (!sourceTypes && !excludeSourceTypes) q.whereIn('s.type', MEASURING_SOURCE_TYPES);
  return q.andWhereRaw('?? >= ??', ['b.belief_time', 'b.event_start']);
}

export interface LastMeasurement {
  eventStartMs: number;
  value: number;
  beliefTimeMs: number;
  sourceName: string;
  sourceType: string;
}

/** The query of one sensor's latest measured event (see `lastMeasurement`), its id as `sensor`. */
const latestMeasured = (db: Knex, sensorId: number, nowMs: number, counted: Counted) =>
  db('timed_belief as b')
    .join('data_source as s', 's.id', 'b.source_id')
    .where('b.sensor_id', sensorId)
    .andWhere('b.event_start', '<=', nowMs)
    .modify(measured, counted)
    .orderBy([
      { column: 'b.event_start', order: 'desc' },
      { column: 'b.belief_time', order: 'desc' },
    ])
    .limit(1)
    .select(
      db.raw('CAST(? AS INTEGER) AS sensor', [sensorId]),
      'b.event_start as es',
      'b.event_value as v',
      'b.belief_time as bt',
      's.name',
      's.type',
    );

type LatestRow = { sensor: number | string; es: number; v: number; bt: number; name: string; type: string };

const fromLatest = (row: LatestRow): LastMeasurement => ({
  eventStartMs: Number(row.es),
  value: Number(row.v),
  beliefTimeMs: Number(row.bt),
  sourceName: row.name,
  sourceType: row.type,
});

/**
 * The latest measured event of a sensor that has started by `nowMs` (a plan or forecast for
 * later is no measurement), with the most recent belief about it.
 * @param counted which sources count, when the sensor reference that asks says.
 */
export async function lastMeasurement(
  db: Knex,
  sensorId: number,
  nowMs: number,
  counted: Counted = {},
): Promise<LastMeasurement | undefined> {
  const [row] = (await latestMeasured(db, sensorId, nowMs, counted)) as LatestRow[];
  return row && fromLatest(row);
}

/** Sensors per statement of `lastMeasurements`. */
const COMPOUND_CHUNK = 200;

/**
 * `lastMeasurement` of several sensors in one statement (the stale-sensor check looks at every
 * sensor not known fresh, each minute).
 * @returns by sensor id; a sensor without a measurement has no entry.
 */
export async function lastMeasurements(db: Knex, sensorIds: readonly number[], nowMs: number): Promise<Map<number, LastMeasurement>> {
  const found = new Map<number, LastMeasurement>();
  // SQLite joins at most 500 selects into one compound select.
  for (let i = 0; i < sensorIds.length; i += COMPOUND_CHUNK) {
    // Each sensor's read in a subquery of its own: SQLite takes no ORDER BY or LIMIT in a bare part of a compound select.
    const [first, ...rest] = sensorIds
      .slice(i, i + COMPOUND_CHUNK)
      .map((id, k) => db.select('*').from(latestMeasured(db, id, nowMs, {}).as(`m${k}`)));
    for (const r of (await (rest.length ? first.unionAll(rest) : first)) as LatestRow[]) found.set(Number(r.sensor), fromLatest(r));
  }
  return found;
}

/** A sensor whose data can go stale, with what the notification about it says. */
export interface MonitoredSensor {
  id: number;
  name: string;
  /** Its asset's name, the device it measures. */
  assetName: string;
  timezone: string;
  resolutionMs: number;
  accountId: number;
}

/** Sensors that belong to an account (interval and instantaneous ones): those whose data can go stale. */
export async function monitoredSensors(db: Knex): Promise<MonitoredSensor[]> {
  const rows = await db('sensor as s')
    .join('generic_asset as a', 'a.id', 's.generic_asset_id')
    .whereNotNull('a.account_id')
    .orderBy('s.id')
    .select<{ id: number; name: string; asset: string; tz: string; res: number; acc: number }[]>(
      's.id',
      's.name',
      'a.name as asset',
      's.timezone as tz',
      's.event_resolution_ms as res',
      'a.account_id as acc',
    );
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    assetName: r.asset,
    timezone: r.tz,
    resolutionMs: Number(r.res),
    accountId: Number(r.acc),
  }));
}

/**
 * How long after its latest measured event ends a sensor counts as stale: twice its resolution,
 * or for an instantaneous sensor (no resolution to judge by) the configured age.
 */
export const staleAfterMs = (resolutionMs: number, instantStaleMs: number) => (resolutionMs > 0 ? 2 * resolutionMs : instantStaleMs);

/** @returns how many intervals starting in [fromMs, toMs) have a measurement. */
export async function measuredIntervals(db: Knex, sensorId: number, fromMs: number, toMs: number): Promise<number> {
  const [row] = await db('timed_belief as b')
    .join('data_source as s', 's.id', 'b.source_id')
    .where('b.sensor_id', sensorId)
    .andWhere('b.event_start', '>=', fromMs)
    .andWhere('b.event_start', '<', toMs)
    .modify(measured)
    .countDistinct({ n: 'b.event_start' });
  return Number(row.n);
}

/**
 * The most recent measurement upload about events since `sinceMs` (bounded, so that the index on
 * event starts keeps this cheap on a long history): when, and from which source.
 */
export async function lastUpload(db: Knex, sensorId: number, sinceMs: number): Promise<{ atMs: number; source: string } | undefined> {
  const row = await db('timed_belief as b')
    .join('data_source as s', 's.id', 'b.source_id')
    .where('b.sensor_id', sensorId)
    .andWhere('b.event_start', '>=', sinceMs)
    .modify(measured)
    .orderBy('b.belief_time', 'desc')
    .first<{ bt: number; name: string } | undefined>('b.belief_time as bt', 's.name');
  return row && { atMs: Number(row.bt), source: row.name };
}

/**
 * A sensor's measured events starting in [fromMs, toMs): per event the most recent measurement,
 * in event order.
 */
export async function measuredEvents(
  db: Knex,
  sensorId: number,
  fromMs: number,
  toMs: number,
): Promise<{ startMs: number; value: number }[]> {
  const rows = await db('timed_belief as b')
    .join('data_source as s', 's.id', 'b.source_id')
    .where('b.sensor_id', sensorId)
    .andWhere('b.event_start', '>=', fromMs)
    .andWhere('b.event_start', '<', toMs)
    .modify(measured)
    .orderBy([
      { column: 'b.event_start', order: 'asc' },
      { column: 'b.belief_time', order: 'desc' },
    ])
    .select<{ es: number; v: number }[]>('b.event_start as es', 'b.event_value as v');
  const latest = new Map<number, number>();
  for (const r of rows) if (!latest.has(Number(r.es))) latest.set(Number(r.es), Number(r.v));
  return [...latest.entries()].map(([startMs, value]) => ({ startMs, value }));
}

/** A sensor's measured values of the events starting in [fromMs, toMs), in event order (see `measuredEvents`). */
export async function measuredValues(db: Knex, sensorId: number, fromMs: number, toMs: number): Promise<number[]> {
  return (await measuredEvents(db, sensorId, fromMs, toMs)).map((e) => e.value);
}
