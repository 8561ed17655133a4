import type { Knex } from 'knex';

/** A source type's latest event on a sensor, as known at a time: overall and in the future of that time. */
export interface LatestEvents {
  sourceType: string;
  latestStartMs: number;
  latestFutureStartMs: number | null;
}

/**
 * The latest event start per source type among the sensor's beliefs formed at or before `nowMs`,
 * and the latest one after `nowMs` (what schedules and forecasts are judged by).
 */
export async function latestEventsBySourceType(db: Knex, sensorId: number, nowMs: number): Promise<LatestEvents[]> {
  const rows = await db('timed_belief as b')
    .join('data_source as s', 's.id', 'b.source_id')
    .where('b.sensor_id', sensorId)
    .andWhere('b.belief_time', '<=', nowMs)
    .groupBy('s.type')
    .select<{ type: string; latest: number | string; future: number | string | null }[]>(
      's.type',
      db.raw('MAX(b.event_start) AS latest'),
      db.raw('MAX(CASE WHEN b.event_start > ? THEN b.event_start END) AS future', [nowMs]),
    );
  return rows.map((r) => ({
    sourceType: r.type,
    latestStartMs: Number(r.latest),
    latestFutureStartMs: r.future === null ? null : Number(r.future),
  }));
}
