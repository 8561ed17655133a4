import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resampleToGrid } from '../../server/src/domain/resample.ts';
import { mostRecentBeliefs, ReplacementError, type BeliefInput } from '../../server/src/store/beliefs.ts';
import { recordBeliefs, recordBeliefSets } from '../../server/src/store/write/beliefs.ts';
import { listSources } from '../../server/src/store/sources.ts';
import { getOrCreateSource } from '../../server/src/store/write/sources.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** The store API the scheduler builds on, exercised against the real SQLite store. */
let t: TestServer;
let f: ReturnType<typeof factories>;
let assetId: number;

const H = 3_600_000;
const T0 = Date.UTC(2025, 0, 1);

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  assetId = (await f.asset({ accountId: (await f.account()).id })).id;
});
afterAll(() => t.close());

const record = (rows: BeliefInput[], allowOverwrite = false) => t.db.transaction((trx) => recordBeliefs(trx, rows, { allowOverwrite }));

describe('getOrCreateSource', () => {
  it('finds a source by its identity, a user source by its user', async () => {
    const a = await getOrCreateSource(t.db, { name: 'Flexsite', type: 'scheduler', model: 'StorageScheduler', version: '3' });
    expect(await getOrCreateSource(t.db, { name: 'Flexsite', type: 'scheduler', model: 'StorageScheduler', version: '3' })).toEqual(a);
    expect((await getOrCreateSource(t.db, { name: 'Flexsite', type: 'scheduler', model: 'StorageScheduler', version: '4' })).id).not.toBe(
      a.id,
    );
    const { user } = await f.user({ accountId: (await f.account()).id });
    const mine = await getOrCreateSource(t.db, { name: user.username, type: 'user', userId: user.id, accountId: user.account_id });
    expect(await getOrCreateSource(t.db, { name: 'renamed', type: 'user', userId: user.id })).toEqual(mine);
    expect(await listSources(t.db, { ids: [mine.id, a.id] })).toEqual([a, mine]);
  });
});

