import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayAheadPrices, householdLoad } from '../../bench/_forecastSeries.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.ts';

/** Forecasts read what was known at their belief time, answer with their own values, and say when history is short. */
let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let assetId: number;

const DAY = 86_400_000;
const STEP = 900_000;
const HOUR = 3600_000;
const START = Date.parse('2026-03-02T00:00:00Z');

async function waitForJob(jobId: string): Promise<ApiResponse> {
  for (let i = 0; i < 300; i++) {
    const res = await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token });
    if (res.body.status === 'finished' || res.body.status === 'failed') return res;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the job did not finish');
}

const trigger = (sensorId: number, json: Record<string, unknown>) =>
  t.request('POST', `/api/v3_0/sensors/${sensorId}/forecasts/trigger`, { token, json });
const iso = (ms: number) => new Date(ms).toISOString();
const jobCount = async () => Number((await t.db('job').where({ queue: 'forecasting' }).count({ n: '*' }).first())!.n);

async function loadSensorWithDays(days: number): Promise<number> {
  const id = (await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15, timezone: 'Europe/Amsterdam' })).id;
  const values = householdLoad(START - days * DAY, STEP, days * 96).values;
  // Measured day by day: each day's values are known when it ends.
  for (let d = 0; d < days; d++) {
    const dayStart = START - (days - d) * DAY;
    await f.beliefs(id, dayStart, STEP, values.slice(d * 96, d * 96 + 96), dayStart + DAY);
  }
  return id;
}

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  assetId = (await f.asset({ accountId, type: 'building' })).id;
});
afterAll(() => t.close());

describe('forecast triggers', () => {
  it('refuses a belief time (prior) after the start: a forecast is made before its events; nothing is queued', async () => {
    const sensor = await loadSensorWithDays(30);
    const before = await jobCount();
    const res = await trigger(sensor, { start: iso(START), duration: 'P1D', prior: iso(START + HOUR) });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({ json: { prior: ['The belief time of a forecast must not be after the start of its window.'] } });
    expect(await jobCount()).toBe(before);
  });

  it('refuses a sensor without a day of history, naming the minimum; nothing is queued', async () => {
    const sensor = await loadSensorWithDays(0);
    // Forecasts of it are no history: only what was measured (or otherwise believed) counts.
    await t.db.transaction(async (trx) => {
      const { getOrCreateSource } = await import('../../server/src/store/write/sources.ts');
      const { recordBeliefs } = await import('../../server/src/store/write/beliefs.ts');
      const source = await getOrCreateSource(trx, { name: 'someone else', type: 'forecaster' });
      const rows = Array.from({ length: 96 * 3 }, (_, i) => ({
        sensorId: sensor,
        eventStartMs: START - 3 * DAY + i * STEP,
        beliefTimeMs: START - 4 * DAY,
        sourceId: source.id,
        value: 1,
      }));
      await recordBeliefs(trx, rows, { allowOverwrite: false });
    });
    const before = await jobCount();
    const res = await trigger(sensor, { start: iso(START), duration: 'PT48H', prior: iso(START) });
    expect(res.status).toBe(422);
    expect(res.body.message.json.prior[0]).toBe(
      `Too little history: sensor ${sensor} has 0 days of it known at ${iso(START)} before the start; ` +
        'a forecast needs at least 1 day of history, and choosing its method by backtest at least 10 days ' +
        '(8 days before the earliest origin plus the 48-hour horizon).',
    );
    expect(await jobCount()).toBe(before);
  });

  it('says when the history is too short for a backtest: at the trigger, in the job result and in show backtest', async () => {
    const sensor = await loadSensorWithDays(3);
    const res = await trigger(sensor, { start: iso(START), duration: 'PT48H', prior: iso(START) });
    expect(res.status).toBe(202);
    const minimum =
      'a forecast needs at least 1 day of history, and choosing its method by backtest at least 10 days ' +
      '(8 days before the earliest origin plus the 48-hour horizon)';
    expect(res.body.message).toBe(
      `Forecasting job has been queued. Too little history for a backtest: sensor ${sensor} has 3 days of it; ${minimum}. ` +
        'The method will be seasonal-naive-day.',
    );
    const job = await waitForJob(res.body.job);
    expect(job.body.status).toBe('finished');
    expect(job.body.result).toMatchObject({
      method: 'seasonal-naive-day',
      backtest: null,
      message: `Too little history: sensor ${sensor} had 3 days of it; ${minimum}. The method was seasonal-naive-day, chosen without a backtest.`,
    });
    const shown = await t.request('GET', `/api/v3_0/sensors/${sensor}/forecasts/backtest`, { token });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ method: 'seasonal-naive-day', backtest: null });
    expect(shown.body.message).toMatch(/too little history.*8 days of history before the earliest origin plus the forecast's horizon/);
    const values = await t.request('GET', `/api/v3_0/sensors/${sensor}/forecasts/${res.body.job}`, { token });
    expect(values.status).toBe(200);
    expect(values.body.values).toHaveLength(192);
  });

  it('counts the backtest origins the history has, not 14', async () => {
    // 12 days of history, a 1-day horizon: origins at 8, 9, 10 and 11 days after the first measurement.
    const sensor = await loadSensorWithDays(12);
    const res = await trigger(sensor, { start: iso(START), duration: 'P1D', prior: iso(START) });
    expect(res.status).toBe(202);
    expect(res.body.message).toBe('Forecasting job has been queued.');
    const job = await waitForJob(res.body.job);
    expect(job.body.result.backtest.origins).toBe(4);
    expect(job.body.result.message).toBeUndefined();
  });
});

