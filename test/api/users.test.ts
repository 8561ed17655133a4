import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../server/src/store/users.ts';
import { unprocessable } from '../helpers/bodies.ts';
import { factories, PASSWORD } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let roleIds: Record<string, number>;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const roles = await t.db('role').select<{ id: number; name: string }[]>('id', 'name');
  roleIds = Object.fromEntries(roles.map((r) => [r.name, r.id]));
});
afterAll(() => t.close());

/** The user JSON of the reference (§13.1) for a user made by the factories. */
const userJson = (u: User, changes: Record<string, unknown> = {}) => ({
  id: u.id,
  email: u.email,
  username: u.username,
  account_id: u.account_id,
  active: u.active,
  timezone: 'Europe/Amsterdam',
  flexmeasures_roles: u.roleIds,
  last_login_at: null,
  last_seen_at: null,
  ...changes,
});

describe('GET /api/v3_0/users', () => {
  it("lists the active users of the caller's account; include_inactive adds the others", async () => {
    const accountId = (await f.account()).id;
    const me = await f.user({ accountId, roles: ['account-admin'] });
    const colleague = await f.user({ accountId, roles: ['consultant', 'account-admin'] });
    const inactive = await f.user({ accountId, active: false });
    await f.user({ accountId: (await f.account()).id });

    const res = await t.request('GET', '/api/v3_0/users', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([userJson(me.user), userJson(colleague.user)]);
    expect(colleague.user.roleIds).toEqual([roleIds['account-admin'], roleIds.consultant]);

    for (const flag of ['true', 'True', '1']) {
      const all = await t.request('GET', '/api/v3_0/users', { token: me.token, query: { include_inactive: flag } });
      expect(all.body, flag).toEqual([userJson(me.user), userJson(colleague.user), userJson(inactive.user, { active: false })]);
    }
    const off = await t.request('GET', '/api/v3_0/users', { token: me.token, query: { include_inactive: 'False' } });
    expect(off.body).toEqual(res.body);
  });

  it('refuses a non-boolean include_inactive and unknown accounts', async () => {
    const { token } = await f.user({ accountId: (await f.account()).id });
    const bad = await t.request('GET', '/api/v3_0/users', { token, query: { include_inactive: 'maybe' } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual(unprocessable('query', { include_inactive: ['Not a valid boolean.'] }));
    const unknown = await t.request('GET', '/api/v3_0/users', { token, query: { account_id: 999_999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Account 999999 not found', status: 404 });
  });
});

describe('GET /api/v3_0/users/<id>', () => {
  it('reads a user with the integer status key, and the naive UTC login time after a login', async () => {
    const accountId = (await f.account()).id;
    const { user, token } = await f.user({ accountId });
    const res = await t.request('GET', `/api/v3_0/users/${user.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...userJson(user), status: 200 });

    const login = await t.request('POST', '/api/requestAuthToken', { json: { email: user.email, password: PASSWORD } });
    expect(login.status).toBe(200);
    const after = await t.request('GET', `/api/v3_0/users/${user.id}`, { token });
    expect(after.body.last_login_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const stored = await t.db('user').where({ id: user.id }).first();
    expect(after.body.last_login_at).toBe(new Date(Number(stored.last_login_at)).toISOString().slice(0, 19));
  });

  it('answers 404 for an unknown user', async () => {
    const { token } = await f.user({ accountId: (await f.account()).id });
    const res = await t.request('GET', '/api/v3_0/users/999999', { token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'User 999999 not found', status: 404 });
  });
});

describe('PATCH /api/v3_0/users/<id>', () => {
  it('lets an account-admin change email, username, timezone, active and roles', async () => {
    const accountId = (await f.account()).id;
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const { user } = await f.user({ accountId });
    const res = await t.request('PATCH', `/api/v3_0/users/${user.id}`, {
      token: admin.token,
      json: {
        email: `renamed-${user.id}@example.com`,
        username: `renamed-${user.id}`,
        timezone: 'Asia/Seoul',
        active: false,
        flexmeasures_roles: [roleIds['account-admin']],
      },
    });
    expect(res.status).toBe(200);
    const expected = userJson(user, {
      email: `renamed-${user.id}@example.com`,
      username: `renamed-${user.id}`,
      timezone: 'Asia/Seoul',
      active: false,
      flexmeasures_roles: [roleIds['account-admin']],
    });
    expect(res.body).toEqual({ ...expected, status: 200 });
    const stored = await t.db('user').where({ id: user.id }).first();
    expect(stored).toMatchObject({ email: expected.email, username: expected.username, timezone: 'Asia/Seoul' });
    // SQLite keeps booleans as 0/1, PostgreSQL as booleans.
    expect(Boolean(stored.active)).toBe(false);
    expect(await t.db('user_role').where({ user_id: user.id }).pluck('role_id')).toEqual([roleIds['account-admin']]);
  });

  it('lets ordinary users edit their own descriptive fields', async () => {
    const { user, token } = await f.user({ accountId: (await f.account()).id });
    const res = await t.request('PATCH', `/api/v3_0/users/${user.id}`, { token, json: { timezone: 'UTC', username: `me-${user.id}` } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...userJson(user, { timezone: 'UTC', username: `me-${user.id}` }), status: 200 });
  });

  it('ignores the read-only timestamps it accepts', async () => {
    const { user, token } = await f.user({ accountId: (await f.account()).id });
    const res = await t.request('PATCH', `/api/v3_0/users/${user.id}`, {
      token,
      json: { last_login_at: '2020-01-01T00:00:00', last_seen_at: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.last_login_at).toBeNull();
  });

  it('answers a duplicate email or username with the reference 400 and changes nothing', async () => {
    const accountId = (await f.account()).id;
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const { user } = await f.user({ accountId });
    const before = await t.db('user').where({ id: user.id }).first();
    const email = await t.request('PATCH', `/api/v3_0/users/${user.id}`, {
      token: admin.token,
      json: { email: admin.user.email.toUpperCase() },
    });
    expect(email.status).toBe(400);
    expect(email.body).toEqual({ message: 'Duplicate user already exists', detail: expect.any(String), status: 400 });
    const username = await t.request('PATCH', `/api/v3_0/users/${user.id}`, {
      token: admin.token,
      json: { username: admin.user.username },
    });
    expect(username.status).toBe(400);
    expect(username.body).toEqual({ message: 'Duplicate user already exists', detail: expect.any(String), status: 400 });
    expect(await t.db('user').where({ id: user.id }).first()).toEqual(before);
  });

  it('refuses unknown role ids, and platform-wide roles from anyone but an admin', async () => {
    const accountId = (await f.account()).id;
    const accountAdmin = await f.user({ accountId, roles: ['account-admin'] });
    const admin = await f.user({ accountId, roles: ['admin'] });
    const { user } = await f.user({ accountId });
    const unknown = await t.request('PATCH', `/api/v3_0/users/${user.id}`, {
      token: accountAdmin.token,
      json: { flexmeasures_roles: [999] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toEqual({ json: { flexmeasures_roles: ['Unknown role id(s): 999.'] } });
    for (const role of ['admin', 'admin-reader']) {
      const res = await t.request('PATCH', `/api/v3_0/users/${user.id}`, {
        token: accountAdmin.token,
        json: { flexmeasures_roles: [roleIds[role]] },
      });
      expect(res.status, role).toBe(403);
    }
    expect(await t.db('user_role').where({ user_id: user.id }).pluck('role_id')).toEqual([]);
    const byAdmin = await t.request('PATCH', `/api/v3_0/users/${user.id}`, {
      token: admin.token,
      json: { flexmeasures_roles: [roleIds['admin-reader']] },
    });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.flexmeasures_roles).toEqual([roleIds['admin-reader']]);
  });

  it.each([
    [{ id: 5 }, { id: ['Unknown field.'] }],
    [{ account_id: 5 }, { account_id: ['Unknown field.'] }],
    [{ password: 'a new password' }, { password: ['Unknown field.'] }],
    [{ email: 'not-an-email' }, { email: ['Not a valid email address.'] }],
    [{ active: 'yes' }, { active: ['Not a valid boolean.'] }],
    [{ timezone: 'Europe/Nowhere' }, { timezone: ["Timezone Europe/Nowhere doesn't exist."] }],
    [{ flexmeasures_roles: 'admin' }, { flexmeasures_roles: ['Invalid input type.'] }],
    [{ username: '' }, { username: ['Shorter than minimum length 1.'] }],
  ])('refuses %j', async (body, messages) => {
    const accountId = (await f.account()).id;
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const { user } = await f.user({ accountId });
    const before = await t.db('user').where({ id: user.id }).first();
    const res = await t.request('PATCH', `/api/v3_0/users/${user.id}`, { token: admin.token, json: body });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', messages));
    expect(await t.db('user').where({ id: user.id }).first()).toEqual(before);
  });
});

describe('PATCH /api/v3_0/users/<id>/password-reset', () => {
  it('answers the bare status and sets a new password', async () => {
    const accountId = (await f.account()).id;
    const { user, token } = await f.user({ accountId });
    const before = await t.db('user').where({ id: user.id }).first();
    const res = await t.request('PATCH', `/api/v3_0/users/${user.id}/password-reset`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 200 });
    const after = await t.db('user').where({ id: user.id }).first();
    expect(after.password_hash).not.toBe(before.password_hash);
    // A reset password is no password of the user's own: a set-password link may follow (issue 28).
    expect(after).toEqual({ ...before, password_hash: after.password_hash, password_chosen: after.password_chosen });
    expect(Boolean(after.password_chosen)).toBe(false);
  });
});
