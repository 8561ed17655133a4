import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Money counted by the plan in force at each step (issue 32, "money that jumps"): a Compute made
 * later for past steps or for steps ahead never moves the figures of steps already begun, a
 * fallback plan is counted and flagged, days are the site's (Amsterdam), and the devices and the
 * rest of the site add up to the day. The server runs on a simulated clock.
 */

const H = 3600_000;
const at = (iso: string) => Date.parse(iso);

let t: TestServer;
let clock: SimulatedClock;
let token: string;
let accountId: number;
let site: number;
let battery: number;
let second: number;
let prices: number;

const batteryModel = (socAtStart: number) => ({
  'soc-at-start': socAtStart,
  'soc-unit': 'MWh',
  'soc-min': 0,
  'soc-max': 1,
  'roundtrip-efficiency': 1,
  'storage-efficiency': 1,
  'power-capacity': '1 MW',
});

async function compute(sensorId: number, body: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, {
    token,
    json: { ...body, 'flex-context': { 'consumption-price-sensor': prices, 'site-power-capacity': '1 MW' } },
  });
  expect(res.status).toBe(200);
  const done = await waitForSchedule(t, token, sensorId, res.body.schedule);
  expect(done.status).toBe(200);
  return res.body.schedule as string;
}

const kpis = (as = token, query?: Record<string, string>) => t.request('GET', `/api/v3_0/assets/${site}/kpis`, { token: as, query });
const day = (body: { days: { period: string }[] }, period: string) => body.days.find((d) => d.period === period);

beforeAll(async () => {
  // The operator opens the site on 9 March 2027 at midnight, Amsterdam time (UTC+1).
  clock = new SimulatedClock(at('2027-03-09T00:00:00+01:00'));
  t = await startTestServer({}, undefined, { clock });
  const f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  site = (await f.asset({ accountId, type: 'building', name: 'Home' })).id;
  const zone = 'Europe/Amsterdam';
  for (const [name, assign] of [
    ['Home battery', (id: number) => (battery = id)],
    ['Garage battery', (id: number) => (second = id)],
  ] as const) {
    const asset = (await f.asset({ accountId, type: 'battery', name })).id;
    await t.db('generic_asset').where({ id: asset }).update({ parent_asset_id: site });
    assign((await f.sensor({ assetId: asset, unit: 'MW', resolutionMinutes: 60, timezone: zone, name: `${name} power` })).id);
  }
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  prices = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: zone })).id;
  await f.beliefs(prices, at('2027-03-09T00:00:00+01:00'), H, [50, 100], at('2027-03-08T12:00:00+01:00'));
  await f.beliefs(prices, at('2027-03-11T00:00:00+01:00'), H, [20, 80, 40], at('2027-03-08T12:00:00+01:00'));
});
afterAll(() => t.close());