describe('recordBeliefs and mostRecentBeliefs', () => {
  it('keeps the latest belief per event and source, filtered by belief time, horizon and source', async () => {
    const s = await f.sensor({ assetId, unit: 'MW', resolutionMinutes: 60 });
    const a = await getOrCreateSource(t.db, { name: 'a', type: 'forecaster' });
    const b = await getOrCreateSource(t.db, { name: 'b', type: 'forecaster' });
    const row = (hour: number, beliefHoursBefore: number, sourceId: number, value: number): BeliefInput => ({
      sensorId: s.id,
      eventStartMs: T0 + hour * H,
      beliefTimeMs: T0 + hour * H - beliefHoursBefore * H,
      sourceId,
      value,
    });
    expect(await record([row(0, 24, a.id, 1), row(0, 2, a.id, 2), row(1, 24, a.id, 3), row(0, 12, b.id, 9)])).toEqual({
      inserted: 4,
      unchanged: 0,
      replaced: 0,
    });
    const window = { sensorId: s.id, startMs: T0, endMs: T0 + 2 * H };
    // Per event: of each source's latest, the one formed first (b at −12 h before a at −2 h).
    expect((await mostRecentBeliefs(t.db, window)).map((x) => [x.eventStartMs - T0, x.value, x.sourceId])).toEqual([
      [0, 9, b.id],
      [H, 3, a.id],
    ]);
    expect((await mostRecentBeliefs(t.db, { ...window, perSource: true })).map((x) => x.value)).toEqual([9, 2, 3]);
    expect((await mostRecentBeliefs(t.db, { ...window, sourceIds: [a.id] })).map((x) => x.value)).toEqual([2, 3]);
    expect((await mostRecentBeliefs(t.db, { ...window, sourceIds: [a.id], beliefsBeforeMs: T0 - 3 * H })).map((x) => x.value)).toEqual([
      1, 3,
    ]);
    // Horizon = event end − belief time: the belief of 2 h before the start has a horizon of 3 h.
    expect((await mostRecentBeliefs(t.db, { ...window, sourceIds: [a.id], horizonAtLeastMs: 4 * H })).map((x) => x.value)).toEqual([1, 3]);
    expect(await mostRecentBeliefs(t.db, { ...window, horizonAtMostMs: 0 })).toEqual([]);
    // The window holds events that lie inside it; `overlapping` also takes those that cross it.
    expect(await mostRecentBeliefs(t.db, { sensorId: s.id, startMs: T0 + H / 2, endMs: T0 + 2 * H })).toHaveLength(1);
    expect(
      await mostRecentBeliefs(t.db, { sensorId: s.id, startMs: T0 + H / 2, endMs: T0 + 2 * H, overlapping: true, perSource: true }),
    ).toHaveLength(3);
  });

  it('leaves out unchanged beliefs, compares ex-ante with ex-ante and ex-post with ex-post', async () => {
    const s = await f.sensor({ assetId, unit: 'MW', resolutionMinutes: 60 });
    const src = await getOrCreateSource(t.db, { name: 'meter', type: 'demo script' });
    const at = (beliefTimeMs: number, value: number): BeliefInput => ({
      sensorId: s.id,
      eventStartMs: T0,
      beliefTimeMs,
      sourceId: src.id,
      value,
    });
    expect(await record([at(T0 - H, 5)])).toMatchObject({ inserted: 1 }); // a forecast
    expect(await record([at(T0 - H / 2, 5)])).toMatchObject({ inserted: 0, unchanged: 1 }); // the same forecast, later
    expect(await record([at(T0 + H, 5)])).toMatchObject({ inserted: 1, unchanged: 0 }); // the first measurement is kept
    expect(await record([at(T0 + 2 * H, 5), at(T0 + 3 * H, 6)])).toEqual({ inserted: 1, unchanged: 1, replaced: 0 });
    const stored = await t.db('timed_belief').where({ sensor_id: s.id }).orderBy('belief_time');
    expect(stored.map((r: { belief_time: number; event_value: number }) => [(r.belief_time - T0) / H, r.event_value])).toEqual([
      [-1, 5],
      [1, 5],
      [3, 6],
    ]);
  });

  it('refuses replacements as a whole, or overwrites them when allowed; takes several sensors at once', async () => {
    const s1 = await f.sensor({ assetId, unit: 'MW', resolutionMinutes: 15 });
    const s2 = await f.sensor({ assetId, unit: 'MWh', resolutionMinutes: 0 });
    const src = await getOrCreateSource(t.db, { name: 'Flexsite', type: 'scheduler', model: 'StorageScheduler', version: '3' });
    const rows = [0, 1, 2].flatMap((i) => [
      { sensorId: s1.id, eventStartMs: T0 + i * 900_000, beliefTimeMs: T0, sourceId: src.id, value: i },
      { sensorId: s2.id, eventStartMs: T0 + i * 900_000, beliefTimeMs: T0, sourceId: src.id, value: 10 * i },
    ]);
    expect(await record(rows)).toEqual({ inserted: 6, unchanged: 0, replaced: 0 });
    const changed = rows.map((r) => ({ ...r, value: r.value + 1 }));
    await expect(record([...changed, { ...rows[0], eventStartMs: T0 + H }])).rejects.toBeInstanceOf(ReplacementError);
    expect(await t.db('timed_belief').whereIn('sensor_id', [s1.id, s2.id])).toHaveLength(6);
    expect(await record(changed, true)).toEqual({ inserted: 0, unchanged: 0, replaced: 6 });
    const latest = await mostRecentBeliefs(t.db, { sensorId: s2.id, startMs: T0, endMs: T0 + 1_800_000 });
    // Instantaneous events count up to and including the window's end.
    expect(latest.map((b) => b.value)).toEqual([1, 11, 21]);
    expect(await t.db('sensor_source').whereIn('sensor_id', [s1.id, s2.id]).orderBy('sensor_id')).toEqual([
      { sensor_id: s1.id, source_id: src.id },
      { sensor_id: s2.id, source_id: src.id },
    ]);
  });

  it('records sets each on its own, each seeing the kept sets before it', async () => {
    const s1 = await f.sensor({ assetId, unit: 'MW', resolutionMinutes: 60 });
    const s2 = await f.sensor({ assetId, unit: 'MW', resolutionMinutes: 60 });
    const src = await getOrCreateSource(t.db, { name: 'sets', type: 'demo script' });
    const set = (sensorId: number, beliefHoursBefore: number, values: number[]): BeliefInput[] =>
      values.map((value, i) => ({ sensorId, eventStartMs: T0 + i * H, beliefTimeMs: T0 - beliefHoursBefore * H, sourceId: src.id, value }));
    const outcomes = await t.db.transaction((trx) =>
      recordBeliefSets(
        trx,
        [
          set(s1.id, 2, [1, 2]),
          // The same forecast, formed later: unchanged against the set before it.
          set(s1.id, 1, [1, 2]),
          // A changed value at the first set's belief time: refused alone, nothing of it written.
          [...set(s2.id, 2, [5]), ...set(s1.id, 2, [1, 3])],
          set(s2.id, 2, [6, 7]),
          [],
        ],
        { allowOverwrite: false },
      ),
    );
    expect(outcomes).toEqual([
      { inserted: 2, unchanged: 0, replaced: 0 },
      { inserted: 0, unchanged: 2, replaced: 0 },
      new ReplacementError(1),
      { inserted: 2, unchanged: 0, replaced: 0 },
      { inserted: 0, unchanged: 0, replaced: 0 },
    ]);
    expect(
      await t.db('timed_belief').whereIn('sensor_id', [s1.id, s2.id]).orderBy(['sensor_id', 'event_start']).pluck('event_value'),
    ).toEqual([1, 2, 6, 7]);
  });

  it('reads the median of a probabilistic belief', async () => {
    const s = await f.sensor({ assetId, unit: 'EUR/MWh', resolutionMinutes: 60 });
    const src = await getOrCreateSource(t.db, { name: 'quantiles', type: 'forecaster' });
    await record(
      [0.1, 0.5, 0.9].map((cp, i) => ({
        sensorId: s.id,
        eventStartMs: T0,
        beliefTimeMs: T0 - H,
        sourceId: src.id,
        cumulativeProbability: cp,
        value: 10 * (i + 1),
      })),
    );
    expect((await mostRecentBeliefs(t.db, { sensorId: s.id, startMs: T0, endMs: T0 + H })).map((b) => b.value)).toEqual([20]);
  });

  it('reads back every stored double exactly, at the edges of the range too', async () => {
    const s = await f.sensor({ assetId, unit: 'MW', resolutionMinutes: 60 });
    const src = await getOrCreateSource(t.db, { name: 'edges', type: 'forecaster' });
    const bits = new DataView(new ArrayBuffer(8));
    const randomDouble = () => {
      do {
        bits.setUint32(0, (Math.random() * 2 ** 32) >>> 0);
        bits.setUint32(4, (Math.random() * 2 ** 32) >>> 0);
      } while (!Number.isFinite(bits.getFloat64(0)));
      return bits.getFloat64(0);
    };
    const edges = [
      0,
      5e-324,
      -5e-324,
      2 ** -1022,
      2 ** -1022 - 5e-324,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      1 - 2 ** -53,
      0.1,
      1 / 3,
      2 ** 53 + 2,
    ];
    const values = [...edges, ...Array.from({ length: 2000 }, randomDouble)];
    // Every third event also has a belief a little farther from the median, stored before the
    // closer one: only probabilities read back exactly pick the closer one.
    const belief = (i: number, cumulativeProbability: number, value: number) => ({
      sensorId: s.id,
      eventStartMs: T0 + i * H,
      beliefTimeMs: T0 - H,
      sourceId: src.id,
      cumulativeProbability,
      value,
    });
    await record(
      values.flatMap((value, i) =>
        i % 3 ? [belief(i, 0.5, value)] : [belief(i, 0.5 - 2 ** -52, -1), belief(i, i % 2 ? 0.5 + 2 ** -53 : 0.5 - 2 ** -54, value)],
      ),
    );
    const read = await mostRecentBeliefs(t.db, { sensorId: s.id, startMs: T0, endMs: T0 + values.length * H });
    expect(read.map((b) => b.value)).toEqual(values);
  });
});

