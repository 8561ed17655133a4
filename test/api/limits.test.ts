import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestDue } from '../../server/src/domain/cron.ts';
import { snapshot } from '../helpers/db.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** Issue 20: limits on what one account may start — automation frequency and count, forecast length and cycles. */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let sensorId: number;

beforeAll(async () => {
  t = await startTestServer({ FLEXSITE_AUTOMATIONS_PER_ASSET: '2', FLEXSITE_AUTOMATIONS_PER_ACCOUNT: '3' });
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId })).token;
  sensorId = (await f.sensor({ assetId: (await f.asset({ accountId })).id, unit: 'kW', resolutionMinutes: 60 })).id;
});
afterAll(() => t.close());

const newAsset = async () => (await f.asset({ accountId, type: 'building' })).id;
const create = (assetId: number, body: Record<string, unknown>) =>
  t.request('POST', `/api/v3_0/assets/${assetId}/automations`, { token, json: { name: 'a', forecast_sensor_ids: [sensorId], ...body } });

describe('automation limits', () => {
  it.each([
    ['* * * * * *', 'cron'],
    ['*/30 * * * * *', 'cron'],
    ['0,30 * * * * *', 'cron'],
  ])('refuse %s, which runs more often than once a minute, with a 422 and nothing stored', async (cron, field) => {
    const assetId = await newAsset();
    const before = await snapshot(t.db);
    const res = await create(assetId, { cron });
    expect(res.status).toBe(422);
    expect(res.body.message.json[field]).toEqual([expect.stringMatching(/at most once every 60 s/)]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('refuse a horizon of P1000Y, also on PATCH', async () => {
    const assetId = await newAsset();
    const res = await create(assetId, { cron: '0 6 * * *', horizon: 'P1000Y' });
    expect(res.status).toBe(422);
    expect(res.body.message.json.horizon).toEqual([expect.stringMatching(/longest forecast/)]);
    const made = await create(assetId, { cron: '* * * * *' });
    expect(made.status).toBe(201);
    const patched = await t.request('PATCH', `/api/v3_0/automations/${made.body.id}`, { token, json: { cron: '*/10 * * * * *' } });
    expect(patched.status).toBe(422);
    expect((await t.db('automation').where({ id: made.body.id }).first()).cron).toBe('* * * * *');
    await t.request('DELETE', `/api/v3_0/automations/${made.body.id}`, { token });
  });

  it('allow at most the set number per asset and per account', async () => {
    const first = await newAsset();
    expect((await create(first, { cron: '0 6 * * *' })).status).toBe(201);
    expect((await create(first, { cron: '0 7 * * *' })).status).toBe(201);
    const third = await create(first, { cron: '0 8 * * *' });
    expect(third.status).toBe(422);
    expect(third.body.message.json._schema).toEqual([`Asset ${first} has the most automations allowed (2).`]);
    const second = await newAsset();
    expect((await create(second, { cron: '0 6 * * *' })).status).toBe(201);
    const fourth = await create(second, { cron: '0 7 * * *' });
    expect(fourth.status).toBe(422);
    expect(fourth.body.message.json._schema).toEqual([expect.stringMatching(/account .* most automations allowed \(3\)/)]);
  });

  it('catch up 35 days of an every-minute cron with one look back, not a walk over every minute', () => {
    const now = Date.parse('2027-03-01T12:00:30Z');
    const started = performance.now();
    const due = latestDue('* * * * *', 'Europe/Amsterdam', now - 35 * 86_400_000, now);
    expect(due).toBe(Date.parse('2027-03-01T12:00:00Z'));
    // 50,400 due times walked one by one took seconds; one look back takes milliseconds.
    expect(performance.now() - started).toBeLessThan(200);
    expect(latestDue('* * * * *', 'UTC', Date.parse('2027-03-01T12:00:00Z'), now)).toBeNull();
  });
});

describe('forecast limits', () => {
  const trigger = (json: Record<string, unknown>) => t.request('POST', `/api/v3_0/sensors/${sensorId}/forecasts/trigger`, { token, json });

  it.each([
    [{ start: '2027-01-01T00:00:00Z', duration: 'P3650D' }, 'duration'],
    [{ start: '2027-01-01T00:00:00Z', duration: 'P99999999D' }, 'duration'],
    [{ start: '2027-01-01T00:00:00Z', end: '2037-01-01T00:00:00Z' }, 'end'],
    [{ start: '2027-01-01T00:00:00Z', duration: 'P365D', 'max-forecast-horizon': 'PT1H' }, 'max-forecast-horizon'],
  ])('refuse %j with a 422 under %s and queue nothing', async (json, field) => {
    const jobs = await t.db('job').count({ n: '*' }).first();
    const res = await trigger(json);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message.json)).toEqual([field]);
    expect(await t.db('job').count({ n: '*' }).first()).toEqual(jobs);
  });
});
