import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatteryReplayResult } from '../../server/src/contracts/batteryReplay.ts';
import type { Sensor } from '../../server/src/store/sensors.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.ts';

/*
 * "Would a battery pay?" as a job over the API, on a case worked by hand. A site in
 * Europe/Amsterdam whose house load draws a steady 1 kW, measured for four weeks before and during
 * the two replayed days, Monday 2 and Tuesday 3 March 2026 (local midnight = 23:00Z the day before).
 * Buying costs 0.10 EUR/kWh from 00:00 to 06:00 and 0.30 otherwise; selling earns nothing.
 *
 * Without a battery, a day costs 6 h × 1 kWh × 0.10 + 18 h × 1 kWh × 0.30 = 0.60 + 5.40 = 6.00 EUR.
 * A lossless 10 kWh / 5 kW battery, empty at the start, is filled in the cheap hours (5 kW leaves
 * room for it) and serves 10 of the 18 dear hours' kWh: 10 kWh × (0.30 − 0.10) = 2.00 EUR saved a
 * day, so 4.00 EUR on 12.00 over the two days, 4.00 / 2 × 365 = 730.00 EUR a year, and one full
 * cycle a day (10 kWh in, 10 out, over twice 10 kWh). Emptied by day's end, it starts day two empty.
 * The same prices as a day-ahead series (100 and 300 EUR/MWh, each day's published at noon the day
 * before) give the same figures.
 */
const HOUR = 3600_000;
const ZONE = 'Europe/Amsterdam';
const DAY1 = Date.parse('2026-03-01T23:00:00Z');
const HISTORY_START = DAY1 - 28 * 24 * HOUR;
const DAYS = 2;

let t: TestServer;
let owner: string;
let stranger: string;
let siteId: number;
let houseId: number;
let priceSensor: Sensor;
let foreignPrice: Sensor;

const tou = { kind: 'time-of-use', price: 0.3, periods: [{ from: '00:00', to: '06:00', price: 0.1 }], feed_in_price: 0 };
const body = (tariff: object = tou) => ({
  sizes: [{ capacity_kwh: 10, power_kw: 5, efficiency: 1 }],
  tariff,
  start: '2026-03-02',
  end: '2026-03-04',
});

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  const account = await f.account();
  const other = await f.account();
  owner = (await f.user({ accountId: account.id })).token;
  stranger = (await f.user({ accountId: other.id })).token;
  const site = await f.asset({ accountId: account.id, type: 'site', name: 'Home' });
  siteId = site.id;
  const house = await f.asset({ accountId: account.id, type: 'house load', name: 'house', parentId: site.id });
  houseId = house.id;
  const load = await f.sensor({
    assetId: house.id,
    unit: 'kW',
    resolutionMinutes: 60,
    timezone: ZONE,
    name: 'house load',
    attributes: { consumption_is_positive: true },
  });
  await f.beliefs(load.id, HISTORY_START, HOUR, new Array<number>((28 + DAYS) * 24).fill(1), HISTORY_START);
  const prices = (sensor: Sensor) =>
    Promise.all(
      // Each local day's 24 prices, known at noon the day before: 100 EUR/MWh 00:00–06:00, 300 after.
      Array.from({ length: 28 + DAYS }, (_, d) => {
        const dayStart = HISTORY_START + d * 24 * HOUR;
        const values = Array.from({ length: 24 }, (_, h) => (h < 6 ? 100 : 300));
        return f.beliefs(sensor.id, dayStart, HOUR, values, dayStart - 12 * HOUR);
      }),
    );
  priceSensor = await f.sensor({ assetId: site.id, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: ZONE, name: 'day-ahead' });
  await prices(priceSensor);
  const otherSite = await f.asset({ accountId: other.id, type: 'site', name: 'Elsewhere' });
  foreignPrice = await f.sensor({ assetId: otherSite.id, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: ZONE, name: 'their prices' });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** Polls the replay until it ends; returns every answer seen. */
async function follow(jobUrl: string): Promise<ApiResponse[]> {
  const seen: ApiResponse[] = [];
  for (let i = 0; i < 2400; i++) {
    const res = await t.request('GET', jobUrl, { token: owner });
    seen.push(res);
    if (res.status !== 200 || res.body.status === 'finished' || res.body.status === 'failed') return seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`replay ${jobUrl} did not finish`);
}

const replays = async () => (await t.db('job').where({ queue: 'battery-replay' }).count({ n: '*' }))[0].n;
const audits = async () =>
  (await t.db('audit_log').where({ affected_asset_id: siteId }).where('event', 'like', 'Started battery replay%')).length;

