/** FlexMeasures 1.0's POST /api/v3_0/assets/<id>/copy. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let member: string;
let accountAdmin: string;
let admin: string;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  member = (await f.user({ accountId })).token;
  accountAdmin = (await f.user({ accountId, roles: ['account-admin'] })).token;
  admin = (await f.user({ accountId: (await f.account()).id, roles: ['admin'] })).token;
});
afterAll(() => t.close());

const copy = (id: number, query: Record<string, number> = {}, token = accountAdmin) =>
  t.request('POST', `/api/v3_0/assets/${id}/copy`, { token, query });
const assetRow = (id: number) => t.db('generic_asset').where({ id }).first();

describe('POST /assets/<id>/copy', () => {
  it('copies the subtree and its sensors, names the copy, re-points configuration at the copies, and logs it', async () => {
    const root = await f.asset({ accountId, name: 'Home', type: 'building' });
    const child = (
      await t.request('POST', '/api/v3_0/assets', {
        token: accountAdmin,
        json: { name: 'Battery', generic_asset_type_id: await f.assetType('battery'), account_id: accountId, parent_asset_id: root.id },
      })
    ).body;
    const power = await f.sensor({ assetId: child.id, name: 'power' });
    const price = await f.sensor({ assetId: (await f.asset({ accountId: null })).id, name: 'public price' });
    const patched = await t.request('PATCH', `/api/v3_0/assets/${root.id}`, {
      token: accountAdmin,
      json: {
        flex_context: JSON.stringify({ 'consumption-price': { sensor: price.id }, 'inflexible-device-sensors': [power.id] }),
        sensors_to_show: JSON.stringify([power.id]),
      },
    });
    expect(patched.status).toBe(200);
    await f.beliefs(power.id, Date.parse('2026-01-01T00:00:00Z'), 900_000, [1, 2], Date.parse('2025-12-01T00:00:00Z'));

    const res = await copy(root.id);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ message: `Successfully copied asset ${root.id}.`, asset: expect.any(Number) });
    const copied = await assetRow(res.body.asset);
    expect(copied).toMatchObject({ name: 'Home (Copy)', account_id: accountId, parent_asset_id: null });
    const [childCopy] = await t.db('generic_asset').where({ parent_asset_id: copied.id });
    expect(childCopy).toMatchObject({ name: 'Battery', account_id: accountId });
    const [powerCopy] = await t.db('sensor').where({ generic_asset_id: childCopy.id });
    expect(powerCopy).toMatchObject({ name: 'power', unit: 'MW' });
    expect(await t.db('timed_belief').where({ sensor_id: powerCopy.id }).count({ n: '*' })).toEqual([{ n: 0 }]);
    const body = (await t.request('GET', `/api/v3_0/assets/${copied.id}`, { token: member })).body;
    expect(JSON.parse(body.flex_context)).toEqual({
      'consumption-price': { sensor: price.id },
      'inflexible-device-sensors': [powerCopy.id],
    });
    expect(JSON.parse(body.attributes).sensors_to_show).toEqual([powerCopy.id]);
    expect(await t.db('audit_log').where({ affected_asset_id: copied.id }).pluck('event')).toEqual([
      `Copied asset 'Home': ${root.id} to 'Home (Copy)': ${copied.id}`,
    ]);
    // A second copy takes the next free name.
    expect((await assetRow((await copy(root.id)).body.asset)).name).toBe('Home (Copy 2)');
  });

  it('places the copy under a parent, or at the top of a given account', async () => {
    const source = await f.asset({ accountId, name: 'Box' });
    const parent = await f.asset({ accountId, name: 'Shelf' });
    const under = await copy(source.id, { parent: parent.id }, member);
    expect(under.status).toBe(201);
    expect(under.body.message).toBe(`Successfully copied asset ${source.id} to parent asset ${parent.id}.`);
    expect(await assetRow(under.body.asset)).toMatchObject({ parent_asset_id: parent.id, account_id: accountId, name: 'Box (Copy)' });
    const other = (await f.account()).id;
    const elsewhere = await copy(source.id, { account: other }, admin);
    expect(elsewhere.body.message).toBe(`Successfully copied asset ${source.id} to account ${other}.`);
    expect(await assetRow(elsewhere.body.asset)).toMatchObject({ account_id: other, parent_asset_id: null });
  });

  it('refuses to copy a scheduler choice for anyone but a platform admin (403), storing nothing', async () => {
    const source = await f.asset({ accountId, name: 'Custom', attributes: { 'custom-scheduler': 'acme' } });
    const before = await t.db('generic_asset').count({ n: '*' });
    expect((await copy(source.id)).status).toBe(403);
    expect(await t.db('generic_asset').count({ n: '*' })).toEqual(before);
  });

  it('refuses a target account the caller may not write, and foreign sources (403); a plain member at the top level (403)', async () => {
    const source = await f.asset({ accountId, name: 'Mine' });
    const other = (await f.account()).id;
    const otherAsset = await f.asset({ accountId: other, name: 'Theirs' });
    const before = await t.db('generic_asset').count({ n: '*' });
    expect((await copy(source.id, { account: other })).status).toBe(403);
    expect((await copy(source.id, { parent: otherAsset.id })).status).toBe(403);
    expect((await copy(otherAsset.id, { account: accountId })).status).toBe(403);
    expect((await copy(source.id, {}, member)).status).toBe(403);
    expect(await t.db('generic_asset').count({ n: '*' })).toEqual(before);
  });

  it('answers unknown targets and parents in the subtree with 404/422, storing nothing', async () => {
    const source = await f.asset({ accountId, name: 'Tree' });
    const before = await t.db('generic_asset').count({ n: '*' });
    expect((await copy(999_999)).status).toBe(404);
    expect((await copy(source.id, { account: 999_999 }, admin)).status).toBe(404);
    expect(await copy(source.id, { parent: 999_999 })).toMatchObject({
      status: 422,
      body: { message: { query: { parent: ['No asset found with id 999999.'] } } },
    });
    expect((await copy(source.id, { parent: source.id })).status).toBe(422);
    expect((await copy(source.id, { account: 'x' as unknown as number })).status).toBe(422);
    expect(await t.db('generic_asset').count({ n: '*' })).toEqual(before);
  });
});

describe('copied sensor attributes (issue 28)', () => {
  it('re-points sensor attributes naming copied sensors, market_id included', async () => {
    const root = await f.asset({ accountId, name: 'Plant', type: 'building' });
    const ratio = await f.sensor({ assetId: root.id, unit: '', name: 'ratio' });
    const price = await f.sensor({ assetId: root.id, unit: 'EUR/MWh', name: 'price', resolutionMinutes: 60 });
    const attributes = { 'charging-efficiency': { sensor: ratio.id }, market_id: price.id };
    await f.sensor({ assetId: root.id, name: 'battery', attributes });
    const res = await copy(root.id);
    expect(res.status).toBe(201);
    const copies = await t.db('sensor').where({ generic_asset_id: res.body.asset });
    const byName = (name: string) => copies.find((s) => s.name === name);
    expect(JSON.parse(byName('battery').attributes)).toEqual({
      'charging-efficiency': { sensor: byName('ratio').id },
      market_id: byName('price').id,
    });
  });

  it('refuses a copy whose sensor attributes name a sensor the target account may not use (403), storing nothing', async () => {
    const outside = await f.sensor({ assetId: (await f.asset({ accountId, name: 'Meters' })).id, unit: '' });
    const root = await f.asset({ accountId, name: 'Rig' });
    await f.sensor({ assetId: root.id, attributes: { 'charging-efficiency': { sensor: outside.id } } });
    const other = (await f.account()).id;
    const before = await t.db('generic_asset').count({ n: '*' });
    const sensorsBefore = await t.db('sensor').count({ n: '*' });
    const res = await copy(root.id, { account: other }, admin);
    expect(res.status).toBe(403);
    expect(JSON.stringify(res.body)).not.toContain(String(outside.id));
    expect(await t.db('generic_asset').count({ n: '*' })).toEqual(before);
    expect(await t.db('sensor').count({ n: '*' })).toEqual(sensorsBefore);
    // Within its own account the same copy is fine.
    expect((await copy(root.id)).status).toBe(201);
  });
});
