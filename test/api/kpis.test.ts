import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let priceSensor: number;

const H = 3600_000;
/** The battery case straddles a month's end: 31 Jan 23:00 UTC and 1 Feb 00:00 UTC. */
const batteryStart = Date.parse('2026-01-31T23:00:00Z');
/** The EV case: three hours on 10 March. */
const evStart = Date.parse('2026-03-10T00:00:00Z');

async function schedule(sensorId: number, body: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, { token, json: body });
  expect(res.status).toBe(200);
  const done = await waitForSchedule(t, token, sensorId, res.body.schedule);
  expect(done.status).toBe(200);
  return res.body.schedule as string;
}

const kpis = (assetId: number, start: string, end: string, as = token) =>
  t.request('GET', `/api/v3_0/assets/${assetId}/kpis`, { token: as, query: { start, end } });

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  priceSensor = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  await f.beliefs(priceSensor, batteryStart, H, [50, 100], batteryStart - 24 * H);
  await f.beliefs(priceSensor, evStart, H, [100, 50, 20], evStart - 24 * H);
});
afterAll(() => t.close());

describe('money: a schedule against doing nothing', () => {
  let site: number;
  let battery: number;
  let jobId: string;

  beforeAll(async () => {
    site = (await f.asset({ accountId, type: 'building' })).id;
    const asset = await f.asset({ accountId, type: 'battery' });
    await t.db('generic_asset').where({ id: asset.id }).update({ parent_asset_id: site });
    battery = (await f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 60 })).id;
    jobId = await schedule(battery, {
      start: '2026-01-31T23:00:00Z',
      duration: 'PT2H',
      prior: '2026-01-31T22:00:00Z',
      'flex-model': {
        'soc-at-start': 0,
        'soc-unit': 'MWh',
        'soc-min': 0,
        'soc-max': 1,
        'roundtrip-efficiency': 1,
        'storage-efficiency': 1,
        'power-capacity': '1 MW',
      },
      'flex-context': { 'consumption-price-sensor': priceSensor, 'site-power-capacity': '1 MW' },
    });
  });

  it('puts the planned figures in the job result', async () => {
    const res = await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token });
    expect(res.status).toBe(200);
    // Plan: charge 1 MW for an hour at 50 EUR/MWh, discharge 1 MW for an hour at 100 EUR/MWh:
    //   1 × 50 × 1 h + (−1) × 100 × 1 h = −50 EUR. Doing nothing (idle battery, no other load): 0 EUR.
    //   Savings = 0 − (−50) = 50 EUR.
    expect(res.body.result.money).toEqual({ currency: 'EUR', plan_cost: -50, baseline_cost: 0, savings: 50 });
    const kept = await t.db('schedule_money').where({ job_id: jobId });
    expect(kept).toHaveLength(1);
    expect(Number(kept[0].sensor_id)).toBe(battery);
  });

  it('answers per day and month, planned and then realised, for the site above the battery', async () => {
    const before = await kpis(site, '2026-01-31T00:00:00Z', '2026-02-02T00:00:00Z');
    expect(before.status).toBe(200);
    // Days (UTC, the sensor's zone): 31 Jan: charging costs 50 EUR, saves −50; 1 Feb: discharging earns 100, saves 100.
    // The figures as before; the answer has more beside them (plans, devices, so far and ahead).
    expect(before.body).toMatchObject({
      asset_id: site,
      currency: 'EUR',
      timezone: 'UTC',
      total: figures(-50, 0, null, null, 2, 0),
      days: [
        { period: '2026-01-31', ...figures(50, 0, null, null, 1, 0) },
        { period: '2026-02-01', ...figures(-100, 0, null, null, 1, 0) },
      ],
      months: [
        { period: '2026-01', ...figures(50, 0, null, null, 1, 0) },
        { period: '2026-02', ...figures(-100, 0, null, null, 1, 0) },
      ],
      data: [],
    });

    // Measured: the battery charged 0.5 MW, then discharged 0.5 MW (the sensor keeps production positive).
    const posted = await t.request('POST', `/api/v3_0/sensors/${battery}/data`, {
      token,
      json: { values: [-0.5, 0.5], start: '2026-01-31T23:00:00Z', duration: 'PT2H', unit: 'MW' },
    });
    expect(posted.status).toBe(200);
    const after = await kpis(site, '2026-01-31T00:00:00Z', '2026-02-02T00:00:00Z');
    // Realised: 0.5 × 50 × 1 h = 25 EUR on 31 Jan, (−0.5) × 100 × 1 h = −50 EUR on 1 Feb; total −25 EUR,
    // saving 0 − (−25) = 25 EUR against the idle battery.
    expect(after.body.total).toMatchObject(figures(-50, 0, -25, 25, 2, 2));
    expect(after.body.days).toMatchObject([
      { period: '2026-01-31', ...figures(50, 0, 25, -25, 1, 1) },
      { period: '2026-02-01', ...figures(-100, 0, -50, 50, 1, 1) },
    ]);
  });

  it('counts each step once where a later plan re-plans it', async () => {
    // The same window planned again with a later belief time, now with an empty battery that may
    // not discharge below 0 and must end full: charge 1 MW in the first hour (50 EUR), then idle.
    await schedule(battery, {
      start: '2026-01-31T23:00:00Z',
      duration: 'PT2H',
      prior: '2026-01-31T22:30:00Z',
      'flex-model': {
        'soc-at-start': 0,
        'soc-unit': 'MWh',
        'soc-min': 0,
        'soc-max': 1,
        'soc-targets': [{ datetime: '2026-02-01T01:00:00Z', value: 1 }],
        'roundtrip-efficiency': 1,
        'storage-efficiency': 1,
        'power-capacity': '1 MW',
        'production-capacity': '0 MW',
      },
      'flex-context': { 'consumption-price-sensor': priceSensor, 'site-power-capacity': '1 MW' },
    });
    const res = await kpis(site, '2026-01-31T00:00:00Z', '2026-02-02T00:00:00Z');
    // Latest plan: 1 MW at 50 EUR/MWh = 50 EUR, then 0. Do nothing for a device with a target: charge
    // at full power from the start until it holds 1 MWh, which is the same hour: 50 EUR. Savings 0.
    expect(res.body.total.plan_cost).toBe(50);
    expect(res.body.total.baseline_cost).toBe(50);
    expect(res.body.total.steps).toBe(2);
  });

  it('refuses bad windows, unknown assets, strangers and anonymous callers', async () => {
    const stranger = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
    const refused = await kpis(site, '2026-01-31T00:00:00Z', '2026-02-02T00:00:00Z', stranger);
    expect(refused.status).toBe(403);
    expect((await kpis(999_999, '2026-01-31T00:00:00Z', '2026-02-02T00:00:00Z')).status).toBe(404);
    const backwards = await kpis(site, '2026-02-02T00:00:00Z', '2026-01-31T00:00:00Z');
    expect(backwards.status).toBe(422);
    expect(backwards.body.message).toEqual({ query: { end: ['Must be after start.'] } });
    const naive = await kpis(site, '2026-01-31T00:00:00', '2026-02-02T00:00:00Z');
    expect(naive.status).toBe(422);
    expect(naive.body.message).toEqual({ query: { start: ['Not a valid aware datetime.'] } });
    const anonymous = await t.request('GET', `/api/v3_0/assets/${site}/kpis`, { query: { start: 'x', end: 'y' } });
    expect(anonymous.status).toBe(401);
  });
});

