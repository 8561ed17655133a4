import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** FlexMeasures 1.0's `inflexible-consumption` and `inflexible-production` flex-context fields. */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let load: number;

const HOUR = 3600_000;
const start = Date.parse('2015-01-02T00:00:00Z');

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const site = await f.asset({ accountId, type: 'building' });
  // 0.6 MW all day, stored positive.
  load = (await f.sensor({ assetId: site.id, resolutionMinutes: 60 })).id;
  await f.beliefs(
    load,
    start,
    HOUR,
    Array.from({ length: 24 }, () => 0.6),
    start - HOUR,
  );
});
afterAll(() => t.close());

/** A 2 MW battery behind a 1 MW connection, with cheap power in the first six hours. */
async function firstHourPower(context: Record<string, unknown>) {
  const battery = await f.asset({ accountId });
  const power = await f.sensor({ assetId: battery.id, resolutionMinutes: 60 });
  const res = await t.request('POST', `/api/v3_0/sensors/${power.id}/schedules/trigger`, {
    token,
    json: {
      start: '2015-01-02T00:00:00+00:00',
      duration: 'PT12H',
      'flex-model': { 'soc-at-start': 0, 'soc-max': 20, 'power-capacity': '2 MW' },
      'flex-context': { 'consumption-price': '20 EUR/MWh', 'production-price': '60 EUR/MWh', 'site-power-capacity': '1 MW', ...context },
    },
  });
  if (res.status !== 200) return res;
  const schedule = await waitForSchedule(t, token, power.id, res.body.schedule, 'PT1H');
  return { status: schedule.status, body: schedule.body.values[0] as number };
}

describe('inflexible devices named by what their values mean', () => {
  it('an inflexible consumer takes room from charging, an inflexible producer gives room', async () => {
    // Buying at 20 to sell at 60: the battery charges as hard as the connection allows.
    expect(await firstHourPower({})).toEqual({ status: 200, body: 1 });
    expect((await firstHourPower({ 'inflexible-consumption': [{ sensor: load }] })).body).toBeCloseTo(0.4, 6);
    expect((await firstHourPower({ 'inflexible-production': [{ sensor: load }] })).body).toBeCloseTo(1.6, 6);
  });

  it('refuses mixing with inflexible-device-sensors, a sensor listed twice, and a contradicting sign attribute', async () => {
    const mixed = await firstHourPower({ 'inflexible-device-sensors': [load], 'inflexible-consumption': [{ sensor: load }] });
    expect(mixed.status).toBe(422);
    expect(mixed.body.message).toEqual({
      json: {
        'inflexible-device-sensors': [
          'Must pass either inflexible-device-sensors (deprecated) or inflexible-consumption/inflexible-production.',
        ],
      },
    });
    const twice = await firstHourPower({ 'inflexible-consumption': [{ sensor: load }], 'inflexible-production': [{ sensor: load }] });
    expect(twice.body.message).toEqual({
      json: {
        'inflexible-production': [`Sensor ${load} may only be listed once across inflexible-consumption and inflexible-production.`],
      },
    });
    const site = await f.asset({ accountId, type: 'building' });
    const pv = (await f.sensor({ assetId: site.id, attributes: { consumption_is_positive: false } })).id;
    const contradicting = await firstHourPower({ 'inflexible-consumption': [{ sensor: pv }] });
    expect(contradicting.body.message).toEqual({
      json: {
        'inflexible-consumption': [
          `Sensor ${pv} has \`consumption_is_positive=False\`, which conflicts with the sign convention of the \`inflexible-consumption\` field.`,
        ],
      },
    });
    const unknown = await firstHourPower({ 'inflexible-production': [{ sensor: 999999 }] });
    expect(unknown.body.message).toEqual({ json: { 'inflexible-production': { '0': ['No sensor found with id 999999.'] } } });
  });
});
