/**
 * FlexMeasures 1.0 scheduling inputs in both dialects: the inferred device power capacity, the
 * asset types the storage scheduler serves, `resolution` and `sequential` on triggers, SoC
 * constraints from sensors (and who may name them), time-series demand-charge and commitment
 * prices, and state-of-charge schedules of instantaneous sensors. Hand-checked cases: one
 * battery, hourly steps, a 2-hour schedule unless said otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAsset } from '../../server/src/store/assets.ts';
import { updateAsset } from '../../server/src/store/write/assets.ts';
import { FIXTURE } from '../helpers/fixtureWriter.ts';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

const START = '2015-01-02T00:00:00+01:00';
const MIDDLE = '2015-01-02T01:00:00+01:00';
const END = '2015-01-02T02:00:00+01:00';
const START_MS = Date.parse(START);

/** Consumption price 10 EUR/MWh in the first hour, 100 in the second. */
const cheapThenDear = [
  { start: START, end: MIDDLE, value: '10 EUR/MWh' },
  { start: MIDDLE, end: END, value: '100 EUR/MWh' },
];

interface Site {
  t: TestServer;
  f: ReturnType<typeof factories>;
  token: string;
  accountId: number;
  otherSensor: number;
}

async function site(env: Record<string, string>): Promise<Site> {
  const t = await startTestServer(env);
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  const token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const other = await f.account();
  const otherSensor = (await f.sensor({ assetId: (await f.asset({ accountId: other.id })).id, unit: 'MWh', resolutionMinutes: 0 })).id;
  return { t, f, token, accountId, otherSensor };
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

async function device(s: Site, type = 'battery', resolutionMinutes = 60): Promise<number> {
  const asset = await s.f.asset({ accountId: s.accountId, type });
  return (await s.f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes })).id;
}

const jobCount = async (s: Site) => Number((await s.t.db('job').count({ n: '*' }))[0].n);

/** Posts a sensor trigger; the job id whatever the dialect's answer (200 or 202). */
async function trigger(s: Site, sensor: number, body: Record<string, unknown>) {
  const res = await s.t.request('POST', `/api/v3_0/sensors/${sensor}/schedules/trigger`, {
    token: s.token,
    json: { start: START, duration: 'PT2H', ...body },
  });
  return { res, job: res.body?.schedule as string | undefined };
}

/** Triggers, waits, and returns the power values (MW, consumption positive) or the job's failure. */
async function schedule(s: Site, sensor: number, body: Record<string, unknown>, duration = 'PT2H') {
  const { res, job } = await trigger(s, sensor, body);
  expect([200, 202]).toContain(res.status);
  await s.t.server.services.jobs.settled(job!, 30_000);
  const record = await s.t.db('job').where({ id: job }).first<{ status: string; error: string | null }>();
  if (record.status !== 'finished') return { job: job!, status: record.status, error: record.error, values: [] as number[] };
  const got = await waitForSchedule(s.t, s.token, sensor, job!, duration);
  return { job: job!, status: record.status, error: null, values: (got.body.values as number[]).map((v) => +v.toFixed(6) + 0) };
}

describe('device power capacity without power-capacity (FlexMeasures 1.0: storage.py, _get_device_power_capacity)', () => {
  // Empty at the start; buying at 10 and selling at 100 pays, as far as the capacities allow.
  const model = { 'soc-at-start': '0 MWh', 'soc-min': '0 MWh', 'soc-max': '10 MWh' };
  const consumptionOnly = { ...model, 'consumption-capacity': '700 kW' };

  it('is the larger directional capacity: in 0.18 the other direction keeps it', async () => {
    const both = await schedule(v18, await device(v18), {
      'flex-model': { ...model, 'consumption-capacity': '700 kW', 'production-capacity': '300 kW' },
      'flex-context': { 'consumption-price': cheapThenDear },
    });
    expect(both.values).toEqual([0.3, -0.3]);
    const alone = await schedule(v18, await device(v18), {
      'flex-model': consumptionOnly,
      'flex-context': { 'consumption-price': cheapThenDear },
    });
    expect(alone.values).toEqual([0.7, -0.7]);
  });

  it('in 1.0 one non-zero directional capacity alone means none the other way', async () => {
    const alone = await schedule(v10, await device(v10), {
      'flex-model': consumptionOnly,
      'flex-context': { 'consumption-price': cheapThenDear },
    });
    // It could buy but never sell: it stays idle.
    expect(alone.values).toEqual([0, 0]);
  });

  it('falls back to the site power capacity, also one stored on a parent asset', async () => {
    const direct = await schedule(v18, await device(v18), {
      'flex-model': model,
      'flex-context': { 'consumption-price': cheapThenDear, 'site-power-capacity': '500 kW' },
    });
    expect(direct.values).toEqual([0.5, -0.5]);
    const parent = await v10.f.asset({ accountId: v10.accountId, type: 'building' });
    const child = await v10.f.asset({ accountId: v10.accountId, type: 'battery' });
    await v10.t.db.transaction(async (trx) => {
      await updateAsset(trx, FIXTURE, (await getAsset(trx, parent.id))!, { flex_context: { 'site-power-capacity': '400 kW' } });
      await updateAsset(trx, FIXTURE, (await getAsset(trx, child.id))!, { parent_asset_id: parent.id });
    });
    const sensor = (await v10.f.sensor({ assetId: child.id, unit: 'MW', resolutionMinutes: 60 })).id;
    const inherited = await schedule(v10, sensor, { 'flex-model': model, 'flex-context': { 'consumption-price': cheapThenDear } });
    expect(inherited.values).toEqual([0.4, -0.4]);
  });

  it('without any capacity the job still fails, as in both releases', async () => {
    const s = await schedule(v10, await device(v10), { 'flex-model': model, 'flex-context': { 'consumption-price': cheapThenDear } });
    expect(s.status).toBe('failed');
    expect(s.error).toContain('Power capacity is not defined');
  });
});

