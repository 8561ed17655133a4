import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * A job is reused only while its inputs are unchanged: the same trigger answers the earlier job
 * until the prices it read change, then a new one that reads them.
 */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;

const START = '2015-01-02T15:00:00+01:00';

async function setUp() {
  const market = await f.asset({ accountId, type: 'transmission zone' });
  const prices = await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' });
  const asset = await f.asset({ accountId, type: 'battery' });
  const battery = await f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 15, timezone: 'Europe/Amsterdam' });
  const body = {
    start: START,
    duration: 'PT2H',
    'flex-model': { 'soc-at-start': 0.5, 'soc-min': 0, 'soc-max': 1, 'power-capacity': '1 MW', 'roundtrip-efficiency': 1 },
    'flex-context': { 'consumption-price-sensor': prices.id },
  };
  const trigger = async (as = token) => {
    const res = await t.request('POST', `/api/v3_0/sensors/${battery.id}/schedules/trigger`, { token: as, json: body });
    return res;
  };
  return { prices, battery, trigger };
}

/** The energy charged (positive, as the schedules of power sensors say) in each hour of quarter-hourly MW values. */
const hourlyMwh = (values: number[]) =>
  [0, 4].map((from) => Math.round(values.slice(from, from + 4).reduce((a, b) => a + b * 0.25, 0) * 1e6) / 1e6 + 0);

/** Posts two hourly prices from the start, as a client does. */
const postPrices = (sensorId: number, values: number[], prior?: string) =>
  t.request('POST', '/api/v3_0/sensors/data', {
    token,
    json: { sensor: `ea1.2021-01.io.flexmeasures:fm1.${sensorId}`, values, start: START, duration: 'PT2H', unit: 'EUR/MWh', prior },
  });

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
});
afterAll(() => t.close());

describe('job reuse', () => {
  it('queues a new job once the prices a failed job missed have arrived', async () => {
    const { prices, battery, trigger } = await setUp();
    const failed = (await trigger()).body.schedule;
    expect((await waitForSchedule(t, token, battery.id, failed, 'PT2H')).body.message).toMatch(/Prices unknown/);
    // Nothing changed: the same job.
    expect((await trigger()).body.schedule).toBe(failed);

    expect((await postPrices(prices.id, [10, 50])).status).toBe(200);
    const again = await trigger();
    expect(again.status).toBe(200);
    expect(again.body.schedule).not.toBe(failed);
    const schedule = await waitForSchedule(t, token, battery.id, again.body.schedule, 'PT2H');
    expect(schedule.status).toBe(200);
    // Cheap first hour, dear second: fill the half-full battery, then sell it all.
    expect(hourlyMwh(schedule.body.values)).toEqual([0.5, -1]);
    // The job keeps what its input held when it was triggered.
    const job = await t.db('job').where({ id: again.body.schedule }).first();
    expect(JSON.parse(job.args).inputs).toEqual([{ sensor: prices.id, beliefs: 2, newestBeliefMs: expect.any(Number), total: 60 }]);
  });

  it('queues a new job once a price was fixed, and reuses it while nothing changes', async () => {
    const { prices, battery, trigger } = await setUp();
    expect((await postPrices(prices.id, [10, 50], '2015-01-01T12:00:00+01:00')).status).toBe(200);
    const first = (await trigger()).body.schedule;
    expect(hourlyMwh((await waitForSchedule(t, token, battery.id, first, 'PT2H')).body.values)).toEqual([0.5, -1]);

    // The prices were the wrong way round: the fix is newer, so it is what schedules read.
    expect((await postPrices(prices.id, [50, 10])).status).toBe(200);
    const fixed = (await trigger()).body.schedule;
    expect(fixed).not.toBe(first);
    // Dear first hour: sell what the battery holds; nothing is worth buying at the end.
    expect(hourlyMwh((await waitForSchedule(t, token, battery.id, fixed, 'PT2H')).body.values)).toEqual([-0.5, 0]);
    expect((await trigger()).body.schedule).toBe(fixed);
    // Re-posting the same prices stores nothing new: still the same job.
    expect((await postPrices(prices.id, [50, 10])).status).toBe(200);
    expect((await trigger()).body.schedule).toBe(fixed);
  });

  it("refuses another account's trigger naming these prices, and queues nothing", async () => {
    const { trigger } = await setUp();
    const other = await f.account();
    const stranger = (await f.user({ accountId: other.id, roles: ['account-admin'] })).token;
    const before = await t.db('job').count<{ n: number }[]>({ n: '*' });
    expect((await trigger(stranger)).status).toBe(403);
    expect(await t.db('job').count<{ n: number }[]>({ n: '*' })).toEqual(before);
  });
});
