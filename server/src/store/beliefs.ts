import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.ts';
import type { WindowVersion } from '../contracts/jobs.ts';

/** One belief to record: a value for the event starting at `eventStartMs`, known at `beliefTimeMs`. */
export interface BeliefInput {
  sensorId: number;
  eventStartMs: number;
  beliefTimeMs: number;
  sourceId: number;
  /** 0.5 (the median) unless the belief is one quantile of a probabilistic forecast. */
  cumulativeProbability?: number;
  value: number;
}

/** What `recordBeliefs` did. */
export interface RecordResult {
  inserted: number;
  /** Left out: the most recent earlier belief of the same source already said the same. */
  unchanged: number;
  /** Overwritten in place (only with `allowOverwrite`). */
  replaced: number;
}

/**
 * Thrown by `recordBeliefs` when beliefs would change a stored value with the same sensor, event,
 * source, probability and belief time, and overwriting is not allowed. The transaction should
 * be rolled back: nothing of the batch is meant to be stored.
 */
export class ReplacementError extends Error {
  constructor(readonly count: number) {
    super(`${count} belief(s) would replace stored beliefs with the same timing`);
    this.name = 'ReplacementError';
  }
}

/** The cumulative probability of a belief that is no quantile of a forecast. */
export const MEDIAN = 0.5;

/** The event resolution of each of the sensors, by id. */
export async function sensorResolutions(db: Knex | Knex.Transaction, ids: number[]): Promise<Map<number, number>> {
  const rows = await db('sensor').whereIn('id', ids).select<{ id: number; event_resolution_ms: number }[]>('id', 'event_resolution_ms');
  return new Map(rows.map((r) => [r.id, Number(r.event_resolution_ms)]));
}

/** Which beliefs `mostRecentBeliefs` reads. */
export interface BeliefQuery {
  sensorId: number;
  /**
   * The window: events that lie within [startMs, endMs], i.e. start ≥ startMs and end ≤ endMs
   * (an instantaneous event at endMs counts).
   */
  startMs: number;
  endMs: number;
  /** Also take events that only partly overlap the window (start < endMs, end > startMs). */
  overlapping?: boolean;
  /** Only beliefs formed at or before this time. */
  beliefsBeforeMs?: number;
  /** Only beliefs with a horizon (event end − belief time) of at least this. */
  horizonAtLeastMs?: number;
  /** Only beliefs with a horizon of at most this (0: measurements, known after the event). */
  horizonAtMostMs?: number;
  /** Only beliefs of these sources. */
  sourceIds?: readonly number[];
  /** Only beliefs of sources of these types (e.g. `forecaster`). */
  sourceTypes?: readonly string[];
  /** No beliefs of sources of these types. */
  excludeSourceTypes?: readonly string[];
  /** Only beliefs of sources of these accounts. */
  sourceAccountIds?: readonly number[];
  /**
   * One belief per event and source. Otherwise one per event: of each source's most recent
   * belief, the one formed first (then the lowest source id), as the reference picks.
   */
  perSource?: boolean;
}

/** A stored belief as `mostRecentBeliefs` returns it. */
export interface StoredBelief {
  eventStartMs: number;
  value: number;
  sourceId: number;
  beliefTimeMs: number;
}

/**
 * Reads the most recent belief per event (per source) of one sensor in a window. Probabilistic
 * beliefs give their median. The cost grows with the beliefs stored in the window, not with what
 * the sensor or other sensors hold elsewhere.
 * @param db the store.
 * @param query sensor, window and filters.
 * @returns the beliefs, sorted by event start (then belief time and source).
 */
