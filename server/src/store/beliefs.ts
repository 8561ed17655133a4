import type { Knex } from 'knex';
import { emptyColumns, type BeliefColumns } from '../db/beliefColumns.ts';
import { dialectOf } from '../db/dialect.ts';
import type { WindowVersion } from '../contracts/jobs.ts';
import type { SensorsRead } from './sensors.ts';

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

/**
 * The event resolution of each of the sensors, by id.
 * @param known the sensors as the caller has just read them: read again only when one is missing.
 */
export async function sensorResolutions(db: Knex | Knex.Transaction, ids: number[], known?: SensorsRead): Promise<Map<number, number>> {
  if (known && ids.every((id) => known.has(id))) return new Map(ids.map((id) => [id, Number(known.get(id)!.event_resolution_ms)]));
  const rows = await db('sensor').whereIn('id', ids).select<{ id: number; event_resolution_ms: number }[]>('id', 'event_resolution_ms');
  return new Map(rows.map((r) => [r.id, Number(r.event_resolution_ms)]));
}

/** Which beliefs `mostRecentBeliefs` reads. */
export interface BeliefQuery {
  sensorId: number;
  /** The sensor's event resolution, when the caller has the sensor read already (else it is read here). */
  eventResolutionMs?: number;
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
  const s = await mostRecentBeliefSeries(db, query);
  return Array.from({ length: s.length }, (_, i) => ({
    eventStartMs: s.eventStartMs[i],
    value: s.value[i],
    sourceId: s.sourceId[i],
    beliefTimeMs: s.beliefTimeMs[i],
  }));
}

/** The beliefs of `mostRecentBeliefs` as columns, one typed array per field. */
export interface BeliefSeries {
  length: number;
  eventStartMs: Float64Array;
  value: Float64Array;
  sourceId: Float64Array;
  beliefTimeMs: Float64Array;
}

/**
 * `mostRecentBeliefs` without an object per belief: what a download of a year resamples.
 * @param db the store.
 * @param query sensor, window and filters.
 * @returns the beliefs as columns, in the order `mostRecentBeliefs` gives.
 */
export async function mostRecentBeliefSeries(db: Knex | Knex.Transaction, query: BeliefQuery): Promise<BeliefSeries> {
  const resolution = query.eventResolutionMs ?? (await sensorResolutions(db, [query.sensorId])).get(query.sensorId);
  const latest = resolution === undefined ? undefined : beliefWindowQuery(db, query, resolution);
  // One pass over the window's key range: the latest belief per event, source and probability.
  const rows = latest ? inKeyOrder(await dialectOf(db).latestPerProbability(latest)) : emptyColumns(0);
  const { es, src } = rows;
  let severalSources = false;
  for (let i = 1; i < rows.length && !severalSources; i++) severalSources = es[i] === es[i - 1] && src[i] !== src[i - 1];
  // Read only where an event has several sources to choose from.
  const fallbacks = !query.perSource && severalSources ? await fallbackSourceIds(db) : undefined;
  const chosen = chooseBeliefs(rows, query.perSource === true, fallbacks);
  const [eventStartMs, value, sourceId, beliefTimeMs] = [es, rows.v, src, rows.bt].map((c) => takeRows(c, chosen));
  return { length: chosen.length, eventStartMs, value, sourceId, beliefTimeMs };
}

/**
 * The query of the beliefs of a `BeliefQuery`'s sensor (of this event resolution), window and
 * filters; none for an empty window. Not async: a query builder is a thenable, and awaiting it runs it.
 */
function beliefWindowQuery(db: Knex | Knex.Transaction, query: BeliefQuery, resolution: number): Knex.QueryBuilder | undefined {
  const [first, last] = query.overlapping
    ? [query.startMs - resolution + (resolution ? 1 : 0), query.endMs - (resolution ? 1 : 0)]
    : [query.startMs, query.endMs - resolution];
  if (last < first) return undefined;

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
  return latest;
}

/** The rows by event, source and probability: the key order comes out as is; checking costs little, and keeps the order certain. */
function inKeyOrder(rows: BeliefColumns): BeliefColumns {
  const { es, src, cp } = rows;
  const byKey = (a: number, b: number) => es[a] - es[b] || src[a] - src[b] || cp[a] - cp[b];
  let sorted = true;
  for (let i = 1; i < rows.length && sorted; i++) sorted = byKey(i - 1, i) <= 0;
  if (sorted) return rows;
  const order = Int32Array.from(Array.from({ length: rows.length }, (_, i) => i).sort(byKey));
  const [es2, src2, cp2, bt, v] = [es, src, cp, rows.bt, rows.v].map((c) => takeRows(c, order));
  return { length: rows.length, es: es2, src: src2, cp: cp2, bt, v };
}

