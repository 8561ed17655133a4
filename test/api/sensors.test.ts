import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let assetId: number;
let adminToken: string;
let memberToken: string;

/** The date code of entity addresses built for localhost: the month after the current one. */
function nextMonth(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
}

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  assetId = (await f.asset({ accountId })).id;
  adminToken = (await f.user({ accountId, roles: ['account-admin'] })).token;
  memberToken = (await f.user({ accountId })).token;
});
afterAll(() => t.close());

describe('POST /api/v3_0/sensors', () => {
  it('creates a sensor in UTC with empty attributes, and answers it without a status key', async () => {
    const res = await t.request('POST', '/api/v3_0/sensors', {
      token: memberToken,
      json: { name: 'power', unit: 'MW', event_resolution: 'PT15M', generic_asset_id: assetId },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const id = res.body.id;
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'power',
      unit: 'MW',
      timezone: 'UTC',
      event_resolution: 'PT15M',
      entity_address: `ea1.${nextMonth()}.localhost:fm1.${id}`,
      attributes: '{}',
      generic_asset_id: assetId,
    });
    expect(await t.db('sensor').where({ id }).first()).toEqual({
      id,
      name: 'power',
      unit: 'MW',
      timezone: 'UTC',
      event_resolution_ms: 900_000,
      attributes: '{}',
      generic_asset_id: assetId,
    });
  });

  it('keeps the timezone and JSON-text attributes it is given', async () => {
    const res = await t.request('POST', '/api/v3_0/sensors', {
      token: memberToken,
      json: {
        name: 'prices',
        unit: 'EUR/MWh',
        event_resolution: 'PT1H',
        generic_asset_id: assetId,
        timezone: 'Europe/Amsterdam',
        attributes: '{"capacity_in_mw": 2, "nested": {"a": [1, 2]}}',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.timezone).toBe('Europe/Amsterdam');
    expect(JSON.parse(res.body.attributes)).toEqual({ capacity_in_mw: 2, nested: { a: [1, 2] } });
    const row = await t.db('sensor').where({ id: res.body.id }).first();
    expect(JSON.parse(row.attributes)).toEqual({ capacity_in_mw: 2, nested: { a: [1, 2] } });
  });

  it.each([
    ['PT15M', 'PT15M', 900_000],
    ['P0DT0H15M0S', 'PT15M', 900_000],
    ['P0DT0H15M0.000S', 'PT15M', 900_000],
    ['PT1H', 'PT1H', 3_600_000],
    ['P0DT1H0M0S', 'PT1H', 3_600_000],
    ['PT90M', 'PT1H30M', 5_400_000],
    ['PT24H', 'P1D', 86_400_000],
    ['P1D', 'P1D', 86_400_000],
    ['P1DT0H0M0S', 'P1D', 86_400_000],
    ['P1DT2H', 'P1DT2H', 93_600_000],
    ['PT0M', 'P0D', 0],
    ['P0DT0H0M0S', 'P0D', 0],
  ])('reads the resolution %s and shows it as %s', async (sent, shown, ms) => {
    const res = await t.request('POST', '/api/v3_0/sensors', {
      token: memberToken,
      json: { name: `res ${sent}`, unit: 'kW', event_resolution: sent, generic_asset_id: assetId },
    });
    expect(res.status).toBe(201);
    expect(res.body.event_resolution).toBe(shown);
    expect((await t.db('sensor').where({ id: res.body.id }).first()).event_resolution_ms).toBe(ms);
  });

  it.each(['kW', 'MWh', 'EUR/MWh', 'KRW/kWh', '°C', 'm³/h', '%', 'W'])('accepts the unit %s', async (unit) => {
    const res = await t.request('POST', '/api/v3_0/sensors', {
      token: memberToken,
      json: { name: `unit ${unit}`, unit, event_resolution: 'PT15M', generic_asset_id: assetId },
    });
    expect(res.status).toBe(201);
    expect(res.body.unit).toBe(unit);
  });

  it.each([
    [{ unit: 'bananas' }, { unit: ["Unit 'bananas' cannot be handled."] }],
    [{ event_resolution: 'PT15M30S' }, { event_resolution: ['FlexMeasures only support multiples of 1 minute.'] }],
    [{ event_resolution: 'P0DT0H0M0.5S' }, { event_resolution: ['FlexMeasures only support multiples of 1 minute.'] }],
    [{ event_resolution: 'P1M' }, { event_resolution: ['Only fixed, non-negative durations are supported here.'] }],
    [{ event_resolution: '-PT15M' }, { event_resolution: ['Only fixed, non-negative durations are supported here.'] }],
    [{ timezone: 'Mars/Olympus' }, { timezone: ["Timezone Mars/Olympus doesn't exist."] }],
    [{ attributes: '{not json' }, { attributes: ['Not a valid JSON string.'] }],
    [{ attributes: '[1, 2]' }, { attributes: ['Not a valid JSON string.'] }],
    [{ attributes: { a: 1 } }, { attributes: ['Not a valid string.'] }],
    [{ generic_asset_id: 999_999 }, { generic_asset_id: ["Generic asset with id 999999 doesn't exist."] }],
  ])('refuses %j with field messages and stores nothing', async (change, messages) => {
    const before = await t.db('sensor').count<{ n: number }[]>({ n: '*' });
    const res = await t.request('POST', '/api/v3_0/sensors', {
      token: memberToken,
      json: { name: 'bad', unit: 'MW', event_resolution: 'PT15M', generic_asset_id: assetId, ...change },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', messages));
    expect(await t.db('sensor').count<{ n: number }[]>({ n: '*' })).toEqual(before);
  });

  it('names an unparseable duration', async () => {
    const res = await t.request('POST', '/api/v3_0/sensors', {
      token: memberToken,
      json: { name: 'bad', unit: 'MW', event_resolution: '15 minutes', generic_asset_id: assetId },
    });
    expect(res.status).toBe(422);
    expect(res.body.message.json.event_resolution).toEqual([expect.stringMatching(/^Cannot parse 15 minutes as ISO8601 duration: /)]);
  });

  it('lists every missing field', async () => {
    const res = await t.request('POST', '/api/v3_0/sensors', { token: memberToken, json: {} });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({
      json: {
        name: ['Missing data for required field.'],
        unit: ['Missing data for required field.'],
        event_resolution: ['Missing data for required field.'],
        generic_asset_id: ['Missing data for required field.'],
      },
    });
  });
});

describe('entity addresses', () => {
  let sensorId: number;
  beforeAll(async () => {
    sensorId = (await f.sensor({ assetId })).id;
  });

  it.each([
    ['127.0.0.1:5000', `ea1.${nextMonth()}.localhost:fm1.`],
    ['localhost:5000', `ea1.${nextMonth()}.localhost:fm1.`],
    ['www.flexmeasures.io', 'ea1.2021-01.io.flexmeasures:fm1.'],
    ['company.flexmeasures.io:8080', 'ea1.2021-01.io.flexmeasures.company:fm1.'],
  ])('for Host %s', async (host, prefix) => {
    const res = await t.rawRequest('GET', `/api/v3_0/sensors/${sensorId}`, { Authorization: memberToken, Host: host });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).entity_address).toBe(prefix + sensorId);
  });
});

describe('GET /api/v3_0/sensors', () => {
  it("lists the sensors of the caller's account only, with full bodies", async () => {
    const account = (await f.account()).id;
    const token = (await f.user({ accountId: account })).token;
    const a1 = await f.asset({ accountId: account });
    const a2 = await f.asset({ accountId: account });
    const s1 = await f.sensor({ assetId: a1.id, unit: 'kW', resolutionMinutes: 60, timezone: 'Europe/Amsterdam', attributes: { x: 1 } });
    const s2 = await f.sensor({ assetId: a2.id });
    const other = await f.asset({ accountId: (await f.account()).id });
    await f.sensor({ assetId: other.id });
    const publicAsset = await f.asset({ accountId: null });
    await f.sensor({ assetId: publicAsset.id });

    const res = await t.request('GET', '/api/v3_0/sensors', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: s1.id,
        name: s1.name,
        unit: 'kW',
        timezone: 'Europe/Amsterdam',
        event_resolution: 'PT1H',
        entity_address: `ea1.${nextMonth()}.localhost:fm1.${s1.id}`,
        attributes: '{"x":1}',
        generic_asset_id: a1.id,
      },
      {
        id: s2.id,
        name: s2.name,
        unit: 'MW',
        timezone: 'UTC',
        event_resolution: 'PT15M',
        entity_address: `ea1.${nextMonth()}.localhost:fm1.${s2.id}`,
        attributes: '{}',
        generic_asset_id: a2.id,
      },
    ]);
    const byAsset = await t.request('GET', '/api/v3_0/sensors', { token, query: { asset_id: a2.id } });
    expect(byAsset.status).toBe(200);
    expect(byAsset.body.map((s: { id: number }) => s.id)).toEqual([s2.id]);
    const byAccount = await t.request('GET', '/api/v3_0/sensors', { token, query: { account_id: account } });
    expect(byAccount.body).toEqual(res.body);
  });

  it('answers 404 for an unknown account', async () => {
    const res = await t.request('GET', '/api/v3_0/sensors', { token: memberToken, query: { account_id: 999_999 } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Account 999999 not found', status: 404 });
  });
});

describe('GET, PATCH and DELETE /api/v3_0/sensors/<id>', () => {
  it('reads a sensor with the integer status key', async () => {
    const s = await f.sensor({ assetId, attributes: { capacity_in_mw: 2 } });
    const res = await t.request('GET', `/api/v3_0/sensors/${s.id}`, { token: memberToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: s.id,
      name: s.name,
      unit: 'MW',
      timezone: 'UTC',
      event_resolution: 'PT15M',
      entity_address: `ea1.${nextMonth()}.localhost:fm1.${s.id}`,
      attributes: '{"capacity_in_mw":2}',
      generic_asset_id: assetId,
      status: 200,
    });
  });

  it('patches descriptive fields; attributes replace the whole object', async () => {
    const s = await f.sensor({ assetId, attributes: { a: 1, b: 2 } });
    const res = await t.request('PATCH', `/api/v3_0/sensors/${s.id}`, {
      token: adminToken,
      json: { name: 'renamed', unit: 'kW', timezone: 'Asia/Seoul', event_resolution: 'P0DT0H5M0S', attributes: '{"c": 3}' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: s.id,
      name: 'renamed',
      unit: 'kW',
      timezone: 'Asia/Seoul',
      event_resolution: 'PT5M',
      entity_address: `ea1.${nextMonth()}.localhost:fm1.${s.id}`,
      attributes: '{"c":3}',
      generic_asset_id: assetId,
      status: 200,
    });
    expect(await t.db('sensor').where({ id: s.id }).first()).toEqual({
      id: s.id,
      name: 'renamed',
      unit: 'kW',
      timezone: 'Asia/Seoul',
      event_resolution_ms: 300_000,
      attributes: '{"c":3}',
      generic_asset_id: assetId,
    });
  });

  it('leaves fields out of the patch alone; an empty patch changes nothing', async () => {
    const s = await f.sensor({ assetId, attributes: { keep: true } });
    const before = await t.db('sensor').where({ id: s.id }).first();
    const empty = await t.request('PATCH', `/api/v3_0/sensors/${s.id}`, { token: adminToken, json: {} });
    expect(empty.status).toBe(200);
    expect(await t.db('sensor').where({ id: s.id }).first()).toEqual(before);
    const named = await t.request('PATCH', `/api/v3_0/sensors/${s.id}`, { token: adminToken, json: { name: 'only the name' } });
    expect(named.status).toBe(200);
    expect(await t.db('sensor').where({ id: s.id }).first()).toEqual({ ...before, name: 'only the name' });
  });

  it.each(['id', 'entity_address', 'generic_asset_id'])('refuses to patch %s', async (field) => {
    const s = await f.sensor({ assetId });
    const before = await t.db('sensor').where({ id: s.id }).first();
    const res = await t.request('PATCH', `/api/v3_0/sensors/${s.id}`, { token: adminToken, json: { [field]: 1 } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', { [field]: ['Unknown field.'] }));
    expect(await t.db('sensor').where({ id: s.id }).first()).toEqual(before);
  });

  it('deletes a sensor with a JSON-typed, empty 204', async () => {
    const s = await f.sensor({ assetId });
    const res = await t.rawRequest('DELETE', `/api/v3_0/sensors/${s.id}`, { Authorization: adminToken });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.rawHeaders).toContain('application/json');
    expect(await t.db('sensor').where({ id: s.id }).first()).toBeUndefined();
    const again = await t.request('GET', `/api/v3_0/sensors/${s.id}`, { token: adminToken });
    expect(again.status).toBe(422);
    expect(again.body).toEqual(unprocessable('path', { id: [`No sensor found with id ${s.id}.`] }));
  });
});