export async function mostRecentBeliefs(db: Knex | Knex.Transaction, query: BeliefQuery): Promise<StoredBelief[]> {
  const resolution = (await sensorResolutions(db, [query.sensorId])).get(query.sensorId);
  if (resolution === undefined) return [];
  const [first, last] = query.overlapping
    ? [query.startMs - resolution + (resolution ? 1 : 0), query.endMs - (resolution ? 1 : 0)]
    : [query.startMs, query.endMs - resolution];
  if (last < first) return [];

  const latest = db('timed_belief').where('sensor_id', query.sensorId).whereBetween('event_start', [first, last]);
  if (query.beliefsBeforeMs !== undefined) latest.where('belief_time', '<=', query.beliefsBeforeMs);
  // horizon = event_start + resolution − belief_time
  if (query.horizonAtLeastMs !== undefined) latest.whereRaw('belief_time <= event_start + ?', [resolution - query.horizonAtLeastMs]);
  if (query.horizonAtMostMs !== undefined) latest.whereRaw('belief_time >= event_start + ?', [resolution - query.horizonAtMostMs]);
  if (query.sourceIds) latest.whereIn('source_id', [...query.sourceIds]);
  const sources = (column: 'type' | 'account_id', values: Iterable<string | number>) =>
    db('data_source')
      .select('id')
      .whereIn(column, [...values]);
  if (query.sourceTypes) latest.whereIn('source_id', sources('type', query.sourceTypes));
  if (query.sourceAccountIds) latest.whereIn('source_id', sources('account_id', query.sourceAccountIds));
  if (query.excludeSourceTypes) latest.whereNotIn('source_id', sources('type', query.excludeSourceTypes));
  // One pass over the window's key range: the latest belief per event, source and probability.
  const rows = await dialectOf(db).latestPerProbability<Row>(latest);
  // The key order comes out as is; checking costs little, and keeps the order certain.
  if (!rows.every((r, i) => i === 0 || byEventAndSource(rows[i - 1], r) <= 0)) rows.sort(byEventAndSource);
  // Read only where an event has several sources to choose from.
  const fallbacks =
    !query.perSource && rows.some((r, i) => i > 0 && r.es === rows[i - 1].es && r.src !== rows[i - 1].src)
      ? await fallbackSourceIds(db)
      : undefined;

  const out: StoredBelief[] = [];
  const medians: Row[] = [];
  let i = 0;
  while (i < rows.length) {
    const es = rows[i].es;
    // One event: each source's median belief of its most recent belief time, in the order they
    // were formed (then by source).
    medians.length = 0;
    while (i < rows.length && rows[i].es === es) {
      const src = rows[i].src;
      let end = i;
      let bt = rows[i].bt;
      for (; end < rows.length && rows[end].es === es && rows[end].src === src; end++) if (rows[end].bt > bt) bt = rows[end].bt;
      let median: Row | undefined;
      for (; i < end; i++) {
        if (rows[i].bt === bt && (!median || Math.abs(rows[i].cp - MEDIAN) < Math.abs(median.cp - MEDIAN))) median = rows[i];
      }
      medians.push(median!);
    }
    if (medians.length > 1) medians.sort((a, b) => a.bt - b.bt || a.src - b.src);
    if (query.perSource) for (const m of medians) out.push(stored(m));
    else out.push(stored(pick(medians, fallbacks)));
  }
  return out;
}

type Row = { es: number; src: number; bt: number; cp: number; v: number };

/** The sources of the fallback scheduler, whose schedules stand in only until another source plans later. */
const fallbackSourceIds = async (db: Knex | Knex.Transaction) =>
  new Set((await db('data_source').where({ model: 'StorageFallbackScheduler' }).pluck<number[]>('id')).map(Number));

/**
 * One event's belief among its sources' (in the order formed): the first, except that a fallback
 * schedule is superseded by any other source's belief formed after it.
 */
function pick(medians: Row[], fallbacks: Set<number> | undefined): Row {
  if (!fallbacks || medians.length < 2) return medians[0];
  const latestOther = Math.max(...medians.filter((m) => !fallbacks.has(Number(m.src))).map((m) => m.bt));
  return medians.find((m) => !fallbacks.has(Number(m.src)) || m.bt >= latestOther) ?? medians[0];
}
const byEventAndSource = (a: Row, b: Row) => a.es - b.es || a.src - b.src || a.cp - b.cp;
const stored = (r: Row): StoredBelief => ({ eventStartMs: Number(r.es), value: r.v, sourceId: Number(r.src), beliefTimeMs: Number(r.bt) });

/**
 * What each sensor holds for the events overlapping [startMs, endMs) known at `beliefsBeforeMs`:
 * a new belief, a deleted one or a value overwritten in place each change it. One range read of
 * each sensor's window.
 */
export async function windowVersions(
  db: Knex,
  sensorIds: readonly number[],
  window: { startMs: number; endMs: number; beliefsBeforeMs?: number },
): Promise<WindowVersion[]> {
  const resolutions = await sensorResolutions(db, [...sensorIds]);
  const versions: WindowVersion[] = [];
  for (const sensor of [...new Set(sensorIds)].sort((a, b) => a - b)) {
    const resolution = resolutions.get(sensor) ?? 0;
    const q = db('timed_belief')
      .where('sensor_id', sensor)
      .whereBetween('event_start', [window.startMs - resolution + (resolution ? 1 : 0), window.endMs - 1]);
    if (window.beliefsBeforeMs !== undefined) q.where('belief_time', '<=', window.beliefsBeforeMs);
    const row = await q.first<{ n: number | string; bt: number | string | null; s: number | string | null }>(
      db.raw('COUNT(*) AS n'),
      db.raw('MAX(belief_time) AS bt'),
      db.raw('SUM(event_value) AS s'),
    );
    // PostgreSQL returns bigint aggregates as text.
    versions.push({
      sensor,
      beliefs: Number(row?.n ?? 0),
      newestBeliefMs: row?.bt == null ? null : Number(row.bt),
      total: Number(row?.s ?? 0),
    });
  }
  return versions;
}
