import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/db.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Issue 20: an account-admin cannot change, deactivate, reset the password of, or re-address a
 * user holding a role they could not grant (a platform admin, a consultant); only platform
 * admins grant `consultant`.
 */

let t: TestServer;
let f: ReturnType<typeof factories>;
let roleIds: Record<string, number>;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  roleIds = Object.fromEntries((await t.db('role').select('id', 'name')).map((r: { id: number; name: string }) => [r.name, r.id]));
});
afterAll(() => t.close());

describe('an account-admin beside a user with a role they could not grant', () => {
  for (const role of ['admin', 'admin-reader', 'consultant']) {
    it(`cannot touch a colleague holding ${role}: 403 for every change, nothing stored`, async () => {
      const accountId = (await f.account()).id;
      const accountAdmin = await f.user({ accountId, roles: ['account-admin'] });
      const target = await f.user({ accountId, roles: [role] });
      const before = await snapshot(t.db);
      const changes = [
        { flexmeasures_roles: [] },
        { active: false },
        { email: `taken-over-${target.user.id}@example.com` },
        { username: `taken-over-${target.user.id}` },
      ];
      for (const json of changes) {
        const res = await t.request('PATCH', `/api/v3_0/users/${target.user.id}`, { token: accountAdmin.token, json });
        expect(res.status, JSON.stringify(json)).toBe(403);
      }
      const reset = await t.request('PATCH', `/api/v3_0/users/${target.user.id}/password-reset`, { token: accountAdmin.token });
      expect(reset.status).toBe(403);
      expect(await snapshot(t.db)).toEqual(before);
      // The target's session still works: no reset revoked it.
      expect((await t.request('GET', `/api/v3_0/users/${target.user.id}`, { token: target.token })).status).toBe(200);
    });
  }

  it('still manages plain colleagues and account-admins', async () => {
    const accountId = (await f.account()).id;
    const accountAdmin = await f.user({ accountId, roles: ['account-admin'] });
    const plain = await f.user({ accountId });
    const peer = await f.user({ accountId, roles: ['account-admin'] });
    for (const target of [plain, peer]) {
      const res = await t.request('PATCH', `/api/v3_0/users/${target.user.id}`, { token: accountAdmin.token, json: { active: false } });
      expect(res.status).toBe(200);
      expect(Boolean((await t.db('user').where({ id: target.user.id }).first()).active)).toBe(false);
    }
  });

  it('cannot grant consultant, on creation or change; a platform admin can', async () => {
    const accountId = (await f.account()).id;
    const accountAdmin = await f.user({ accountId, roles: ['account-admin'] });
    const plain = await f.user({ accountId });
    const before = await snapshot(t.db);
    const granted = await t.request('PATCH', `/api/v3_0/users/${plain.user.id}`, {
      token: accountAdmin.token,
      json: { flexmeasures_roles: [roleIds.consultant] },
    });
    expect(granted.status).toBe(403);
    const created = await t.request('POST', '/api/v3_0/users', {
      token: accountAdmin.token,
      json: {
        email: `new-consultant-${accountId}@example.com`,
        username: `new-consultant-${accountId}`,
        account_id: accountId,
        flexmeasures_roles: [roleIds.consultant],
      },
    });
    expect(created.status).toBe(403);
    expect(await snapshot(t.db)).toEqual(before);
    const platform = await f.user({ accountId: (await f.account()).id, roles: ['admin'] });
    const byAdmin = await t.request('PATCH', `/api/v3_0/users/${plain.user.id}`, {
      token: platform.token,
      json: { flexmeasures_roles: [roleIds.consultant] },
    });
    expect(byAdmin.status).toBe(200);
    expect(await t.db('user_role').where({ user_id: plain.user.id }).pluck('role_id')).toEqual([roleIds.consultant]);
  });
});
