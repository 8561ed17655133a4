import type { Knex } from 'knex';
import type { DateTime } from 'luxon';
import { dialectOf } from '../../db/dialect.ts';
import type { Writer } from '../auditLog.ts';
import { recordAudit } from './auditLog.ts';
import { MEDIAN, ReplacementError, sensorResolutions, type BeliefInput, type RecordResult } from '../beliefs.ts';
import type { SensorInContext } from '../sensors.ts';

/** The beliefs of one set for one sensor, source and probability: a series. */
interface Group {
  sensorId: number;
  sourceId: number;
  cp: number;
  rows: BeliefInput[];
}

const COLUMNS = ['sensor_id', 'event_start', 'source_id', 'cumulative_probability', 'belief_time', 'event_value'];
const KEY = COLUMNS.slice(0, 5).join(', ');
// SQLite binds at most 32766 parameters per statement.
const WRITE_CHUNK = 10_000;
const LOOKUP_CHUNK = 8000;
const EARLIEST = -Number.MAX_SAFE_INTEGER;
/** Beliefs of one series looked up without probing its window first (see `recordRun`). */
const SMALL_SERIES = 16;

interface Pending {
  eventStartMs: number;
  beliefTimeMs: number;
  value: number;
  /** Earliest belief time the most recent earlier belief may have to count as "the same kind". */
  lowerMs: number;
}

/**
 * Records beliefs in the caller's transaction. A belief equal to the most recent earlier belief of
 * the same source for the same event (ex-ante beliefs compared with ex-ante ones, ex-post with
 * ex-post) is left out as unchanged, so re-posting data stores nothing new. A belief with the
 * exact timing of a stored one but another value is a replacement: it overwrites with
 * `allowOverwrite`, else the whole call throws `ReplacementError`.
 * @param trx an open transaction; the batch is only atomic if the caller commits or rolls back as a whole.
 * @param rows the beliefs, in any order, for any sensors and sources.
 * @param options see `recordBeliefSets`.
 * @returns how many beliefs were inserted, left out, and overwritten.
 */
export async function recordBeliefs(trx: Knex.Transaction, rows: readonly BeliefInput[], options: RecordOptions): Promise<RecordResult> {
  const [outcome] = await recordBeliefSets(trx, [rows], options);
  if (outcome instanceof ReplacementError) throw outcome;
  return outcome;
}

/** How `recordBeliefSets` records. */
export interface RecordOptions {
  /** Whether replacements overwrite. */
  allowOverwrite: boolean;
  /** The event resolutions of the sensors, when the caller has loaded them already (else they are read). */
  resolutions?: ReadonlyMap<number, number>;
  /**
   * The sensor/source pairs (`sensorId/sourceId`) a committed transaction has recorded in
   * sensor_source already, which are not written again.
   */
  recordedPairs?: ReadonlySet<string>;
}

/** One set of beliefs on its way through `recordBeliefSets`. */
interface SetPlan {
  groups: Group[];
  result: RecordResult;
  conflicts: number;
  inserts: Writes;
  replacements: Writes;
}

/**
 * Records several sets of beliefs in the caller's transaction, each as `recordBeliefs` would in
 * turn, but each kept or refused on its own: a set with a replacement that is not allowed writes
 * nothing and the others are still recorded; a set sees the kept sets before it as stored. Sets
 * that touch different series (sensor, source and probability) share one probe per chunk; a set
 * touching a series of an earlier set in the run starts the next run, so that it compares with
 * what that set wrote.
 * @param trx an open transaction.
 * @param sets the beliefs, each set in any order, for any sensors and sources.
 * @param options whether replacements overwrite, known resolutions and sensor/source pairs.
 * @returns per set, what was recorded, or the `ReplacementError` that refused it.
 */
