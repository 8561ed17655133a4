import { expect } from 'vitest';
import { ensureAssetType } from '../../server/src/store/write/assets.ts';
import { recordBeliefs } from '../../server/src/store/write/beliefs.ts';
import { getOrCreateSource } from '../../server/src/store/write/sources.ts';
import { factories } from './factories.ts';
import { waitForSchedule } from './schedules.ts';
import type { TestServer } from './testServer.ts';

/*
 * The plan ahead of issue 33 ("tomorrow at a glance"), shared by the API and browser tests. Now is
 * 9 March 2027, 10:20 in Amsterdam (UTC+1), on the server's simulated clock; the first hour planned
 * is the next whole hour, 11:00. A site's battery (asset "Battery", sensor "power"), PV (asset
 * "Roof", sensor "PV") and house load (asset "House", sensor "load"), hourly in Amsterdam; prices
 * at two levels, 20 EUR/MWh for the first three hours and 100 for the next three, known at noon
 * the day before; a forecaster's values made at 06:00: PV 2 and 3 kW produced in hours 2 and 3
 * (12:00 and 13:00), the house 1.5 kW in hours 1 and 2 (11:00 and 12:00). The battery (20 kWh,
 * 5 kW, lossless, empty) is scheduled over the API for the six priced hours with a target of
 * 15 kWh at 14:00.
 */

const H = 3600_000;
const ZONE = 'Europe/Amsterdam';
/** Now, on the simulated clock. */
export const PLAN_NOW = Date.parse('2027-03-09T10:20:00+01:00');
/** The first hour planned. */
export const PLAN_FIRST = Date.parse('2027-03-09T11:00:00+01:00');

/** Sets up the devices, prices and forecasts above below a site of the account, and schedules the battery. */
export async function plannedBattery(t: TestServer, token: string, accountId: number, site: number) {
  const f = factories(t.db);
  await t.db.transaction(async (trx) => {
    for (const type of ['solar', 'house load']) await ensureAssetType(trx, type, type);
  });
  const device = async (type: string, name: string) => {
    const id = (await f.asset({ accountId, type, name })).id;
    await t.db('generic_asset').where({ id }).update({ parent_asset_id: site });
    return id;
  };
  const sensor = async (assetId: number, name: string, attributes = {}) =>
    (await f.sensor({ assetId, name, unit: 'kW', resolutionMinutes: 60, timezone: ZONE, attributes })).id;
  const batteryAsset = await device('battery', 'Battery');
  const battery = await sensor(batteryAsset, 'power');
  const pv = await sensor(await device('solar', 'Roof'), 'PV');
  const load = await sensor(await device('house load', 'House'), 'load', { consumption_is_positive: true });
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  const prices = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: ZONE })).id;
  await f.beliefs(prices, PLAN_FIRST, H, [20, 20, 20, 100, 100, 100], Date.parse('2027-03-08T12:00:00+01:00'));
  await t.db.transaction(async (trx) => {
    const source = await getOrCreateSource(trx, { name: 'forecast', type: 'forecaster', model: 'test' });
    const row = (sensorId: number, hour: number, value: number) => ({
      sensorId,
      eventStartMs: PLAN_FIRST + hour * H,
      beliefTimeMs: Date.parse('2027-03-09T06:00:00+01:00'),
      sourceId: source.id,
      value,
    });
    await recordBeliefs(trx, [row(pv, 1, 2), row(pv, 2, 3), row(load, 0, 1.5), row(load, 1, 1.5)], { allowOverwrite: false });
  });
  const res = await t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
    token,
    json: {
      start: new Date(PLAN_FIRST).toISOString(),
      duration: 'PT6H',
      'flex-model': {
        'soc-at-start': '0 kWh',
        'soc-min': '0 kWh',
        'soc-max': '20 kWh',
        'power-capacity': '5 kW',
        'roundtrip-efficiency': 1,
        'storage-efficiency': 1,
        'soc-targets': [{ datetime: new Date(PLAN_FIRST + 3 * H).toISOString(), value: '15 kWh' }],
      },
      'flex-context': { 'consumption-price-sensor': prices, 'site-power-capacity': '1 MW' },
    },
  });
  expect(res.status).toBe(200);
  const job = res.body.schedule as string;
  expect((await waitForSchedule(t, token, battery, job)).status).toBe(200);
  return { batteryAsset, battery, pv, load, prices, job };
}
