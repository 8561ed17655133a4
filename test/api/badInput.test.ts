import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { unprocessable } from '../helpers/bodies.ts';
import { snapshot } from '../helpers/db.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let adminToken: string;
let assetId: number;
let sensorId: number;
let userId: number;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  const admin = await f.user({ accountId, roles: ['account-admin'] });
  adminToken = admin.token;
  userId = (await f.user({ accountId })).user.id;
  assetId = (await f.asset({ accountId })).id;
  sensorId = (await f.sensor({ assetId })).id;
});
afterAll(() => t.close());

/** Every answer in this file must be JSON-typed and leave the store as it was. */
let before: Record<string, string[]>;
beforeEach(async () => {
  before = await snapshot(t.db);
});
async function expectUnchanged(): Promise<void> {
  expect(await snapshot(t.db)).toEqual(before);
}

function expectJson(res: ApiResponse): void {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

describe('ids in the path', () => {
  // Reference §3.4: assets, users and accounts answer 404 for unknown ids, sensors 422 under path.id;
  // non-integer ids (a 500 in the reference) are a 422 under path.id everywhere.
  const resources = [
    { path: '/assets', notFound: (id: string) => ({ message: `GenericAsset ${id} not found`, status: 404 }) },
    { path: '/users', notFound: (id: string) => ({ message: `User ${id} not found`, status: 404 }) },
    { path: '/accounts', notFound: (id: string) => ({ message: `Account ${id} not found`, status: 404 }) },
  ];
  const unknownIds = ['0', '-1', '999999', '9007199254740991'];
  const nonIntegers = ['abc', '1.5', '1e3', '0x10', '%20', '%E0%A4%A', '99999999999999999999', '9007199254740993'];

  it.each(resources.flatMap((r) => unknownIds.map((id) => [r.path, id, r] as const)))('GET %s/%s → 404', async (path, id, r) => {
    const res = await t.request('GET', `/api/v3_0${path}/${id}`, { token: adminToken });
    expect(res.status).toBe(404);
    expectJson(res);
    expect(res.body).toEqual(r.notFound(id));
  });

  it.each(unknownIds)('GET /sensors/%s → 422 under path.id', async (id) => {
    const res = await t.request('GET', `/api/v3_0/sensors/${id}`, { token: adminToken });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('path', { id: [`No sensor found with id ${id}.`] }));
  });

  it.each(['/assets', '/users', '/accounts', '/sensors'].flatMap((p) => nonIntegers.map((id) => [p, id] as const)))(
    'GET %s/%s → 422 "Not a valid integer."',
    async (path, id) => {
      const res = await t.request('GET', `/api/v3_0${path}/${id}`, { token: adminToken });
      expect(res.status).toBe(422);
      expectJson(res);
      expect(res.body).toEqual(unprocessable('path', { id: ['Not a valid integer.'] }));
    },
  );

  it.each([
    ['PATCH', '/assets/abc', { name: 'x' }],
    ['DELETE', '/assets/abc', undefined],
    ['PATCH', '/sensors/abc', { name: 'x' }],
    ['DELETE', '/sensors/-5', undefined],
    ['PATCH', '/users/1.5', { timezone: 'UTC' }],
    ['PATCH', '/users/abc/password-reset', undefined],
  ])('%s %s is refused and changes nothing', async (method, path, json) => {
    const res = await t.request(method, `/api/v3_0${path}`, { token: adminToken, json });
    expect(res.status).toBe(422);
    expectJson(res);
    await expectUnchanged();
  });

  it('answers unknown ids on writes as on reads', async () => {
    expect((await t.request('DELETE', '/api/v3_0/assets/999999', { token: adminToken })).status).toBe(404);
    expect((await t.request('PATCH', '/api/v3_0/users/999999', { token: adminToken, json: {} })).status).toBe(404);
    const sensor = await t.request('DELETE', '/api/v3_0/sensors/999999', { token: adminToken });
    expect(sensor.status).toBe(422);
    expect(sensor.body).toEqual(unprocessable('path', { id: ['No sensor found with id 999999.'] }));
    await expectUnchanged();
  });
});

