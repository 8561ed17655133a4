import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { PLAN_NOW, plannedBattery } from '../helpers/planAheadSite.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * The next hours of a site's plan (issue 33, "tomorrow at a glance"): a battery scheduled over the
 * API against two price levels charges at its power limit in the cheap hours and discharges in the
 * dear ones; `GET /assets/<id>/plan-ahead` gives that plan step by step as the schedule stored it,
 * its state of charge and target, the prices, the PV and load forecasts a forecaster left, and says
 * where nothing is planned or forecast instead of drawing zero. The server runs on a simulated clock;
 * the site is helpers/planAheadSite.ts's.
 */

const ZONE = 'Europe/Amsterdam';
/** An instant as the API writes it in Amsterdam in March (UTC+1). */
const ams = (hour: string) => `2027-03-${hour}:00.000+01:00`;

let t: TestServer;
let token: string;
let stranger: string;
let site: number;
let battery: number;
let pv: number;
let load: number;
let job: string;
let prices: number;
let batteryAsset: number;

beforeAll(async () => {
  t = await startTestServer({}, undefined, { clock: new SimulatedClock(PLAN_NOW) });
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  stranger = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
  site = (await f.asset({ accountId, type: 'building', name: 'Home' })).id;
  ({ batteryAsset, battery, pv, load, prices, job } = await plannedBattery(t, token, accountId, site));
});
afterAll(() => t.close());

const planAhead = (as: string | undefined = token, query?: Record<string, string>) =>
  t.request('GET', `/api/v3_0/assets/${site}/plan-ahead`, { token: as, query });