export async function recordBeliefSets(
  trx: Knex.Transaction,
  sets: readonly (readonly BeliefInput[])[],
  options: RecordOptions,
): Promise<(RecordResult | ReplacementError)[]> {
  const plans = sets.map(groupSet);
  const sensorIds = [...new Set(plans.flatMap((p) => p.groups.map((g) => g.sensorId)))];
  if (!sensorIds.length) return plans.map((p) => p.result);
  const known = options.resolutions;
  const resolutions = known && sensorIds.every((id) => known.has(id)) ? known : await sensorResolutions(trx, sensorIds);
  for (const id of sensorIds) if (!resolutions.has(id)) throw new RangeError(`No sensor with id ${id}.`);

  let run: SetPlan[] = [];
  const inRun = new Set<string>();
  for (const plan of plans) {
    const keys = plan.groups.map((g) => `${g.sensorId}/${g.sourceId}/${g.cp}`);
    if (keys.some((k) => inRun.has(k))) {
      await recordRun(trx, run, resolutions, options.allowOverwrite);
      run = [];
      inRun.clear();
    }
    run.push(plan);
    for (const k of keys) inRun.add(k);
  }
  await recordRun(trx, run, resolutions, options.allowOverwrite);

  const kept = plans.filter((p) => !p.conflicts);
  const pairs = [...new Map(kept.flatMap((p) => p.groups).map((g) => [`${g.sensorId}/${g.sourceId}`, g])).entries()]
    .filter(([key]) => !options.recordedPairs?.has(key))
    .map(([, g]) => g);
  if (pairs.length)
    await dialectOf(trx).query(
      trx,
      `INSERT INTO sensor_source (sensor_id, source_id) VALUES ${new Array<string>(pairs.length).fill('(?, ?)').join(', ')}
       ON CONFLICT (sensor_id, source_id) DO NOTHING`,
      pairs.flatMap((g) => [g.sensorId, g.sourceId]),
    );
  return plans.map((p) => (p.conflicts ? new ReplacementError(p.conflicts) : p.result));
}

/** Splits one set into its series, checking its values. */
function groupSet(rows: readonly BeliefInput[]): SetPlan {
  const groups = new Map<string, Group>();
  let group: Group | undefined;
  for (const row of rows) {
    if (!Number.isFinite(row.value)) throw new RangeError(`Belief values must be finite numbers, got ${row.value}.`);
    const cp = row.cumulativeProbability ?? MEDIAN;
    // Sets usually hold one sensor and source: only a change of group costs a lookup.
    if (!group || group.sensorId !== row.sensorId || group.sourceId !== row.sourceId || group.cp !== cp) {
      const key = `${row.sensorId}/${row.sourceId}/${cp}`;
      group = groups.get(key);
      if (!group) groups.set(key, (group = { sensorId: row.sensorId, sourceId: row.sourceId, cp, rows: [] }));
    }
    group.rows.push(row);
  }
  return { groups: [...groups.values()], result: { inserted: 0, unchanged: 0, replaced: 0 }, conflicts: 0, inserts: [], replacements: [] };
}

/**
 * Records a run of sets that touch different series: one probe for all of them, the stored
 * beliefs of the series the probe found something for, then the writes of every set without
 * conflicts.
 */
async function recordRun(trx: Knex.Transaction, run: SetPlan[], resolutions: ReadonlyMap<number, number>, allowOverwrite: boolean) {
  const series = run.flatMap((plan) =>
    plan.groups.map((g) => {
      const pending = deduplicate(g.rows, resolutions.get(g.sensorId)!, allowOverwrite, plan.result);
      plan.conflicts += pending.conflicts;
      return { plan, group: g, rows: pending.rows };
    }),
  );
  // A single small series (a device posting its reading) is looked up straight away: the probe
  // would cost a statement of its own and finds its window occupied as often as not (forecasts, plans).
  const occupied = series.length === 1 && series[0].rows.length <= SMALL_SERIES ? new Set([0]) : await storedInWindows(trx, series);
  for (const [s, { plan, group, rows }] of series.entries()) {
    const { sensorId, sourceId, cp } = group;
    const stored = occupied.has(s) ? await mostRecentStored(trx, sensorId, sourceId, cp, rows) : undefined;
    const toInsert: number[] = [];
    const toReplace: number[] = [];
    let previous: Pending | undefined;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      // The most recent earlier belief of the same kind: stored, or earlier in this set.
      let before = stored?.get(i);
      const inSet = previous?.eventStartMs === row.eventStartMs && previous.beliefTimeMs >= row.lowerMs ? previous : undefined;
      if (inSet && (!before || inSet.beliefTimeMs > before.beliefTimeMs)) {
        before = { beliefTimeMs: inSet.beliefTimeMs, value: inSet.value };
      }
      previous = row;
      if (before?.beliefTimeMs === row.beliefTimeMs && before.value !== row.value) {
        if (allowOverwrite) toReplace.push(row.eventStartMs, row.beliefTimeMs, row.value);
        else plan.conflicts++;
      } else if (before?.value === row.value) {
        plan.result.unchanged++;
      } else {
        toInsert.push(row.eventStartMs, row.beliefTimeMs, row.value);
      }
    }
    if (toInsert.length) plan.inserts.push({ sensorId, sourceId, cp, triples: toInsert });
    if (toReplace.length) plan.replacements.push({ sensorId, sourceId, cp, triples: toReplace });
  }
  for (const plan of run) {
    if (plan.conflicts) continue;
    plan.result.inserted += await write(trx, plan.inserts, '');
    plan.result.replaced += await write(trx, plan.replacements, ` ON CONFLICT (${KEY}) DO UPDATE SET event_value = excluded.event_value`);
  }
}

