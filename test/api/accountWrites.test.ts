/** FlexMeasures 1.0's POST /accounts and PATCH /accounts/<id>, with their audit log entries. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forbidden, unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let admin: string;
let adminName: string;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const a = await f.user({ accountId: (await f.account()).id, roles: ['admin'] });
  admin = a.token;
  adminName = a.user.username;
});
afterAll(() => t.close());

const accountRow = (id: number) => t.db('account').where({ id }).first();
const auditRows = (accountId: number) => t.db('audit_log').where({ affected_account_id: accountId }).orderBy('id');

describe('POST /api/v3_0/accounts', () => {
  it('a platform admin creates an account: 201, stored, and logged', async () => {
    const consultancy = (await f.account()).id;
    const res = await t.request('POST', '/api/v3_0/accounts', {
      token: admin,
      json: { name: 'New Customer', consultancy_account_id: consultancy },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), name: 'New Customer', consultancy_account_id: consultancy, account_roles: [] });
    expect(await accountRow(res.body.id)).toMatchObject({ name: 'New Customer', consultancy_account_id: consultancy });
    expect(await auditRows(res.body.id)).toEqual([
      expect.objectContaining({ event: "Account 'New Customer' created", active_user_name: adminName }),
    ]);
  });

  it('bad input is a 422 under its field and stores nothing', async () => {
    const before = await t.db('account').count({ n: '*' });
    const taken = (await f.account({ name: 'Taken name' })).name;
    const cases: [unknown, Record<string, unknown>][] = [
      [{ name: taken }, { name: ["An account with name 'Taken name' already exists."] }],
      [{ name: '  ' }, { name: [expect.any(String)] }],
      [{}, { name: [expect.any(String)] }],
      [{ name: 'x', consultancy_account_id: 999_999 }, { consultancy_account_id: ['No account found with id 999999.'] }],
      [{ name: 'x', primary_color: '#000000' }, { primary_color: ['Unknown field.'] }],
    ];
    for (const [json, fields] of cases) {
      const res = await t.request('POST', '/api/v3_0/accounts', { token: admin, json });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(unprocessable('json', fields));
    }
    expect(await t.db('account').count({ n: '*' })).toEqual([{ n: Number(before[0].n) + 1 }]);
  });

  it('anyone but a platform admin is refused (403), account-admins and consultants included', async () => {
    const accountId = (await f.account({ roles: ['Consultancy'] })).id;
    for (const roles of [['account-admin'], ['consultant'], []]) {
      const { token } = await f.user({ accountId, roles });
      const res = await t.request('POST', '/api/v3_0/accounts', { token, json: { name: `by ${roles.join()}` } });
      expect(res).toMatchObject({ status: 403, body: forbidden });
    }
    expect(await t.db('account').where('name', 'like', 'by %').count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});

describe('PATCH /api/v3_0/accounts/<id>', () => {
  it('an account-admin renames their own account; the entry names the changed fields', async () => {
    const accountId = (await f.account({ name: 'Old name' })).id;
    const me = await f.user({ accountId, roles: ['account-admin'] });
    const res = await t.request('PATCH', `/api/v3_0/accounts/${accountId}`, { token: me.token, json: { name: 'New name' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: accountId, name: 'New name', consultancy_account_id: null, account_roles: [] });
    expect(await accountRow(accountId)).toMatchObject({ name: 'New name' });
    const log = await t.request('GET', `/api/v3_0/accounts/${accountId}/auditlog`, { token: me.token });
    expect(log.status).toBe(200);
    expect(log.body).toEqual([
      { event: 'Account Updated, Field: name', event_datetime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), active_user_id: me.user.id },
    ]);
  });

  it('consultancy: a Consultancy account’s admin may set only their own account (or none); admins any', async () => {
    const consultancy = (await f.account({ roles: ['Consultancy'] })).id;
    const plain = (await f.account()).id;
    const admin1 = await f.user({ accountId: consultancy, roles: ['account-admin'] });
    const ok = await t.request('PATCH', `/api/v3_0/accounts/${consultancy}`, {
      token: admin1.token,
      json: { consultancy_account_id: null },
    });
    expect(ok.status).toBe(200);
    const other = await t.request('PATCH', `/api/v3_0/accounts/${consultancy}`, {
      token: admin1.token,
      json: { consultancy_account_id: plain },
    });
    expect(other.status).toBe(403);
    // Without the Consultancy account role, not even clearing it.
    const plainAdmin = await f.user({ accountId: plain, roles: ['account-admin'] });
    expect(
      (await t.request('PATCH', `/api/v3_0/accounts/${plain}`, { token: plainAdmin.token, json: { consultancy_account_id: null } })).status,
    ).toBe(403);
    const byAdmin = await t.request('PATCH', `/api/v3_0/accounts/${plain}`, {
      token: admin,
      json: { consultancy_account_id: consultancy },
    });
    expect(byAdmin.body.consultancy_account_id).toBe(consultancy);
    expect(await accountRow(plain)).toMatchObject({ consultancy_account_id: consultancy });
  });

  it('account roles: platform admins only, known ids only', async () => {
    const accountId = (await f.account()).id;
    const roles = await t.db('account_role').whereIn('name', ['Prosumer', 'Supplier']).orderBy('id').select('id', 'name');
    const res = await t.request('PATCH', `/api/v3_0/accounts/${accountId}`, {
      token: admin,
      json: { account_roles: roles.map((r) => r.id) },
    });
    expect(res.status).toBe(200);
    expect(res.body.account_roles).toEqual(roles);
    const accountAdmin = await f.user({ accountId, roles: ['account-admin'] });
    expect(
      (await t.request('PATCH', `/api/v3_0/accounts/${accountId}`, { token: accountAdmin.token, json: { account_roles: [] } })).status,
    ).toBe(403);
    const unknown = await t.request('PATCH', `/api/v3_0/accounts/${accountId}`, { token: admin, json: { account_roles: [999_999] } });
    expect(unknown).toMatchObject({
      status: 422,
      body: unprocessable('json', { account_roles: ['Invalid account role ID(s): [999999].'] }),
    });
    expect(await t.db('account_account_role').where({ account_id: accountId }).count({ n: '*' })).toEqual([{ n: 2 }]);
  });

  it('refuses plain members and other accounts (403), unknown accounts (404), bad fields (422), changing nothing', async () => {
    const accountId = (await f.account({ name: 'Stays' })).id;
    const member = await f.user({ accountId });
    const strangerAdmin = await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] });
    expect((await t.request('PATCH', `/api/v3_0/accounts/${accountId}`, { token: member.token, json: { name: 'x' } })).status).toBe(403);
    expect((await t.request('PATCH', `/api/v3_0/accounts/${accountId}`, { token: strangerAdmin.token, json: { name: 'x' } })).status).toBe(
      403,
    );
    expect((await t.request('PATCH', '/api/v3_0/accounts/999999', { token: admin, json: { name: 'x' } })).status).toBe(404);
    const taken = await f.account({ name: 'Taken too' });
    const clash = await t.request('PATCH', `/api/v3_0/accounts/${accountId}`, { token: admin, json: { name: taken.name } });
    expect(clash).toMatchObject({
      status: 422,
      body: unprocessable('json', { name: ["An account with name 'Taken too' already exists."] }),
    });
    expect((await t.request('PATCH', `/api/v3_0/accounts/${accountId}`, { token: admin, json: { id: 5 } })).status).toBe(422);
    expect(await accountRow(accountId)).toMatchObject({ name: 'Stays' });
    expect(await auditRows(accountId)).toEqual([]);
  });
});

describe('GET /api/v3_0/accounts/<id>/auditlog', () => {
  it('is read by the account’s admins and its consultancy’s consultants, not by members or strangers', async () => {
    const consultancy = (await f.account()).id;
    const accountId = (await f.account({ consultancyAccountId: consultancy })).id;
    const accountAdmin = await f.user({ accountId, roles: ['account-admin'] });
    await t.request('PATCH', `/api/v3_0/accounts/${accountId}`, { token: accountAdmin.token, json: { name: 'Logged' } });
    const read = async (token: string) => (await t.request('GET', `/api/v3_0/accounts/${accountId}/auditlog`, { token })).status;
    expect(await read(accountAdmin.token)).toBe(200);
    expect(await read((await f.user({ accountId: consultancy, roles: ['consultant'] })).token)).toBe(200);
    expect(await read(admin)).toBe(200);
    expect(await read((await f.user({ accountId })).token)).toBe(403);
    expect(await read((await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token)).toBe(403);
    expect((await t.request('GET', '/api/v3_0/accounts/999999/auditlog', { token: admin })).status).toBe(404);
  });
});