describe('plan ahead', () => {
  it("gives the battery's plan as the schedule stored it, with its prices, target, forecasts and gaps", async () => {
    const res = await planAhead();
    expect(res.status).toBe(200);
    // From the start of this hour (10:00) to 24 hours after now (10:20 tomorrow), rounded up: 11:00.
    expect(res.body).toMatchObject({
      asset_id: site,
      timezone: ZONE,
      now: ams('09T10:20'),
      start: ams('09T10:00'),
      end: ams('10T11:00'),
      sign: 'consumption positive',
      currency: 'EUR',
    });
    const [device] = res.body.devices;
    expect(res.body.devices).toHaveLength(1);
    expect(device).toMatchObject({ sensor_id: battery, name: 'power', asset: 'Battery' });
    // Charging 5 kW (the limit) for the three 20 EUR hours fills 0 → 15 kWh; discharging 5 kW for
    // the three 100 EUR hours empties it: 3 × 5 kWh × 0.02 − 3 × 5 kWh × 0.1 = 0.3 − 1.5 = −1.2 EUR.
    // No plan can do better: 5 kW is the most it may charge or discharge in an hour.
    const hours = ['11', '12', '13', '14', '15', '16'];
    expect(device.steps).toEqual(
      hours.map((h, i) => ({
        start: ams(`09T${h}:00`),
        end: ams(`09T${Number(h) + 1}:00`),
        power_kw: i < 3 ? 5 : -5,
        soc_start_kwh: [0, 5, 10, 15, 10, 5][i],
        soc_end_kwh: [5, 10, 15, 10, 5, 0][i],
        job_id: job,
      })),
    );
    // The same as the schedule's stored result, read the way devices read it (kW, consumption positive).
    const stored = await t.request('GET', `/api/v3_0/sensors/${battery}/schedules/${job}`, { token });
    expect(stored.body.values).toEqual(device.steps.map((s: { power_kw: number }) => s.power_kw));
    expect(device.targets).toEqual([{ at: ams('09T14:00'), soc_kwh: 15, job_id: job, met: true }]);
    // Before 11:00 and from 17:00 nothing is planned: unknown, not zero.
    expect(device.no_plan).toEqual([
      { start: ams('09T10:00'), end: ams('09T11:00') },
      { start: ams('09T17:00'), end: ams('10T11:00') },
    ]);
    expect(res.body.prices.map((p: { consumption: number; production: number }) => [p.consumption, p.production])).toEqual([
      [20, 20],
      [20, 20],
      [20, 20],
      [100, 100],
      [100, 100],
      [100, 100],
    ]);
    expect(res.body.no_prices).toEqual(device.no_plan);
    expect(res.body.plans).toEqual([
      { job_id: job, made_at: ams('09T10:20'), scheduler: 'StorageScheduler', fallback: false, degraded: false, warnings: [] },
    ]);
  });

  it('gives the forecasts in kW consumption positive, and where there are none', async () => {
    const { forecasts } = (await planAhead()).body;
    // PV stores production positive: 2 and 3 kW produced are −2 and −3 kW; the house stores consumption positive.
    expect(forecasts).toEqual([
      {
        sensor_id: pv,
        name: 'PV',
        role: 'pv',
        values: [
          { start: ams('09T12:00'), end: ams('09T13:00'), power_kw: -2 },
          { start: ams('09T13:00'), end: ams('09T14:00'), power_kw: -3 },
        ],
        no_forecast: [
          { start: ams('09T10:00'), end: ams('09T12:00') },
          { start: ams('09T14:00'), end: ams('10T11:00') },
        ],
      },
      {
        sensor_id: load,
        name: 'load',
        role: 'load',
        values: [
          { start: ams('09T11:00'), end: ams('09T12:00'), power_kw: 1.5 },
          { start: ams('09T12:00'), end: ams('09T13:00'), power_kw: 1.5 },
        ],
        no_forecast: [
          { start: ams('09T10:00'), end: ams('09T11:00') },
          { start: ams('09T13:00'), end: ams('10T11:00') },
        ],
      },
    ]);
  });

  it('looks as far ahead as asked, within bounds', async () => {
    const res = await planAhead(token, { hours: '3' });
    // 10:20 + 3 h = 13:20, rounded up: 14:00.
    expect(res.body.end).toBe(ams('09T14:00'));
    expect(res.body.devices[0].steps).toHaveLength(3);
    const bad = await planAhead(token, { hours: '0' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.message.query)).toEqual(['hours']);
  });

  it('marks a plan that misses its target as degraded, and its target as missed', async () => {
    // A newer plan for 14:00–17:00 from empty, asked to hold 20 kWh at 15:00: at 5 kW it reaches 5 kWh at most.
    const res = await t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
      token,
      json: {
        start: '2027-03-09T14:00:00+01:00',
        duration: 'PT3H',
        'flex-model': {
          'soc-at-start': '0 kWh',
          'soc-min': '0 kWh',
          'soc-max': '20 kWh',
          'power-capacity': '5 kW',
          'soc-targets': [{ datetime: '2027-03-09T15:00:00+01:00', value: '20 kWh' }],
        },
        'flex-context': { 'consumption-price-sensor': prices, 'site-power-capacity': '1 MW' },
      },
    });
    expect(res.status).toBe(200);
    const missing = res.body.schedule as string;
    // Infeasible: the fallback scheduler charges at 5 kW from 14:00 (5 kWh by 15:00), and the plan in force says so.
    const fallbackPlan = await waitForSchedule(t, token, battery, missing);
    expect(fallbackPlan.body.scheduler_info).toEqual({ scheduler: 'StorageFallbackScheduler' });
    const fallbackJob = (await t.request('GET', `/api/v3_0/jobs/${missing}`, { token })).body.fallback_job_id as string;
    const body = (await planAhead()).body;
    const [device] = body.devices;
    // 11:00–14:00 stay the first plan's; 14:00–17:00 are the newer fallback plan's, from empty.
    expect(
      device.steps.map((s: { power_kw: number; soc_end_kwh: number; job_id: string }) => [s.power_kw, s.soc_end_kwh, s.job_id]),
    ).toEqual([
      [5, 5, job],
      [5, 10, job],
      [5, 15, job],
      [5, 5, fallbackJob],
      [5, 10, fallbackJob],
      [5, 15, fallbackJob],
    ]);
    expect(device.targets).toEqual([
      { at: ams('09T14:00'), soc_kwh: 15, job_id: job, met: true },
      // 20 kWh asked at 15:00, 5 kWh planned: missed by 15 kWh.
      { at: ams('09T15:00'), soc_kwh: 20, job_id: fallbackJob, met: false },
    ]);
    const fallback = body.plans.find((p: { job_id: string }) => p.job_id === fallbackJob);
    expect(fallback).toMatchObject({ scheduler: 'StorageFallbackScheduler', fallback: true, degraded: true });
    expect(fallback.warnings.map((w: { code: string }) => w.code)).toEqual(['fallback', 'target-missed']);
    // The missed target's warning names the device as the screen does (asset "Battery", sensor "power").
    expect(fallback.warnings[1].message).toMatch(/^SoC targets of Battery power not met at /);
    expect(body.plans.find((p: { job_id: string }) => p.job_id === job)).toMatchObject({ fallback: false, degraded: false });
  });

  it('shows a recurring target no plan holds yet as not planned', async () => {
    // Wednesday 10 March 08:00 in Amsterdam lies within the window (to 11:00), past every plan.
    const put = await t.request('PUT', `/api/v3_0/assets/${batteryAsset}/recurring-soc-targets`, {
      token,
      json: { targets: [{ days: ['wed'], time: '08:00', value: '10 kWh' }] },
    });
    expect(put.status).toBe(200);
    const [device] = (await planAhead()).body.devices;
    expect(device.targets.at(-1)).toEqual({ at: ams('10T08:00'), soc_kwh: 10, job_id: null, met: null });
    expect(device.targets).toHaveLength(3);
  });

  it('is refused to another account and without login', async () => {
    expect((await planAhead(stranger)).status).toBe(403);
    expect((await t.request('GET', `/api/v3_0/assets/${site}/plan-ahead`)).status).toBe(401);
    expect((await t.request('GET', '/api/v3_0/assets/99999/plan-ahead', { token })).status).toBe(404);
  });
});
