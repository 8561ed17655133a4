import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/db.ts';
import { factories } from '../helpers/factories.ts';
import { storageJobArgs, waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** FlexMeasures 1.0 stored flex configuration: asset fields, inheritance, triggers without a flex body. */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let outsiderToken: string;
let accountId: number;
let batteryTypeId: number;
let priceSensor: number;

const HOUR = 3600_000;
const start = Date.parse('2015-01-02T00:00:00+01:00');

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  outsiderToken = (
    await f.user({
      accountId: (await f.account()).id,
      roles: ['account-admin'],
    })
  ).token;
  batteryTypeId = await f.assetType('battery');
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  priceSensor = (
    await f.sensor({
      assetId: market.id,
      unit: 'EUR/MWh',
      resolutionMinutes: 60,
    })
  ).id;
  // Cheap at night, dear in the evening.
  const prices = Array.from({ length: 48 }, (_, h) => (h % 24 < 6 ? 20 : h % 24 >= 17 && h % 24 < 21 ? 120 : 60));
  await f.beliefs(priceSensor, start, HOUR, prices, start - 24 * HOUR);
});
afterAll(() => t.close());

const createAsset = (json: Record<string, unknown>, as = token) =>
  t.request('POST', '/api/v3_0/assets', {
    token: as,
    json: {
      generic_asset_type_id: batteryTypeId,
      account_id: accountId,
      ...json,
    },
  });

