import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountRoles: Record<string, number>;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const rows = await t.db('account_role').select<{ id: number; name: string }[]>('id', 'name');
  accountRoles = Object.fromEntries(rows.map((r) => [r.name, r.id]));
});
afterAll(() => t.close());

describe('GET /api/v3_0/accounts', () => {
  it('shows members their own account, consultants also their clients, admins everything', async () => {
    const consultancy = await f.account({ roles: ['ESCO'] });
    const client = await f.account({ roles: ['Prosumer', 'Supplier'], consultancyAccountId: consultancy.id });
    const json = (a: { id: number; name: string }, roles: string[], consultancyId: number | null) => ({
      id: a.id,
      name: a.name,
      consultancy_account_id: consultancyId,
      account_roles: roles.map((name) => ({ id: accountRoles[name], name })),
    });

    const member = await f.user({ accountId: client.id });
    const own = await t.request('GET', '/api/v3_0/accounts', { token: member.token });
    expect(own.status).toBe(200);
    expect(own.body).toEqual([json(client, ['Prosumer', 'Supplier'], consultancy.id)]);

    const consultant = await f.user({ accountId: consultancy.id, roles: ['consultant'] });
    const withClients = await t.request('GET', '/api/v3_0/accounts', { token: consultant.token });
    expect(withClients.body).toEqual([json(consultancy, ['ESCO'], null), json(client, ['Prosumer', 'Supplier'], consultancy.id)]);

    const colleague = await f.user({ accountId: consultancy.id });
    const onlyOwn = await t.request('GET', '/api/v3_0/accounts', { token: colleague.token });
    expect(onlyOwn.body).toEqual([json(consultancy, ['ESCO'], null)]);

    const ids = (await t.db('account').orderBy('id').pluck('id')) as number[];
    for (const role of ['admin', 'admin-reader']) {
      const { token } = await f.user({ accountId: client.id, roles: [role] });
      const all = await t.request('GET', '/api/v3_0/accounts', { token });
      expect(
        all.body.map((a: { id: number }) => a.id),
        role,
      ).toEqual(ids);
    }
  });
});

describe('GET /api/v3_0/accounts/<id>', () => {
  it('gives the overview: account roles, assets and users', async () => {
    const account = await f.account({ roles: ['Prosumer'] });
    const me = await f.user({ accountId: account.id, roles: ['account-admin'] });
    const off = await f.user({ accountId: account.id, active: false });
    const asset = await f.asset({ accountId: account.id, attributes: { capacity_in_mw: 1 } });
    await f.asset({ accountId: (await f.account()).id });

    const res = await t.request('GET', `/api/v3_0/accounts/${account.id}`, { token: me.token });
    expect(res.status).toBe(200);
    const userJson = (u: typeof me.user) => ({
      id: u.id,
      email: u.email,
      username: u.username,
      account_id: account.id,
      active: u.active,
      timezone: 'Europe/Amsterdam',
      flexmeasures_roles: u.roleIds,
      last_login_at: null,
      last_seen_at: null,
    });
    expect(res.body).toEqual({
      id: account.id,
      name: account.name,
      consultancy_account_id: null,
      account_roles: [{ id: accountRoles.Prosumer, name: 'Prosumer' }],
      assets: [
        {
          id: asset.id,
          name: asset.name,
          latitude: null,
          longitude: null,
          generic_asset_type_id: asset.generic_asset_type_id,
          account_id: account.id,
          parent_asset_id: null,
          attributes: '{"capacity_in_mw":1}',
        },
      ],
      users: [userJson(me.user), userJson(off.user)],
      status: 200,
    });
  });

  it('answers 404 for an unknown account', async () => {
    const { token } = await f.user({ accountId: (await f.account()).id, roles: ['admin'] });
    const res = await t.request('GET', '/api/v3_0/accounts/999999', { token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Account 999999 not found', status: 404 });
  });
});
