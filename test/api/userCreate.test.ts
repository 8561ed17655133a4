import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories, PASSWORD } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let otherAccountId: number;
let adminToken: string;
let accountAdminToken: string;
let memberToken: string;
let roles: { id: number; name: string }[];

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  otherAccountId = (await f.account()).id;
  adminToken = (await f.user({ accountId: otherAccountId, roles: ['admin'] })).token;
  accountAdminToken = (await f.user({ accountId, roles: ['account-admin'] })).token;
  memberToken = (await f.user({ accountId })).token;
  roles = (await t.request('GET', '/api/v3_0/roles', { token: memberToken })).body;
});
afterAll(() => t.close());

const roleId = (name: string) => roles.find((r) => r.name === name)!.id;
let n = 0;
const newUser = (props: Record<string, unknown> = {}) => {
  n += 1;
  return { email: `new${n}@example.com`, username: `new user ${n}`, password: 'a long secret', account_id: accountId, ...props };
};

describe('GET /roles', () => {
  it('needs a token and lists the seeded roles', async () => {
    expect((await t.request('GET', '/api/v3_0/roles')).status).toBe(401);
    expect(roles.map((r) => r.name)).toEqual(expect.arrayContaining(['admin', 'admin-reader', 'account-admin', 'consultant']));
  });
});

describe('POST /users', () => {
  it('refuses anonymous callers and ordinary users', async () => {
    expect((await t.request('POST', '/api/v3_0/users', { json: newUser() })).status).toBe(401);
    const res = await t.request('POST', '/api/v3_0/users', { token: memberToken, json: newUser() });
    expect(res.status).toBe(403);
    expect(res.body.status).toBe('INVALID_SENDER');
  });

  it('lets account-admins add users to their own account only', async () => {
    const other = await t.request('POST', '/api/v3_0/users', { token: accountAdminToken, json: newUser({ account_id: otherAccountId }) });
    expect(other.status).toBe(403);
    const body = newUser({ flexmeasures_roles: [roleId('account-admin')], timezone: 'Europe/Berlin' });
    const res = await t.request('POST', '/api/v3_0/users', { token: accountAdminToken, json: body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      email: body.email,
      username: body.username,
      account_id: accountId,
      active: true,
      timezone: 'Europe/Berlin',
      flexmeasures_roles: [roleId('account-admin')],
      last_login_at: null,
      last_seen_at: null,
    });
    const login = await t.request('POST', '/api/requestAuthToken', { json: { email: body.email, password: body.password } });
    expect(login.status).toBe(200);
  });

  it('keeps platform-wide roles for admins to hand out', async () => {
    const byAccountAdmin = await t.request('POST', '/api/v3_0/users', {
      token: accountAdminToken,
      json: newUser({ flexmeasures_roles: [roleId('admin')] }),
    });
    expect(byAccountAdmin.status).toBe(403);
    const byAdmin = await t.request('POST', '/api/v3_0/users', {
      token: adminToken,
      json: newUser({ flexmeasures_roles: [roleId('admin-reader')] }),
    });
    expect(byAdmin.status).toBe(201);
  });

  it('validates fields, account and roles', async () => {
    const bad = await t.request('POST', '/api/v3_0/users', {
      token: adminToken,
      json: { email: 'x', username: '', password: 'short', account_id: accountId, colour: 'red' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message.json).toEqual({
      email: ['Not a valid email address.'],
      username: ['Shorter than minimum length 1.'],
      password: ['Shorter than minimum length 8.'],
      colour: ['Unknown field.'],
    });
    const noAccount = await t.request('POST', '/api/v3_0/users', { token: adminToken, json: newUser({ account_id: 99999 }) });
    expect(noAccount.status).toBe(422);
    expect(noAccount.body.message.json).toEqual({ account_id: ["Account with Id 99999 doesn't exist."] });
    const noRole = await t.request('POST', '/api/v3_0/users', { token: adminToken, json: newUser({ flexmeasures_roles: [999] }) });
    expect(noRole.status).toBe(422);
    expect(noRole.body.message.json).toEqual({ flexmeasures_roles: ['Unknown role id(s): 999.'] });
  });

  it('answers a taken email or username with the duplicate 400', async () => {
    const first = newUser();
    expect((await t.request('POST', '/api/v3_0/users', { token: adminToken, json: first })).status).toBe(201);
    const sameEmail = await t.request('POST', '/api/v3_0/users', {
      token: adminToken,
      json: newUser({ email: first.email.toUpperCase() }),
    });
    expect(sameEmail.status).toBe(400);
    expect(sameEmail.body).toEqual({
      message: 'Duplicate user already exists',
      detail: `email ${first.email.toUpperCase()} is taken`,
      status: 400,
    });
    const sameName = await t.request('POST', '/api/v3_0/users', { token: adminToken, json: newUser({ username: first.username }) });
    expect(sameName.status).toBe(400);
    expect(sameName.body.detail).toBe(`username ${first.username} is taken`);
  });

  it('creates a user without a password who cannot sign in until a reset', async () => {
    const { password: _omitted, ...body } = newUser();
    const res = await t.request('POST', '/api/v3_0/users', { token: adminToken, json: body });
    expect(res.status).toBe(201);
    const login = await t.request('POST', '/api/requestAuthToken', { json: { email: body.email, password: PASSWORD } });
    expect(login.status).toBe(401);
  });
});