describe('resampleToGrid', () => {
  const events = (values: (number | null)[], stepMs: number) =>
    values.flatMap((value, i) => (value === null ? [] : [{ eventStartMs: T0 + i * stepMs, value }]));

  it('averages rates when downsampling, over the events present', () => {
    expect(
      resampleToGrid(events([1, 2, 3, null, null, null], 900_000), {
        startMs: T0,
        endMs: T0 + 3 * 1_800_000,
        stepMs: 1_800_000,
        eventResolutionMs: 900_000,
      }),
    ).toEqual([1.5, 3, null]);
  });

  it('repeats rates and splits amounts when upsampling, sums amounts when downsampling', () => {
    const hourly = events([4, 8], H);
    const grid = { startMs: T0, endMs: T0 + 2 * H, stepMs: H / 2, eventResolutionMs: H };
    expect(resampleToGrid(hourly, grid)).toEqual([4, 4, 8, 8]);
    expect(resampleToGrid(hourly, { ...grid, stock: true })).toEqual([2, 2, 4, 4]);
    expect(resampleToGrid(hourly, { ...grid, stepMs: 2 * H, stock: true })).toEqual([12]);
  });

  it('takes the first value in each step for instantaneous events; leaves gaps null', () => {
    const readings = events([815, 817, 818], 600_000);
    expect(resampleToGrid(readings, { startMs: T0, endMs: T0 + 4 * 1_200_000, stepMs: 1_200_000, eventResolutionMs: 0 })).toEqual([
      815,
      818,
      null,
      null,
    ]);
  });

  it('puts events that start inside a step into it, and starts the grid anywhere', () => {
    const quarter = events([1, 2, 3, 4], 900_000);
    expect(resampleToGrid(quarter, { startMs: T0 - 900_000, endMs: T0 + 3_600_000, stepMs: 900_000, eventResolutionMs: 900_000 })).toEqual([
      null,
      1,
      2,
      3,
      4,
    ]);
    expect(resampleToGrid(quarter, { startMs: T0 + 300_000, endMs: T0 + 2_100_000, stepMs: 600_000, eventResolutionMs: 900_000 })).toEqual([
      1, 2, 2,
    ]);
  });
});
