import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * A site that knows its devices (issue 32): the first set-up makes the site as a "site", the
 * device set-up names sensors after their device and adds a house load and a grid meter to the
 * site's flex-context, and a battery planned with solar panels but no house load says so.
 */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let otherToken: string;
let site: number;

const START = '2026-06-05T10:00:00+02:00';
const startMs = Date.parse(START);
const QUARTER = 15 * 60_000;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  // The appliance's first start, as the set-up page sends it.
  const first = await t.request('POST', '/api/v3_0/setup', {
    json: {
      account_name: 'Home',
      email: 'op@example.com',
      username: 'op',
      password: 'a long secret',
      timezone: 'Europe/Amsterdam',
      site_name: 'Keizersgracht',
    },
  });
  expect(first.status).toBe(201);
  token = first.body.auth_token;
  site = first.body.site.id;
  otherToken = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

const setUp = (json: Record<string, unknown>, as = token) => t.request('POST', `/api/v3_0/assets/${site}/devices`, { token: as, json });
const flexContext = async () => JSON.parse((await t.request('GET', `/api/v3_0/assets/${site}`, { token })).body.flex_context ?? '{}');
const sensorNames = async (assetId: number) =>
  ((await t.request('GET', '/api/v3_0/sensors', { token, query: { asset_id: assetId } })).body as { name: string }[]).map((s) => s.name);

async function schedule(): Promise<{ id: string; warnings: { code: string; message: string }[] }> {
  const res = await t.request('POST', `/api/v3_0/assets/${site}/schedules/trigger`, { token, json: { start: START, duration: 'PT2H' } });
  expect(res.status).toBe(200);
  await t.server.services.jobs.settled(res.body.schedule, 30_000);
  const job = await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token });
  expect(job.body.status).toBe('finished');
  return { id: res.body.schedule, warnings: job.body.warnings ?? [] };
}

describe('the site and its devices', () => {
  it('makes the first site as a "site", a type the asset types list', async () => {
    const types = (await t.request('GET', '/api/v3_0/assets/types', { token })).body as { id: number; name: string }[];
    const siteType = types.find((ty) => ty.name === 'site');
    expect(siteType).toBeDefined();
    const stored = await t.request('GET', `/api/v3_0/assets/${site}`, { token });
    expect(stored.body).toMatchObject({ name: 'Keizersgracht', generic_asset_type_id: siteType!.id, parent_asset_id: null });
  });

  it('names sensors after their device and wires solar, house load and grid meter into the site’s flex-context', async () => {
    const market = await f.asset({ accountId: null, type: 'transmission zone' });
    const prices = await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 });
    // 100 EUR/MWh all day: a flat price, so only the load and the panels move the plan.
    await f.beliefs(prices.id, Date.parse('2026-06-05T00:00:00+02:00'), 3_600_000, new Array<number>(24).fill(100), startMs - 86_400_000);
    const patched = await t.request('PATCH', `/api/v3_0/assets/${site}`, {
      token,
      json: { flex_context: JSON.stringify({ 'consumption-price': { sensor: prices.id } }) },
    });
    expect(patched.status).toBe(200);

    const battery = await setUp({ kind: 'battery', name: 'Home battery', power: '5 kW', capacity: '10 kWh' });
    expect(battery.status).toBe(201);
    expect(await sensorNames(battery.body.asset.id)).toEqual(['Home battery power', 'Home battery state of charge']);
    const pv = await setUp({ kind: 'pv', name: 'Roof PV', power: '4 kW' });
    expect(await sensorNames(pv.body.asset.id)).toEqual(['Roof PV power']);

    const meter = await setUp({ kind: 'grid-meter', name: 'Grid meter' });
    expect(meter.status).toBe(201);
    expect(meter.body.asset.generic_asset_type).toBe('grid meter');
    const meterSensor = meter.body.sensors[0];
    expect(meterSensor).toMatchObject({ name: 'Grid meter power', unit: 'kW', timezone: 'Europe/Amsterdam' });
    expect(await flexContext()).toEqual({
      'consumption-price': { sensor: prices.id },
      'inflexible-device-sensors': [pv.body.sensors[0].id],
      'aggregate-power': { sensor: meterSensor.id },
    });
    // Meters read import as positive.
    const stored = await t.request('GET', `/api/v3_0/sensors/${meterSensor.id}`, { token });
    expect(JSON.parse(stored.body.attributes)).toEqual({ consumption_is_positive: true });
  });

  it('refuses another account’s house load on this site, storing nothing', async () => {
    const before = await flexContext();
    const res = await setUp({ kind: 'house-load', name: 'Their load' }, otherToken);
    expect(res.status).toBe(403);
    expect(await flexContext()).toEqual(before);
    const trigger = await t.request('POST', `/api/v3_0/assets/${site}/schedules/trigger`, { token: otherToken, json: { start: START } });
    expect(trigger.status).toBe(403);
  });

  it('warns that a battery with solar panels plans without a house load, and stops once the load is added', async () => {
    const [batteryId, pvId] = (await t.request('GET', '/api/v3_0/assets', { token })).body
      .filter((a: { parent_asset_id: number | null }) => a.parent_asset_id === site)
      .map((a: { id: number; name: string }) => a)
      .sort((a: { id: number }, b: { id: number }) => a.id - b.id)
      .map((a: { id: number }) => a.id);
    const ids = async (assetId: number) =>
      ((await t.request('GET', '/api/v3_0/sensors', { token, query: { asset_id: assetId } })).body as { id: number }[]).map((s) => s.id);
    const [, soc] = await ids(batteryId);
    const [pvPower] = await ids(pvId);
    await f.beliefs(soc, startMs, QUARTER, [50], startMs - 60_000);
    // 3 kW of sun over the two hours (production positive, as the panels' sensor reads).
    await f.beliefs(pvPower, startMs, QUARTER, new Array<number>(8).fill(3), startMs - 60_000);

    const without = await schedule();
    const warning = without.warnings.find((w) => w.code === 'load-unknown');
    expect(warning?.message).toContain('Roof PV power');
    expect(warning?.message).toContain('no house load');

    const load = await setUp({ kind: 'house-load', name: 'House' });
    expect(load.status).toBe(201);
    expect(load.body.sensors[0]).toMatchObject({ name: 'House power', unit: 'kW' });
    expect((await flexContext())['inflexible-device-sensors']).toEqual([pvPower, load.body.sensors[0].id]);
    await f.beliefs(load.body.sensors[0].id, startMs, QUARTER, new Array<number>(8).fill(1), startMs - 60_000);
    const withLoad = await schedule();
    expect(withLoad.warnings.map((w) => w.code)).not.toContain('load-unknown');
    // The battery's schedule is stored for the job.
    const batteryPower = (await ids(batteryId))[0];
    const stored = await t.request('GET', `/api/v3_0/sensors/${batteryPower}/schedules/${withLoad.id}`, {
      token,
      query: { duration: 'PT2H' },
    });
    expect(stored.status).toBe(200);
    expect(stored.body.values).toHaveLength(8);
  });
});
