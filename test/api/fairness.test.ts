import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { householdLoad } from '../../bench/_forecastSeries.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Issue 20: jobs are queued fairly across accounts. One account's long forecast (many cycles)
 * gives its turn between cycles, so another account's schedule queued behind it starts after at
 * most one cycle, not after the whole forecast.
 */

let t: TestServer;
let forecaster: { token: string; sensorId: number };
let scheduler: { token: string; sensorId: number };

const STEP = 3600_000;
const DAYS = 28;
const HISTORY_START = Date.parse('2026-01-05T00:00:00Z');
const ORIGIN = HISTORY_START + DAYS * 86_400_000;

beforeAll(async () => {
  t = await startTestServer({ FLEXSITE_WORKER_THREADS: '1' });
  const f = factories(t.db);
  const a = await f.account();
  const b = await f.account();
  const loadSensor = (
    await f.sensor({ assetId: (await f.asset({ accountId: a.id, type: 'building' })).id, unit: 'kW', resolutionMinutes: 60 })
  ).id;
  await f.beliefs(loadSensor, HISTORY_START, STEP, householdLoad(HISTORY_START, STEP, DAYS * 24).values, ORIGIN);
  forecaster = { token: (await f.user({ accountId: a.id })).token, sensorId: loadSensor };
  const battery = await f.asset({ accountId: b.id });
  scheduler = {
    token: (await f.user({ accountId: b.id })).token,
    sensorId: (await f.sensor({ assetId: battery.id, attributes: { max_soc_in_mwh: 1, capacity_in_mw: 1 } })).id,
  };
});
afterAll(() => t.close());

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Triggers a forecast of account A's load sensor over `days` from the origin, in cycles of `horizon`. */
async function forecast(days: number, horizon: string): Promise<string> {
  const res = await t.request('POST', `/api/v3_0/sensors/${forecaster.sensorId}/forecasts/trigger`, {
    token: forecaster.token,
    json: { start: new Date(ORIGIN).toISOString(), duration: `P${days}D`, 'max-forecast-horizon': horizon },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.job;
}

/** Triggers account B's 24-hour schedule. */
async function schedule(): Promise<string> {
  const res = await t.request('POST', `/api/v3_0/sensors/${scheduler.sensorId}/schedules/trigger`, {
    token: scheduler.token,
    json: {
      start: '2015-01-01T00:00:00Z',
      duration: 'PT24H',
      'flex-model': { 'soc-at-start': 0 },
      'flex-context': { 'consumption-price': '50 EUR/MWh' },
      'force-new-job-creation': true,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.schedule;
}

async function started(id: string): Promise<void> {
  for (let i = 0; i < 500 && (await t.server.services.jobs.get(id))!.status === 'queued'; i++) await pause(10);
}

async function ended(id: string) {
  await t.server.services.jobs.settled(id, 120_000);
  return (await t.server.services.jobs.get(id))!;
}

// On the in-process queue (sqlite project) and on BullMQ (the postgresql project's Redis) alike.
describe('fair turns between accounts', () => {
  it("start another account's schedule between the cycles of a long forecast", async () => {
    const f1 = await forecast(7, 'P1D');
    // The forecast holds the only slot.
    await started(f1);
    const s = await ended(await schedule());
    const f = await ended(f1);
    expect(f.status).toBe('finished');
    expect(s.status).toBe('finished');
    // Seven daily cycles: each still has measurements within a week before it (issue 22's history rule).
    expect(f.queue === 'forecasting' && f.result?.cycles).toHaveLength(7);
    // The schedule ran while the forecast was still going: it waited for a cycle, not for all seven.
    expect(s.finishedAt!).toBeLessThan(f.finishedAt!);
  }, 180_000);

  it("start another account's schedule queued behind a second job of the forecasting account", async () => {
    // 28 cycles of six hours.
    const f1 = await forecast(7, 'PT6H');
    await started(f1);
    // On BullMQ the second forecast is handed to the process at once and waits there for a slot.
    const f2 = await forecast(3, 'P1D');
    await pause(100);
    const s = await ended(await schedule());
    const [first, second] = [await ended(f1), await ended(f2)];
    expect([first.status, second.status, s.status]).toEqual(['finished', 'finished', 'finished']);
    // The schedule waited neither for the first forecast nor for the second.
    expect(s.finishedAt!).toBeLessThan(first.finishedAt!);
    expect(s.finishedAt!).toBeLessThan(second.finishedAt!);
  }, 240_000);
});
