import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unauthorized, unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let adminToken: string;
let memberToken: string;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  adminToken = (await f.user({ accountId, roles: ['account-admin'] })).token;
  memberToken = (await f.user({ accountId })).token;
});
afterAll(() => t.close());

describe('assets', () => {
  it('refuses anonymous callers', async () => {
    const res = await t.request('GET', '/api/v3_0/assets');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized);
  });

  it('creates, reads, patches and deletes an asset', async () => {
    const batteryType = await f.assetType('battery');
    const created = await t.request('POST', '/api/v3_0/assets', {
      token: adminToken,
      json: { name: 'battery 1', generic_asset_type_id: batteryType, account_id: accountId, latitude: 52.1, longitude: 4.3 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'battery 1',
      latitude: 52.1,
      longitude: 4.3,
      generic_asset_type_id: batteryType,
      account_id: accountId,
      parent_asset_id: null,
      attributes: '{}',
    });
    const id = created.body.id;
    const got = await t.request('GET', `/api/v3_0/assets/${id}`, { token: memberToken });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...created.body, status: 200 });

    const patched = await t.request('PATCH', `/api/v3_0/assets/${id}`, {
      token: memberToken,
      json: { name: 'battery one', attributes: '{"capacity_in_mw": 2}' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('battery one');
    expect(patched.body.attributes).toBe('{"capacity_in_mw":2}');

    const listed = await t.request('GET', '/api/v3_0/assets', { token: memberToken });
    expect(listed.body.map((a: { id: number }) => a.id)).toContain(id);

    const deleted = await t.request('DELETE', `/api/v3_0/assets/${id}`, { token: adminToken });
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('content-type')).toContain('application/json');
    expect(await t.db('generic_asset').where({ id }).first()).toBeUndefined();
  });

  it('answers 404 for unknown assets', async () => {
    const res = await t.request('GET', '/api/v3_0/assets/999999', { token: memberToken });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'GenericAsset 999999 not found', status: 404 });
  });

  it('validates the body with field messages and stores nothing', async () => {
    const before = await t.db('generic_asset').count<{ n: number }[]>({ n: '*' });
    const res = await t.request('POST', '/api/v3_0/assets', {
      token: adminToken,
      json: { name: 'x', generic_asset_type_id: 'battery', latitude: 91, account_id: accountId, colour: 'red' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      unprocessable('json', {
        generic_asset_type_id: ['Not a valid integer.'],
        latitude: ['Latitude 91 exceeds the maximum latitude of 90 degrees.'],
        colour: ['Unknown field.'],
      }),
    );
    expect(await t.db('generic_asset').count<{ n: number }[]>({ n: '*' })).toEqual(before);
  });

  it('lists the default asset types', async () => {
    const res = await t.request('GET', '/api/v3_0/assets/types', { token: memberToken });
    expect(res.status).toBe(200);
    expect(res.body.map((x: { name: string }) => x.name)).toEqual(
      expect.arrayContaining(['solar', 'wind', 'one-way_evse', 'two-way_evse', 'battery', 'building', 'process', 'transmission zone']),
    );
  });
});

