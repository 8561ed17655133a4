import type { Knex } from 'knex';
import type { StoredBelief } from './beliefs.ts';

/** Which beliefs `beliefHistory` reads. */
export interface HistoryQuery {
  sensorId: number;
  resolutionMs: number;
  /** Events that lie within [startMs, endMs]. */
  startMs: number;
  endMs: number;
  beliefsAfterMs?: number;
  beliefsBeforeMs?: number;
}

/**
 * Every belief of one sensor in a window, not only the most recent ones: how the knowledge of
 * each event changed over time. Probabilistic beliefs give their median only.
 * @param db the store.
 * @param query sensor, window and belief-time bounds.
 * @returns the beliefs, by event start, then belief time, then source.
 */
export async function beliefHistory(db: Knex, query: HistoryQuery): Promise<StoredBelief[]> {
  const last = query.endMs - query.resolutionMs;
  if (last < query.startMs) return [];
  const q = db('timed_belief')
    .where('sensor_id', query.sensorId)
    .whereBetween('event_start', [query.startMs, last])
    .where('cumulative_probability', 0.5)
    .orderBy([{ column: 'event_start' }, { column: 'belief_time' }, { column: 'source_id' }])
    .select<{ es: number; src: number; bt: number; v: number }[]>({
      es: 'event_start',
      src: 'source_id',
      bt: 'belief_time',
      v: 'event_value',
    });
  if (query.beliefsAfterMs !== undefined) q.where('belief_time', '>=', query.beliefsAfterMs);
  if (query.beliefsBeforeMs !== undefined) q.where('belief_time', '<=', query.beliefsBeforeMs);
  return (await q).map((r) => ({ eventStartMs: Number(r.es), value: r.v, sourceId: Number(r.src), beliefTimeMs: Number(r.bt) }));
}
