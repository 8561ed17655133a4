import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Issue 28: each dialect keeps its own value rules on a trigger. FlexMeasures 0.18 refuses a
 * storage efficiency above 100% (its EfficiencyField: greater than 0, at most 1); 1.0 reads it as a
 * quantity and clips it to 100% (test_battery_efficiency_quantity: "110%" → 1). A charging or
 * discharging efficiency above 100% is refused in both.
 */

interface Site {
  t: TestServer;
  token: string;
  sensorId: number;
  jobs: () => Promise<number>;
}

async function site(compat?: '1.0'): Promise<Site> {
  const t = await startTestServer(compat ? { FLEXSITE_API_COMPAT: compat } : {});
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  const token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const assetId = (await f.asset({ accountId, type: 'battery' })).id;
  const prices = (await f.sensor({ assetId, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  const sensorId = (await f.sensor({ assetId, unit: 'MW', resolutionMinutes: 15, attributes: { market_id: prices } })).id;
  const start = Date.parse('2015-01-01T00:00:00Z');
  await f.beliefs(prices, start, 3_600_000, new Array<number>(24).fill(50), start - 86_400_000);
  const jobs = async () => Number((await t.db('job').count({ n: '*' }))[0].n);
  return { t, token, sensorId, jobs };
}

const trigger = (s: Site, flexModel: Record<string, unknown>, flexContext: Record<string, unknown> = {}) =>
  s.t.request('POST', `/api/v3_0/sensors/${s.sensorId}/schedules/trigger`, {
    token: s.token,
    json: {
      start: '2015-01-01T00:00:00Z',
      duration: 'PT4H',
      'flex-model': { 'soc-at-start': 1, 'soc-min': 0, 'soc-max': 2, 'power-capacity': '1 MW', ...flexModel },
      'flex-context': flexContext,
    },
  });

let v018: Site;
let v10: Site;
beforeAll(async () => {
  [v018, v10] = await Promise.all([site(), site('1.0')]);
});
afterAll(async () => {
  await Promise.all([v018?.t.close(), v10?.t.close()]);
});

/** A refused trigger: 422 naming the field, nothing queued. */
async function expectRefused(s: Site, field: string, flexModel: Record<string, unknown>, flexContext?: Record<string, unknown>) {
  const before = await s.jobs();
  const res = await trigger(s, flexModel, flexContext);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.message.json[field], JSON.stringify(res.body)).toEqual([expect.any(String)]);
  expect(await s.jobs()).toBe(before);
}

describe('storage efficiency above 100%', () => {
  it('is refused on storage-efficiency in the 0.18 dialect, as 0.18 does', async () => {
    await expectRefused(v018, 'storage-efficiency', { 'storage-efficiency': 1.5 });
    await expectRefused(v018, 'storage-efficiency', { 'storage-efficiency': '110%' });
  });

  it('is accepted and clipped in the 1.0 dialect, as 1.0 does', async () => {
    const res = await trigger(v10, { 'storage-efficiency': '110%' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const job = await v10.t.db('job').where({ id: res.body.schedule }).first<{ args: string }>();
    expect(job.args).toContain('"storageEfficiencyPerSensorStep":1');
  });

  it('keeps 100% and below in both dialects', async () => {
    expect((await trigger(v018, { 'storage-efficiency': '99%' })).status).toBe(200);
    expect((await trigger(v10, { 'storage-efficiency': '99%' })).status).toBe(202);
  });
});

describe('charging and discharging efficiency above 100%', () => {
  for (const [name, get] of [
    ['0.18', () => v018],
    ['1.0', () => v10],
  ] as const) {
    it(`is refused in the ${name} dialect, before anything is queued`, async () => {
      await expectRefused(get(), 'charging-efficiency', { 'charging-efficiency': '150%' });
      await expectRefused(get(), 'discharging-efficiency', { 'discharging-efficiency': 1.5 });
    });
  }
});

describe('a trigger gets the value rules stored configuration gets', () => {
  const bad: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    ['a breach price of 1e120', {}, { 'consumption-breach-price': '1e120 EUR/MW' }, 'consumption-breach-price'],
    ['a price in an unknown currency', {}, { 'production-price': '5 XYZ/MWh' }, 'production-price'],
    ['a negative power capacity', { 'power-capacity': '-1 MW' }, {}, 'power-capacity'],
  ];
  for (const [name, flexModel, flexContext, field] of bad) {
    it(`refuses ${name} with a 422 on ${field} in both dialects, before anything is queued`, async () => {
      await expectRefused(v018, field, flexModel, flexContext);
      await expectRefused(v10, field, flexModel, flexContext);
    });
  }
});
