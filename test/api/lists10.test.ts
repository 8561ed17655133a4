/** FlexMeasures 1.0's pages, `filter` and sorting on GET /users, and `role`, pages and sorting on GET /accounts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
});
afterAll(() => t.close());

describe('GET /api/v3_0/users: page, filter, sort (1.0)', () => {
  let accountId: number;
  let admin: string;
  let stranger: string;
  const emails = ['zoe@acme.test', 'adam@acme.test', 'mia@other.test'];

  beforeAll(async () => {
    accountId = (await f.account({ name: 'Solar Coop' })).id;
    admin = (await f.user({ accountId, roles: ['account-admin'], email: 'boss@coop.test' })).token;
    for (const email of emails) await f.user({ accountId, email });
    stranger = (await f.user({ accountId: (await f.account()).id })).token;
  });
  const list = (query: Record<string, string | number>, as = admin) => t.request('GET', '/api/v3_0/users', { token: as, query });
  const emailsOf = (users: { email: string }[]) => users.map((u) => u.email);

  it('filter: every term in the email, username or account name, any case', async () => {
    expect(emailsOf((await list({ filter: 'ACME' })).body)).toEqual(['zoe@acme.test', 'adam@acme.test']);
    expect(emailsOf((await list({ filter: 'acme zoe' })).body)).toEqual(['zoe@acme.test']);
    expect((await list({ filter: 'coop' })).body).toHaveLength(4);
    expect((await list({ filter: 'nobody' })).body).toEqual([]);
  });

  it('sort-by and sort-dir (both needed), also in snake case', async () => {
    expect(emailsOf((await list({ 'sort-by': 'email', 'sort-dir': 'asc' })).body)).toEqual([
      'adam@acme.test',
      'boss@coop.test',
      'mia@other.test',
      'zoe@acme.test',
    ]);
    expect(emailsOf((await list({ sort_by: 'email', sort_dir: 'desc', filter: 'acme' })).body)).toEqual([
      'zoe@acme.test',
      'adam@acme.test',
    ]);
  });

  it('a page counts all users and the filtered ones', async () => {
    const res = await list({ page: 2, 'per-page': 1, filter: 'acme', 'sort-by': 'email', 'sort-dir': 'asc' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [expect.objectContaining({ email: 'zoe@acme.test', account_id: accountId })],
      'num-records': 4,
      'filtered-records': 2,
    });
  });

  it('bad parameters are 422s under their names; another account stays refused', async () => {
    const res = await list({ 'sort-by': 'password' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message.query)).toEqual(['sort-by']);
    expect((await list({ page: 0 })).status).toBe(422);
    expect((await list({ account: accountId, filter: 'acme' }, stranger)).status).toBe(403);
  });
});

describe('GET /api/v3_0/accounts: role, page, filter, sort (1.0)', () => {
  let admin: string;
  let ids: Record<string, number>;

  beforeAll(async () => {
    ids = {
      supplier: (await f.account({ name: 'Green Supplier', roles: ['Supplier'] })).id,
      prosumer: (await f.account({ name: 'Home Prosumer', roles: ['Prosumer'] })).id,
      both: (await f.account({ name: 'Green Prosumer', roles: ['Prosumer', 'Supplier'] })).id,
    };
    admin = (await f.user({ accountId: ids.supplier, roles: ['admin'] })).token;
    await f.user({ accountId: ids.both });
    await f.asset({ accountId: ids.both });
    await f.asset({ accountId: ids.both });
  });
  const list = (query: Record<string, string | number>, as = admin) => t.request('GET', '/api/v3_0/accounts', { token: as, query });
  const idsOf = (accounts: { id: number }[]) => accounts.map((a) => a.id);

  it('role keeps the accounts holding that account role', async () => {
    expect(idsOf((await list({ role: 'Prosumer' })).body)).toEqual([ids.prosumer, ids.both]);
  });

  it('filter (any space-separated term in the name) and sort by what accounts hold', async () => {
    expect(idsOf((await list({ role: 'Supplier', filter: 'green', 'sort-by': 'assets', 'sort-dir': 'desc' })).body)).toEqual([
      ids.both,
      ids.supplier,
    ]);
    expect(idsOf((await list({ filter: 'Home Nothing-such' })).body)).toEqual([ids.prosumer]);
  });

  it('a page with each account’s user and asset counts', async () => {
    const res = await list({ page: 1, 'per-page': 1, role: 'Prosumer', 'sort-by': 'assets', 'sort-dir': 'desc' });
    expect(res.status).toBe(200);
    expect(res.body['filtered-records']).toBe(2);
    expect(res.body.data).toEqual([expect.objectContaining({ id: ids.both, name: 'Green Prosumer', user_count: 1, asset_count: 2 })]);
  });

  it('an unknown role is a 422; a non-admin still sees only their account', async () => {
    expect(await list({ role: 'Pirate' })).toMatchObject({
      status: 422,
      body: unprocessable('query', { role: ['No account role found with name Pirate.'] }),
    });
    const member = (await f.user({ accountId: ids.prosumer })).token;
    expect(idsOf((await list({ role: 'Supplier' }, member)).body)).toEqual([]);
    expect(idsOf((await list({ role: 'Prosumer' }, member)).body)).toEqual([ids.prosumer]);
  });
});
