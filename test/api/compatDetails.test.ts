import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** Wire details of FlexMeasures 0.18 found while testing against its clients (issue 12). */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;

beforeAll(async () => {
  t = await startTestServer({ FLEXSITE_FALLBACK_REDIRECT: '1' });
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
});
afterAll(() => t.close());

const infeasible = {
  start: '2015-01-02T00:00:00+01:00',
  'flex-model': {
    'soc-at-start': 0,
    'soc-max': 5,
    'soc-targets': [{ value: 5, datetime: '2015-01-02T01:00:00+01:00' }],
    'power-capacity': '1 MW',
  },
  'flex-context': { 'consumption-price': '100 EUR/MWh' },
};

describe('0.18 wire details', () => {
  it('the URL behind the fallback 303 answers 200 with the fallback schedule once it is done', async () => {
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id });
    const res = await t.request('POST', `/api/v3_0/sensors/${sensor.id}/schedules/trigger`, { token, json: infeasible });
    const announced = await waitForSchedule(t, token, sensor.id, res.body.schedule);
    expect(announced.status).toBe(303);
    const location = new URL(announced.headers.get('location')!);
    const fallbackId = location.pathname.split('/').pop()!;
    const followed = await waitForSchedule(t, token, sensor.id, fallbackId);
    expect(followed.status).toBe(200);
    expect(followed.body.scheduler_info).toEqual({ scheduler: 'StorageFallbackScheduler' });
    expect(followed.body.values.length).toBeGreaterThan(0);
  });
});

describe('values that do not fit the duration', () => {
  it.each([
    [10, 6, 'PT30M', "Resolution of 0:05:00 is incompatible with the sensor's required resolution of 0:10:00."],
    [15, 7, 'PT1H', "Resolution of 0:08:34.285714 is incompatible with the sensor's required resolution of 0:15:00."],
    [60, 3, 'PT2H', "Resolution of 0:40:00 is incompatible with the sensor's required resolution of 1:00:00."],
  ])('%i-minute sensor, %i values over %s', async (minutes, count, duration, message) => {
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id, resolutionMinutes: minutes });
    const json = { start: '2024-01-01T00:00:00+00:00', duration, values: Array.from({ length: count }, () => 1), unit: 'MW' };
    for (const res of [
      await t.request('POST', `/api/v3_0/sensors/${sensor.id}/data`, { token, json }),
      await t.request('POST', '/api/v3_0/sensors/data', {
        token,
        json: { ...json, sensor: `ea1.2021-01.flexmeasures.io:fm1.${sensor.id}` },
      }),
    ]) {
      expect(res.status).toBe(422);
      expect(res.body.message).toEqual({ json: { _schema: [message] } });
    }
  });
});

describe('0.18 error shapes and listing', () => {
  it('nests list-item errors under the list, as marshmallow does', async () => {
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id });
    const res = await t.request('POST', `/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
      token,
      json: { ...infeasible, 'flex-context': { 'inflexible-device-sensors': [999999] } },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({ json: { 'inflexible-device-sensors': { '0': ['No sensor found with id 999999.'] } } });
  });

  it('nests asset-trigger device errors under the entry', async () => {
    const asset = await f.asset({ accountId });
    const elsewhere = await f.sensor({ assetId: (await f.asset({ accountId })).id });
    const post = (entry: Record<string, unknown>) =>
      t.request('POST', `/api/v3_0/assets/${asset.id}/schedules/trigger`, {
        token,
        json: { start: infeasible.start, 'flex-model': [entry] },
      });
    expect((await post({ 'soc-max': 1 })).body.message).toEqual({
      json: { 'flex-model': { '0': { sensor: ['Missing data for required field.'] } } },
    });
    expect((await post({ sensor: 999999 })).body.message).toEqual({
      json: { 'flex-model': { '0': { sensor: ['No sensor found with id 999999.'] } } },
    });
    expect((await post({ sensor: elsewhere.id })).body.message).toEqual({
      json: { 'flex-model': { '0': { sensor: [`Sensor ${elsewhere.id} does not belong to asset ${asset.id} or one below it.`] } } },
    });
  });

  it("describes the services in the reference's words", async () => {
    const listing = await t.request('GET', '/api/v3_0');
    const byName = Object.fromEntries(listing.body.services.map((s: { name: string; description: string }) => [s.name, s.description]));
    expect(byName).toMatchObject({
      'GET /sensors/data': 'Download sensor data',
      'POST /sensors/data': 'Upload sensor data',
      'GET /sensors': 'Download sensor list',
      'POST /sensors/<id>/schedules/trigger': 'Trigger scheduling job',
      'GET /sensors/<id>/schedules/<uuid>': 'Download schedule from the platform',
      'GET /assets': 'Download asset list',
      'GET ': 'Obtain a service listing for this version',
    });
  });
});
