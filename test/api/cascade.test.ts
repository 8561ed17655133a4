import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { danglingForeignKeys, rowsReferencing } from '../helpers/db.ts';
import { factories } from '../helpers/factories.ts';
import { lastJsonLine, runCli } from '../helpers/processes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
});
afterAll(() => t.close());

/**
 * An account with everything that can hang off it: users with roles and tokens, a parent asset
 * with a child, sensors on both with stored beliefs (through the API), and a scheduling job.
 */
async function populatedAccount(props: { consultancyAccountId?: number } = {}) {
  const account = await f.account({ roles: ['Prosumer'], consultancyAccountId: props.consultancyAccountId });
  const admin = await f.user({ accountId: account.id, roles: ['account-admin'] });
  const member = await f.user({ accountId: account.id, roles: ['consultant'] });
  const parent = await f.asset({ accountId: account.id });
  const child = await f.asset({ accountId: account.id });
  await t.db('generic_asset').where({ id: child.id }).update({ parent_asset_id: parent.id });
  const sensors = [await f.sensor({ assetId: parent.id }), await f.sensor({ assetId: child.id })];
  for (const s of sensors) {
    const res = await t.request('POST', `/api/v3_0/sensors/${s.id}/data`, {
      token: admin.token,
      json: { start: '2024-01-01T00:00:00+00:00', duration: 'PT30M', values: [1, 2], unit: 'MW' },
    });
    expect(res.status).toBe(200);
  }
  await t.db('job').insert({
    id: crypto.randomUUID(),
    queue: 'scheduling',
    status: 'finished',
    args: '{}',
    cache_key: crypto.randomUUID().replaceAll('-', ''),
    account_id: account.id,
    sensor_id: sensors[0].id,
    created_at: Date.now(),
  });
  return {
    account: account.id,
    users: [admin.user.id, member.user.id],
    tokens: [admin.token, member.token],
    assets: [parent.id, child.id],
    sensors: sensors.map((s) => s.id),
  };
}
type Populated = Awaited<ReturnType<typeof populatedAccount>>;

/** Rows that hang off an account, to show that deleting something else leaves them alone. */
async function holdings(p: Populated) {
  return {
    users: await t.db('user').whereIn('id', p.users).count<{ n: number }[]>({ n: '*' }),
    tokens: await t.db('auth_token').whereIn('user_id', p.users).count<{ n: number }[]>({ n: '*' }),
    assets: await t.db('generic_asset').whereIn('id', p.assets).count<{ n: number }[]>({ n: '*' }),
    sensors: await t.db('sensor').whereIn('id', p.sensors).count<{ n: number }[]>({ n: '*' }),
    beliefs: await t.db('timed_belief').whereIn('sensor_id', p.sensors).count<{ n: number }[]>({ n: '*' }),
    jobs: await t.db('job').where({ account_id: p.account }).count<{ n: number }[]>({ n: '*' }),
  };
}

async function expectNoOrphans(gone: { accounts?: number[]; users?: number[]; assets?: number[]; sensors?: number[] }) {
  expect(await danglingForeignKeys(t.db)).toEqual([]);
  const checks: [string, number[] | undefined][] = [
    ['account_id', gone.accounts],
    ['consultancy_account_id', gone.accounts],
    ['user_id', gone.users],
    ['generic_asset_id', gone.assets],
    ['parent_asset_id', gone.assets],
    ['sensor_id', gone.sensors],
  ];
  for (const [column, ids] of checks) {
    if (ids) expect(await rowsReferencing(t.db, column, ids), column).toEqual({});
  }
}

describe('cascading deletes', () => {
  it('DELETE /sensors/<id> removes its beliefs, source links and jobs, and nothing else', async () => {
    const p = await populatedAccount();
    const bystander = await populatedAccount();
    const untouched = await holdings(bystander);
    const [sensor, sibling] = p.sensors;
    const siblingBeliefs = await t.db('timed_belief').where({ sensor_id: sibling });

    const res = await t.request('DELETE', `/api/v3_0/sensors/${sensor}`, { token: p.tokens[0] });
    expect(res.status).toBe(204);

    expect(await t.db('sensor').where({ id: sensor })).toEqual([]);
    await expectNoOrphans({ sensors: [sensor] });
    expect(await t.db('timed_belief').where({ sensor_id: sibling })).toEqual(siblingBeliefs);
    expect(await holdings(bystander)).toEqual(untouched);
  });

  it('DELETE /assets/<id> removes its child assets, their sensors and all their data', async () => {
    const p = await populatedAccount();
    const bystander = await populatedAccount();
    const untouched = await holdings(bystander);

    const res = await t.request('DELETE', `/api/v3_0/assets/${p.assets[0]}`, { token: p.tokens[0] });
    expect(res.status).toBe(204);

    expect(await t.db('generic_asset').whereIn('id', p.assets)).toEqual([]);
    expect(await t.db('sensor').whereIn('id', p.sensors)).toEqual([]);
    await expectNoOrphans({ assets: p.assets, sensors: p.sensors });
    // The account and its users stay.
    expect(await t.db('user').whereIn('id', p.users)).toHaveLength(2);
    expect(await holdings(bystander)).toEqual(untouched);
  });

  it('deleting an account (CLI, while the server runs) removes users, tokens, assets, sensors and data; its clients lose their consultancy', async () => {
    const p = await populatedAccount();
    const client = await populatedAccount({ consultancyAccountId: p.account });
    const { token: admin } = await f.user({ accountId: client.account, roles: ['admin'] });

    const sources = await t.db('data_source').whereIn('user_id', p.users).pluck('id');
    expect(sources).toHaveLength(1);
    // One of its users also wrote to the client's sensor: that source keeps the data attributable.
    const writer = await f.user({ accountId: p.account, roles: ['admin'] });
    const elsewhere = await t.request('POST', `/api/v3_0/sensors/${client.sensors[0]}/data`, {
      token: writer.token,
      json: { start: '2024-02-01T00:00:00+00:00', duration: 'PT15M', values: [3], unit: 'MW' },
    });
    expect(elsewhere.status).toBe(200);
    const kept = await t.db('data_source').where({ user_id: writer.user.id }).pluck('id');
    const untouched = await holdings(client);

    const res = await runCli(['delete', 'account', '--id', String(p.account), '--yes', '--json'], t.storeSettings);
    expect(res.code, res.stderr).toBe(0);
    expect(lastJsonLine(res.stdout)).toEqual({ deleted: 'account', id: p.account });

    expect(await t.db('account').where({ id: p.account })).toEqual([]);
    expect(await t.db('user').whereIn('id', p.users)).toEqual([]);
    expect(await t.db('generic_asset').whereIn('id', p.assets)).toEqual([]);
    await expectNoOrphans({ accounts: [p.account], users: [...p.users, writer.user.id], assets: p.assets, sensors: p.sensors });
    for (const token of p.tokens) expect((await t.request('GET', '/api/v3_0/assets', { token })).status).toBe(401);
    // Its sources go with it, except the one that holds data on the client's sensor.
    expect(await t.db('data_source').whereIn('id', sources)).toEqual([]);
    expect(await t.db('data_source').whereIn('id', kept).select('user_id', 'account_id')).toEqual([{ user_id: null, account_id: null }]);

    expect((await t.db('account').where({ id: client.account }).first()).consultancy_account_id).toBeNull();
    expect(await holdings(client)).toEqual(untouched);
    const gone = await t.request('GET', `/api/v3_0/accounts/${p.account}`, { token: admin });
    expect(gone.status).toBe(404);
  });
});
