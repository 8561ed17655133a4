import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { schedulerPluginFolder } from '../helpers/schedulerPlugins.ts';
import { onSharedBackends } from '../helpers/sharedBackends.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let priceSensor: number;

const HOUR = 3600_000;
const start = Date.parse('2015-01-02T00:00:00+01:00');

beforeAll(async () => {
  t = await startTestServer({ FLEXSITE_SCHEDULER_PLUGINS: schedulerPluginFolder() });
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  priceSensor = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  // Cheap nights, dear evenings, for a week (covers the DST days below through separate sensors).
  const prices = Array.from({ length: 24 * 7 }, (_, h) => (h % 24 < 6 ? 20 : h % 24 >= 17 && h % 24 < 21 ? 120 : 60));
  await f.beliefs(priceSensor, start, HOUR, prices, start - 24 * HOUR);
});
afterAll(() => t.close());

const trigger = (path_: string, json: unknown) => t.request('POST', path_, { token, json });

describe('more schedules', () => {
  it('schedules two batteries of one asset together under the site limit', async () => {
    const site = await f.asset({ accountId, type: 'battery', attributes: { capacity_in_mw: 1 } });
    const a = await f.sensor({ assetId: site.id });
    const b = await f.sensor({ assetId: site.id });
    const res = await trigger(`/api/v3_0/assets/${site.id}/schedules/trigger`, {
      start: '2015-01-02T00:00:00+01:00',
      duration: 'PT24H',
      'flex-model': [
        {
          sensor: a.id,
          'soc-at-start': 0,
          'soc-max': 2,
          'soc-targets': [{ value: 2, datetime: '2015-01-02T06:00:00+01:00' }],
          'power-capacity': '1 MW',
        },
        {
          sensor: b.id,
          'soc-at-start': 0,
          'soc-max': 2,
          'soc-targets': [{ value: 2, datetime: '2015-01-02T06:00:00+01:00' }],
          'power-capacity': '1 MW',
        },
      ],
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    expect(res.status).toBe(200);
    const sa = await waitForSchedule(t, token, a.id, res.body.schedule, 'PT24H');
    const sb = await waitForSchedule(t, token, b.id, res.body.schedule, 'PT24H');
    expect(sa.status).toBe(200);
    expect(sb.status).toBe(200);
    const pa: number[] = sa.body.values;
    const pb: number[] = sb.body.values;
    // Together they never exceed the 1 MW site connection, and both reach 2 MWh by 06:00.
    pa.forEach((v, j) => expect(Math.abs(v + pb[j])).toBeLessThanOrEqual(1 + 1e-6));
    const energy = (p: number[]) => p.slice(0, 24).reduce((s, v) => s + v * 0.25, 0);
    expect(energy(pa)).toBeCloseTo(2, 6);
    expect(energy(pb)).toBeCloseTo(2, 6);
  });

  it('schedules on hourly sensors and kWh energy sensors in their own units', async () => {
    const asset = await f.asset({ accountId, type: 'battery' });
    const hourly = await f.sensor({ assetId: asset.id, unit: 'kWh', resolutionMinutes: 60 });
    const res = await trigger(`/api/v3_0/sensors/${hourly.id}/schedules/trigger`, {
      start: '2015-01-02T00:00:00+01:00',
      duration: 'PT24H',
      'flex-model': {
        'soc-at-start': 0,
        'soc-max': 100,
        'soc-targets': [{ value: 100, datetime: '2015-01-02T02:00:00+01:00' }],
        'power-capacity': '50 kW',
      },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    const s = await waitForSchedule(t, token, hourly.id, res.body.schedule, 'PT6H');
    expect(s.status).toBe(200);
    expect(s.body.unit).toBe('kWh');
    expect(s.body.values.slice(0, 2)).toEqual([50, 50]);
    expect(s.body.values).toHaveLength(6);
  });

  it('adds inflexible device forecasts to the site balance', async () => {
    const site = await f.asset({ accountId, type: 'battery' });
    const battery = await f.sensor({ assetId: site.id });
    const load = await f.sensor({ assetId: site.id, attributes: { consumption_is_positive: true } });
    await f.beliefs(load.id, start, 15 * 60_000, new Array(96).fill(0.8), start - HOUR);
    const res = await trigger(`/api/v3_0/sensors/${battery.id}/schedules/trigger`, {
      start: '2015-01-02T00:00:00+01:00',
      duration: 'PT24H',
      'flex-model': {
        'soc-at-start': 0,
        'soc-max': 1,
        'soc-targets': [{ value: 1, datetime: '2015-01-02T06:00:00+01:00' }],
        'power-capacity': '1 MW',
      },
      'flex-context': {
        'consumption-price-sensor': priceSensor,
        'inflexible-device-sensors': [load.id],
        'site-consumption-capacity': '1 MW',
      },
    });
    const s = await waitForSchedule(t, token, battery.id, res.body.schedule, 'PT24H');
    expect(s.status).toBe(200);
    // Only 0.2 MW of the connection is left next to the 0.8 MW load.
    for (const v of s.body.values as number[]) expect(v).toBeLessThanOrEqual(0.2 + 1e-6);
  });

  it('schedules across the spring-forward day (23 hours) in Europe/Amsterdam', async () => {
    const asset = await f.asset({ accountId, type: 'battery' });
    const sensor = await f.sensor({ assetId: asset.id, timezone: 'Europe/Amsterdam' });
    const dstPrices = await f.sensor({ assetId: asset.id, unit: 'EUR/MWh', resolutionMinutes: 60 });
    const dayStart = Date.parse('2015-03-29T00:00:00+01:00');
    await f.beliefs(
      dstPrices.id,
      dayStart,
      HOUR,
      Array.from({ length: 23 }, (_, h) => (h < 12 ? 10 : 90)),
      dayStart - HOUR,
    );
    const res = await trigger(`/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
      start: '2015-03-29T00:00:00+01:00',
      duration: 'PT23H',
      'flex-model': { 'soc-at-start': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price-sensor': dstPrices.id },
    });
    const s = await waitForSchedule(t, token, sensor.id, res.body.schedule, 'PT23H');
    expect(s.status).toBe(200);
    expect(s.body.values).toHaveLength(92);
    expect(s.body.start).toBe('2015-03-29T00:00:00+01:00');
    expect(s.body.duration).toBe('PT23H');
    const energy = (s.body.values as number[]).reduce((sum, v) => sum + v * 0.25, 0);
    expect(energy).toBeCloseTo(0, 6);
  });

  it('places a shiftable process at the cheapest time', async () => {
    const plant = await f.asset({ accountId, type: 'process' });
    const sensor = await f.sensor({ assetId: plant.id });
    const res = await trigger(`/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
      start: '2015-01-02T04:00:00+01:00',
      duration: 'PT8H',
      'flex-model': { duration: 'PT3H', power: 0.2, 'process-type': 'SHIFTABLE' },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    const s = await waitForSchedule(t, token, sensor.id, res.body.schedule, 'PT8H');
    expect(s.status).toBe(200);
    expect(s.body.scheduler_info).toEqual({ scheduler: 'ProcessScheduler' });
    // Nights (before 06:00) are cheapest; the 3-hour block starts at 04:00 and uses both cheap hours.
    expect(s.body.values.slice(0, 12)).toEqual(new Array(12).fill(0.2));
    expect(s.body.values.slice(12)).toEqual(new Array(20).fill(0));
  });

  it('fills the whole schedule with a process longer than it, as FlexMeasures clips it', async () => {
    const plant = await f.asset({ accountId, type: 'process' });
    const sensor = await f.sensor({ assetId: plant.id });
    const res = await trigger(`/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
      start: '2015-01-02T04:00:00+01:00',
      duration: 'PT2H',
      'flex-model': { duration: 'PT3H', power: 0.2, 'process-type': 'SHIFTABLE' },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    expect(res.status).toBe(200);
    const s = await waitForSchedule(t, token, sensor.id, res.body.schedule, 'PT2H');
    expect(s.body.values).toEqual(new Array(8).fill(0.2));
  });

  it('runs the scheduler plugin named by a custom-scheduler attribute', async () => {
    const asset = await f.asset({ accountId, type: 'battery', attributes: { 'custom-scheduler': 'idle' } });
    const sensor = await f.sensor({ assetId: asset.id });
    const res = await trigger(`/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
      start: '2015-01-02T00:00:00+01:00',
      'flex-model': { 'soc-at-start': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    const s = await waitForSchedule(t, token, sensor.id, res.body.schedule, 'PT1H');
    expect(s.status).toBe(200);
    expect(s.body.values).toEqual([0, 0, 0, 0]);
  });

  it('answers the first poll with the schedule: the trigger waits for short jobs', async () => {
    const asset = await f.asset({ accountId, type: 'battery' });
    const sensor = await f.sensor({ assetId: asset.id });
    const res = await trigger(`/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
      start: '2015-01-02T00:00:00+01:00',
      'flex-model': { 'soc-at-start': 0.5, 'soc-max': 1, 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    const first = await t.request('GET', `/api/v3_0/sensors/${sensor.id}/schedules/${res.body.schedule}`, { token });
    expect(first.status).toBe(200);
    expect(first.body.values).toHaveLength(24);
  });
});

describe('fallback redirect and restarts', () => {
  it('announces the fallback schedule with a 303 when FLEXSITE_FALLBACK_REDIRECT is on', async () => {
    const t2 = await startTestServer({ FLEXSITE_FALLBACK_REDIRECT: '1' });
    try {
      const f2 = factories(t2.db);
      const account = await f2.account();
      const { token: tok } = await f2.user({ accountId: account.id });
      const asset = await f2.asset({ accountId: account.id });
      const sensor = await f2.sensor({ assetId: asset.id });
      const res = await t2.request('POST', `/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
        token: tok,
        json: {
          start: '2015-01-02T00:00:00+01:00',
          'flex-model': {
            'soc-at-start': 0,
            'soc-max': 5,
            'soc-targets': [{ value: 5, datetime: '2015-01-02T01:00:00+01:00' }],
            'power-capacity': '1 MW',
          },
          'flex-context': { 'consumption-price': '100 EUR/MWh' },
        },
      });
      const got = await waitForSchedule(t2, tok, sensor.id, res.body.schedule);
      expect(got.status).toBe(303);
      const job = await t2.server.services.jobs.get(res.body.schedule);
      expect(got.headers.get('location')).toBe(`${t2.url}/api/v3_0/sensors/${sensor.id}/schedules/${job!.fallbackJobId}`);
      expect(got.body.status).toBe('UNKNOWN_SCHEDULE');
      expect(got.body.message).toMatch(/^Scheduling job failed with InfeasibleProblemException: .* StorageScheduler was used\.$/s);
    } finally {
      await t2.close();
    }
  });

  // The in-process queue's restart recovery; on BullMQ another worker takes over (test/scaleOut).
  it.skipIf(onSharedBackends)('runs a job again that was in progress when the server stopped', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-restart-'));
    const first = await startTestServer({}, dataDir);
    const f2 = factories(first.db);
    const account = await f2.account();
    const asset = await f2.asset({ accountId: account.id });
    const sensor = await f2.sensor({ assetId: asset.id });
    const { token: tok } = await f2.user({ accountId: account.id });
    const res = await first.request('POST', `/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
      token: tok,
      json: {
        start: '2015-01-02T00:00:00+01:00',
        'flex-model': { 'soc-at-start': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
        'flex-context': { 'consumption-price': '100 EUR/MWh' },
      },
    });
    // Pretend the process died mid-job: the row says "started" and no result exists.
    await first.db('job').where({ id: res.body.schedule }).update({ status: 'started', result: null, finished_at: null });
    await first.db('timed_belief').where({ sensor_id: sensor.id }).delete();
    await first.close();
    const second = await startTestServer({}, dataDir);
    try {
      const got = await waitForSchedule(second, tok, sensor.id, res.body.schedule);
      expect(got.status).toBe(200);
      expect(got.body.values).toHaveLength(24);
      expect((await second.server.services.jobs.get(res.body.schedule))!.attempts).toBe(2);
    } finally {
      await second.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
