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

// On the in-process queue (sqlite project) and on BullMQ (the postgresql project's Redis) alike.
describe('fair turns between accounts', () => {
  it("start another account's schedule between the cycles of a long forecast", async () => {
    const forecast = await t.request('POST', `/api/v3_0/sensors/${forecaster.sensorId}/forecasts/trigger`, {
      token: forecaster.token,
      json: { start: new Date(ORIGIN).toISOString(), duration: 'P7D', 'max-forecast-horizon': 'P1D' },
    });
    expect(forecast.status).toBe(202);
    const { jobs } = t.server.services;
    // Wait until the forecast holds the only slot.
    for (let i = 0; i < 200 && (await jobs.get(forecast.body.job))!.status === 'queued'; i++) await new Promise((r) => setTimeout(r, 10));
    const schedule = await t.request('POST', `/api/v3_0/sensors/${scheduler.sensorId}/schedules/trigger`, {
      token: scheduler.token,
      json: {
        start: '2015-01-01T00:00:00Z',
        duration: 'PT24H',
        'flex-model': { 'soc-at-start': 0 },
        'flex-context': { 'consumption-price': '50 EUR/MWh' },
      },
    });
    expect(schedule.status).toBe(200);
    await jobs.settled(schedule.body.schedule, 120_000);
    await jobs.settled(forecast.body.job, 120_000);
    const [f, s] = [(await jobs.get(forecast.body.job))!, (await jobs.get(schedule.body.schedule))!];
    expect(f.status).toBe('finished');
    expect(s.status).toBe('finished');
    // Seven daily cycles: each still has measurements within a week before it (issue 22's history rule).
    expect(f.queue === 'forecasting' && f.result?.cycles).toHaveLength(7);
    // The schedule ran while the forecast was still going: it waited for a cycle, not for all seven.
    expect(s.finishedAt!).toBeLessThan(f.finishedAt!);
  }, 180_000);
});