describe('money by the plan in force at each step', () => {
  let ninth: unknown;
  let soFar: unknown;
  let planA: string;

  it('counts the plan made before the steps; days are Amsterdam days', async () => {
    // Plan A, made at 9 March 00:00 for 00:00–02:00: charge 1 MW at 50 EUR/MWh, discharge 1 MW at
    // 100: 1 × 50 − 1 × 100 = −50 EUR; an idle battery costs 0.
    planA = await compute(battery, { start: '2027-03-09T00:00:00+01:00', duration: 'PT2H', 'flex-model': batteryModel(0) });
    await clock.advanceTo(at('2027-03-10T12:00:00+01:00'));
    const res = await kpis();
    expect(res.status).toBe(200);
    // Without start and end: this month in the site's zone.
    expect(res.body).toMatchObject({
      currency: 'EUR',
      timezone: 'Europe/Amsterdam',
      now: '2027-03-10T12:00:00.000+01:00',
      start: '2027-03-01T00:00:00.000+01:00',
      end: '2027-04-01T00:00:00.000+02:00',
    });
    // 00:00 Amsterdam is 23:00 UTC on the 8th: both steps belong to the 9th.
    expect(res.body.days.map((d: { period: string }) => d.period)).toEqual(['2027-03-09']);
    expect(day(res.body, '2027-03-09')).toMatchObject({
      plan_cost: -50,
      baseline_cost: 0,
      planned_savings: 50,
      steps: 2,
      past_steps: 2,
      fallback_steps: 0,
    });
    expect(res.body.ahead.steps).toBe(0);
    expect(res.body.plans).toEqual([
      {
        job_id: planA,
        made_at: '2027-03-09T00:00:00.000+01:00',
        start: '2027-03-09T00:00:00.000+01:00',
        end: '2027-03-09T02:00:00.000+01:00',
        fallback: false,
        steps: 2,
      },
    ]);
    ninth = day(res.body, '2027-03-09');
    soFar = res.body.so_far;
  });

  it('two Computes in a row for tomorrow move only the steps ahead', async () => {
    // Plan B for 11 March 00:00–02:00 from empty: charge at 20, discharge at 80: 20 − 80 = −60 EUR.
    await compute(battery, { start: '2027-03-11T00:00:00+01:00', duration: 'PT2H', 'flex-model': batteryModel(0) });
    const afterB = (await kpis()).body;
    expect(day(afterB, '2027-03-09')).toEqual(ninth);
    expect(afterB.so_far).toEqual(soFar);
    expect(afterB.ahead).toMatchObject({ plan_cost: -60, steps: 2, past_steps: 0 });

    // Plan C, the same window from half full: charge 0.5 MWh at 20 (10 EUR), discharge 1 MWh at 80
    // (−80 EUR): −70 EUR. It replaces B for both steps; the 9th does not move.
    const planC = await compute(battery, { start: '2027-03-11T00:00:00+01:00', duration: 'PT2H', 'flex-model': batteryModel(0.5) });
    const afterC = (await kpis()).body;
    expect(day(afterC, '2027-03-09')).toEqual(ninth);
    expect(afterC.so_far).toEqual(soFar);
    expect(afterC.ahead).toMatchObject({ plan_cost: -70, baseline_cost: 0, steps: 2 });
    // This month: −50 (9th) − 70 (11th) = −120 EUR.
    expect(afterC.months).toEqual([expect.objectContaining({ period: '2027-03', plan_cost: -120, steps: 4, past_steps: 2 })]);
    expect(afterC.plans.map((p: { job_id: string }) => p.job_id)).toEqual([planC, planA]);
  });

  it('a plan made now for past steps does not change the month', async () => {
    const before = (await kpis()).body;
    // Plan D, made on the 10th at noon for the 9th 00:00–02:00, charging only (1 MW at 50 EUR/MWh = 50 EUR):
    // it was not in force at those steps.
    await compute(battery, {
      start: '2027-03-09T00:00:00+01:00',
      duration: 'PT2H',
      'flex-model': {
        ...batteryModel(0),
        'production-capacity': '0 MW',
        'soc-targets': [{ datetime: '2027-03-09T01:00:00+01:00', value: 1 }],
      },
    });
    const after = (await kpis()).body;
    expect(after.months).toEqual(before.months);
    expect(after.days).toEqual(before.days);
    expect(after.plans).toEqual(before.plans);
  });

  it('counts a fallback plan and flags it', async () => {
    // 4 MWh in one hour at 1 MW is infeasible; the fallback (served in its place) charges 1 MW from 02:00 on the 11th at
    // 40 EUR/MWh: 40 EUR. Doing nothing charges at once too: 40 EUR.
    await compute(second, {
      start: '2027-03-11T02:00:00+01:00',
      duration: 'PT1H',
      'flex-model': { ...batteryModel(0), 'soc-max': 5, 'soc-targets': [{ datetime: '2027-03-11T03:00:00+01:00', value: 4 }] },
    });
    const stored = await t.db('schedule_money').where({ sensor_id: second });
    expect(stored.map((r) => Boolean(r.fallback))).toEqual([true]);
    const body = (await kpis()).body;
    // The 11th: −70 (home battery) + 40 (garage battery, fallback) = −30 EUR over 3 steps, 1 of them a fallback's.
    expect(day(body, '2027-03-11')).toMatchObject({ plan_cost: -30, baseline_cost: 40, steps: 3, fallback_steps: 1 });
    expect(body.ahead.fallback_steps).toBe(1);
    expect(body.plans.filter((p: { fallback: boolean }) => p.fallback)).toEqual([
      expect.objectContaining({ made_at: '2027-03-10T12:00:00.000+01:00', start: '2027-03-11T02:00:00.000+01:00', steps: 1 }),
    ]);
  });

  it('gives each device and the rest of the site, adding up to the day', async () => {
    const body = (await kpis()).body;
    const eleventh = day(body, '2027-03-11')!;
    const parts = (eleventh as unknown as { devices: Record<string, unknown>[] }).devices;
    expect(parts).toEqual([
      expect.objectContaining({
        sensor_id: battery,
        name: 'Home battery power',
        asset: 'Home battery',
        plan_cost: -70,
        baseline_cost: 0,
        planned_charged_mwh: 0.5,
        planned_discharged_mwh: 1,
        ahead_charged_mwh: 0.5,
        ahead_discharged_mwh: 1,
      }),
      expect.objectContaining({
        sensor_id: second,
        name: 'Garage battery power',
        plan_cost: 40,
        baseline_cost: 40,
        planned_charged_mwh: 1,
      }),
      // No site load was forecast: the rest of the site is 0.
      expect.objectContaining({ sensor_id: null, name: 'Rest of the site', plan_cost: 0, baseline_cost: 0 }),
    ]);
    const sum = (key: string) => parts.reduce((s, p) => s + (p[key] as number), 0);
    expect(sum('plan_cost')).toBeCloseTo(-30, 6);
    expect(sum('baseline_cost')).toBeCloseTo(40, 6);
  });

  it('explains the realised figures: measured over which hours, against doing nothing', async () => {
    // The home battery measured charging 1 MW from 00:00 to 01:00 on the 9th (production positive:
    // −1); the hour after is not measured. Realised: 1 MWh × 50 = 50 EUR over one step; doing
    // nothing there costs 0, so the realised savings so far are −50 EUR: the energy bought waits
    // for the discharge.
    const posted = await t.request('POST', `/api/v3_0/sensors/${battery}/data`, {
      token,
      json: { values: [-1], start: '2027-03-09T00:00:00+01:00', duration: 'PT1H', unit: 'MW' },
    });
    expect(posted.status).toBe(200);
    const ninthNow = day((await kpis()).body, '2027-03-09') as unknown as Record<string, unknown> & { devices: Record<string, unknown>[] };
    expect(ninthNow).toMatchObject({
      plan_cost: -50,
      realised_cost: 50,
      realised_savings: -50,
      measured_steps: 1,
      measured_from: '2027-03-09T00:00:00.000+01:00',
      measured_to: '2027-03-09T01:00:00.000+01:00',
    });
    expect(ninthNow.devices[0]).toMatchObject({
      sensor_id: battery,
      realised_cost: 50,
      measured_charged_mwh: 1,
      measured_discharged_mwh: 0,
    });
  });

  it('refuses another account, and half a window', async () => {
    const stranger = (await factories(t.db).user({ accountId: (await factories(t.db).account()).id, roles: ['account-admin'] })).token;
    expect((await kpis(stranger)).status).toBe(403);
    const half = await kpis(token, { start: '2027-03-01T00:00:00+01:00' });
    expect(half.status).toBe(422);
    expect(half.body.message).toEqual({ query: { end: ['Give both start and end, or neither.'] } });
  });
});
