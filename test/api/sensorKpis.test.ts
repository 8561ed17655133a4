/** FlexMeasures 1.0's `sensors_to_show_as_kpis` on assets, and its KPIs under `data` of GET /assets/<id>/kpis. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let token: string;
let assetId: number;
let energy: number;
let share: number;
let hourly: number;
let foreign: number;

const DAY = 86_400_000;
const START = Date.parse('2026-04-01T00:00:00Z');

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  assetId = (await f.asset({ accountId, name: 'Site' })).id;
  energy = (await f.sensor({ assetId, name: 'daily energy', unit: 'kWh', resolutionMinutes: 1440 })).id;
  share = (await f.sensor({ assetId, name: 'self-consumption', unit: '%', resolutionMinutes: 1440 })).id;
  hourly = (await f.sensor({ assetId, name: 'hourly', resolutionMinutes: 60 })).id;
  const other = (await f.account()).id;
  foreign = (await f.sensor({ assetId: (await f.asset({ accountId: other })).id, resolutionMinutes: 1440 })).id;
  await f.beliefs(energy, START, DAY, [10, 20, 30.456], START);
  await f.beliefs(share, START, DAY, [50, 70, 90], START);
});
afterAll(() => t.close());

const patch = (kpis: unknown) =>
  t.request('PATCH', `/api/v3_0/assets/${assetId}`, { token, json: { sensors_to_show_as_kpis: JSON.stringify(kpis) } });
const stored = async () => JSON.parse((await t.db('generic_asset').where({ id: assetId }).first()).attributes).sensors_to_show_as_kpis;

describe('sensors_to_show_as_kpis', () => {
  it('is stored from PATCH /assets and gives the KPIs over the window', async () => {
    const kpis = [
      { title: 'Energy', sensor: energy },
      { title: 'Peak day', sensor: energy, function: 'max' },
      { title: 'Self-consumption', sensor: share },
    ];
    expect((await patch(kpis)).status).toBe(200);
    expect(await stored()).toEqual(kpis);
    const res = await t.request('GET', `/api/v3_0/assets/${assetId}/kpis`, {
      token,
      query: { start: '2026-04-01T00:00:00Z', end: '2026-04-03T00:00:00Z' },
    });
    expect(res.status).toBe(200);
    // Two days of the three: sum 10 + 20, max 20; a % sensor is averaged: (50 + 70) / 2.
    expect(res.body.data).toEqual([
      { title: 'Energy', unit: 'kWh', sensor: energy, downsample_value: 30, downsample_function: 'sum' },
      { title: 'Peak day', unit: 'kWh', sensor: energy, downsample_value: 20, downsample_function: 'max' },
      { title: 'Self-consumption', unit: '%', sensor: share, downsample_value: 60, downsample_function: 'mean' },
    ]);
    const all = await t.request('GET', `/api/v3_0/assets/${assetId}/kpis`, {
      token,
      query: { start: '2026-04-01T00:00:00Z', end: '2026-04-04T00:00:00Z' },
    });
    expect(all.body.data[0].downsample_value).toBe(60.46);
    const empty = await t.request('GET', `/api/v3_0/assets/${assetId}/kpis`, {
      token,
      query: { start: '2026-05-01T00:00:00Z', end: '2026-05-02T00:00:00Z' },
    });
    expect(empty.body.data.map((k: { downsample_value: number }) => k.downsample_value)).toEqual([0, 0, 0]);
  });

  it('refuses non-daily and unknown sensors (422), bad shapes (422) and another account’s sensors (403), storing nothing', async () => {
    const kept = [{ title: 'Energy', sensor: energy }];
    expect((await patch(kept)).status).toBe(200);
    expect(await patch([{ title: 'Hourly', sensor: hourly }])).toMatchObject({
      status: 422,
      body: unprocessable('json', { sensors_to_show_as_kpis: { 0: { sensor: [`Sensor with ID ${hourly} is not a daily sensor.`] } } }),
    });
    expect(await patch([{ title: 'Gone', sensor: 999_999 }])).toMatchObject({
      status: 422,
      body: unprocessable('json', { sensors_to_show_as_kpis: { 0: { sensor: ['No sensor found with id 999999.'] } } }),
    });
    expect((await patch([{ sensor: energy }])).status).toBe(422);
    expect((await patch([{ title: 'x', sensor: energy, function: 'median' }])).status).toBe(422);
    expect((await patch([{ title: 'Theirs', sensor: foreign }])).status).toBe(403);
    expect(await stored()).toEqual(kept);
  });

  it('is accepted on POST /assets too', async () => {
    const res = await t.request('POST', '/api/v3_0/assets', {
      token,
      json: {
        name: 'With KPIs',
        generic_asset_type_id: await f.assetType('building'),
        account_id: accountId,
        sensors_to_show_as_kpis: JSON.stringify([{ title: 'Energy', sensor: energy }]),
      },
    });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.attributes).sensors_to_show_as_kpis).toEqual([{ title: 'Energy', sensor: energy }]);
  });
});
