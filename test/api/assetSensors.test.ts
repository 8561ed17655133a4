/** GET /api/v3_0/assets/<id>/sensors (FlexMeasures 1.0): an asset's sensors, paged, filtered and sorted. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let token: string;
let otherToken: string;
let assetId: number;
let ids: number[];

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  token = (await f.user({ accountId })).token;
  otherToken = (await f.user({ accountId: (await f.account()).id })).token;
  assetId = (await f.asset({ accountId })).id;
  const names: [string, number][] = [
    ['power', 15],
    ['state of charge', 0],
    ['Power (kW)', 60],
    ['price', 60],
    ['temperature', 5],
  ];
  ids = [];
  for (const [name, resolutionMinutes] of names) ids.push((await f.sensor({ assetId, name, resolutionMinutes })).id);
  // A sensor elsewhere is not listed.
  await f.sensor({ assetId: (await f.asset({ accountId })).id, name: 'power' });
});
afterAll(() => t.close());

const list = (query: Record<string, string | number> = {}, as = token) =>
  t.request('GET', `/api/v3_0/assets/${assetId}/sensors`, { token: as, query });

describe('GET /api/v3_0/assets/<id>/sensors', () => {
  it('answers the first page of 10 with the counts, sensors as GET /sensors shows them', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body['num-records']).toBe(5);
    expect(res.body['filtered-records']).toBe(5);
    expect(res.body.data.map((s: { id: number }) => s.id)).toEqual(ids);
    const one = await t.request('GET', `/api/v3_0/sensors`, { token, query: { asset: assetId } });
    expect(res.body.data).toEqual(one.body);
  });

  it('pages with page and per-page (or per_page)', async () => {
    expect((await list({ page: 2, 'per-page': 2 })).body.data.map((s: { id: number }) => s.id)).toEqual(ids.slice(2, 4));
    expect((await list({ page: 3, per_page: 2 })).body.data.map((s: { id: number }) => s.id)).toEqual(ids.slice(4));
  });

  it('filters on name (any case) or id prefix, terms or-ed, quotes keeping spaces', async () => {
    const res = await list({ filter: 'POWER "of charge"' });
    expect(res.body.data.map((s: { name: string }) => s.name)).toEqual(['power', 'state of charge', 'Power (kW)']);
    expect(res.body['num-records']).toBe(5);
    expect(res.body['filtered-records']).toBe(3);
    expect((await list({ filter: String(ids[3]) })).body.data.map((s: { id: number }) => s.id)).toContain(ids[3]);
  });

  it('sorts by id, name or resolution, either way', async () => {
    const names = (await list({ 'sort-by': 'resolution', 'sort-dir': 'desc' })).body.data.map((s: { name: string }) => s.name);
    expect(names.slice(2)).toEqual(['power', 'temperature', 'state of charge']);
    expect((await list({ sort_by: 'name' })).body.data.map((s: { name: string }) => s.name)).toEqual([
      'Power (kW)',
      'power',
      'price',
      'state of charge',
      'temperature',
    ]);
  });

  it('refuses bad parameters (422), another account (403) and unknown assets (404)', async () => {
    expect((await list({ 'sort-by': 'unit' })).status).toBe(422);
    expect((await list({ page: 0 })).body).toEqual(unprocessable('query', { page: ['Must be greater than or equal to 1.'] }));
    expect((await list({}, otherToken)).status).toBe(403);
    expect((await t.request('GET', '/api/v3_0/assets/999999/sensors', { token })).status).toBe(404);
  });
});
