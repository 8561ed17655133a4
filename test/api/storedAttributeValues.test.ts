import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/db.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Issue 20: 0.18's attribute-style flex configuration (asset and sensor attributes) gets the value
 * rules of the flex-model fields it stands for when written, and a trigger's prices must share the
 * currency of its price sensors. Bad input is a 422 naming the field; nothing is stored or queued.
 */

let t: TestServer;
let token: string;
let accountId: number;
let assetId: number;
let sensorId: number;
let batteryTypeId: number;
let eurPrices: number;
let kwSensor: number;
let foreignPrices: number;

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  batteryTypeId = await f.assetType('battery');
  assetId = (await f.asset({ accountId })).id;
  sensorId = (await f.sensor({ assetId, attributes: { capacity_in_mw: 1, max_soc_in_mwh: 2 } })).id;
  eurPrices = (await f.sensor({ assetId, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  kwSensor = (await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 })).id;
  const other = (await f.account()).id;
  foreignPrices = (await f.sensor({ assetId: (await f.asset({ accountId: other })).id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  // Day-ahead prices for the trigger tests: 24 hours at 50 EUR/MWh.
  const start = Date.parse('2015-01-01T00:00:00Z');
  await f.beliefs(
    eurPrices,
    start,
    3600_000,
    Array.from({ length: 24 }, () => 50),
    start - 86_400_000,
  );
});
afterAll(() => t.close());

/** Each bad attribute (a sensor id 0 stands for `kwSensor`), and the message path under `attributes` the 422 names. */
const cases: [string, Record<string, unknown>, string[]][] = [
  ['a negative capacity_in_mw', { capacity_in_mw: -1 }, ['capacity_in_mw']],
  ['a capacity_in_mw as text (read as a number only)', { capacity_in_mw: '2 MW' }, ['capacity_in_mw']],
  ['a NaN min_soc_in_mwh', { min_soc_in_mwh: 'NaN' }, ['min_soc_in_mwh']],
  ['a negative max_soc_in_mwh', { max_soc_in_mwh: -0.5 }, ['max_soc_in_mwh']],
  ['a negative soc_in_mwh', { soc_in_mwh: -1 }, ['soc_in_mwh']],
  ['a roundtrip_efficiency above 1', { roundtrip_efficiency: 1.2 }, ['roundtrip_efficiency']],
  ['a storage_efficiency of 0', { storage_efficiency: 0 }, ['storage_efficiency']],
  ['a charging-efficiency of 120%', { 'charging-efficiency': '120%' }, ['charging-efficiency']],
  ['a negative production_capacity', { production_capacity: -3 }, ['production_capacity']],
  ['a market_id of no sensor', { market_id: 99_999_999 }, ['market_id']],
  ['a market_id of a sensor that is no price', { market_id: 0 }, ['market_id']],
  ['a soc_datetime that is no time', { soc_datetime: 'yesterday' }, ['soc_datetime']],
  ['a soc_datetime without UTC offset (it names no instant)', { soc_datetime: '2015-01-01T00:00' }, ['soc_datetime']],
  [
    'a NaN price in the flex-context attribute',
    { 'flex-context': { 'consumption-price': 'NaN EUR/MWh' } },
    ['flex-context', 'consumption-price'],
  ],
];

const concrete = (attributes: Record<string, unknown>) =>
  attributes.market_id === 0 ? { ...attributes, market_id: kwSensor } : attributes;

const pathOf = (body: Record<string, unknown>, path: string[]) =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], body);