/**
 * Sorts one sensor/source/probability group by event and belief time and folds exact
 * duplicates: equal ones count as unchanged, differing ones as conflicts (the last one wins
 * when overwriting is allowed).
 */
function deduplicate(rows: BeliefInput[], resolutionMs: number, allowOverwrite: boolean, result: RecordResult) {
  const order = (a: BeliefInput, b: BeliefInput) => a.eventStartMs - b.eventStartMs || a.beliefTimeMs - b.beliefTimeMs;
  // Uploads arrive in order; checking is cheaper than sorting.
  const sorted = rows.every((r, i) => i === 0 || order(rows[i - 1], r) <= 0) ? rows : [...rows].sort(order);
  const out: Pending[] = [];
  let conflicts = 0;
  for (const row of sorted) {
    const last = out[out.length - 1];
    if (last && last.eventStartMs === row.eventStartMs && last.beliefTimeMs === row.beliefTimeMs) {
      if (last.value === row.value) result.unchanged++;
      else if (allowOverwrite) last.value = row.value;
      else conflicts++;
      continue;
    }
    const eventEndMs = row.eventStartMs + resolutionMs;
    // Ex-ante beliefs (known before the event ended) are compared with every earlier belief,
    // all of which are ex-ante too; ex-post beliefs only with ex-post ones.
    const lowerMs = row.beliefTimeMs < eventEndMs ? EARLIEST : eventEndMs;
    out.push({ eventStartMs: row.eventStartMs, beliefTimeMs: row.beliefTimeMs, value: row.value, lowerMs });
  }
  return { rows: out, conflicts };
}

/**
 * Which series have anything stored on their sensor between their first and last event: fresh
 * data (the common case) has nothing, and then needs no lookup. One statement per chunk.
 * @returns indexes into `series`.
 */
async function storedInWindows(trx: Knex.Transaction, series: { group: Group; rows: Pending[] }[]): Promise<Set<number>> {
  const found = new Set<number>();
  for (let offset = 0; offset < series.length; offset += LOOKUP_CHUNK) {
    const chunk = series.slice(offset, offset + LOOKUP_CHUNK);
    const bindings: number[] = [];
    for (const [i, { group, rows }] of chunk.entries())
      bindings.push(offset + i, group.sensorId, rows[0].eventStartMs, rows[rows.length - 1].eventStartMs);
    const hits = await dialectOf(trx).query<{ i: number }>(
      trx,
      `WITH w (i, s, lo, hi) AS (VALUES ${valueRows(chunk.length, INDEXED_ROW)})
       SELECT w.i AS i FROM w
       WHERE EXISTS (SELECT 1 FROM timed_belief t WHERE t.sensor_id = w.s AND t.event_start BETWEEN w.lo AND w.hi)`,
      bindings,
    );
    for (const h of hits) found.add(Number(h.i));
  }
  return found;
}

/**
 * For each pending belief, the most recent stored belief of the same sensor, source and
 * probability with a belief time in [lowerMs, beliefTimeMs]: two index seeks per belief, done
 * by the database in one statement per chunk.
 * @returns stored belief time and value by index into `rows`.
 */
async function mostRecentStored(
  trx: Knex.Transaction,
  sensorId: number,
  sourceId: number,
  cp: number,
  rows: Pending[],
): Promise<Map<number, { beliefTimeMs: number; value: number }>> {
  const found = new Map<number, { beliefTimeMs: number; value: number }>();
  for (let offset = 0; offset < rows.length; offset += LOOKUP_CHUNK) {
    const chunk = rows.slice(offset, offset + LOOKUP_CHUNK);
    const bindings: number[] = [];
    for (const [i, r] of chunk.entries()) bindings.push(offset + i, r.eventStartMs, r.lowerMs, r.beliefTimeMs);
    const hits = await dialectOf(trx).query<{ i: number; bt: number; value: number }>(
      trx,
      // MATERIALIZED: computed once per row; inlined, the subquery would run twice.
      `WITH incoming (i, es, lo, hi) AS (VALUES ${valueRows(chunk.length, INDEXED_ROW)}),
       m AS MATERIALIZED (
         SELECT incoming.i AS i, incoming.es AS es,
           (SELECT MAX(t.belief_time) FROM timed_belief t
            WHERE t.sensor_id = ? AND t.event_start = incoming.es AND t.source_id = ?
              AND t.cumulative_probability = ? AND t.belief_time BETWEEN incoming.lo AND incoming.hi) AS bt
         FROM incoming)
       SELECT m.i AS i, m.bt AS bt, b.event_value AS value
       FROM m
       JOIN timed_belief b ON b.sensor_id = ? AND b.event_start = m.es AND b.source_id = ?
         AND b.cumulative_probability = ? AND b.belief_time = m.bt`,
      [...bindings, sensorId, sourceId, cp, sensorId, sourceId, cp],
    );
    for (const h of hits) found.set(Number(h.i), { beliefTimeMs: Number(h.bt), value: h.value });
  }
  return found;
}

