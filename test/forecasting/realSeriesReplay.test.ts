import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { household, KONSTANZ, realSeriesPresent, REAL_SERIES_DIR } from '../../bench/_realSeries.ts';
import { replayBattery } from '../../server/src/queries/batteryReplay.ts';
import { createWorkerPool, type WorkerPool } from '../../server/src/workers/workerPool.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/*
 * Two weeks of the battery replay on the real household (Open Power System Data, CC BY 4.0; see the
 * README beside the CSV): 2016-06-06 to 2016-06-20 in Konstanz, a 10 kWh / 5 kW battery, a flat
 * 0.30 EUR/kWh with feed-in 0.08. The cost without the battery is summed here from the CSV itself.
 */
const FROM = Date.parse('2016-06-05T22:00:00Z'); // 2016-06-06 00:00 in Konstanz
const DAYS = 14;

describe.skipIf(!realSeriesPresent())(`battery replay on the real household (${REAL_SERIES_DIR})`, () => {
  let t: TestServer;
  let pool: WorkerPool;
  beforeAll(async () => {
    t = await startTestServer();
    pool = createWorkerPool(1, 1000);
  }, 60_000);
  afterAll(async () => {
    await pool?.destroy();
    await t?.close();
  });

  it('prices the measured fortnight as summed by hand, and the battery saves', { timeout: 300_000 }, async () => {
    const f = factories(t.db);
    const site = await f.asset({ accountId: (await f.account()).id, name: 'Konstanz household' });
    const { load, pv } = household();
    const sensor = (name: string, attributes: Record<string, unknown>) =>
      f.sensor({ assetId: site.id, unit: 'kW', resolutionMinutes: 60, timezone: KONSTANZ.timezone, name, attributes });
    const loadSensor = await sensor('house load', { consumption_is_positive: true });
    const pvSensor = await sensor('solar panels', {});
    await f.beliefs(loadSensor.id, load.startMs, load.stepMs, Array.from(load.values), load.startMs + load.stepMs);
    await f.beliefs(pvSensor.id, pv.startMs, pv.stepMs, Array.from(pv.values), pv.startMs + pv.stepMs);

    const result = await replayBattery(t.db, pool, {
      load: loadSensor,
      pv: pvSensor,
      battery: { capacityKwh: 10, powerKw: 5, roundTripEfficiency: 0.9 },
      tariff: { buying: { timezone: KONSTANZ.timezone, price: 300, periods: [] }, feedInPrice: 80 },
      fromMs: FROM,
      toMs: FROM + DAYS * 86_400_000,
      location: KONSTANZ.location,
      country: KONSTANZ.country,
    });
    const first = (FROM - load.startMs) / load.stepMs;
    let byHand = 0;
    for (let h = first; h < first + DAYS * 24; h++) {
      const net = load.values[h] - pv.values[h];
      byHand += net > 0 ? net * 0.3 : net * 0.08;
    }
    expect(result.days).toHaveLength(DAYS);
    expect(result.missingHours).toBe(0);
    expect(result.costWithout).toBeCloseTo(byHand, 6);
    // Storing PV worth 0.08 for use at 0.30, 90 % round trip: the battery saves, and it cycles.
    expect(result.savings).toBeGreaterThan(0);
    expect(result.cycles).toBeGreaterThan(1);
  });
});
