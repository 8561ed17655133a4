import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * A trigger reads each sensor and asset row it needs once (its resolution, its rights check and
 * its queueing share the rows), and only for itself: another process (the CLI on the same store,
 * another server) may change them between two triggers, and the next trigger reads them anew.
 * Here the test's own connection to the store stands for that process, writing without the server.
 */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;

const START = '2015-01-02T15:00:00+01:00';

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

/** A battery on a site whose stored flex-context names a price sensor, as another process writes it. */
async function setUp() {
  const market = await f.asset({ accountId, type: 'transmission zone' });
  const price = (unit: string) => f.sensor({ assetId: market.id, unit, resolutionMinutes: 60 });
  const [first, second] = [await price('EUR/MWh'), await price('EUR/MWh')];
  const site = await f.asset({ accountId, type: 'building' });
  const battery = await f.sensor({ assetId: (await f.asset({ accountId, type: 'battery', parentId: site.id })).id, unit: 'MW' });
  const storeContext = (context: Record<string, unknown>) =>
    t
      .db('generic_asset_flex')
      .insert({ asset_id: site.id, flex_context: JSON.stringify(context), flex_model: '{}' })
      .onConflict('asset_id')
      .merge(['flex_context']);
  const trigger = () =>
    t.request('POST', `/api/v3_0/sensors/${battery.id}/schedules/trigger`, {
      token,
      json: { start: START, duration: 'PT2H', 'flex-model': { 'soc-at-start': 0.5, 'soc-min': 0, 'soc-max': 1, 'power-capacity': '1 MW' } },
    });
  /** The price the trigger's job reads, as its stored arguments say. */
  const jobPrice = async (jobId: string) => {
    const job = await t.db('job').where({ id: jobId }).first<{ args: string }>('args');
    return (JSON.parse(job.args) as { spec: { consumptionPrice: unknown } }).spec.consumptionPrice;
  };
  return { first, second, storeContext, trigger, jobPrice };
}

describe('a trigger reads the rows it needs for itself only', () => {
  it('finds the site flex-context and the price sensor another process changed since the last trigger', async () => {
    const { first, second, storeContext, trigger, jobPrice } = await setUp();
    await storeContext({ 'consumption-price-sensor': first.id });
    const before = await trigger();
    expect(before.status).toBe(200);
    expect(await jobPrice(before.body.schedule)).toEqual({ sensor: first.id, unit: 'EUR/MWh' });

    await storeContext({ 'consumption-price-sensor': second.id });
    const after = await trigger();
    expect(after.status).toBe(200);
    expect(await jobPrice(after.body.schedule)).toEqual({ sensor: second.id, unit: 'EUR/MWh' });

    await t.db('sensor').where({ id: second.id }).update({ unit: 'USD/MWh' });
    const renamed = await trigger();
    expect(renamed.status).toBe(200);
    expect(await jobPrice(renamed.body.schedule)).toEqual({ sensor: second.id, unit: 'USD/MWh' });
  });

  it("refuses a trigger once another process stored another account's price sensor in the site's flex-context", async () => {
    const { first, storeContext, trigger } = await setUp();
    await storeContext({ 'consumption-price-sensor': first.id });
    expect((await trigger()).status).toBe(200);

    const other = await f.account();
    const foreign = await f.sensor({ assetId: (await f.asset({ accountId: other.id, type: 'transmission zone' })).id, unit: 'EUR/MWh' });
    await storeContext({ 'consumption-price-sensor': foreign.id });
    const jobsBefore = await t.db('job').count<{ n: number }[]>({ n: '*' });
    const refused = await trigger();
    expect(refused.status).toBe(403);
    expect(await t.db('job').count<{ n: number }[]>({ n: '*' })).toEqual(jobsBefore);
  });
});