/** The figures worked by hand above, for the result of either tariff. */
function expectHandWorked(result: BatteryReplayResult) {
  expect(result.days).toBe(DAYS);
  expect(result.currency).toBe('EUR');
  expect(result.months).toEqual([{ month: '2026-03', hours: 48, cost_without: 12 }]);
  expect(result.cost_without).toBe(12);
  expect(result.sizes).toHaveLength(1);
  const [size] = result.sizes;
  expect(size).toMatchObject({ capacity_kwh: 10, power_kw: 5, efficiency: 1, cost_with: 8, savings: 4, savings_per_year: 730, cycles: 2 });
  expect(size.months).toEqual([{ month: '2026-03', cost_with: 8, savings: 4, cycles: 2 }]);
  expect(result.missing_hours).toBe(0);
  expect(result.unforecast_hours).toBe(0);
  expect(result.warnings).toEqual([]);
}

describe('POST /assets/<id>/battery-replay', () => {
  it('replays as a job: progress by day, then the figures worked by hand, with its audit entry', { timeout: 300_000 }, async () => {
    const started = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: owner, json: body() });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'ACCEPTED', 'job-url': `/api/v3_0/assets/${siteId}/battery-replay/${started.body.job}` });
    expect(await audits()).toBe(1);
    const seen = await follow(started.body['job-url']);
    const last = seen[seen.length - 1];
    expect(last.status).toBe(200);
    expect(last.body.status).toBe('finished');
    // Progress counts the replayed days, never backwards, and ends at all of them.
    const progress = seen.flatMap((r) => (r.body.progress ? [r.body.progress] : []));
    expect(progress.every((p) => p.total === DAYS)).toBe(true);
    expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort());
    expect(last.body.progress).toEqual({ done: DAYS, total: DAYS });
    expectHandWorked(last.body.result);
    // The general job view shows the same job, its progress and its stored arguments.
    const job = await t.request('GET', `/api/v3_0/jobs/${started.body.job}`, { token: owner });
    expect(job.body).toMatchObject({ queue: 'battery-replay', status: 'finished', progress: { done: DAYS, total: DAYS } });
    expect(job.body.args).toMatchObject({ assetId: siteId, start: '2026-03-02', end: '2026-03-04' });
  });

  it('replays against a day-ahead price series the same way', { timeout: 300_000 }, async () => {
    const started = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, {
      token: owner,
      json: body({ kind: 'day-ahead', sensor: priceSensor.id, feed_in_price: 0 }),
    });
    expect(started.status).toBe(202);
    const seen = await follow(started.body['job-url']);
    const last = seen[seen.length - 1];
    expect(last.body.status).toBe('finished');
    expectHandWorked(last.body.result);
  });

  it('refuses another account: its site (403), and a price sensor of another account (403); nothing is stored', async () => {
    const [jobs, entries] = [await replays(), await audits()];
    const theirs = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: stranger, json: body() });
    expect(theirs.status).toBe(403);
    const foreign = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, {
      token: owner,
      json: body({ kind: 'day-ahead', sensor: foreignPrice.id }),
    });
    expect(foreign.status).toBe(403);
    expect([await replays(), await audits()]).toEqual([jobs, entries]);
  });

  it("refuses to show a replay to another account, and answers 404 for another asset's job id", async () => {
    const started = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: owner, json: body() });
    const theirs = await t.request('GET', started.body['job-url'], { token: stranger });
    expect(theirs.status).toBe(403);
    // The owner's house load asset: readable, but the job is the site's.
    const wrong = await t.request('GET', `/api/v3_0/assets/${houseId}/battery-replay/${started.body.job}`, { token: owner });
    expect(wrong.status).toBe(404);
    await follow(started.body['job-url']);
  }, 300_000);

  it('answers bad input with 422 and field messages, storing nothing', async () => {
    const [jobs, entries] = [await replays(), await audits()];
    const post = (json: object) => t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: owner, json });
    const five = Array.from({ length: 5 }, () => ({ capacity_kwh: 10, power_kw: 5 }));
    const cases: [object, string[]][] = [
      [{ ...body(), sizes: [] }, ['sizes']],
      [{ ...body(), sizes: five }, ['sizes']],
      [{ ...body(), sizes: [{ capacity_kwh: -1, power_kw: 5, efficiency: 1.5 }] }, ['sizes']],
      [{ ...body(), end: '2026-03-01' }, ['end']],
      [{ ...body(), start: '2025-01-01', end: '2026-03-01' }, ['end']],
      [{ ...body(), start: '2026-02-30' }, ['start']],
      [{ ...body(), end: '2099-01-01' }, ['end']],
      [body({ kind: 'site' }), ['tariff']],
      [body({ kind: 'day-ahead', sensor: 999_999 }), ['tariff']],
      [body({ kind: 'weather' }), ['tariff']],
    ];
    for (const [json, fields] of cases) {
      const res = await post(json);
      expect(res.status, JSON.stringify(json)).toBe(422);
      // A field inside the body is named by its path (`tariff.kind`) or nested under its first part.
      expect(
        Object.keys(res.body.message.json).map((k) => k.split('.')[0]),
        JSON.stringify(res.body),
      ).toEqual(fields);
    }
    expect([await replays(), await audits()]).toEqual([jobs, entries]);
  });
});