describe('assets with flex_context and flex_model', () => {
  it('stores them as JSON text and shows them back; 0.18 bodies stay 0.18 until some are stored', async () => {
    const plain = await createAsset({ name: 'plain site' });
    expect(plain.status).toBe(201);
    expect(plain.body).not.toHaveProperty('flex_context');
    const site = await createAsset({
      name: 'configured site',
      flex_context: JSON.stringify({
        'consumption-price': { sensor: priceSensor },
      }),
      flex_model: JSON.stringify({ 'soc-max': '2 MWh' }),
    });
    expect(site.status).toBe(201);
    expect(JSON.parse(site.body.flex_context)).toEqual({
      'consumption-price': { sensor: priceSensor },
    });
    const patched = await t.request('PATCH', `/api/v3_0/assets/${site.body.id}`, {
      token,
      json: {
        flex_model: JSON.stringify({
          'soc-max': '3 MWh',
          'soc-min': '0.5 MWh',
        }),
      },
    });
    expect(patched.status).toBe(200);
    expect(JSON.parse(patched.body.flex_model)).toEqual({
      'soc-max': '3 MWh',
      'soc-min': '0.5 MWh',
    });
    expect(JSON.parse(patched.body.flex_context)).toEqual({
      'consumption-price': { sensor: priceSensor },
    });
    const read = await t.request('GET', `/api/v3_0/assets/${site.body.id}`, {
      token,
    });
    expect(read.body).toEqual({ ...patched.body });
  });

  it('validates them with the trigger schemas, nesting messages per field, and stores nothing', async () => {
    const before = await snapshot(t.db);
    const bad = await createAsset({
      name: 'bad site',
      flex_context: JSON.stringify({
        'inflexible-device-sensors': ['a'],
        nonsense: 1,
      }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toEqual({
      json: {
        flex_context: {
          'inflexible-device-sensors': { '0': ['Not a valid integer.'] },
          nonsense: ['Unknown field.'],
        },
      },
    });
    const notJson = await createAsset({
      name: 'bad site',
      flex_model: '{"soc-max":',
    });
    expect(notJson.body.message).toEqual({
      json: { flex_model: ['Not a valid JSON string.'] },
    });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('refuses a descendant as parent, which would make inheritance loop', async () => {
    const top = await createAsset({ name: 'loop top' });
    const child = await createAsset({
      name: 'loop child',
      parent_asset_id: top.body.id,
    });
    const res = await t.request('PATCH', `/api/v3_0/assets/${top.body.id}`, {
      token,
      json: { parent_asset_id: child.body.id },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({
      json: {
        parent_asset_id: ['A descendant asset cannot become the parent.'],
      },
    });
  });
});

describe('triggers on stored configuration', () => {
  it('schedule a sensor from its asset flex-model and an ancestor flex-context, with only a start', async () => {
    const site = await createAsset({
      name: 'priced site',
      flex_context: JSON.stringify({
        'consumption-price': { sensor: priceSensor },
      }),
    });
    const battery = await createAsset({
      name: 'stored battery',
      parent_asset_id: site.body.id,
      flex_model: JSON.stringify({
        'soc-at-start': '0 MWh',
        'soc-max': '1 MWh',
        'power-capacity': '1 MW',
        'soc-targets': [{ value: '1 MWh', datetime: '2015-01-02T06:00:00+01:00' }],
      }),
    });
    const power = await f.sensor({ assetId: battery.body.id });
    const res = await t.request('POST', `/api/v3_0/sensors/${power.id}/schedules/trigger`, {
      token,
      json: { start: '2015-01-02T00:00:00+01:00', duration: 'PT12H' },
    });
    expect(res.status).toBe(200);
    const job = (await t.server.services.jobs.get(res.body.schedule))!;
    const { spec } = storageJobArgs(job);
    expect(spec.consumptionPrice).toEqual({
      sensor: priceSensor,
      unit: 'EUR/MWh',
    });
    expect(spec.devices[0].socMaxMwh).toBe(1);
    const schedule = await waitForSchedule(t, token, power.id, res.body.schedule, 'PT6H');
    expect(schedule.status).toBe(200);
    // 1 MWh charged at night, when the inherited prices are lowest.
    expect(schedule.body.values.reduce((s: number, v: number) => s + v * 0.25, 0)).toBeCloseTo(1, 6);

    // The request wins over the stored flex-model; kW in another unit, production positive.
    const again = await t.request('GET', `/api/v3_0/sensors/${power.id}/schedules/${res.body.schedule}`, {
      token,
      query: {
        duration: 'PT6H',
        unit: 'kW',
        'sign-convention': 'production-positive',
      },
    });
    expect(again.status).toBe(200);
    expect(again.body.unit).toBe('kW');
    (again.body.values as number[]).forEach((v, i) => expect(v).toBeCloseTo(-schedule.body.values[i] * 1000, 3));
    const badUnit = await t.request('GET', `/api/v3_0/sensors/${power.id}/schedules/${res.body.schedule}`, {
      token,
      query: { unit: 'kWh/m' },
    });
    expect(badUnit.status).toBe(422);
  });

  it('schedule an asset whose devices are described by stored flex-models only', async () => {
    const site = await createAsset({
      name: 'empty-body site',
      flex_context: JSON.stringify({
        'consumption-price': { sensor: priceSensor },
      }),
    });
    const a = await createAsset({
      name: 'stored a',
      parent_asset_id: site.body.id,
      flex_model: JSON.stringify({
        'soc-at-start': 0,
        'soc-max': 1,
        'power-capacity': '1 MW',
      }),
    });
    const powerA = await f.sensor({ assetId: a.body.id });
    const res = await t.request('POST', `/api/v3_0/assets/${site.body.id}/schedules/trigger`, {
      token,
      json: { start: '2015-01-02T00:00:00+01:00', duration: 'PT12H' },
    });
    expect(res.status).toBe(200);
    const job = (await t.server.services.jobs.get(res.body.schedule))!;
    expect(storageJobArgs(job).spec.devices.map((d) => d.sensorId)).toEqual([powerA.id]);

    const bare = await createAsset({ name: 'nothing stored' });
    const none = await t.request('POST', `/api/v3_0/assets/${bare.body.id}/schedules/trigger`, {
      token,
      json: { start: '2015-01-02T00:00:00+01:00' },
    });
    expect(none.status).toBe(422);
    expect(Object.keys(none.body.message.json)).toEqual(['flex-model']);
  });

  it('refuse another account, whose stored configuration stays unread', async () => {
    const site = await createAsset({
      name: 'private site',
      flex_model: JSON.stringify({ 'soc-max': 1 }),
    });
    const res = await t.request('POST', `/api/v3_0/assets/${site.body.id}/schedules/trigger`, {
      token: outsiderToken,
      json: { start: '2015-01-02T00:00:00+01:00' },
    });
    expect(res.status).toBe(403);
    expect(
      (
        await t.request('GET', `/api/v3_0/assets/${site.body.id}`, {
          token: outsiderToken,
        })
      ).status,
    ).toBe(403);
  });
});

describe('GET /assets in the 1.0 forms', () => {
  it('pages, lists a subtree to a depth, and all accessible accounts', async () => {
    const root = await createAsset({ name: 'tree root' });
    const child = await createAsset({
      name: 'tree child',
      parent_asset_id: root.body.id,
    });
    const grandchild = await createAsset({
      name: 'tree grandchild',
      parent_asset_id: child.body.id,
    });
    const subtree = await t.request('GET', '/api/v3_0/assets', {
      token,
      query: { root: root.body.id, depth: 1 },
    });
    expect(subtree.status).toBe(200);
    expect(subtree.body.map((a: { id: number }) => a.id)).toEqual([root.body.id, child.body.id]);
    const whole = await t.request('GET', '/api/v3_0/assets', {
      token,
      query: { root: root.body.id },
    });
    expect(whole.body.map((a: { id: number }) => a.id)).toEqual([root.body.id, child.body.id, grandchild.body.id]);

    const all = await t.request('GET', '/api/v3_0/assets', {
      token,
      query: { all_accessible: 'True', include_public: 'False' },
    });
    const own = await t.request('GET', '/api/v3_0/assets', {
      token,
      query: {
        all_accessible: 'False',
        sort_by: 'id',
        sort_dir: 'asc',
        include_public: 'False',
      },
    });
    // Every accessible account includes public assets (the price market here).
    expect(all.body.length).toBe(own.body.length + 1);

    const page = await t.request('GET', '/api/v3_0/assets', {
      token,
      query: { page: 2, 'per-page': 2, 'sort-dir': 'desc', fields: 'id|name' },
    });
    expect(page.status).toBe(200);
    expect(page.body['num-records']).toBe(own.body.length);
    expect(page.body.data).toEqual(
      own.body
        .slice()
        .reverse()
        .slice(2, 4)
        .map((a: { id: number; name: string }) => ({ id: a.id, name: a.name })),
    );

    expect(
      (
        await t.request('GET', '/api/v3_0/assets', {
          token: outsiderToken,
          query: { root: root.body.id },
        })
      ).status,
    ).toBe(422);
  });
});

describe('versions', () => {
  it('name the FlexMeasures release and the API version on every answer', async () => {
    const res = await t.request('GET', '/api/v3_0/assets', { token });
    expect(res.headers.get('FlexMeasures-Version')).toBe('0.18.1');
    expect(res.headers.get('API-Version')).toBe('v3_0');
    const denied = await t.request('GET', '/api/v3_0/assets');
    expect(denied.status).toBe(401);
    expect(denied.headers.get('FlexMeasures-Version')).toBe('0.18.1');
    expect((await t.request('GET', '/api/')).headers.get('API-Version')).toBeNull();
  });
});
