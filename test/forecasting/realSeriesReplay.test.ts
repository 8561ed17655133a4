import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeHousehold } from '../../bench/_householdSite.ts';
import { KONSTANZ, realSeriesPresent, REAL_SERIES_DIR } from '../../bench/_realSeries.ts';
import { replayBatteries, timeOfUsePrices } from '../../server/src/queries/batteryReplay.ts';
import { createWorkerPool, type WorkerPool } from '../../server/src/workers/workerPool.ts';
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
    const { load, pv, loadSensor, pvSensor } = await storeHousehold(t.db);
    const result = await replayBatteries(t.db, pool, {
      load: loadSensor,
      pv: pvSensor,
      batteries: [{ capacityKwh: 10, powerKw: 5, roundTripEfficiency: 0.9 }],
      prices: timeOfUsePrices({ buying: { timezone: KONSTANZ.timezone, price: 300, periods: [] }, feedInPrice: 80 }),
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
    expect(result.dayCount).toBe(DAYS);
    expect(result.missingHours).toBe(0);
    expect(result.costWithout).toBeCloseTo(byHand, 6);
    // Storing PV worth 0.08 for use at 0.30, 90 % round trip: the battery saves, and it cycles.
    expect(result.batteries[0].days).toHaveLength(DAYS);
    expect(result.batteries[0].savings).toBeGreaterThan(0);
    expect(result.batteries[0].cycles).toBeGreaterThan(1);
  });
});