describe('forecast values', () => {
  it("are the job's own: two jobs over the same window each answer with what they stored", async () => {
    const sensor = await loadSensorWithDays(30);
    // The first job is made two days ahead, the second at the start, knowing less and more.
    const early = await trigger(sensor, { start: iso(START), duration: 'P1D', prior: iso(START - 2 * DAY) });
    expect(early.status).toBe(202);
    expect((await waitForJob(early.body.job)).body.status).toBe('finished');
    const late = await trigger(sensor, { start: iso(START), duration: 'P1D', prior: iso(START) });
    expect(late.status).toBe(202);
    expect((await waitForJob(late.body.job)).body.status).toBe('finished');

    // What the forecaster believed of each event at a belief time: its most recent belief then (a
    // value equal to the source's earlier belief is not stored again, as for any source).
    const stored = async (beliefTime: number) => {
      const rows = await t
        .db('timed_belief as b')
        .join('data_source as s', 's.id', 'b.source_id')
        .where({ 'b.sensor_id': sensor, 's.type': 'forecaster' })
        .where('b.belief_time', '<=', beliefTime)
        .orderBy([{ column: 'b.event_start' }, { column: 'b.belief_time' }])
        .select('b.event_start', 'b.event_value');
      const latest = new Map(rows.map((r) => [Number(r.event_start), Number(r.event_value)]));
      return [...latest.values()];
    };
    const earlyStored = await stored(START - 2 * DAY);
    const lateStored = await stored(START);
    expect(earlyStored).toHaveLength(96);
    expect(lateStored).toHaveLength(96);
    expect(earlyStored).not.toEqual(lateStored);

    const earlyRes = await t.request('GET', `/api/v3_0/sensors/${sensor}/forecasts/${early.body.job}`, { token });
    const lateRes = await t.request('GET', `/api/v3_0/sensors/${sensor}/forecasts/${late.body.job}`, { token });
    expect(earlyRes.status).toBe(200);
    expect(earlyRes.body.values).toEqual(earlyStored);
    expect(earlyRes.body.start).toBe('2026-03-02T01:00:00+01:00');
    expect(lateRes.body.values).toEqual(lateStored);
  });

  it('are made from ex-ante beliefs too: day-ahead prices known the day before their events', async () => {
    const prices = (await f.sensor({ assetId, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' })).id;
    const days = 30;
    const series = dayAheadPrices(START - days * DAY, HOUR, days * 24).values;
    // Each day's prices believed at the auction, 12:00 UTC the day before (as FlexMeasures stores them).
    for (let d = 0; d < days; d++) {
      const dayStart = START - (days - d) * DAY;
      await f.beliefs(prices, dayStart, HOUR, series.slice(d * 24, d * 24 + 24), dayStart - 12 * HOUR);
    }
    const prior = START - 12 * HOUR;
    const res = await trigger(prices, { start: iso(START + DAY), duration: 'P1D', prior: iso(prior) });
    expect(res.status).toBe(202);
    const job = await waitForJob(res.body.job);
    expect(job.body.status).toBe('finished');
    const values = await t.request('GET', `/api/v3_0/sensors/${prices}/forecasts/${res.body.job}`, { token });
    expect(values.status).toBe(200);
    expect(values.body.values).toHaveLength(24);
    // Stored as known at the prior, before the events.
    const beliefTimes = await t
      .db('timed_belief as b')
      .join('data_source as s', 's.id', 'b.source_id')
      .where({ 'b.sensor_id': prices, 's.type': 'forecaster' })
      .distinct('b.belief_time');
    expect(beliefTimes.map((r) => Number(r.belief_time))).toEqual([prior]);
  });
});
