/** FlexMeasures 1.0's `filter` on GET /api/v3_0/assets (v3.0-31): search terms in name, account name or id prefix. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let token: string;
let ids: Record<string, number>;

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  const accountId = (await f.account({ name: 'ACME corp' })).id;
  token = (await f.user({ accountId })).token;
  ids = {};
  for (const name of ['Solar roof', 'solar carport', 'Battery 100%', 'Heat_pump']) ids[name] = (await f.asset({ accountId, name })).id;
  // Another account's asset is never listed.
  await f.asset({ accountId: (await f.account({ name: 'Solar others' })).id, name: 'Solar field' });
});
afterAll(() => t.close());

const names = async (query: Record<string, string | number>) => {
  const res = await t.request('GET', '/api/v3_0/assets', { token, query });
  expect(res.status).toBe(200);
  return res.body;
};

describe('GET /api/v3_0/assets?filter=', () => {
  it('matches a term in the name, any case', async () => {
    const body = await names({ filter: 'SOLAR' });
    expect(body.map((a: { name: string }) => a.name)).toEqual(['Solar roof', 'solar carport']);
  });

  it('needs every term; quotes keep spaces; the account name counts', async () => {
    expect((await names({ filter: 'solar roof' })).map((a: { name: string }) => a.name)).toEqual(['Solar roof']);
    expect((await names({ filter: '"ACME corp" carport' })).map((a: { name: string }) => a.name)).toEqual(['solar carport']);
    expect(await names({ filter: '"roof carport"' })).toEqual([]);
  });

  it('matches an id prefix, and % and _ only literally', async () => {
    const byId = await names({ filter: String(ids['Heat_pump']) });
    expect(byId.map((a: { id: number }) => a.id)).toContain(ids['Heat_pump']);
    expect((await names({ filter: '100%' })).map((a: { name: string }) => a.name)).toEqual(['Battery 100%']);
    expect((await names({ filter: 't_p' })).map((a: { name: string }) => a.name)).toEqual(['Heat_pump']);
  });

  it('pages give the count without and with the filter', async () => {
    const page = await names({ filter: 'solar', page: 1, 'per-page': 1 });
    expect(page['num-records']).toBe(4);
    expect(page['filtered-records']).toBe(2);
    expect(page.data.map((a: { name: string }) => a.name)).toEqual(['Solar roof']);
  });
});
