/** FlexMeasures 1.0's user and asset audit logs: what the API records, and who may read it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories, PASSWORD } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let boss: { token: string; user: { id: number; username: string } };
let stranger: string;
let batteryType: number;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  boss = await f.user({ accountId, roles: ['account-admin'] });
  stranger = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
  batteryType = await f.assetType('battery');
});
afterAll(() => t.close());

const events = (body: { event: string }[]) => body.map((e) => e.event);

describe('GET /api/v3_0/users/<id>/auditlog', () => {
  it('records creation, role and standing changes and password resets, each by its actor', async () => {
    const roles = Object.fromEntries((await t.db('role').select('id', 'name')).map((r: { id: number; name: string }) => [r.name, r.id]));
    const created = await t.request('POST', '/api/v3_0/users', {
      token: boss.token,
      json: { email: 'new@example.com', username: 'newbie', account_id: accountId },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    await t.request('PATCH', `/api/v3_0/users/${id}`, {
      token: boss.token,
      json: { flexmeasures_roles: [roles['account-admin']], timezone: 'UTC' },
    });
    await t.request('PATCH', `/api/v3_0/users/${id}`, { token: boss.token, json: { flexmeasures_roles: [], active: false } });
    await t.request('PATCH', `/api/v3_0/users/${id}/password-reset`, { token: boss.token });
    const res = await t.request('GET', `/api/v3_0/users/${id}/auditlog`, { token: boss.token });
    expect(res.status).toBe(200);
    expect(events(res.body)).toEqual([
      'User newbie created',
      'Added role(s): [account-admin].',
      "Removed role(s): [account-admin].Active status set to 'False'.",
      'Password reset for user newbie',
    ]);
    expect(res.body[0]).toEqual({
      event: 'User newbie created',
      event_datetime: expect.any(String),
      active_user_name: boss.user.username,
      active_user_id: boss.user.id,
    });
    // A timezone change alone is not recorded (1.0 records roles and standing only).
    const page = await t.request('GET', `/api/v3_0/users/${id}/auditlog`, {
      token: boss.token,
      query: { page: 1, 'per-page': 2, filter: 'role(s)', 'sort-by': 'event_datetime', 'sort-dir': 'desc' },
    });
    expect(page.body).toMatchObject({ 'num-records': 4, 'filtered-records': 2 });
    expect(page.body.data).toHaveLength(2);
  });

  it('records a password the user set themselves, as theirs; a refused change records nothing', async () => {
    const me = await f.user({ accountId });
    const path = `/api/v3_0/users/${me.user.id}/password`;
    const wrong = await t.request('PATCH', path, { token: me.token, json: { current_password: 'not it', password: 'another-password' } });
    expect(wrong.status).toBe(422);
    const set = await t.request('PATCH', path, { token: me.token, json: { current_password: PASSWORD, password: 'another-password' } });
    expect(set.status).toBe(200);
    const res = await t.request('GET', `/api/v3_0/users/${me.user.id}/auditlog`, { token: boss.token });
    expect(res.body).toEqual([
      {
        event: `Password set for user ${me.user.username}`,
        event_datetime: expect.any(String),
        active_user_name: me.user.username,
        active_user_id: me.user.id,
      },
    ]);
  });

  it('is read by the user, their account-admins and admins; not by colleagues or strangers', async () => {
    const someone = await f.user({ accountId });
    const read = async (token: string) => (await t.request('GET', `/api/v3_0/users/${someone.user.id}/auditlog`, { token })).status;
    expect(await read(someone.token)).toBe(200);
    expect(await read(boss.token)).toBe(200);
    expect(await read((await f.user({ accountId })).token)).toBe(403);
    expect(await read(stranger)).toBe(403);
    expect((await t.request('GET', '/api/v3_0/users/999999/auditlog', { token: boss.token })).status).toBe(404);
    expect(
      (await t.request('GET', `/api/v3_0/users/${someone.user.id}/auditlog`, { token: boss.token, query: { 'sort-by': 'event' } })).status,
    ).toBe(422);
  });
});

describe('GET /api/v3_0/assets/<id>/auditlog', () => {
  it('records creation, each changed field and attribute, data deletion; a page always', async () => {
    const created = await t.request('POST', '/api/v3_0/assets', {
      token: boss.token,
      json: {
        name: 'Battery',
        generic_asset_type_id: batteryType,
        account_id: accountId,
        latitude: 52,
        longitude: 4,
        attributes: JSON.stringify({ capacity_in_mw: 1 }),
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const patched = await t.request('PATCH', `/api/v3_0/assets/${id}`, {
      token: boss.token,
      json: { name: 'Big battery', latitude: 52, attributes: JSON.stringify({ capacity_in_mw: 2 }) },
    });
    expect(patched.status).toBe(200);
    const sensor = await f.sensor({ assetId: id, name: 'power' });
    const deleted = await t.request('DELETE', `/api/v3_0/sensors/${sensor.id}/data`, {
      token: boss.token,
      json: { start: '2026-01-01T00:00:00+00:00' },
    });
    expect(deleted.status).toBe(204);
    const res = await t.request('GET', `/api/v3_0/assets/${id}/auditlog`, { token: boss.token });
    expect(res.status).toBe(200);
    expect(res.body['num-records']).toBe(4);
    expect(events(res.body.data)).toEqual([
      `Created asset 'Battery': ${id}`,
      'Updated: name, From: Battery, To: Big battery',
      'Updated Attr: capacity_in_mw, From: 1, To: 2',
      `Deleted data for sensor 'power': ${sensor.id}, from: 2026-01-01 00:00:00+00:00`,
    ]);
    // Asset entries stay out of the account's log, as 1.0 keeps them in a log of their own.
    const accountLog = await t.request('GET', `/api/v3_0/accounts/${accountId}/auditlog`, { token: boss.token });
    expect(events(accountLog.body).some((e: string) => e.includes('asset'))).toBe(false);
  });

  it('a deleted asset’s entries stay stored; another account is refused', async () => {
    const { id } = await f.asset({ accountId, name: 'Short-lived' });
    expect((await t.request('GET', `/api/v3_0/assets/${id}/auditlog`, { token: stranger })).status).toBe(403);
    expect((await t.request('DELETE', `/api/v3_0/assets/${id}`, { token: boss.token })).status).toBe(204);
    expect(await t.db('audit_log').where({ affected_asset_id: id }).pluck('event')).toEqual([`Deleted asset 'Short-lived': ${id}`]);
    expect((await t.request('GET', `/api/v3_0/assets/${id}/auditlog`, { token: boss.token })).status).toBe(404);
  });

  it('a refused change records nothing', async () => {
    const { id } = await f.asset({ accountId, name: 'Kept' });
    const res = await t.request('PATCH', `/api/v3_0/assets/${id}`, { token: boss.token, json: { latitude: 500 } });
    expect(res.status).toBe(422);
    expect(await t.db('audit_log').where({ affected_asset_id: id }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});
