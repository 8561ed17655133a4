import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let priceSensor: number;

const HOUR = 3600_000;
const day2 = [...Array(8).fill(100), ...Array(8).fill(90), ...Array(8).fill(100)];

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  priceSensor = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  await f.beliefs(priceSensor, Date.parse('2015-01-02T00:00:00+01:00'), HOUR, day2, Date.parse('2015-01-01T12:00:00+01:00'));
});
afterAll(() => t.close());

async function schedule(sensorId: number, body: Record<string, unknown>, duration = 'PT2H') {
  const res = await t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, { token, json: body });
  expect(res.status).toBe(200);
  return waitForSchedule(t, token, sensorId, res.body.schedule, duration);
}

const tc9 = {
  start: '2015-01-02T15:00:00+01:00',
  duration: 'PT2H',
  'flex-context': { 'consumption-price-sensor': 0, 'site-power-capacity': '1 MW' },
};
const tc9Model = { 'soc-at-start': 100, 'soc-unit': 'kWh', 'soc-min': 100, 'soc-max': 1000, 'power-capacity': '1 MW' };

describe('schedule details', () => {
  it('honours soc-maxima over a window (TC9 time-series variant)', async () => {
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id });
    const res = await schedule(sensor.id, {
      ...tc9,
      'flex-context': { ...tc9['flex-context'], 'consumption-price-sensor': priceSensor },
      'flex-model': { ...tc9Model, 'soc-maxima': [{ value: 200, start: '2015-01-02T16:45:00+01:00', duration: 'PT15M' }] },
    });
    expect(res.body.values).toEqual([1, 1, 1, 0.4, -1, -1, -1, -0.4]);
  });

  it('honours an instantaneous soc-maximum (TC9: 950 kWh at 16:00)', async () => {
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id });
    const res = await schedule(sensor.id, {
      ...tc9,
      'flex-context': { ...tc9['flex-context'], 'consumption-price-sensor': priceSensor },
      'flex-model': { ...tc9Model, 'soc-maxima': [{ value: 950, datetime: '2015-01-02T16:00:00+01:00' }] },
    });
    const values: number[] = res.body.values;
    expect(values.slice(0, 4).reduce((a, b) => a + b * 0.25, 0)).toBeCloseTo(0.85, 6);
    expect(values.slice(4).reduce((a, b) => a + b * 0.25, 0)).toBeCloseTo(-0.85, 6);
  });

  it('keeps a one-way charger from discharging', async () => {
    const asset = await f.asset({ accountId, type: 'one-way_evse' });
    const sensor = await f.sensor({ assetId: asset.id });
    const res = await schedule(sensor.id, {
      ...tc9,
      'flex-context': { ...tc9['flex-context'], 'consumption-price-sensor': priceSensor },
      'flex-model': { ...tc9Model, 'soc-at-start': 900 },
    });
    expect(res.status).toBe(200);
    for (const v of res.body.values as number[]) expect(v).toBeGreaterThanOrEqual(0);
  });

  it('extends partly known prices to the window edges', async () => {
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id });
    const partial = await f.sensor({ assetId: asset.id, unit: 'EUR/MWh', resolutionMinutes: 60 });
    // Only 16:00–17:00 is known: 15:00–16:00 takes that price too, so trading cannot earn anything.
    await f.beliefs(partial.id, Date.parse('2015-01-02T16:00:00+01:00'), HOUR, [100], Date.parse('2015-01-01T00:00:00Z'));
    const res = await schedule(sensor.id, { ...tc9, 'flex-context': { 'consumption-price-sensor': partial.id }, 'flex-model': tc9Model });
    expect(res.status).toBe(200);
    const cost = (res.body.values as number[]).reduce((sum, v) => sum + v * 0.25 * 100, 0);
    expect(cost).toBeCloseTo(0, 6);
  });

  it('caps what one GET returns at the planning horizon and stores the schedule as sensor data', async () => {
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id, resolutionMinutes: 60 });
    const res = await t.request('POST', `/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
      token,
      json: {
        start: '2015-01-02T00:00:00+01:00',
        duration: 'PT72H',
        'flex-model': { 'soc-at-start': 0.5, 'soc-max': 1, 'power-capacity': '1 MW' },
        'flex-context': { 'consumption-price': '50 EUR/MWh' },
      },
    });
    const long = await waitForSchedule(t, token, sensor.id, res.body.schedule, 'PT1000H');
    expect(long.status).toBe(200);
    expect(long.body.values).toHaveLength(48);
    expect(long.body.duration).toBe('PT48H');
    const byDefault = await waitForSchedule(t, token, sensor.id, res.body.schedule);
    expect(byDefault.body.values).toHaveLength(6);
    // The sensor data API shows the same schedule (the sensor keeps production positive).
    const data = await t.request('GET', `/api/v3_0/sensors/${sensor.id}/data`, {
      token,
      query: { start: '2015-01-02T00:00:00+01:00', duration: 'PT6H', unit: 'MW' },
    });
    expect(data.status).toBe(200);
    expect(data.body.values).toEqual((byDefault.body.values as number[]).map((v) => (v === 0 ? 0 : -v)));
  });

  it('schedules the 25-hour autumn day in Europe/Amsterdam', async () => {
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id, timezone: 'Europe/Amsterdam' });
    const res = await schedule(
      sensor.id,
      {
        start: '2015-10-25T00:00:00+02:00',
        duration: 'PT25H',
        'flex-model': {
          'soc-at-start': 0,
          'soc-max': 1,
          'soc-targets': [{ value: 1, datetime: '2015-10-26T00:00:00+01:00' }],
          'power-capacity': '1 MW',
        },
        'flex-context': { 'consumption-price': '30 EUR/MWh' },
      },
      'PT25H',
    );
    expect(res.status).toBe(200);
    expect(res.body.values).toHaveLength(100);
    expect(res.body.start).toBe('2015-10-25T00:00:00+02:00');
    expect((res.body.values as number[]).reduce((a, b) => a + b * 0.25, 0)).toBeCloseTo(1, 6);
  });
});

describe('job retention', () => {
  it('forgets finished jobs after the planning TTL and expires stale queued ones at start', async () => {
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id });
    const old = Date.now() - 8 * 24 * HOUR;
    const row = (id: string, status: string) => ({
      id,
      queue: 'scheduling',
      status,
      args: '{}',
      cache_key: id,
      account_id: accountId,
      sensor_id: sensor.id,
      created_at: old,
      finished_at: status === 'finished' ? old : null,
      attempts: 0,
    });
    const t2 = await startTestServer();
    try {
      await t2.db('account').insert({ id: accountId, name: 'x' }).onConflict('id').ignore();
      await t2.db('job').insert([
        { ...row('00000000-0000-0000-0000-000000000001', 'finished'), account_id: null, sensor_id: null },
        { ...row('00000000-0000-0000-0000-000000000002', 'queued'), account_id: null, sensor_id: null },
      ]);
      const dir = t2.dataDir;
      await t2.server.close();
      const t3 = await startTestServer({}, dir);
      try {
        expect(await t3.db('job').select('id')).toEqual([]);
      } finally {
        await t3.close();
      }
    } finally {
      await t2.close().catch(() => undefined);
    }
  });
});