describe('ids in the query', () => {
  it.each(['/assets', '/sensors', '/users'])('%s?account_id= refuses non-integers and answers 404 for unknown accounts', async (path) => {
    for (const bad of ['abc', '1.5', '']) {
      const res = await t.request('GET', `/api/v3_0${path}?account_id=${bad}`, { token: adminToken });
      expect(res.status, bad).toBe(422);
      expect(res.body).toEqual(unprocessable('query', { account_id: ['Not a valid integer.'] }));
    }
    for (const unknown of ['-1', '999999']) {
      const res = await t.request('GET', `/api/v3_0${path}`, { token: adminToken, query: { account_id: unknown } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: `Account ${unknown} not found`, status: 404 });
    }
  });

  it('ignores unknown query parameters', async () => {
    const res = await t.request('GET', '/api/v3_0/assets', { token: adminToken, query: { colour: 'red', page: 2 } });
    expect(res.status).toBe(200);
  });
});

describe('bodies', () => {
  const writes = [
    ['POST', () => '/api/v3_0/assets'],
    ['PATCH', () => `/api/v3_0/assets/${assetId}`],
    ['POST', () => '/api/v3_0/sensors'],
    ['PATCH', () => `/api/v3_0/sensors/${sensorId}`],
    ['PATCH', () => `/api/v3_0/users/${userId}`],
  ] as const;

  it.each(writes)('%s %s: malformed JSON → 400 with the reference body', async (method, path) => {
    for (const raw of ['{"name": ', '{name: 1}', "{'a': 1}", '{"a": 1}}']) {
      const res = await t.request(method, path(), { token: adminToken, raw });
      expect(res.status, raw).toBe(400);
      expectJson(res);
      expect(res.body).toEqual({ message: 'The browser (or proxy) sent a request that this server could not understand.', status: 400 });
    }
    await expectUnchanged();
  });

  it.each(writes)('%s %s: a JSON array or scalar → 422 _schema "Invalid input type."', async (method, path) => {
    for (const raw of ['[]', '[{"name": "x"}]', '"text"', '5', 'true']) {
      const res = await t.request(method, path(), { token: adminToken, raw });
      expect(res.status, raw).toBe(422);
      expect(res.body).toEqual(unprocessable('json', { _schema: ['Invalid input type.'] }));
    }
    await expectUnchanged();
  });

  it.each(writes)('%s %s: unknown keys → 422 "Unknown field."', async (method, path) => {
    const res = await t.request(method, path(), { token: adminToken, json: { colour: 'red', 'flex-model': {} } });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toMatchObject({ colour: ['Unknown field.'], 'flex-model': ['Unknown field.'] });
    await expectUnchanged();
  });

  it.each([
    [
      'POST',
      () => '/api/v3_0/assets',
      { name: 5, generic_asset_type_id: '5', latitude: '52', attributes: {}, parent_asset_id: 1.5 },
      {
        name: ['Not a valid string.'],
        generic_asset_type_id: ['Not a valid integer.'],
        latitude: ['Not a valid number.'],
        attributes: ['Not a valid string.'],
        parent_asset_id: ['Not a valid integer.'],
      },
    ],
    [
      'POST',
      () => '/api/v3_0/sensors',
      { name: [], unit: 5, event_resolution: 15, generic_asset_id: true, timezone: 1 },
      {
        name: ['Not a valid string.'],
        unit: ['Not a valid string.'],
        event_resolution: ['Not a valid string.'],
        generic_asset_id: ['Not a valid integer.'],
        timezone: ['Not a valid string.'],
      },
    ],
    [
      'POST',
      () => '/api/v3_0/sensors',
      { name: 'x', unit: 'MW', event_resolution: 'PT15M', generic_asset_id: -1 },
      {
        generic_asset_id: ['Must be greater than or equal to 1.'],
      },
    ],
    [
      'POST',
      () => '/api/v3_0/sensors',
      { name: 'x', unit: 'MW', event_resolution: 'PT15M', generic_asset_id: 1e300 },
      {
        generic_asset_id: ['Must be less than or equal to 9007199254740991.'],
      },
    ],
    [
      'PATCH',
      () => `/api/v3_0/users/${userId}`,
      { active: 'false', email: 5, flexmeasures_roles: ['admin'] },
      {
        active: ['Not a valid boolean.'],
        email: ['Not a valid string.'],
        flexmeasures_roles: { 0: ['Not a valid integer.'] },
      },
    ],
    [
      'PATCH',
      () => `/api/v3_0/assets/${assetId}`,
      { name: null, latitude: 'north' },
      {
        name: ['Field may not be null.'],
        latitude: ['Not a valid number.'],
      },
    ],
  ])('%s %s: wrong types → 422 per field', async (method, path, json, messages) => {
    const res = await t.request(method, path(), { token: adminToken, json });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', messages));
    await expectUnchanged();
  });

  it('an empty body with a JSON content type is accepted on GET and DELETE', async () => {
    const headers = { Authorization: adminToken, 'Content-Type': 'application/json' };
    const get = await t.rawRequest('GET', `/api/v3_0/assets/${assetId}`, headers);
    expect(get.status).toBe(200);
    const getWithLength = await t.rawRequest('GET', '/api/v3_0/sensors', headers, '');
    expect(getWithLength.status).toBe(200);
    const s = await f.sensor({ assetId });
    const del = await t.rawRequest('DELETE', `/api/v3_0/sensors/${s.id}`, headers, '');
    expect(del.status).toBe(204);
    expect(await t.db('sensor').where({ id: s.id }).first()).toBeUndefined();
  });

  it('a body over the 64 MB limit → 413, nothing stored', async () => {
    const raw = JSON.stringify({ name: 'x'.repeat(65 * 1024 * 1024), unit: 'MW', event_resolution: 'PT15M', generic_asset_id: assetId });
    const res = await t.request('POST', '/api/v3_0/sensors', { token: adminToken, raw });
    expect(res.status).toBe(413);
    expectJson(res);
    expect(res.body).toEqual({ message: 'The data value transmitted exceeds the capacity limit.', status: 413 });
    await expectUnchanged();
  });

  it('an empty PATCH body counts as no change', async () => {
    const res = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, { token: adminToken, raw: '' });
    expect(res.status).toBe(200);
    await expectUnchanged();
  });
});