/** Beliefs to write for one sensor, source and probability, as flat (event start, belief time, value) triples. */
type Writes = { sensorId: number; sourceId: number; cp: number; triples: number[] }[];

/**
 * Inserts in multi-row statements, one series at a time. Sensor, source and probability are
 * bound once per statement: node-sqlite3 spends more on each bound number (it looks up `RegExp`
 * on the global object for each) than a statement's trip costs, so fewer bindings beat fewer
 * statements.
 * @returns the number of beliefs written.
 */
async function write(trx: Knex.Transaction, writes: Writes, onConflict: string): Promise<number> {
  let count = 0;
  for (const { sensorId, sourceId, cp, triples } of writes) {
    for (let i = 0; i < triples.length; i += WRITE_CHUNK * 3) {
      const end = Math.min(triples.length, i + WRITE_CHUNK * 3);
      const bindings = [sensorId, sourceId, cp];
      for (let k = i; k < end; k++) bindings.push(triples[k]);
      // WHERE keeps SQLite from reading ON CONFLICT as part of the SELECT.
      await dialectOf(trx).query(
        trx,
        `INSERT INTO timed_belief (${COLUMNS.join(', ')})
         SELECT ?, column1, ?, ?, column2, column3 FROM (VALUES ${valueRows((end - i) / 3, WRITE_ROW)}) AS v WHERE 1 = 1${onConflict}`,
        bindings,
      );
      count += (end - i) / 3;
    }
  }
  return count;
}

// The first row of a VALUES list carries casts: PostgreSQL infers the column types from it.
const WRITE_ROW = { first: '(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION))', next: '(?, ?, ?)' };
// An index and three numbers.
const INDEXED_ROW = { first: '(CAST(? AS INTEGER), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT))', next: '(?, ?, ?, ?)' };

const rowsCache = new Map<string, string>();
/** The placeholder rows of a VALUES list, remembered for the few sizes that recur. */
function valueRows(count: number, row: { first: string; next: string }): string {
  const key = `${row.next}${count}`;
  let text = rowsCache.get(key);
  if (text === undefined) {
    text = [row.first, ...new Array<string>(count - 1).fill(row.next)].join(', ');
    if (rowsCache.size > 32) rowsCache.clear();
    rowsCache.set(key, text);
  }
  return text;
}

/**
 * Deletes a sensor's beliefs, optionally only one source's and only events starting at or after
 * `startMs` and ending at or before `untilMs`. The sensor's source list (`sensor_source`) keeps
 * its entries: writers remember the pairs they recorded and would not write them again.
 * @returns how many beliefs were deleted.
 */
export async function deleteBeliefs(
  trx: Knex.Transaction,
  by: Writer,
  sensor: SensorInContext,
  query: { sourceId?: number; start?: DateTime; until?: DateTime },
): Promise<number> {
  const q = trx('timed_belief').where({ sensor_id: sensor.id });
  if (query.sourceId !== undefined) q.andWhere({ source_id: query.sourceId });
  if (query.start) q.andWhere('event_start', '>=', query.start.toMillis());
  if (query.until) q.andWhere('event_start', '<=', query.until.toMillis() - sensor.event_resolution_ms);
  const deleted = await q.delete();
  // On the sensor's asset's log, worded as 1.0 does (times as Python prints them).
  const event = [
    `Deleted data for sensor '${sensor.name}': ${sensor.id}`,
    query.sourceId !== undefined && `source: ${query.sourceId}`,
    query.start && `from: ${query.start.toFormat('yyyy-MM-dd HH:mm:ssZZ')}`,
    query.until && `until: ${query.until.toFormat('yyyy-MM-dd HH:mm:ssZZ')}`,
  ].filter(Boolean);
  await recordAudit(trx, by, { assetId: sensor.generic_asset_id, accountId: sensor.account_id }, event.join(', '));
  return deleted;
}
