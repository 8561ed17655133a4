import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measuredBefore, replayBatteries, timeOfUsePrices, type ReplayInput } from '../../server/src/queries/batteryReplay.ts';
import type { Sensor } from '../../server/src/store/sensors.ts';
import { createWorkerPool, type WorkerPool } from '../../server/src/workers/workerPool.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/*
 * The battery replay never reads a measurement from after its simulated now. The site's load is a
 * steady 1 kW for four weeks; the replayed day is Monday 2026-06-01 in Europe/Amsterdam (local
 * midnight = 2026-05-31T22:00Z). Planted afterwards: a 50 kW spike at 10:00 local that day, stored
 * as if known since before the day began (so only the event-time bound keeps it out of the plan),
 * and a correction of an hour of the day before, believed only at noon of the replayed day (so
 * only the belief-time bound keeps it out).
 */
const HOUR = 3600_000;
const DAY_START = Date.parse('2026-05-31T22:00:00Z');
const HISTORY_START = DAY_START - 28 * 24 * HOUR;
const SPIKE_AT = Date.parse('2026-06-01T08:00:00Z'); // 10:00 in Amsterdam
const CORRECTED_AT = Date.parse('2026-05-31T16:00:00Z'); // 18:00 the day before

let t: TestServer;
let pool: WorkerPool;
let load: Sensor;
let input: ReplayInput;

beforeAll(async () => {
  t = await startTestServer();
  pool = createWorkerPool(1, 1000);
  const f = factories(t.db);
  const account = await f.account();
  const site = await f.asset({ accountId: account.id, name: 'Home' });
  load = await f.sensor({
    assetId: site.id,
    unit: 'kW',
    resolutionMinutes: 60,
    timezone: 'Europe/Amsterdam',
    name: 'house load',
    attributes: { consumption_is_positive: true },
  });
  // History and the replayed day, all measured 1 kW, believed as of the history's start.
  await f.beliefs(load.id, HISTORY_START, HOUR, new Array<number>(29 * 24).fill(1), HISTORY_START);
  input = {
    load,
    pv: null,
    batteries: [{ capacityKwh: 10, powerKw: 5, roundTripEfficiency: 0.81 }],
    // 200 EUR/MWh from 23:00 to 07:00, 300 otherwise; feed-in 80.
    prices: timeOfUsePrices({
      buying: { timezone: 'Europe/Amsterdam', price: 300, periods: [{ days: 'all', from: '23:00', to: '07:00', price: 200 }] },
      feedInPrice: 80,
    }),
    fromMs: DAY_START,
    toMs: DAY_START + 24 * HOUR,
    location: null,
    country: null,
  };
}, 60_000);

afterAll(async () => {
  await pool?.destroy();
  await t?.close();
});

describe('battery replay on a simulated clock', () => {
  it('plans from what was known at its now only, and prices what was measured', { timeout: 120_000 }, async () => {
    const before = await replayBatteries(t.db, pool, input);
    const planBefore = before.batteries[0].days;
    // The plan buys at night (200 / 0.81 ≈ 247 < 300) and uses it by day: it does something.
    expect(planBefore).toHaveLength(1);
    expect(Math.max(...planBefore[0].plannedKw)).toBeGreaterThan(0);
    // Without a battery: 24 h × 1 kW, 8 night hours (00–07 and 23–24) at 0.2 EUR/kWh, 16 at 0.3 = 1.6 + 4.8.
    expect(before.costWithout).toBeCloseTo(6.4, 9);

    const f = factories(t.db);
    // 51 kW at 10:00 local, "known" since the history's first hour: only its event time is after now.
    await f.beliefs(load.id, SPIKE_AT, HOUR, [51], HISTORY_START + HOUR);
    // A correction of yesterday 18:00 to 40 kW, believed at noon today: after now.
    await f.beliefs(load.id, CORRECTED_AT, HOUR, [40], DAY_START + 12 * HOUR);
    // The read the replay makes at its now sees neither; a read at the day's end sees both.
    const atNow = await measuredBefore(t.db, load, HISTORY_START, DAY_START);
    expect(Math.max(...atNow.map((v) => v ?? 0))).toBe(1);
    const atEnd = await measuredBefore(t.db, load, HISTORY_START, DAY_START + 24 * HOUR);
    expect(atEnd[(SPIKE_AT - HISTORY_START) / HOUR]).toBe(51);
    expect(atEnd[(CORRECTED_AT - HISTORY_START) / HOUR]).toBe(40);

    const after = await replayBatteries(t.db, pool, input);
    expect(after.batteries[0].days[0].plannedKw).toEqual(planBefore[0].plannedKw);
    // Once the clock has passed it, the spike is measured: 50 kWh more at 0.3 EUR/kWh = 15 EUR more,
    // with the battery as without (it followed the same plan, and the hour imports either way).
    expect(after.costWithout - before.costWithout).toBeCloseTo(15, 9);
    expect(after.batteries[0].costWith - before.batteries[0].costWith).toBeCloseTo(15, 9);
  });
});