describe('a 1 MB string', () => {
  const mb = 'x'.repeat(1024 * 1024);
  it.each([
    [
      'POST',
      () => '/api/v3_0/assets',
      () => ({ name: mb, generic_asset_type_id: 5, account_id: accountId }),
      { name: ['Longer than maximum length 255.'] },
    ],
    [
      'POST',
      () => '/api/v3_0/assets',
      () => ({ name: 'a', generic_asset_type_id: 5, account_id: accountId, attributes: JSON.stringify({ x: mb }) }),
      {
        attributes: ['Longer than maximum length 65536.'],
      },
    ],
    ['PATCH', () => `/api/v3_0/assets/${assetId}`, () => ({ name: mb }), { name: ['Longer than maximum length 255.'] }],
    [
      'POST',
      () => '/api/v3_0/sensors',
      () => ({ name: 'a', unit: mb, event_resolution: 'PT15M', generic_asset_id: assetId }),
      {
        unit: ['Longer than maximum length 80.'],
      },
    ],
    [
      'POST',
      () => '/api/v3_0/sensors',
      () => ({ name: 'a', unit: 'MW', event_resolution: mb, generic_asset_id: assetId }),
      {
        event_resolution: ['Longer than maximum length 64.'],
      },
    ],
    [
      'POST',
      () => '/api/v3_0/sensors',
      () => ({ name: 'a', unit: 'MW', event_resolution: 'PT15M', generic_asset_id: assetId, timezone: mb }),
      {
        timezone: ['Longer than maximum length 64.'],
      },
    ],
    [
      'PATCH',
      () => `/api/v3_0/sensors/${sensorId}`,
      () => ({ attributes: JSON.stringify({ x: mb }) }),
      {
        attributes: ['Longer than maximum length 65536.'],
      },
    ],
    ['PATCH', () => `/api/v3_0/users/${userId}`, () => ({ username: mb }), { username: ['Longer than maximum length 255.'] }],
    ['PATCH', () => `/api/v3_0/users/${userId}`, () => ({ email: `${mb}@example.com` }), { email: ['Longer than maximum length 255.'] }],
  ])('%s %s → 422, nothing stored', async (method, path, json, messages) => {
    const res = await t.request(method, path(), { token: adminToken, json: json() });
    expect(res.status).toBe(422);
    expectJson(res);
    expect(res.body).toEqual(unprocessable('json', messages));
    await expectUnchanged();
  });

  it('as a token or an email to log in with is refused without a 500', async () => {
    const token = await t.request('GET', '/api/v3_0/assets', { token: mb });
    expect(token.status).toBe(431);
    expectJson(token);
    expect(token.body).toEqual({ message: 'One or more header fields exceeds the maximum size.', status: 431 });
    const login = await t.request('POST', '/api/requestAuthToken', { json: { email: mb, password: mb } });
    expect(login.status).toBe(404);
    expectJson(login);
    await expectUnchanged();
  });
});