describe('money: an EV against charging at once', () => {
  it('compares the plan with charging at full power from plug-in until the target', async () => {
    const asset = await f.asset({ accountId, type: 'one-way_evse' });
    const ev = (await f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 60 })).id;
    const jobId = await schedule(ev, {
      start: '2026-03-10T00:00:00Z',
      duration: 'PT3H',
      'flex-model': {
        'soc-at-start': 0,
        'soc-unit': 'MWh',
        'soc-min': 0,
        'soc-max': 2,
        'soc-targets': [{ datetime: '2026-03-10T03:00:00Z', value: 1 }],
        // Charging efficiency √0.81 = 0.9.
        'roundtrip-efficiency': 0.81,
        'storage-efficiency': 1,
        'power-capacity': '1 MW',
        'production-capacity': '0 MW',
      },
      'flex-context': { 'consumption-price-sensor': priceSensor, 'site-power-capacity': '1 MW' },
    });
    const res = await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token });
    // Prices 100, 50, 20 EUR/MWh; 1 MWh must be stored by 03:00, each MWh drawn stores 0.9 MWh.
    // Doing nothing: 1 MW in hour 1 (stores 0.9), then 0.1 / 0.9 = 0.111… MW in hour 2:
    //   100 + 50 × 0.1/0.9 = 105.555556 EUR.
    // Plan: 1 MW in hour 3 (20 EUR, stores 0.9) and 0.111… MW in hour 2: 20 + 5.555556 = 25.555556 EUR.
    // Savings: 105.555556 − 25.555556 = 80 EUR.
    expect(res.body.result.money.currency).toBe('EUR');
    expect(res.body.result.money.plan_cost).toBeCloseTo(25.555556, 5);
    expect(res.body.result.money.baseline_cost).toBeCloseTo(105.555556, 5);
    expect(res.body.result.money.savings).toBeCloseTo(80, 5);
  });
});

/** Figures of a period from its planned and baseline cost, and realised cost and savings. */
function figures(plan: number, baseline: number, realised: number | null, realisedSavings: number | null, steps: number, measured: number) {
  return {
    plan_cost: plan,
    baseline_cost: baseline,
    planned_savings: baseline - plan,
    realised_cost: realised,
    realised_savings: realisedSavings,
    steps,
    measured_steps: measured,
  };
}
