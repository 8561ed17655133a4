/**
 * FlexMeasures 1.0's soft constraints through the trigger: breach prices, the relax flags and
 * demand charges, on hand-checked cases (one battery, hourly steps, energy at 100 EUR/MWh).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let otherSensor: number;

const START = '2015-01-02T00:00:00+01:00';
const END = '2015-01-02T02:00:00+01:00';

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const other = await f.account();
  otherSensor = (await f.sensor({ assetId: (await f.asset({ accountId: other.id })).id, unit: 'MW' })).id;
});
afterAll(() => t.close());

async function battery(): Promise<number> {
  const asset = await f.asset({ accountId, type: 'battery' });
  return (await f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 60 })).id;
}

/** Triggers a 2-hour schedule and waits for it: the job's status and the power values. */
async function schedule(model: Record<string, unknown>, context: Record<string, unknown>) {
  const sensor = await battery();
  const res = await t.request('POST', `/api/v3_0/sensors/${sensor}/schedules/trigger`, {
    token,
    json: {
      start: START,
      duration: 'PT2H',
      'flex-model': { 'soc-at-start': '0 MWh', 'soc-min': '0 MWh', 'soc-max': '10 MWh', 'power-capacity': '1 MW', ...model },
      'flex-context': { 'consumption-price': '100 EUR/MWh', ...context },
    },
  });
  expect(res.status).toBe(200);
  await t.server.services.jobs.settled(res.body.schedule, 30_000);
  const job = await t.db('job').where({ id: res.body.schedule }).first<{ status: string }>();
  if (job.status !== 'finished') return { status: job.status, values: [] as number[] };
  const s = await waitForSchedule(t, token, sensor, res.body.schedule, 'PT2H');
  return { status: job.status, values: (s.body.values as number[]).map((v) => +v.toFixed(6) + 0) };
}

// 3 MWh wanted after 2 hours of charging at most 1 MW: unreachable. Without the tie-breaker, so
// that an idle battery does not charge and discharge at the same price for nothing.
const unreachable = { 'soc-minima': [{ datetime: END, value: '3 MWh' }], 'prefer-charging-sooner': false };

describe('soft SoC minima', () => {
  it('are hard without a breach price in the 0.18 dialect: the request fails as in 0.18', async () => {
    expect((await schedule(unreachable, {})).status).toBe('failed');
  });

  it('a cheap breach (40 on height + 40 on area per MWh < 100) leaves the battery idle', async () => {
    expect(await schedule(unreachable, { 'soc-minima-breach-price': '40 EUR/MWh' })).toEqual({ status: 'finished', values: [0, 0] });
  });

  it('a dear breach (60 + 60 > 100) charges all it can and pays for the missing MWh', async () => {
    expect(await schedule(unreachable, { 'soc-minima-breach-price': '60 EUR/MWh' })).toEqual({ status: 'finished', values: [1, 1] });
  });

  it('relax-constraints makes the best achievable schedule instead of a failure', async () => {
    expect(await schedule(unreachable, { 'relax-constraints': true })).toEqual({ status: 'finished', values: [1, 1] });
  });
});

describe('demand charges', () => {
  // 2 MWh to charge in 2 hours at up to 2 MW, at one price: only the tie-breaker chooses when.
  const target = { 'power-capacity': '2 MW', 'soc-targets': [{ datetime: END, value: '2 MWh' }] };

  it('without one, the battery charges as soon as it can', async () => {
    expect((await schedule(target, {})).values).toEqual([2, 0]);
  });

  it('a price on the consumption peak spreads the charging to cut the peak', async () => {
    const s = await schedule(target, { 'site-peak-consumption': '0 kW', 'site-peak-consumption-price': '1000 EUR/MW' });
    expect(s.values).toEqual([1, 1]);
  });
});

describe('bad soft-constraint input', () => {
  it('answers 422 for an unreadable price and 403 for another account’s sensor, queueing nothing', async () => {
    const sensor = await battery();
    const before = await t.db('job').count({ n: '*' }).first();
    const post = (context: Record<string, unknown>) =>
      t.request('POST', `/api/v3_0/sensors/${sensor}/schedules/trigger`, {
        token,
        json: {
          start: START,
          duration: 'PT2H',
          'flex-model': { 'soc-at-start': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
          'flex-context': context,
        },
      });
    const bad = await post({ 'consumption-price': '100 EUR/MWh', 'soc-minima-breach-price': 'lots' });
    expect(bad.status).toBe(422);
    expect(bad.body.message.json).toHaveProperty('soc-minima-breach-price');
    const negative = await post({ 'consumption-price': '100 EUR/MWh', 'site-consumption-breach-price': '-1 EUR/kW' });
    expect(negative.body.message.json).toEqual({ 'site-consumption-breach-price': ['Must be greater than or equal to 0.'] });
    const foreign = await post({
      'consumption-price': '100 EUR/MWh',
      'site-peak-consumption': { sensor: otherSensor },
      'site-peak-consumption-price': '1 EUR/kW',
    });
    expect(foreign.status).toBe(403);
    expect(await t.db('job').count({ n: '*' }).first()).toEqual(before);
  });
});
