import { DateTime } from 'luxon';
import { expect } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from './factories.ts';
import { waitForSchedule } from './schedules.ts';
import { startTestServer, type TestServer } from './testServer.ts';

/*
 * The known week of the energy-per-period tests (issue 33), shared by the API and browser tests:
 * Monday 24 to Sunday 30 March 2025 in Amsterdam, whose Sunday is the daylight-saving day (23
 * hours). A site "Home" with a grid meter, PV, a 10 kWh battery and an EV charger, each measured
 * hourly at one level before noon and another from noon (DEVICES). The battery's plan for the week
 * is made the Sunday before on a simulated clock (so it is in force at every step), against 100
 * EUR/MWh before noon and 200 from noon; the measurements are posted afterwards to the same store
 * served again on the real clock, as moving the simulated clock a week on would run a week of
 * periodic work.
 */

export const ZONE = 'Europe/Amsterdam';
export const WEEK = DateTime.fromISO('2025-03-24T00:00', { zone: ZONE });
/** 6 days of 24 hours and one of 23. */
export const HOURS = 6 * 24 + 23;

/** Each device as set up over the API, and its kW before noon and from noon (its sign convention is its kind's). */
export const DEVICES = [
  [{ kind: 'grid-meter', name: 'Meter' }, 2, -1],
  [{ kind: 'pv', name: 'Roof', power: '5 kW' }, 0, 3],
  [{ kind: 'battery', name: 'Battery', power: '5 kW', capacity: '10 kWh' }, -1, 1],
  [{ kind: 'ev-charger', name: 'Car', power: '11 kW', capacity: '60 kWh' }, -2, -2],
] as const;

/** One value per hour from `start`, by the hour's Amsterdam hour: `morning` before noon, `afternoon` from it. */
export const hourly = (morning: number, afternoon: number, start = WEEK, hours = HOURS) =>
  Array.from({ length: hours }, (_, i) => (start.plus({ hours: i }).hour < 12 ? morning : afternoon));

/** Sets a device up below a site over the API; returns its first sensor's id. */
export async function addDevice(t: TestServer, token: string, site: number, body: Record<string, unknown>): Promise<number> {
  const made = await t.request('POST', `/api/v3_0/assets/${site}/devices`, {
    token,
    json: { timezone: ZONE, resolution: 'PT1H', ...body },
  });
  expect(made.status).toBe(201);
  return made.body.sensors[0].id as number;
}

/** A battery's plan for the week, made now (before the week) against the week's prices. */
export async function planWeek(t: TestServer, token: string, battery: number, prices: number) {
  const trigger = await t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
    token,
    json: {
      start: WEEK.toISO(),
      duration: `PT${HOURS}H`,
      'flex-model': { 'soc-at-start': '5 kWh' },
      'flex-context': { 'consumption-price-sensor': prices },
    },
  });
  expect(trigger.status).toBe(200);
  expect((await waitForSchedule(t, token, battery, trigger.body.schedule)).status).toBe(200);
}

/** Posts a sensor's hourly kW from `start`: `morning` before noon, `afternoon` from it. */
export async function postHourly(
  t: TestServer,
  token: string,
  sensorId: number,
  morning: number,
  afternoon: number,
  start = WEEK,
  hours = HOURS,
) {
  const res = await t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, {
    token,
    json: { values: hourly(morning, afternoon, start, hours), start: start.toISO(), duration: `PT${hours}H`, unit: 'kW' },
  });
  expect(res.status).toBe(200);
}

/**
 * A server on a simulated clock at Sunday 23 March 12:00, an account with its admin, the site with
 * its four devices (`sensors` in DEVICES' order), the week's prices on a public market sensor, and
 * the battery's plan for the week.
 */
export async function plannedWeek() {
  const clock = new SimulatedClock(DateTime.fromISO('2025-03-23T12:00', { zone: ZONE }).toMillis());
  const t = await startTestServer({}, undefined, { clock });
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  const admin = await f.user({ accountId, roles: ['account-admin'] });
  const site = (await f.asset({ accountId, type: 'building', name: 'Home' })).id;
  const sensors: number[] = [];
  for (const [body] of DEVICES) sensors.push(await addDevice(t, admin.token, site, body));
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  const prices = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: ZONE })).id;
  await f.beliefs(prices, WEEK.toMillis(), 3_600_000, hourly(100, 200), clock.now() - 86_400_000);
  await planWeek(t, admin.token, sensors[2], prices);
  return { t, accountId, admin, site, sensors, prices };
}

/** The week is over: the planned server closed, its store served again on the real clock, the four devices' week posted. */
export async function measuredWeek(planned: TestServer, token: string, sensors: number[]): Promise<TestServer> {
  await planned.server.close();
  const t = await startTestServer({}, planned.dataDir);
  for (const [i, [, morning, afternoon]] of DEVICES.entries()) await postHourly(t, token, sensors[i], morning, afternoon);
  return t;
}
