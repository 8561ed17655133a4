import type { Knex } from 'knex';

/** Source types whose beliefs are not measurements of what happened (a forecaster's history leaves them out too). */
const NOT_MEASURED = ['forecaster', 'scheduler'];

/**
 * The forecast of a sensor made last within [fromMs, atMs], when what was forecast then reaches
 * the event at `lastEventMs` and no measurement of an event before `fromMs` (the forecast's origin:
 * its history ends there) was believed after it, up to `atMs`: a forecast made again at `atMs`
 * from the same origin would read the same history. A forecast made again stores only the values
 * it changed, so its coverage counts those of its source believed since `fromMs` together.
 * @returns its belief time, its source and the source's model (the method), or undefined.
 */
export async function standingForecast(
  db: Knex,
  sensorId: number,
  window: { fromMs: number; atMs: number; lastEventMs: number },
): Promise<{ beliefTimeMs: number; sourceId: number; method: string | null } | undefined> {
  const forecasts = () =>
    db('timed_belief as b')
      .join('data_source as s', 's.id', 'b.source_id')
      .where({ 'b.sensor_id': sensorId, 's.type': 'forecaster' })
      .whereBetween('b.belief_time', [window.fromMs, window.atMs]);
  const newest = await forecasts()
    .orderBy('b.belief_time', 'desc')
    .first<{ bt: number | string; sourceId: number; model: string | null } | undefined>(
      'b.belief_time as bt',
      'b.source_id as sourceId',
      's.model as model',
    );
  if (!newest) return undefined;
  const reach = await forecasts()
    .where('b.source_id', newest.sourceId)
    .first<{ last: number | string | null }>(db.raw('MAX(b.event_start) AS last'));
  if (reach?.last == null || Number(reach.last) < window.lastEventMs) return undefined;
  const beliefTimeMs = Number(newest.bt);
  const measured = await db('timed_belief as b')
    .join('data_source as s', 's.id', 'b.source_id')
    .where('b.sensor_id', sensorId)
    .whereNotIn('s.type', NOT_MEASURED)
    .where('b.event_start', '<', window.fromMs)
    .where('b.belief_time', '>', beliefTimeMs)
    .where('b.belief_time', '<=', window.atMs)
    .first(db.raw('1 AS found'));
  return measured ? undefined : { beliefTimeMs, sourceId: Number(newest.sourceId), method: newest.model };
}