describe('attribute-style flex configuration', () => {
  for (const [name, bad, path] of cases) {
    it(`refuses ${name} on assets and sensors with a 422 under attributes.${path.join('.')}, storing nothing`, async () => {
      const attributes = concrete(bad);
      const before = await snapshot(t.db);
      const answers = [
        await t.request('PATCH', `/api/v3_0/assets/${assetId}`, { token, json: { attributes: JSON.stringify(attributes) } }),
        await t.request('POST', '/api/v3_0/assets', {
          token,
          json: {
            name: `bad ${name}`,
            generic_asset_type_id: batteryTypeId,
            account_id: accountId,
            attributes: JSON.stringify(attributes),
          },
        }),
        await t.request('PATCH', `/api/v3_0/sensors/${sensorId}`, { token, json: { attributes: JSON.stringify(attributes) } }),
        await t.request('POST', '/api/v3_0/sensors', {
          token,
          json: {
            name: `bad ${name}`,
            unit: 'MW',
            event_resolution: 'PT15M',
            generic_asset_id: assetId,
            attributes: JSON.stringify(attributes),
          },
        }),
      ];
      for (const res of answers) {
        expect(res.status, JSON.stringify(res.body)).toBe(422);
        expect(pathOf(res.body.message.json.attributes, path)).toEqual([expect.any(String)]);
      }
      expect(await snapshot(t.db)).toEqual(before);
    });
  }

  it('stores good values, as the scheduler reads them', async () => {
    const attributes = {
      capacity_in_mw: 0.5,
      min_soc_in_mwh: 0.1,
      max_soc_in_mwh: 2,
      soc_in_mwh: 1,
      soc_datetime: '2015-01-01T00:00:00+00:00',
      roundtrip_efficiency: 0.9,
      storage_efficiency: 1,
      'charging-efficiency': '95%',
      market_id: eurPrices,
    };
    const res = await t.request('PATCH', `/api/v3_0/sensors/${sensorId}`, { token, json: { attributes: JSON.stringify(attributes) } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = await t.db('sensor').where({ id: sensorId }).first();
    expect(JSON.parse(stored.attributes)).toEqual(attributes);
  });

  it("stores FlexMeasures' conftest attributes as written (soc_datetime with a +01 offset), and the scheduler reads them", async () => {
    // flexmeasures/conftest.py, the "Test battery" (create_test_battery_assets).
    const attributes = {
      max_soc_in_mwh: 5,
      min_soc_in_mwh: 0,
      soc_in_mwh: 2.5,
      soc_datetime: '2015-01-01T00:00+01',
      soc_udi_event_id: 203,
      'soc-usage': '0 kW',
      is_consumer: true,
      is_producer: true,
      can_curtail: true,
      can_shift: true,
    };
    const res = await t.request('POST', '/api/v3_0/assets', {
      token,
      json: { name: 'Test battery', generic_asset_type_id: batteryTypeId, account_id: accountId, attributes: JSON.stringify(attributes) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const stored = await t.db('generic_asset').where({ id: res.body.id }).first();
    expect(JSON.parse(stored.attributes)).toEqual(attributes);
    // A space for the T, as Python reads the attribute, is accepted too.
    const spaced = await t.request('PATCH', `/api/v3_0/assets/${res.body.id}`, {
      token,
      json: { attributes: JSON.stringify({ ...attributes, soc_datetime: '2015-01-01 00:00+01' }) },
    });
    expect(spaced.status, JSON.stringify(spaced.body)).toBe(200);

    // A schedule starting at soc_datetime starts from soc_in_mwh (2.5 MWh), as FlexMeasures' does.
    const power = (
      await factories(t.db).sensor({ assetId: res.body.id, unit: 'MW', resolutionMinutes: 15, attributes: { market_id: eurPrices } })
    ).id;
    const trigger = await t.request('POST', `/api/v3_0/sensors/${power}/schedules/trigger`, {
      token,
      json: { start: '2014-12-31T23:00:00Z', duration: 'PT1H', 'flex-model': { 'power-capacity': '1 MW' } },
    });
    expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
    const job = await t.db('job').where({ id: trigger.body.schedule }).first<{ args: string }>();
    expect(JSON.parse(job.args).spec.devices[0].socAtStartMwh).toBe(2.5);
  });

  it("refuses a market_id of another account's price sensor with a 403, storing nothing", async () => {
    const before = await snapshot(t.db);
    const json = { attributes: JSON.stringify({ market_id: foreignPrices }) };
    const sensor = await t.request('PATCH', `/api/v3_0/sensors/${sensorId}`, { token, json });
    const asset = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, { token, json });
    expect([sensor.status, asset.status]).toEqual([403, 403]);
    expect(await snapshot(t.db)).toEqual(before);
  });
});

describe('currencies of a trigger', () => {
  const trigger = (flexContext: Record<string, unknown>) =>
    t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, {
      token,
      json: { start: '2015-01-01T00:00:00Z', duration: 'PT24H', 'flex-model': { 'soc-at-start': 0 }, 'flex-context': flexContext },
    });
  const jobCount = async () => Number((await t.db('job').count({ n: '*' }))[0].n);

  const bad: [string, () => Record<string, unknown>, string, RegExp][] = [
    [
      'a USD price beside an EUR price sensor',
      () => ({ 'consumption-price-sensor': eurPrices, 'production-price': '10 USD/MWh' }),
      'production-price',
      /USD.*consumption-price-sensor in EUR/,
    ],
    [
      'a USD price beside an EUR price sensor given as a reference',
      () => ({ 'consumption-price': { sensor: eurPrices }, 'production-price': '10 USD/MWh' }),
      'production-price',
      /USD.*consumption-price in EUR/,
    ],
    [
      'fixed prices in two currencies',
      () => ({ 'consumption-price': '10 EUR/MWh', 'production-price': '5 USD/MWh' }),
      'production-price',
      /USD.*consumption-price in EUR/,
    ],
    [
      'a breach price in another currency than the price sensor',
      () => ({ 'consumption-price-sensor': eurPrices, 'consumption-breach-price': '1000 GBP/MW' }),
      'consumption-breach-price',
      /GBP.*consumption-price-sensor in EUR/,
    ],
  ];

  for (const [name, context, field, message] of bad) {
    it(`refuses ${name} with a 422 before anything is queued`, async () => {
      const [jobs, beliefs] = [await jobCount(), await t.db('timed_belief').count({ n: '*' })];
      const res = await trigger(context());
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.message.json[field], JSON.stringify(res.body)).toEqual([expect.stringMatching(message)]);
      expect(await jobCount()).toBe(jobs);
      expect(await t.db('timed_belief').count({ n: '*' })).toEqual(beliefs);
    });
  }

  it("refuses a price in another currency than the sensor's market_id (0.18) before anything is queued", async () => {
    // The sensor's market_id names the EUR price sensor (stored in the test above).
    const jobs = await jobCount();
    const res = await trigger({ 'production-price': '10 USD/MWh' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.message.json['production-price']).toEqual([expect.stringMatching(/USD.*market_id in EUR/)]);
    expect(await jobCount()).toBe(jobs);
  });

  it('queues a trigger whose prices share the price sensor’s currency', async () => {
    const jobs = await jobCount();
    const res = await trigger({ 'consumption-price-sensor': eurPrices, 'production-price': '10 EUR/MWh' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await jobCount()).toBe(jobs + 1);
  });
});