describe('issue 10 findings: each refused with a field message, nothing stored', () => {
  const upload = (values: unknown, extra: Record<string, unknown> = {}) => ({
    values,
    start: '2030-01-01T00:00:00+00:00',
    duration: 'PT30M',
    unit: 'kW',
    ...extra,
  });
  const post = (id: number, body: unknown) => t.request('POST', `/api/v3_0/sensors/${id}/data`, { token: adminToken, json: body });
  let kwSensor: number;
  beforeAll(async () => {
    kwSensor = (await f.sensor({ assetId, unit: 'kW' })).id;
  });

  it('a body nested 4,500 levels deep → 422 naming the field, also as JSON text', async () => {
    const deep = '{"a":'.repeat(4500) + '1' + '}'.repeat(4500);
    const asObject = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, { token: adminToken, raw: `{"attributes": ${deep}}` });
    expect(asObject.status).toBe(422);
    expect(asObject.body).toEqual(unprocessable('json', { attributes: ['Nested deeper than 64 levels.'] }));
    const asText = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, { token: adminToken, json: { attributes: deep } });
    expect(asText.status).toBe(422);
    expect(asText.body).toEqual(unprocessable('json', { attributes: ['Nested deeper than 64 levels.'] }));
    const array = await t.request('POST', `/api/v3_0/sensors/${kwSensor}/data`, {
      token: adminToken,
      raw: '['.repeat(4500) + ']'.repeat(4500),
    });
    expect(array.status).toBe(422);
    expect(array.body).toEqual(unprocessable('json', { _schema: ['Nested deeper than 64 levels.'] }));
    await expectUnchanged();
  });

  it('accepts attributes nested a few levels, as real ones are', async () => {
    const attributes = JSON.stringify({ 'flex-model': { 'soc-targets': [{ value: 1, datetime: '2030-01-01T00:00:00Z' }] } });
    const res = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, { token: adminToken, json: { attributes } });
    expect(res.status).toBe(200);
  });

  it.each([
    ['2030-01-01', 'Not a valid aware datetime.'],
    ['2030-01-01T00:00:00', 'Not a valid aware datetime.'],
    ['2030-01-01T00:00:00+25:00', 'Not a valid datetime.'],
    ['2030-01-01T00:00:00+24:00', 'Not a valid datetime.'],
    ['2030-01-01T00:00:00-01:60', 'Not a valid datetime.'],
  ])('start %s → 422 "%s"', async (start, message) => {
    const res = await post(kwSensor, upload([1, 2], { start }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', { start: [message] }));
    await expectUnchanged();
  });

  it('offsets up to ±23:59 are fine', async () => {
    const res = await post(kwSensor, upload([1, 2], { start: '2030-01-01T00:00:00-23:30', prior: '2029-12-01T00:00:00Z' }));
    expect(res.status).toBe(200);
  });

  it('NaN and Infinity anywhere in a body → 422 naming the field, never stored as text', async () => {
    const special = ['Special numeric values (nan or infinity) are not permitted.'];
    const lat = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, {
      token: adminToken,
      raw: '{"latitude": NaN, "longitude": -Infinity}',
    });
    expect(lat.status).toBe(422);
    expect(lat.body).toEqual(unprocessable('json', { latitude: special, longitude: special }));
    const nested = await t.request('POST', `/api/v3_0/sensors/${kwSensor}/schedules/trigger`, {
      token: adminToken,
      raw: '{"start": "2030-01-01T00:00:00Z", "flex-model": {"soc-at-start": NaN, "soc-unit": "kWh"}}',
    });
    expect(nested.status).toBe(422);
    expect(nested.body).toEqual(unprocessable('json', { 'flex-model': { 'soc-at-start': special } }));
    await expectUnchanged();
  });

  it('numbers that are infinite as text, or overflow into the sensor unit → 422', async () => {
    const text = await post(kwSensor, upload(['1e999', 2]));
    expect(text.status).toBe(422);
    expect(text.body).toEqual(unprocessable('json', { values: { 0: ['Special numeric values (nan or infinity) are not permitted.'] } }));
    const overflow = await post(kwSensor, upload([1e308, 2], { unit: 'MW' }));
    expect(overflow.status).toBe(422);
    expect(overflow.body).toEqual(unprocessable('json', { values: ['1e+308 MW is out of range: at most 1e+100 kW in magnitude.'] }));
    const huge = await post(kwSensor, upload([1e308, 2]));
    expect(huge.status).toBe(422);
    await expectUnchanged();
  });

  it('unit "" and event_resolution "PT" → 422', async () => {
    const res = await t.request('POST', '/api/v3_0/sensors', {
      token: adminToken,
      json: { name: 'x', unit: '', event_resolution: 'PT', generic_asset_id: assetId },
    });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual({
      unit: ["Unit '' cannot be handled."],
      event_resolution: [expect.stringMatching(/^Cannot parse PT as ISO8601 duration: /)],
    });
    for (const event_resolution of ['P', '-PT', 'P1DT']) {
      const patch = await t.request('PATCH', `/api/v3_0/sensors/${sensorId}`, { token: adminToken, json: { event_resolution } });
      expect(patch.status, event_resolution).toBe(422);
    }
    const data = await post(kwSensor, upload([1, 2], { unit: '' }));
    expect(data.status).toBe(422);
    expect(data.body).toEqual(unprocessable('json', { unit: ["Unit '' cannot be handled."] }));
    await expectUnchanged();
  });

  it('NUL characters in text or in the address are refused (PostgreSQL cannot hold them)', async () => {
    const res = await t.request('POST', '/api/v3_0/assets', {
      token: adminToken,
      json: { name: 'a\u0000b', generic_asset_type_id: 5, account_id: accountId, attributes: JSON.stringify({ k: 'v' }) },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', { name: ['Text may not contain NUL characters.'] }));
    for (const path of ['/api/v3_0/jobs/%00', `/api/v3_0/assets/${assetId}%00`, '/api/v3_0/assets?account_id=%00']) {
      const bad = await t.request('GET', path, { token: adminToken });
      expect(bad.status, path).toBe(400);
      expectJson(bad);
    }
    await expectUnchanged();
  });

  it.each(['/assets', '/users', '/accounts', '/sensors'])(
    'ids with leading zeros in %s/0<id> → 422 "Not a valid integer."',
    async (path) => {
      const id = { '/assets': assetId, '/users': userId, '/accounts': accountId, '/sensors': sensorId }[path]!;
      for (const text of [`0${id}`, `00${id}`, `-0${id}`, `%20${id}`, `${id}%20`]) {
        const res = await t.request('GET', `/api/v3_0${path}/${text}`, { token: adminToken });
        expect(res.status, text).toBe(422);
        expect(res.body).toEqual(unprocessable('path', { id: ['Not a valid integer.'] }));
      }
      if (path !== '/accounts') {
        const patched = await t.request('PATCH', `/api/v3_0${path}/0${id}`, { token: adminToken, json: { name: 'renamed' } });
        expect(patched.status).toBe(422);
      }
      await expectUnchanged();
    },
  );
});
