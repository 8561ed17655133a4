/** FlexMeasures 1.0's GET /api/v3_0/assets/<id>/chart_annotations. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapLines } from '../../server/src/charts/annotations.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let assetId: number;
let token: string;
let stranger: string;
const long = 'The battery inverter was replaced after a fault in its cooling fan, and tested afterwards';

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  stranger = (await f.user({ accountId: (await f.account()).id })).token;
  assetId = (await f.asset({ accountId })).id;
  const post = async (path: string, json: Record<string, string>) =>
    expect((await t.request('POST', `/api/v3_0/${path}/annotations`, { token, json })).status).toBe(201);
  await post(`assets/${assetId}`, { content: 'Maintenance', start: '2026-05-04T08:00:00Z', end: '2026-05-04T10:00:00Z' });
  await post(`assets/${assetId}`, { content: long, start: '2026-05-04T09:00:00Z', end: '2026-05-04T10:00:00Z' });
  await post(`accounts/${accountId}`, { content: 'Holiday', start: '2026-05-04T00:00:00Z', end: '2026-05-05T00:00:00Z', type: 'holiday' });
});
afterAll(() => t.close());

const get = (query: Record<string, string>, as = token) =>
  t.request('GET', `/api/v3_0/assets/${assetId}/chart_annotations`, { token: as, query });

describe('GET /assets/<id>/chart_annotations', () => {
  it('wraps text at 60 characters on whitespace', () => {
    expect(wrapLines(long)).toEqual(['The battery inverter was replaced after a fault in its', 'cooling fan, and tested afterwards']);
    expect(wrapLines('x'.repeat(130))).toEqual(['x'.repeat(60), 'x'.repeat(60), 'x'.repeat(10)]);
  });

  it('lists the asset’s and its account’s annotations, clipped, stacked per end, by end', async () => {
    const res = await get({ start: '2026-05-04T06:00:00Z', end: '2026-05-04T12:00:00Z' });
    expect(res.status).toBe(200);
    const ms = (iso: string) => Date.parse(iso);
    expect(res.body).toEqual([
      {
        index: 0,
        start: ms('2026-05-04T08:00:00Z'),
        end: ms('2026-05-04T10:00:00Z'),
        belief_time: expect.any(Number),
        source: expect.any(String),
        type: 'label',
        content: ['Maintenance', 'The battery inverter was replaced after a fault in its', 'cooling fan, and tested afterwards'],
      },
      {
        index: 2,
        start: ms('2026-05-04T06:00:00Z'),
        end: ms('2026-05-04T12:00:00Z'),
        belief_time: expect.any(Number),
        source: expect.any(String),
        type: 'holiday',
        content: ['Holiday'],
      },
    ]);
    const unclipped = await get({ start: '2026-05-04T06:00:00Z', end: '2026-05-04T12:00:00Z', clip: 'false' });
    expect(unclipped.body[1]).toMatchObject({ start: ms('2026-05-04T00:00:00Z'), end: ms('2026-05-05T00:00:00Z') });
  });

  it('keeps to the window and the belief times', async () => {
    expect((await get({ start: '2026-05-04T10:00:00Z', duration: 'PT1H' })).body.map((a: { content: string[] }) => a.content)).toEqual([
      ['Holiday'],
    ]);
    expect((await get({ prior: '2020-01-01T00:00:00Z' })).body).toEqual([]);
  });

  it('refuses another account (403), unknown assets (404) and bad parameters (422)', async () => {
    expect((await get({}, stranger)).status).toBe(403);
    expect((await t.request('GET', '/api/v3_0/assets/999999/chart_annotations', { token })).status).toBe(404);
    expect((await get({ start: '2026-05-04T06:00:00' })).status).toBe(422);
    expect((await get({ clip: 'sometimes' })).status).toBe(422);
  });
});