describe('asset bodies', () => {
  const assetJson = (a: { id: number; name: string; generic_asset_type_id: number; account_id: number | null }, changes = {}) => ({
    id: a.id,
    name: a.name,
    latitude: null,
    longitude: null,
    generic_asset_type_id: a.generic_asset_type_id,
    account_id: a.account_id,
    parent_asset_id: null,
    attributes: '{}',
    ...changes,
  });

  it("lists the caller's account's assets, and public ones separately", async () => {
    const own = (await f.account()).id;
    const { token } = await f.user({ accountId: own });
    const a1 = await f.asset({ accountId: own });
    const a2 = await f.asset({ accountId: own, attributes: { sensors_to_show: [] } });
    await f.asset({ accountId: accountId });
    const pub = await f.asset({ accountId: null, type: 'transmission zone' });

    const res = await t.request('GET', '/api/v3_0/assets', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([assetJson(a1), assetJson(a2, { attributes: '{"sensors_to_show":[]}' })]);

    const listed = await t.request('GET', '/api/v3_0/assets/public', { token });
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual(assetJson(pub));
    expect(listed.body.every((a: { account_id: number | null }) => a.account_id === null)).toBe(true);
  });

  it('lists the asset types with ids and descriptions', async () => {
    const res = await t.request('GET', '/api/v3_0/assets/types', { token: memberToken });
    const stored = await t.db('generic_asset_type').orderBy('id').select('id', 'name', 'description');
    expect(res.body).toEqual(stored);
    expect(res.body.slice(0, 8)).toEqual([
      { id: 1, name: 'solar', description: 'solar panel(s)' },
      { id: 2, name: 'wind', description: 'wind turbine' },
      { id: 3, name: 'one-way_evse', description: 'uni-directional Electric Vehicle Supply Equipment' },
      { id: 4, name: 'two-way_evse', description: 'bi-directional Electric Vehicle Supply Equipment' },
      { id: 5, name: 'battery', description: 'stationary battery' },
      { id: 6, name: 'building', description: 'building' },
      { id: 7, name: 'process', description: 'process' },
      { id: 8, name: 'transmission zone', description: 'A grid regulated & balanced as a whole, usually a national grid.' },
    ]);
  });

  it('patches every patchable field and answers the whole asset', async () => {
    const parent = await f.asset({ accountId });
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id });
    const building = await f.assetType('building');
    const res = await t.request('PATCH', `/api/v3_0/assets/${asset.id}`, {
      token: memberToken,
      json: {
        name: 'renamed',
        latitude: 52.1234567,
        longitude: -4.5,
        generic_asset_type_id: building,
        parent_asset_id: parent.id,
        attributes: JSON.stringify({ sensors_to_show: [sensor.id, [sensor.id]] }),
      },
    });
    expect(res.status).toBe(200);
    const expected = assetJson(asset, {
      name: 'renamed',
      latitude: 52.1234567,
      longitude: -4.5,
      generic_asset_type_id: building,
      parent_asset_id: parent.id,
      attributes: JSON.stringify({ sensors_to_show: [sensor.id, [sensor.id]] }),
    });
    expect(res.body).toEqual({ ...expected, status: 200 });
    expect((await t.request('GET', `/api/v3_0/assets/${asset.id}`, { token: memberToken })).body).toEqual({ ...expected, status: 200 });
    const cleared = await t.request('PATCH', `/api/v3_0/assets/${asset.id}`, {
      token: memberToken,
      json: { latitude: null, parent_asset_id: null },
    });
    expect(cleared.body).toEqual({ ...expected, latitude: null, parent_asset_id: null, status: 200 });
  });

  it('creates public assets for admins only', async () => {
    const { token: admin } = await f.user({ accountId, roles: ['admin'] });
    const type = await f.assetType('transmission zone');
    const created = await t.request('POST', '/api/v3_0/assets', {
      token: admin,
      json: { name: 'a public zone', generic_asset_type_id: type, account_id: null },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(assetJson({ id: created.body.id, name: 'a public zone', generic_asset_type_id: type, account_id: null }));
    const before = await t.db('generic_asset').count<{ n: number }[]>({ n: '*' });
    const refused = await t.request('POST', '/api/v3_0/assets', {
      token: adminToken,
      json: { name: 'not public', generic_asset_type_id: type, account_id: null },
    });
    expect(refused.status).toBe(403);
    expect(await t.db('generic_asset').count<{ n: number }[]>({ n: '*' })).toEqual(before);
  });

  it.each([
    [
      'another account',
      async () => ({ account_id: (await f.account()).id }),
      { account_id: ['User is not allowed to create assets for this account.'] },
    ],
    [
      'an unknown type',
      async () => ({ generic_asset_type_id: 999 }),
      { generic_asset_type_id: ["GenericAssetType with id 999 doesn't exist."] },
    ],
    ['an unknown parent', async () => ({ parent_asset_id: 999_999 }), { parent_asset_id: ["GenericAsset with id 999999 doesn't exist."] }],
    [
      'a taken name',
      async () => ({ name: (await f.asset({ accountId })).name }),
      { name: [expect.stringMatching(/^An asset with the name '.*' already exists under parent asset with id=null\.$/)] },
    ],
    [
      'a longitude out of range',
      async () => ({ longitude: -180.5 }),
      { longitude: ['Longitude -180.5 exceeds the minimum longitude of -180 degrees.'] },
    ],
    [
      'too many decimals',
      async () => ({ latitude: 52.123456789 }),
      { latitude: ['Latitudes and longitudes are limited to 7 decimal places.'] },
    ],
    [
      'sensors_to_show not a list',
      async () => ({ attributes: '{"sensors_to_show": 5}' }),
      { attributes: ['sensors_to_show should be a list.'] },
    ],
    [
      'sensors_to_show with text',
      async () => ({ attributes: '{"sensors_to_show": ["a"]}' }),
      { attributes: ['sensors_to_show should only contain sensor IDs (integers) or lists thereof.'] },
    ],
    [
      'sensors_to_show with an unknown sensor',
      async () => ({ attributes: '{"sensors_to_show": [999999]}' }),
      { attributes: ['No sensor found with id 999999.'] },
    ],
    ['null attributes', async () => ({ attributes: null }), { attributes: ['Field may not be null.'] }],
  ])('refuses %s on create and stores nothing', async (_, change, messages) => {
    const body = {
      name: `new ${Math.random()}`,
      generic_asset_type_id: await f.assetType('battery'),
      account_id: accountId,
      ...(await change()),
    };
    const before = await t.db('generic_asset').count<{ n: number }[]>({ n: '*' });
    const res = await t.request('POST', '/api/v3_0/assets', { token: adminToken, json: body });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', messages));
    expect(await t.db('generic_asset').count<{ n: number }[]>({ n: '*' })).toEqual(before);
  });

  it.each([
    [{ account_id: 1 }, { account_id: ['Unknown field.'] }],
    [{ id: 1 }, { id: ['Unknown field.'] }],
  ])('refuses to patch %j', async (body, messages) => {
    const asset = await f.asset({ accountId });
    const before = await t.db('generic_asset').where({ id: asset.id }).first();
    const res = await t.request('PATCH', `/api/v3_0/assets/${asset.id}`, { token: adminToken, json: body });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({ json: messages });
    expect(await t.db('generic_asset').where({ id: asset.id }).first()).toEqual(before);
  });

  it("keeps parents inside the account: another account's asset is refused, an unreadable one looks unknown", async () => {
    const { token: admin } = await f.user({ accountId, roles: ['admin'] });
    const elsewhere = await f.asset({ accountId: (await f.account()).id });
    const own = await f.asset({ accountId });
    const before = await t.db('generic_asset').count<{ n: number }[]>({ n: '*' });
    const body = { name: `child ${Math.random()}`, generic_asset_type_id: 5, account_id: accountId, parent_asset_id: elsewhere.id };
    const hidden = await t.request('POST', '/api/v3_0/assets', { token: adminToken, json: body });
    expect(hidden.status).toBe(422);
    expect(hidden.body).toEqual(unprocessable('json', { parent_asset_id: [`GenericAsset with id ${elsewhere.id} doesn't exist.`] }));
    const visible = await t.request('POST', '/api/v3_0/assets', { token: admin, json: body });
    expect(visible.status).toBe(422);
    expect(visible.body).toEqual(unprocessable('json', { parent_asset_id: ['A parent asset must belong to the same account.'] }));
    const patched = await t.request('PATCH', `/api/v3_0/assets/${own.id}`, { token: admin, json: { parent_asset_id: elsewhere.id } });
    expect(patched.status).toBe(422);
    expect(await t.db('generic_asset').count<{ n: number }[]>({ n: '*' })).toEqual(before);
    expect((await t.db('generic_asset').where({ id: own.id }).first()).parent_asset_id).toBeNull();
  });

  it('refuses to make an asset its own parent, or to rename it onto a sibling', async () => {
    const asset = await f.asset({ accountId });
    const sibling = await f.asset({ accountId });
    const before = await t.db('generic_asset').where({ id: asset.id }).first();
    const own = await t.request('PATCH', `/api/v3_0/assets/${asset.id}`, { token: adminToken, json: { parent_asset_id: asset.id } });
    expect(own.status).toBe(422);
    expect(own.body.message).toEqual({ json: { parent_asset_id: ['An asset cannot be its own parent.'] } });
    const clash = await t.request('PATCH', `/api/v3_0/assets/${asset.id}`, { token: adminToken, json: { name: sibling.name } });
    expect(clash.status).toBe(422);
    expect(await t.db('generic_asset').where({ id: asset.id }).first()).toEqual(before);
  });
});
