/** FlexMeasures 1.0's asset `description` and `external_id` on POST/PATCH/GET /assets, in both dialects. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

interface Site {
  t: TestServer;
  token: string;
  otherToken: string;
  accountId: number;
  otherAccountId: number;
  typeId: number;
}

async function site(env: Record<string, string>): Promise<Site> {
  const t = await startTestServer(env);
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  const otherAccountId = (await f.account()).id;
  return {
    t,
    accountId,
    otherAccountId,
    token: (await f.user({ accountId, roles: ['account-admin'] })).token,
    otherToken: (await f.user({ accountId: otherAccountId, roles: ['account-admin'] })).token,
    typeId: await f.assetType('battery'),
  };
}

let v18: Site;
let v10: Site;
beforeAll(async () => {
  v18 = await site({});
  v10 = await site({ FLEXSITE_API_COMPAT: '1.0' });
});
afterAll(async () => {
  await v18.t.close();
  await v10.t.close();
});

const create = (s: Site, extra: Record<string, unknown>, token = s.token, accountId = s.accountId) =>
  s.t.request('POST', '/api/v3_0/assets', {
    token,
    json: { name: `a${Math.random()}`, generic_asset_type_id: s.typeId, account_id: accountId, ...extra },
  });

const stored = async (s: Site, id: number) =>
  s.t.db('generic_asset').where({ id }).first<{ description: string | null; external_id: string | null }>('description', 'external_id');

describe('asset description and external_id', () => {
  it('1.0: stored from POST and PATCH, always shown', async () => {
    const plain = await create(v10, {});
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ description: null, external_id: null });
    const res = await create(v10, { description: 'Roof battery', external_id: 'c8a53865-4702-494d-b559-9eefce296038' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ description: 'Roof battery', external_id: 'c8a53865-4702-494d-b559-9eefce296038' });
    expect(await stored(v10, res.body.id)).toEqual({ description: 'Roof battery', external_id: 'c8a53865-4702-494d-b559-9eefce296038' });
    const patched = await v10.t.request('PATCH', `/api/v3_0/assets/${res.body.id}`, {
      token: v10.token,
      json: { description: null, external_id: 'ext-2' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: null, external_id: 'ext-2' });
    const got = await v10.t.request('GET', `/api/v3_0/assets/${res.body.id}`, { token: v10.token });
    expect(got.body).toMatchObject({ description: null, external_id: 'ext-2' });
  });

  it('0.18: accepted as 1.0 takes them, shown only once set', async () => {
    const plain = await create(v18, {});
    expect(plain.body).not.toHaveProperty('description');
    expect(plain.body).not.toHaveProperty('external_id');
    const res = await create(v18, { description: 'Roof battery', external_id: 'ext-1' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ description: 'Roof battery', external_id: 'ext-1' });
  });

  it('external ids are unique within an account (422, nothing stored), not across accounts', async () => {
    const first = await create(v10, { external_id: 'meter-7' });
    expect(first.status).toBe(201);
    const clash = await create(v10, { external_id: 'meter-7' });
    expect(clash.status).toBe(422);
    expect(clash.body).toEqual(
      unprocessable('json', { external_id: ["An asset with external_id 'meter-7' already exists in this account."] }),
    );
    const other = await create(v10, { name: 'x', external_id: 'meter-7' }, v10.otherToken, v10.otherAccountId);
    expect(other.status).toBe(201);
    const second = await create(v10, { external_id: 'meter-8' });
    const patch = await v10.t.request('PATCH', `/api/v3_0/assets/${second.body.id}`, {
      token: v10.token,
      json: { external_id: 'meter-7' },
    });
    expect(patch.status).toBe(422);
    expect(await stored(v10, second.body.id)).toEqual({ description: null, external_id: 'meter-8' });
    // Its own id again is no clash.
    const same = await v10.t.request('PATCH', `/api/v3_0/assets/${second.body.id}`, { token: v10.token, json: { external_id: 'meter-8' } });
    expect(same.status).toBe(200);
  });

  it('refuses a null or too long external_id, and another account’s PATCH (403)', async () => {
    expect((await create(v10, { external_id: null })).status).toBe(422);
    expect((await create(v10, { external_id: 'x'.repeat(81) })).status).toBe(422);
    const mine = await create(v10, { description: 'mine' });
    const foreign = await v10.t.request('PATCH', `/api/v3_0/assets/${mine.body.id}`, {
      token: v10.otherToken,
      json: { description: 'theirs' },
    });
    expect(foreign.status).toBe(403);
    expect((await stored(v10, mine.body.id)).description).toBe('mine');
  });
});