describe('asset types', () => {
  const body = {
    'flex-model': { 'soc-at-start': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' },
    'flex-context': { 'consumption-price': cheapThenDear },
  };

  it('0.18 keeps its list: a power sensor on a building is refused, nothing queued', async () => {
    const sensor = await device(v18, 'building');
    const before = await jobCount(v18);
    const { res } = await trigger(v18, sensor, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({ json: 'Scheduling is not (yet) supported for asset type building.' });
    expect(await jobCount(v18)).toBe(before);
  });

  it('1.0 schedules every type but process and load as storage', async () => {
    for (const type of ['building', 'solar']) {
      const s = await schedule(v10, await device(v10, type), body);
      expect(s.status).toBe('finished');
      expect(s.values).toEqual([1, -1]);
    }
  });
});

describe('trigger resolution and sequential', () => {
  it('schedules at the requested resolution and stores at the sensor’s', async () => {
    const sensor = await device(v18, 'battery', 15);
    const s = await schedule(v18, sensor, {
      resolution: 'PT1H',
      'flex-model': { 'soc-at-start': '0 MWh', 'soc-max': '0.5 MWh', 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price': cheapThenDear, 'production-price': '50 EUR/MWh' },
    });
    // At hourly steps 0.5 MWh takes the whole cheap hour at 0.5 MW; at 15 minutes it would be 2 steps at 1 MW.
    expect(s.values).toEqual([0.5, 0.5, 0.5, 0.5, -0.5, -0.5, -0.5, -0.5]);
  });

  it('refuses a resolution that is not a whole multiple of the sensor’s, queueing nothing', async () => {
    const sensor = await device(v10, 'battery', 15);
    const before = await jobCount(v10);
    const { res } = await trigger(v10, sensor, {
      resolution: 'PT50M',
      'flex-model': { 'soc-at-start': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price': cheapThenDear },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({
      json: { resolution: ["Resolution of 0:50:00 is incompatible with the sensor's required resolution of 0:15:00."] },
    });
    expect(await jobCount(v10)).toBe(before);
  });

  it('accepts sequential on the asset trigger (scheduled jointly) and refuses it on the sensor trigger', async () => {
    const asset = await v10.f.asset({ accountId: v10.accountId, type: 'building' });
    const sensor = (await v10.f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 60 })).id;
    const res = await v10.t.request('POST', `/api/v3_0/assets/${asset.id}/schedules/trigger`, {
      token: v10.token,
      json: {
        start: START,
        duration: 'PT2H',
        sequential: true,
        'flex-model': [{ sensor, 'soc-at-start': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' }],
        'flex-context': { 'consumption-price': cheapThenDear },
      },
    });
    expect(res.status).toBe(202);
    await v10.t.server.services.jobs.settled(res.body.job, 30_000);
    expect((await waitForSchedule(v10.t, v10.token, sensor, res.body.job, 'PT2H')).status).toBe(200);
    const { res: refused } = await trigger(v10, sensor, { sequential: true, 'flex-model': {}, 'flex-context': {} });
    expect(refused.status).toBe(422);
    expect(refused.body.message.json).toEqual({ sequential: ['Unknown field.'] });
  });
});

describe('state-of-charge schedules of instantaneous sensors', () => {
  it.each([
    ['0.18', () => v18],
    ['1.0', () => v10],
  ])('are served in the %s dialect: a value per instant, ends included, in the sensor’s unit and sign', async (_d, which) => {
    const s = which();
    const sensor = await device(s);
    const asset = (await s.t.db('sensor').where({ id: sensor }).first<{ generic_asset_id: number }>()).generic_asset_id;
    const soc = (await s.f.sensor({ assetId: asset, unit: 'kWh', resolutionMinutes: 0 })).id;
    const run = await schedule(s, sensor, {
      'flex-model': {
        'soc-at-start': '100 kWh',
        'soc-max': '1 MWh',
        'power-capacity': '1 MW',
        'state-of-charge': { sensor: soc },
      },
      'flex-context': { 'consumption-price': cheapThenDear },
    });
    expect(run.values).toEqual([0.9, -1]);
    const res = await s.t.request('GET', `/api/v3_0/sensors/${soc}/schedules/${run.job}`, { token: s.token, query: { duration: 'PT2H' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ values: [100, 1000, 0], start: '2015-01-01T23:00:00Z', duration: 'PT2H', unit: 'kWh' });
    const short = await s.t.request('GET', `/api/v3_0/sensors/${soc}/schedules/${run.job}`, {
      token: s.token,
      query: { duration: 'PT1H', unit: 'MWh' },
    });
    expect(short.body).toMatchObject({ values: [0.1, 1], duration: 'PT1H', unit: 'MWh' });
  });
});

describe('SoC constraints from sensors', () => {
  it('are read as the sensor’s beliefs (here a minimum at the middle instant)', async () => {
    const asset = await v10.f.asset({ accountId: v10.accountId, type: 'battery' });
    const sensor = (await v10.f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 60 })).id;
    const minima = (await v10.f.sensor({ assetId: asset.id, unit: 'kWh', resolutionMinutes: 0 })).id;
    await v10.f.beliefs(minima, START_MS + 3_600_000, 3_600_000, [600], START_MS - 86_400_000);
    const s = await schedule(v10, sensor, {
      'flex-model': { 'soc-at-start': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW', 'soc-minima': { sensor: minima } },
      // Dear first, and nothing to earn by selling: without the minimum it would not charge at all.
      'flex-context': {
        'consumption-price': [
          { start: START, end: MIDDLE, value: '100 EUR/MWh' },
          { start: MIDDLE, end: END, value: '10 EUR/MWh' },
        ],
        'production-price': '0 EUR/MWh',
      },
    });
    expect(s.values).toEqual([0.6, 0]);
  });

  it('another account’s sensor is refused (403) and a missing one is a 422, nothing queued', async () => {
    const sensor = await device(v10);
    const before = await jobCount(v10);
    const model = { 'soc-at-start': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' };
    for (const field of ['soc-targets', 'soc-minima', 'soc-maxima']) {
      const foreign = await trigger(v10, sensor, {
        'flex-model': { ...model, [field]: { sensor: v10.otherSensor } },
        'flex-context': { 'consumption-price': cheapThenDear },
      });
      expect(foreign.res.status).toBe(403);
      const missing = await trigger(v10, sensor, {
        'flex-model': { ...model, [field]: { sensor: 999_999 } },
        'flex-context': { 'consumption-price': cheapThenDear },
      });
      expect(missing.res.status).toBe(422);
      expect(missing.res.body.message.json).toEqual({ [field]: ['No sensor found with id 999999.'] });
    }
    expect(await jobCount(v10)).toBe(before);
  });
});

describe('time-series prices in the flex-context', () => {
  // 2 MWh to charge in 2 hours at up to 2 MW, at one energy price: only the tie-breaker chooses when.
  const model = {
    'soc-at-start': '0 MWh',
    'soc-max': '10 MWh',
    'power-capacity': '2 MW',
    'soc-targets': [{ datetime: END, value: '2 MWh' }],
    'prefer-curtailing-later': false,
  };
  const flat = { 'consumption-price': '100 EUR/MWh' };

  it('a demand charge given as a time series spreads the charging, as a fixed one does', async () => {
    const none = await schedule(v18, await device(v18), { 'flex-model': model, 'flex-context': flat });
    expect(none.values).toEqual([2, 0]);
    const peak = await schedule(v18, await device(v18), {
      'flex-model': model,
      'flex-context': {
        ...flat,
        'site-peak-consumption': '0 kW',
        'site-peak-consumption-price': [{ start: START, end: END, value: '1000 EUR/MW' }],
      },
    });
    expect(peak.values).toEqual([1, 1]);
  });

  it('a commitment up-price given as a time series moves the charging to the hour where deviating is free', async () => {
    const s = await schedule(v18, await device(v18), {
      'flex-model': model,
      'flex-context': {
        ...flat,
        commitments: [
          {
            name: 'import limit',
            baseline: '0 MW',
            'up-price': [
              { start: START, end: MIDDLE, value: '1000 EUR/MW' },
              { start: MIDDLE, end: END, value: '0 EUR/MW' },
            ],
          },
        ],
      },
    });
    expect(s.values).toEqual([0, 2]);
  });

  it('refuses a segment price without a power or energy unit', async () => {
    const { res } = await trigger(v18, await device(v18), {
      'flex-model': model,
      'flex-context': { ...flat, commitments: [{ name: 'c', baseline: '0 MW', 'up-price': [{ start: START, end: END, value: '5 EUR' }] }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual({
      commitments: { 0: { 'up-price': { 0: { value: ['Commitment up-price must have a power or energy unit in its denominator.'] } } } },
    });
  });
});
