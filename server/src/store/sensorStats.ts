import type { Knex } from 'knex';
import { textOrNull } from './columns.ts';

export interface SourceStats {
  sourceId: number;
  name: string;
  type: string;
  model: string | null;
  version: string | null;
  firstEventStartMs: number;
  lastEventStartMs: number;
  lastBeliefTimeMs: number;
  min: number;
  max: number;
  mean: number;
  sum: number;
  count: number;
}

/**
 * Per data source: the span of a sensor's events and beliefs and the spread of their values,
 * over every belief (not only the latest per event), optionally for events starting in [start, end).
 */
export async function sensorStats(db: Knex, sensorId: number, window: { startMs?: number; endMs?: number }): Promise<SourceStats[]> {
  const q = db('timed_belief as b')
    .join('data_source as s', 's.id', 'b.source_id')
    .where('b.sensor_id', sensorId)
    .groupBy('s.id', 's.name', 's.type', 's.model', 's.version')
    .orderBy('s.id')
    .select('s.id as sourceId', 's.name', 's.type', 's.model', 's.version')
    .min({ firstEventStartMs: 'b.event_start', min: 'b.event_value' })
    .max({ lastEventStartMs: 'b.event_start', lastBeliefTimeMs: 'b.belief_time', max: 'b.event_value' })
    .avg({ mean: 'b.event_value' })
    .sum({ sum: 'b.event_value' })
    .count({ count: '*' });
  if (window.startMs !== undefined) q.where('b.event_start', '>=', window.startMs);
  if (window.endMs !== undefined) q.where('b.event_start', '<', window.endMs);
  // PostgreSQL returns bigint aggregates as text.
  return ((await q) as Record<string, unknown>[]).map((r) => ({
    sourceId: Number(r.sourceId),
    name: String(r.name),
    type: String(r.type),
    model: textOrNull(r.model),
    version: textOrNull(r.version),
    firstEventStartMs: Number(r.firstEventStartMs),
    lastEventStartMs: Number(r.lastEventStartMs),
    lastBeliefTimeMs: Number(r.lastBeliefTimeMs),
    min: Number(r.min),
    max: Number(r.max),
    mean: Number(r.mean),
    sum: Number(r.sum),
    count: Number(r.count),
  }));
}