/** The rows of a column at these indices: the column itself when they are all of its rows in order (one source per event, the usual case). */
function takeRows(column: Float64Array, rows: Int32Array): Float64Array {
  let all = rows.length === column.length;
  for (let i = 0; i < rows.length && all; i++) all = rows[i] === i;
  if (all) return column;
  const out = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = column[rows[i]];
  return out;
}

/**
 * The rows `mostRecentBeliefs` keeps, by index: per event, each source's median belief of its
 * most recent belief time, in the order they were formed (then by source); all of them per
 * source, else the one `pick` takes.
 */
function chooseBeliefs(rows: BeliefColumns, perSource: boolean, fallbacks: Set<number> | undefined): Int32Array {
  const { es, src, bt, cp } = rows;
  const chosen = new Int32Array(rows.length);
  let count = 0;
  const medians: number[] = [];
  let i = 0;
  while (i < rows.length) {
    const event = es[i];
    let m = 0;
    while (i < rows.length && es[i] === event) {
      const source = src[i];
      let end = i;
      let latest = bt[i];
      for (; end < rows.length && es[end] === event && src[end] === source; end++) if (bt[end] > latest) latest = bt[end];
      let median = -1;
      for (; i < end; i++) {
        if (bt[i] === latest && (median < 0 || Math.abs(cp[i] - MEDIAN) < Math.abs(cp[median] - MEDIAN))) median = i;
      }
      medians[m++] = median;
    }
    // One source is the usual case; several are sorted in a copy (the scratch array's length stays).
    if (m === 1) chosen[count++] = medians[0];
    else {
      const these = medians.slice(0, m).sort((a, b) => bt[a] - bt[b] || src[a] - src[b]);
      if (perSource) for (const x of these) chosen[count++] = x;
      else chosen[count++] = pick(rows, these, fallbacks);
    }
  }
  return chosen.subarray(0, count);
}

/** The sources of the fallback scheduler, whose schedules stand in only until another source plans later. */
const fallbackSourceIds = async (db: Knex | Knex.Transaction) =>
  new Set((await db('data_source').where({ model: 'StorageFallbackScheduler' }).pluck<number[]>('id')).map(Number));

/**
 * One event's belief among its sources' (rows by index, in the order formed): the first, except
 * that a fallback schedule is superseded by any other source's belief formed after it.
 */
function pick({ src, bt }: BeliefColumns, medians: number[], fallbacks: Set<number> | undefined): number {
  if (!fallbacks || medians.length < 2) return medians[0];
  const latestOther = Math.max(...medians.filter((m) => !fallbacks.has(src[m])).map((m) => bt[m]));
  return medians.find((m) => !fallbacks.has(src[m]) || bt[m] >= latestOther) ?? medians[0];
}

/**
 * What each sensor holds for the events overlapping [startMs, endMs) known at `beliefsBeforeMs`:
 * a new belief, a deleted one or a value overwritten in place each change it. One range read of
 * each sensor's window, all in one statement (an automation due every minute reads them each run).
 */
export async function windowVersions(
  db: Knex,
  sensorIds: readonly number[],
  window: { startMs: number; endMs: number; beliefsBeforeMs?: number },
  known?: SensorsRead,
): Promise<WindowVersion[]> {
  const sensors = [...new Set(sensorIds)].sort((a, b) => a - b);
  if (!sensors.length) return [];
  const resolutions = await sensorResolutions(db, sensors, known);
  const reads = sensors.map((sensor) => {
    const resolution = resolutions.get(sensor) ?? 0;
    const q = db('timed_belief')
      .where('sensor_id', sensor)
      .whereBetween('event_start', [window.startMs - resolution + (resolution ? 1 : 0), window.endMs - 1]);
    if (window.beliefsBeforeMs !== undefined) q.where('belief_time', '<=', window.beliefsBeforeMs);
    return q.select(
      db.raw('CAST(? AS INTEGER) AS sensor', [sensor]),
      db.raw('COUNT(*) AS n'),
      db.raw('MAX(belief_time) AS bt'),
      db.raw('SUM(event_value) AS s'),
    );
  });
  type Row = { sensor: number | string; n: number | string; bt: number | string | null; s: number | string | null };
  // SQLite does not take parenthesized parts of a compound select: the parts are joined bare.
  const rows = (await (reads.length > 1 ? reads[0].unionAll(reads.slice(1)) : reads[0])) as Row[];
  const bySensor = new Map(rows.map((r) => [Number(r.sensor), r]));
  // PostgreSQL returns bigint aggregates as text.
  return sensors.map((sensor) => {
    const row = bySensor.get(sensor);
    return {
      sensor,
      beliefs: Number(row?.n ?? 0),
      newestBeliefMs: row?.bt == null ? null : Number(row.bt),
      total: Number(row?.s ?? 0),
    };
  });
}
