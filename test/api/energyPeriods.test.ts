import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDevice, DEVICES, measuredWeek, planWeek, plannedWeek, postHourly, ZONE } from '../helpers/energyWeek.ts';
import { factories } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';

/**
 * Issue 33's energy per period over the API: a known week of hourly measurements, Monday
 * 2025-03-24 to Sunday 2025-03-30 in Amsterdam, whose Sunday is the daylight-saving day (02:00
 * does not exist: 23 hours, local hours 0, 1, 3 … 23). Every figure below is summed by hand.
 *
 * Each hour, by its local hour h:
 * - grid meter (consumption positive): +2 kW before noon (h < 12), −1 kW from noon;
 * - PV (production positive): 0 before noon, 3 kW from noon;
 * - battery (production positive, 10 kWh): −1 kW (charging) before noon, +1 kW from noon;
 * - EV charger (production positive): −2 kW (charging) every hour.
 * An ordinary day has 12 hours before noon and 12 from noon; the DST Sunday 11 and 12.
 *
 * Money: the server's clock stands at Sunday 23 March 12:00 when the battery's plan for the week
 * is made (so it is in force at every step), against a price of 100 EUR/MWh before noon and 200
 * from noon; afterwards the week's measurements are posted.
 */

let t: TestServer;
let token: string;
let stranger: string;
let site: number;
/** A second site of the account with the same battery and no grid meter. */
let meterless: number;

const energy = (query: string, as = token, of = site) => t.request('GET', `/api/v3_0/assets/${of}/energy?${query}`, { token: as });

