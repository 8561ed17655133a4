import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * What the schedule form refuses, the API refuses before a job is queued (in both dialects): a
 * start SoC above soc-max and SoC limits that cross leave no schedule (soc-min and soc-max are
 * hard; the reference, scheduler.md 1.7.9, lists them as never relaxed), a negative capacity is
 * no capacity. An EV's recurring targets count on a trigger as they do for automations; a day-less
 * recurring target is refused with a message that says what to do.
 */

const dialects = [
  { name: '0.18', env: {} as Record<string, string> },
  { name: '1.0', env: { FLEXSITE_API_COMPAT: '1.0' } },
];

describe.each(dialects)('trigger checks ($name dialect)', ({ env }) => {
  let t: TestServer;
  let token: string;
  let otherToken: string;
  let accountId: number;
  let sensorId: number;

  beforeAll(async () => {
    t = await startTestServer(env);
    const f = factories(t.db);
    accountId = (await f.account()).id;
    token = (await f.user({ accountId, roles: ['account-admin'] })).token;
    otherToken = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
    const asset = await f.asset({ accountId, type: 'battery' });
    sensorId = (await f.sensor({ assetId: asset.id, unit: 'kW', timezone: 'Europe/Amsterdam' })).id;
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(t.dataDir, { recursive: true, force: true });
  });

  const trigger = (model: Record<string, unknown>, as = token) =>
    t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, {
      token: as,
      json: {
        start: '2026-03-02T00:00:00+01:00',
        duration: 'PT6H',
        'flex-model': { 'soc-unit': 'kWh', 'soc-min': '1 kWh', 'soc-max': '10 kWh', 'power-capacity': '5 kW', ...model },
        'flex-context': { 'consumption-price': '100 EUR/MWh' },
      },
    });
  const jobs = async () => (await t.request('GET', '/api/v3_0/jobs', { token, query: { account_id: accountId } })).body as unknown[];

  it('refuses a start SoC above the maximum and limits that cross, every one at once, and queues nothing', async () => {
    const res = await trigger({ 'soc-at-start': '11 kWh', 'soc-min': 12 });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual({
      'soc-at-start': ['Must not exceed soc-max (10 kWh).'],
      'soc-min': ['Must not exceed soc-max (10 kWh).'],
    });
    expect(await jobs()).toEqual([]);
  });

  it('refuses a negative capacity and queues nothing', async () => {
    const res = await trigger({ 'soc-at-start': '5 kWh', 'power-capacity': '-5 kW' });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual({ 'power-capacity': ['Must be greater than or equal to 0.'] });
    expect(await jobs()).toEqual([]);
  });

  it('takes the quantities the device set-up stores, and refuses another account first', async () => {
    expect((await trigger({ 'soc-at-start': '5 kWh' }, otherToken)).status).toBe(403);
    expect(await jobs()).toEqual([]);
    const res = await trigger({ 'soc-at-start': '5 kWh' });
    expect(res.status).toBeLessThan(300);
    expect(await jobs()).toHaveLength(1);
  });
});

describe("an EV's recurring targets on a trigger", () => {
  let t: TestServer;
  let token: string;
  let car: { site: number; asset: number; power: number };

  beforeAll(async () => {
    t = await startTestServer();
    const f = factories(t.db);
    const accountId = (await f.account()).id;
    token = (await f.user({ accountId, roles: ['account-admin'] })).token;
    const site = (await f.asset({ accountId, type: 'building', name: 'Home' })).id;
    const made = await t.request('POST', `/api/v3_0/assets/${site}/devices`, {
      token,
      json: {
        kind: 'ev-charger',
        name: 'Car',
        timezone: 'Europe/Amsterdam',
        power: '11 kW',
        capacity: '60 kWh',
        bidirectional: false,
        soc_targets: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], time: '07:00', value: '80%' }],
      },
    });
    expect(made.status).toBe(201);
    const power = (made.body.sensors as { id: number; unit: string }[]).find((s) => s.unit === 'kW')!.id;
    car = { site, asset: made.body.asset.id, power };
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(t.dataDir, { recursive: true, force: true });
  });

  it('plans for the target in the window from the SoC given now, and meets it', async () => {
    const res = await t.request('POST', `/api/v3_0/sensors/${car.power}/schedules/trigger`, {
      token,
      json: {
        start: '2026-03-02T00:00:00+01:00',
        duration: 'PT12H',
        // 30 % of 60 kWh plugged in now.
        'flex-model': { 'soc-at-start': '18 kWh' },
        'flex-context': { 'consumption-price': '100 EUR/MWh' },
      },
    });
    expect(res.status).toBe(200);
    expect((await waitForSchedule(t, token, car.power, res.body.schedule)).status).toBe(200);
    const job = (await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token })).body;
    expect(job.status).toBe('finished');
    const device = job.result.devices[0];
    // 80 % of 60 kWh = 48 kWh = 0.048 MWh by 07:00 in Amsterdam (06:00 UTC).
    expect(device.soc_targets).toEqual([{ valueMwh: 0.048, atMs: Date.parse('2026-03-02T06:00:00Z') }]);
    // 48 − 18 = 30 kWh charged in the 28 quarter-hours before 07:00 (no losses were entered).
    const charged = device.power_mw.slice(0, 28).reduce((sum: number, mw: number) => sum + Math.abs(mw) * 0.25 * 1000, 0);
    expect(charged).toBeCloseTo(30, 6);
    expect(device.soc_mwh[28]).toBeCloseTo(0.048, 9);
  });

  it("plans for them too when the car's site is scheduled as a whole", async () => {
    const res = await t.request('POST', `/api/v3_0/assets/${car.site}/schedules/trigger`, {
      token,
      json: {
        start: '2026-03-03T00:00:00+01:00',
        duration: 'PT12H',
        'flex-model': [{ sensor: car.power, 'soc-at-start': '18 kWh' }],
        'flex-context': { 'consumption-price': '100 EUR/MWh' },
      },
    });
    expect(res.status).toBe(200);
    expect((await waitForSchedule(t, token, car.power, res.body.schedule)).status).toBe(200);
    const job = (await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token })).body;
    // 80 % of 60 kWh by 07:00 in Amsterdam on 3 March.
    expect(job.result.devices[0].soc_targets).toEqual([{ valueMwh: 0.048, atMs: Date.parse('2026-03-03T06:00:00Z') }]);
  });

  it('refuses a recurring target without a day, saying what to choose', async () => {
    const res = await t.request('PUT', `/api/v3_0/assets/${car.asset}/recurring-soc-targets`, {
      token,
      json: { targets: [{ days: [], time: '07:00', value: '80%' }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual({ targets: { 0: { days: ['Choose at least one day on which to reach this target.'] } } });
  });
});
