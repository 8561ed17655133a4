import type { Knex } from 'knex';
import { MEASURING_SOURCE_TYPES } from './lastMeasurements.ts';

/**
 * A sensor's measured values of the events starting in [fromMs, toMs): per event the most recent
 * measurement (plans and forecasts left out), in event order.
 */
export async function measuredValues(db: Knex, sensorId: number, fromMs: number, toMs: number): Promise<number[]> {
  const rows = await db('timed_belief as b')
    .join('data_source as s', 's.id', 'b.source_id')
    .where('b.sensor_id', sensorId)
    .andWhere('b.event_start', '>=', fromMs)
    .andWhere('b.event_start', '<', toMs)
    .whereIn('s.type', MEASURING_SOURCE_TYPES)
    .orderBy([
      { column: 'b.event_start', order: 'asc' },
      { column: 'b.belief_time', order: 'desc' },
    ])
    .select<{ es: number; v: number }[]>('b.event_start as es', 'b.event_value as v');
  const latest = new Map<number, number>();
  for (const r of rows) if (!latest.has(Number(r.es))) latest.set(Number(r.es), Number(r.v));
  return [...latest.values()];
}
