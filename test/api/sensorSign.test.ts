import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Issue 32's sign trap over the API: a sensor's sign is its `consumption_is_positive` attribute
 * (absent: production positive, FlexMeasures 0.18's default for power sensors), a value that is no
 * boolean is refused, and a power sensor whose every value of yesterday was production (read
 * consumption positive: below zero) is reported on its site's health.
 */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let site: number;

const ZONE = 'Europe/Amsterdam';
/** Yesterday in the site's zone, and its length in hours (23 or 25 on a daylight-saving day). */
const DAY = DateTime.now().setZone(ZONE).minus({ days: 1 }).startOf('day');
const HOURS = DAY.plus({ days: 1 }).diff(DAY, 'hours').hours;

const make = (json: Record<string, unknown>, as = token) =>
  t.request('POST', '/api/v3_0/sensors', {
    token: as,
    json: { name: 'load', unit: 'kW', event_resolution: 'PT1H', timezone: ZONE, generic_asset_id: site, ...json },
  });
const post = (sensorId: number, values: number[]) =>
  t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, {
    token,
    json: { values, start: DAY.toISO(), duration: `PT${values.length}H`, unit: 'kW' },
  });

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  site = (await f.asset({ accountId, type: 'building', name: 'Home' })).id;
});
afterAll(() => t.close());

describe('a sensor’s sign', () => {
  it('stores the sign sent, and nothing for clients that send none (production positive, as 0.18)', async () => {
    const consumption = await make({ name: 'house load', attributes: JSON.stringify({ consumption_is_positive: true }) });
    expect(consumption.status).toBe(201);
    const read = await t.request('GET', `/api/v3_0/sensors/${consumption.body.id}`, { token });
    expect(JSON.parse(read.body.attributes)).toEqual({ consumption_is_positive: true });

    const plain = await make({ name: 'meter' });
    expect(plain.status).toBe(201);
    expect(JSON.parse((await t.request('GET', `/api/v3_0/sensors/${plain.body.id}`, { token })).body.attributes)).toEqual({});

    const now = await t.request('GET', `/api/v3_0/assets/${site}/now`, { token });
    const signs = Object.fromEntries(now.body.sensors.map((s: { name: string; sign: string | null }) => [s.name, s.sign]));
    expect(signs).toMatchObject({ 'house load': 'consumption positive', meter: 'production positive' });
  });

  it('refuses a sign that is not true or false, on create and on change, and stores nothing', async () => {
    const before = await t.db('sensor').count({ n: '*' });
    const made = await make({ name: 'wrong', attributes: JSON.stringify({ consumption_is_positive: 'false' }) });
    expect(made.status).toBe(422);
    expect(made.body.message).toEqual({ json: { attributes: ['consumption_is_positive must be true or false.'] } });
    expect(await t.db('sensor').count({ n: '*' })).toEqual(before);

    const sensor = (await make({ name: 'to change' })).body.id;
    const changed = await t.request('PATCH', `/api/v3_0/sensors/${sensor}`, {
      token,
      json: { attributes: JSON.stringify({ consumption_is_positive: 1 }) },
    });
    expect(changed.status).toBe(422);
    expect(JSON.parse((await t.request('GET', `/api/v3_0/sensors/${sensor}`, { token })).body.attributes)).toEqual({});
  });

  it('refuses another account a sensor on this site, and this site’s health', async () => {
    const stranger = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
    const before = await t.db('sensor').count({ n: '*' });
    expect((await make({ name: 'theirs', attributes: JSON.stringify({ consumption_is_positive: true }) }, stranger)).status).toBe(403);
    expect(await t.db('sensor').count({ n: '*' })).toEqual(before);
    expect((await t.request('GET', `/api/v3_0/assets/${site}/now`, { token: stranger })).status).toBe(403);
  });
});

