import fs from 'node:fs';
import { getTimes } from 'suncalc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.ts';

/**
 * Solar panels set up with their peak, tilt and azimuth are forecast from the first day, before
 * any measurement: exactly 0 at night, the clear sky times the stated prior by day, and a schedule
 * made at once plans with that PV.
 */

const AMSTERDAM = { latitude: 52.37, longitude: 4.9 };
const START = Date.parse('2026-06-21T00:00:00Z');
const QUARTER = 900_000;

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let otherToken: string;
let site: number;

beforeAll(async () => {
  t = await startTestServer({}, undefined, { clock: new SimulatedClock(START - 2 * 3600_000) });
  f = factories(t.db);
  const accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  site = (await f.asset({ accountId, type: 'building', name: 'Home' })).id;
  await t.db('generic_asset').where({ id: site }).update(AMSTERDAM);
  otherToken = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

const setUp = (json: Record<string, unknown>, as = token) => t.request('POST', `/api/v3_0/assets/${site}/devices`, { token: as, json });
const assetCount = async () => Number((await t.db('generic_asset').count({ n: '*' }).first())!.n);

async function waitForForecast(sensorId: number, jobId: string): Promise<ApiResponse> {
  for (let i = 0; i < 300; i++) {
    const res = await t.request('GET', `/api/v3_0/sensors/${sensorId}/forecasts/${jobId}`, { token });
    if (res.status !== 202) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the forecast did not finish');
}

describe('PV forecast from the first day', () => {
  let pv: number;
  let forecast: number[];

  it('refuses a tilt or azimuth out of range with field messages, storing nothing, and a stranger', async () => {
    const before = await assetCount();
    const steep = await setUp({ kind: 'pv', name: 'Roof PV', power: '4 kW', tilt: 95, azimuth: 360 });
    expect(steep.status).toBe(422);
    expect(Object.keys(steep.body.message.json).sort()).toEqual(['azimuth', 'tilt']);
    const stranger = await setUp({ kind: 'pv', name: 'Roof PV', power: '4 kW', tilt: 35, azimuth: 180 }, otherToken);
    expect(stranger.status).toBe(403);
    expect(await assetCount()).toBe(before);
  });

  it('keeps the peak, tilt and azimuth on the panels’ asset', async () => {
    const res = await setUp({ kind: 'pv', name: 'Roof PV', power: '4 kW', tilt: 35, azimuth: 180, timezone: 'Europe/Amsterdam' });
    expect(res.status).toBe(201);
    pv = res.body.sensors[0].id;
    const stored = await t.request('GET', `/api/v3_0/assets/${res.body.asset.id}`, { token });
    expect(JSON.parse(stored.body.attributes)).toEqual({ capacity_in_mw: 0.004, tilt_in_degrees: 35, azimuth_in_degrees: 180 });
  });

  it('forecasts the panels with no history: 0 at every night step, the clear sky times the prior at noon', async () => {
    expect((await t.request('POST', `/api/v3_0/sensors/${pv}/forecasts/trigger`, { token: otherToken, json: {} })).status).toBe(403);
    const res = await t.request('POST', `/api/v3_0/sensors/${pv}/forecasts/trigger`, {
      token,
      json: { start: new Date(START).toISOString(), duration: 'P1D' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await waitForForecast(pv, res.body.forecast);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    forecast = done.body.values;
    expect(forecast).toHaveLength(96);
    // Night by the almanac (suncalc's sunrise and sunset, not the forecaster's mask).
    const { sunrise, sunset } = getTimes(new Date(START + 12 * 3600_000), AMSTERDAM.latitude, AMSTERDAM.longitude);
    const night = forecast.filter((_, i) => START + (i + 1) * QUARTER <= sunrise!.getTime() || START + i * QUARTER >= sunset!.getTime());
    expect(night.length).toBeGreaterThan(20);
    expect(night.every((v) => v === 0)).toBe(true);
    /*
     * 11:30–11:45 UTC, by hand: solar noon ≈ 11:40 UTC, altitude 90 − 52.37 + 23.44 = 61.07°
     * (cos z 0.8752). Haurwitz GHI 1098·0.8752·e^(−0.059/0.8752) = 898 W/m². Erbs: kt = 898 /
     * (1323·0.8752) = 0.776, diffuse share 0.167: DHI 150, DNI 855. On 35° south, incidence
     * 61.07 − 55 = 6.07° (cos 0.994): POA = 850 + 150·(1 + cos 35°)/2 + 898·0.2·(1 − cos 35°)/2 = 1003.
     * Cell 15 + 25·1.003 = 40.1 °C, factor 1 − 0.004·15.1 = 0.940; 4 kWp·1.003·0.940·0.85·0.6 = 1.92 kW.
     */
    expect(forecast[46]).toBeGreaterThan(1.85);
    expect(forecast[46]).toBeLessThan(1.98);
    const source = await t
      .db('timed_belief as b')
      .join('data_source as s', 's.id', 'b.source_id')
      .where('b.sensor_id', pv)
      .distinct('s.model');
    expect(source).toEqual([{ model: 'pv-geometry' }]);
  });

  it('feeds a schedule at once: with no export allowed, the battery takes the forecast PV by day and nothing at night', async () => {
    const battery = await setUp({ kind: 'battery', name: 'Home battery', power: '10 kW', capacity: '100 kWh' });
    expect(battery.status).toBe(201);
    const power = battery.body.sensors[0].id;
    const res = await t.request('POST', `/api/v3_0/sensors/${power}/schedules/trigger`, {
      token,
      json: {
        start: new Date(START).toISOString(),
        duration: 'P1D',
        'flex-model': { 'soc-at-start': 0, 'soc-unit': 'kWh', 'soc-min': 0, 'soc-max': 100, 'power-capacity': '10 kW' },
        'flex-context': {
          'consumption-price': '100 EUR/MWh',
          'production-price': '0 EUR/MWh',
          'site-production-capacity': '0 kW',
          'inflexible-device-sensors': [pv],
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const plan = (await waitForSchedule(t, token, power, res.body.schedule, 'P1D')).body.values as number[];
    // Charging costs 100 EUR/MWh, so the battery takes exactly the PV it must (none may leave the site).
    plan.forEach((p, i) => expect(p).toBeCloseTo(forecast[i], 3));
    expect(plan.reduce((a, b) => a + b, 0)).toBeGreaterThan(10);
  });
});