beforeAll(async () => {
  const planned = await plannedWeek();
  t = planned.t;
  token = planned.admin.token;
  site = planned.site;
  const f = factories(t.db);
  stranger = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
  meterless = (await f.asset({ accountId: planned.accountId, type: 'building', name: 'Flat' })).id;
  const flatBattery = await addDevice(t, token, meterless, DEVICES[2][0]);
  await planWeek(t, token, flatBattery, planned.prices);
  t = await measuredWeek(t, token, planned.sensors);
  await postHourly(t, token, flatBattery, -1, 1);
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

describe('energy per period', () => {
  it('sums the DST week and the week before it, in the site’s zone', async () => {
    const res = await energy('period=week&start=2025-03-26');
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe(ZONE);
    expect(res.body.roles.map((r: { role: string }) => r.role)).toEqual(['grid', 'pv', 'battery', 'ev']);
    expect(res.body.current).toEqual({
      period: '2025-W13',
      start: '2025-03-24T00:00:00.000+01:00',
      end: '2025-03-31T00:00:00.000+02:00',
      hours: 167,
      imported_kwh: 166, // 6 × 12 × 2 + 11 × 2
      exported_kwh: 84, // 7 × 12 × 1
      pv_kwh: 252, // 7 × 12 × 3
      consumed_kwh: 335, // 166 − 84 + 252 − (83 − 84)
      self_consumption_percent: 66.7, // (252 − 84) / 252
      self_sufficiency_percent: 50.4, // (335 − 166) / 335 = 169 / 335
      battery_charged_kwh: 83, // 6 × 12 + 11
      battery_discharged_kwh: 84, // 7 × 12
      battery_throughput_kwh: 167,
      battery_cycles: 8.35, // 167 / 2 / 10
      ev_kwh: 334, // 167 × 2
      // Each afternoon hour the rest of the site used −1 + 3 − (−1) − 2 = 1 kWh, so the panels'
      // 3 kWh covered it and then the EV's 2; mornings have no sun: 84 × 2 = 168 of 334.
      ev_solar_kwh: 168,
      ev_solar_percent: 50.3, // 168 / 334
      // Cost as it was, the grid meter at the plan's prices (selling at the buying price: the plan
      // names no production price): 83 morning hours importing 2 kWh at 100 EUR/MWh, 83 × 0.2 =
      // 16.6 EUR; 84 afternoon hours exporting 1 kWh at 200, −84 × 0.2 = −16.8 EUR; −0.2 EUR.
      // Without flex the battery idles and the rest of the site is the meter less the battery
      // (consumption positive: +1 kW charging mornings, −1 kW discharging afternoons): 2 − 1 = 1 kW
      // imported mornings, 83 × 0.1 = 8.3 EUR, and −1 + 1 = 0 afternoons: 8.3 EUR. Saved 8.3 + 0.2.
      money: {
        cost: -0.2,
        cost_without_flex: 8.3,
        savings: 8.5,
        rest_of_site: 'measured',
        steps: 167,
        measured_steps: 167,
        fallback_steps: 0,
      },
      parts: expect.any(Array),
    });
    expect(res.body.currency).toBe('EUR');
    // Monday to Saturday: 12 × 2 imported, 12 × 1 exported, 12 × 3 PV, 24 − 12 + 36 − 0 consumed;
    // the DST Sunday 11 × 2 imported and 22 − 12 + 36 − (11 − 12) = 47 consumed.
    const day = (date: string, imported: number, consumed: number) => ({
      period: date,
      start: `${date}T00:00:00.000+01:00`,
      imported_kwh: imported,
      exported_kwh: 12,
      pv_kwh: 36,
      consumed_kwh: consumed,
    });
    expect(res.body.current.parts).toEqual([
      ...[24, 25, 26, 27, 28, 29].map((d) => day(`2025-03-${d}`, 24, 48)),
      day('2025-03-30', 22, 47),
    ]);
    // Nothing was measured the week before: zeros, and no shares of nothing.
    expect(res.body.previous).toMatchObject({
      period: '2025-W12',
      hours: 168,
      imported_kwh: 0,
      pv_kwh: 0,
      self_consumption_percent: null,
      self_sufficiency_percent: null,
      battery_cycles: 0,
      ev_solar_percent: null,
      // No plan was in force then: no money to count.
      money: {
        cost: null,
        cost_without_flex: null,
        savings: null,
        rest_of_site: 'measured',
        steps: 0,
        measured_steps: 0,
        fallback_steps: 0,
      },
    });
    expect(res.body.previous.parts).toHaveLength(7);
  });

  it('counts the 23-hour day as one local day, beside the 24-hour day before', async () => {
    const res = await energy('period=day&start=2025-03-30');
    expect(res.status).toBe(200);
    expect(res.body.current).toMatchObject({
      period: '2025-03-30',
      hours: 23,
      imported_kwh: 22, // 11 × 2
      exported_kwh: 12,
      pv_kwh: 36, // 12 × 3
      consumed_kwh: 47, // 22 − 12 + 36 − (11 − 12)
      self_consumption_percent: 66.7, // 24 / 36
      self_sufficiency_percent: 53.2, // 25 / 47
      battery_throughput_kwh: 23,
      battery_cycles: 1.15, // 23 / 2 / 10
      ev_kwh: 46,
      ev_solar_kwh: 24, // 12 afternoon hours × 2
      ev_solar_percent: 52.2, // 24 / 46
      // The meter: 11 morning hours × 2 kWh × 0.1 EUR/kWh − 12 afternoon hours × 1 kWh × 0.2 EUR/kWh
      // = 2.2 − 2.4 = −0.2 EUR; without the battery 11 × 1 kWh × 0.1 = 1.1 EUR mornings, 0 afternoons.
      money: { cost: -0.2, cost_without_flex: 1.1, savings: 1.3, steps: 23, measured_steps: 23 },
    });
    // The day's parts are its 23 local hours: 02:00 does not exist.
    const hours = res.body.current.parts.map((p: { period: string }) => p.period);
    expect(hours).toHaveLength(23);
    expect(hours.slice(0, 4)).toEqual(['00:00', '01:00', '03:00', '04:00']);
    expect(res.body.current.parts[3]).toMatchObject({ start: '2025-03-30T04:00:00.000+02:00', imported_kwh: 2, pv_kwh: 0 });
    expect(res.body.previous).toMatchObject({
      period: '2025-03-29',
      hours: 24,
      imported_kwh: 24,
      exported_kwh: 12,
      consumed_kwh: 48, // 24 − 12 + 36 − 0
      self_sufficiency_percent: 50, // 24 / 48
      battery_cycles: 1.2,
      ev_kwh: 48,
    });
  });

  it('gives the same figures as CSV, the previous period first', async () => {
    const res = await energy('period=month&start=2025-03-01&format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, previous, current] = String(res.body).trim().split('\n');
    expect(header.split(',').slice(0, 5)).toEqual(['period', 'start', 'end', 'hours', 'imported_kwh']);
    expect(previous.split(',')[0]).toBe('2025-02');
    // March holds the whole week: its sums are the week's (743 hours: 31 × 24 − 1).
    expect(current.split(',').slice(0, 1).concat(current.split(',').slice(3, 7))).toEqual(['2025-03', '743', '166', '84', '252']);
    // Then the money in the site's currency, the week's (no other plan was in force in March); none in February.
    expect(header.split(',').slice(-4)).toEqual(['currency', 'cost', 'cost_without_flex', 'savings']);
    expect(current.split(',').slice(-4)).toEqual(['EUR', '-0.2', '8.3', '8.5']);
    expect(previous.split(',').slice(-4)).toEqual(['EUR', '', '', '']);
  });

  it('without a grid meter takes the rest of the site as the plan forecast it, and says so', async () => {
    const res = await energy('period=week&start=2025-03-26', token, meterless);
    expect(res.status).toBe(200);
    expect(res.body.roles.map((r: { role: string }) => r.role)).toEqual(['battery']);
    // The plan forecast no other load (nothing was measured when it was made), so the site's net
    // flow is the battery's: charging 1 kW for 83 morning hours at 100 EUR/MWh, 83 × 0.1 = 8.3
    // EUR, discharging 1 kW for 84 afternoon hours at 200, −84 × 0.2 = −16.8 EUR: −8.5 EUR.
    // Without flex the battery idles and nothing else was forecast: 0 EUR.
    expect(res.body.current.money).toEqual({
      cost: -8.5,
      cost_without_flex: 0,
      savings: 8.5,
      rest_of_site: 'forecast',
      steps: 167,
      measured_steps: 167,
      fallback_steps: 0,
    });
  });

  it("gives the cockpit's realised money from the same measured grid flow", async () => {
    const kpis = (of: number) =>
      t.request('GET', `/api/v3_0/assets/${of}/kpis`, {
        token,
        query: { start: '2025-03-24T00:00:00+01:00', end: '2025-03-31T00:00:00+02:00' },
      });
    const res = await kpis(site);
    expect(res.status).toBe(200);
    expect(res.body.rest_of_site).toBe('measured');
    // As the week's money above: the meter's −0.2 EUR as it was; without flex 8.3 EUR, saved 8.5.
    expect(res.body.total).toMatchObject({ realised_cost: -0.2, realised_savings: 8.5, steps: 167, measured_steps: 167 });
    // Its parts at the meter's prices: the battery charging 1 kWh in 83 morning hours at 0.1 EUR/kWh
    // (8.3) and discharging 1 kWh in 84 afternoon hours at 0.2 (−16.8): −8.5 EUR, 0 idle, saved 8.5;
    // the rest of the site (the meter less the battery) 1 kWh × 83 × 0.1 = 8.3 EUR mornings and
    // 0 afternoons, the same without flex: 8.3 EUR, saved 0. Together −0.2 and 8.5.
    const part = (battery: boolean) => res.body.devices.find((d: { sensor_id: number | null }) => (d.sensor_id !== null) === battery);
    expect(res.body.devices).toHaveLength(2);
    expect(part(true)).toMatchObject({ realised_cost: -8.5, realised_savings: 8.5 });
    expect(part(false)).toMatchObject({ realised_cost: 8.3, realised_savings: 0 });
    // Without a grid meter, as the period's money without one: −8.5 EUR, 0 without flex, saved 8.5.
    const flat = await kpis(meterless);
    expect(flat.status).toBe(200);
    expect(flat.body.rest_of_site).toBe('forecast');
    expect(flat.body.total).toMatchObject({ realised_cost: -8.5, realised_savings: 8.5, steps: 167, measured_steps: 167 });
  });

  it('refuses a bad period or start with field messages, and another account', async () => {
    const bad = await energy('period=fortnight&start=2025-02-30');
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.message.query)).toContain('period');
    const badDate = await energy('period=day&start=2025-02-30');
    expect(badDate.status).toBe(422);
    expect(Object.keys(badDate.body.message.query)).toEqual(['start']);
    expect((await energy('period=week&start=2025-03-26', stranger)).status).toBe(403);
  });
});