describe('a load negative all day', () => {
  it('is reported for a power sensor that produced at every hour of yesterday, and only for that', async () => {
    const id = async (name: string, attributes?: Record<string, unknown>) =>
      (await make({ name, ...(attributes && { attributes: JSON.stringify(attributes) }) })).body.id as number;
    // The trap: a house load of 0.8 kW uploaded positive into a production-positive sensor.
    const trapped = await id('kitchen load');
    expect((await post(trapped, Array<number>(HOURS).fill(0.8))).status).toBe(200);
    // The same values in a consumption-positive sensor: a load.
    const load = await id('house load 2', { consumption_is_positive: true });
    expect((await post(load, Array<number>(HOURS).fill(0.8))).status).toBe(200);
    // PV stored production positive: zero at night, so not negative all day.
    const pv = await id('PV', { consumption_is_positive: false });
    expect(
      (
        await post(
          pv,
          Array.from({ length: HOURS }, (_, h) => (h >= 8 && h < 17 ? 2 : 0)),
        )
      ).status,
    ).toBe(200);
    // Negative all day but one hour unmeasured: not a whole day.
    const partial = await id('partial load', { consumption_is_positive: true });
    expect((await post(partial, Array<number>(HOURS).fill(-0.5).slice(1))).status).toBe(200);

    const now = await t.request('GET', `/api/v3_0/assets/${site}/now`, { token });
    expect(now.status).toBe(200);
    const flagged = Object.fromEntries(now.body.sensors.map((s: { id: number; negative_all_day: unknown }) => [s.id, s.negative_all_day]));
    expect(flagged[trapped]).toEqual({ day: DAY.toISODate(), values: HOURS });
    expect([flagged[load], flagged[pv], flagged[partial]]).toEqual([null, null, null]);
  });
});

describe('a schedule fed by a load negative throughout', () => {
  /** A battery's day (or half day) beside the load, at a flat price: its job's warning codes. */
  async function warnings(loadSensor: number, hours: number) {
    const battery = await f.asset({ accountId, type: 'battery' });
    const power = await f.sensor({ assetId: battery.id, unit: 'kW', resolutionMinutes: 60, timezone: ZONE });
    const res = await t.request('POST', `/api/v3_0/sensors/${power.id}/schedules/trigger`, {
      token,
      json: {
        start: DAY.toISO(),
        duration: `PT${hours}H`,
        'flex-model': { 'soc-at-start': 0, 'soc-unit': 'kWh', 'soc-min': 0, 'soc-max': 10, 'power-capacity': '5 kW' },
        'flex-context': { 'consumption-price': '250 EUR/MWh', 'inflexible-device-sensors': [loadSensor] },
      },
    });
    expect(res.status).toBe(200);
    await t.server.services.jobs.settled(res.body.schedule, 60_000);
    const job = (await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token })).body;
    expect(job.status).toBe('finished');
    return (job.result.warnings ?? []) as { code: string; sensor_id?: number; message: string }[];
  }

  it('warns over a day, names the load and how it is stored; not over half a day (PV is negative all through a sunny noon)', async () => {
    const trapped = (await make({ name: 'utility load' })).body.id as number;
    expect((await post(trapped, Array<number>(HOURS).fill(0.8))).status).toBe(200);
    const day = (await warnings(trapped, HOURS)).filter((w) => w.code === 'load-negative');
    expect(day).toEqual([
      {
        code: 'load-negative',
        field: 'inflexible-device-sensors',
        sensor_id: trapped,
        message: expect.stringContaining('(utility load) is negative (producing) in every step of the schedule'),
      },
    ]);
    expect(day[0].message).toContain('(production positive)');
    expect((await warnings(trapped, 12)).map((w) => w.code)).not.toContain('load-negative');
  });
});

describe('a chart plot of sensors signed both ways', () => {
  it('draws them on one axis in one stated convention: the production-positive one negated', async () => {
    const asset = await f.asset({ accountId, type: 'building' });
    const load = await f.sensor({ assetId: asset.id, unit: 'kW', name: 'load', attributes: { consumption_is_positive: true } });
    const pv = await f.sensor({ assetId: asset.id, unit: 'kW', name: 'pv' });
    const alone = await f.sensor({ assetId: asset.id, unit: 'kW', name: 'alone' });
    await t
      .db('generic_asset')
      .where({ id: asset.id })
      .update({ attributes: JSON.stringify({ sensors_to_show: [[load.id, pv.id], alone.id] }) });
    const res = await t.request('GET', `/api/v3_0/assets/${asset.id}/chart/`, { token });
    expect(res.status).toBe(200);
    const [mixed, single] = res.body.vconcat;
    expect(mixed.layer[0].encoding.y).toMatchObject({ field: 'drawn_value', title: 'kW, consumption positive' });
    expect(mixed.transform).toContainEqual({
      calculate: `indexof([${pv.id}], datum.sensor_id) >= 0 ? -datum.event_value : datum.event_value`,
      as: 'drawn_value',
    });
    // A plot whose sensors agree draws them as stored, under their convention.
    expect(single.layer[0].encoding.y).toMatchObject({ field: 'event_value', title: 'kW, production positive' });
  });
});
