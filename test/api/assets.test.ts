import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    expect(res.body).toEqual({
      message: 'You could not be properly authenticated for this content or functionality.',
      status: 'UNAUTHORIZED',
    });
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
    expect(res.body).toEqual({
      message: {
        json: {
          generic_asset_type_id: ['Not a valid integer.'],
          latitude: ['Latitude 91 exceeds the maximum latitude of 90 degrees.'],
          colour: ['Unknown field.'],
        },
      },
      result: 'Rejected',
      status: 'UNPROCESSABLE_ENTITY',
    });
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
