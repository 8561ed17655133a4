/**
 * FlexMeasures 1.0's commitments through the trigger, with the cost per commitment in the job
 * result, and the resolved/unresolved soft constraints per device; hand-checked cases on one
 * battery, hourly steps, energy at 100 EUR/MWh.
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
let otherPrices: number;

const START = '2015-01-02T00:00:00+01:00';
const END = '2015-01-02T02:00:00+01:00';
const HOUR = 3600_000;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const other = await f.account();
  const otherAsset = (await f.asset({ accountId: other.id })).id;
  otherSensor = (await f.sensor({ assetId: otherAsset, unit: 'MW', resolutionMinutes: 60 })).id;
  otherPrices = (await f.sensor({ assetId: otherAsset, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
});
afterAll(() => t.close());

async function battery(): Promise<{ sensor: number; asset: number }> {
  const asset = await f.asset({ accountId, type: 'battery' });
  return { sensor: (await f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 60, name: 'battery' })).id, asset: asset.id };
}

/** An hourly power sensor of the account with values from START on. */
async function powerSensor(values: number[]): Promise<number> {
  const id = (await f.sensor({ assetId: (await f.asset({ accountId })).id, unit: 'MW', resolutionMinutes: 60 })).id;
  await f.beliefs(id, Date.parse(START), HOUR, values, Date.parse('2015-01-01T00:00:00Z'));
  return id;
}

const post = (sensor: number, model: Record<string, unknown>, context: Record<string, unknown>) =>
  t.request('POST', `/api/v3_0/sensors/${sensor}/schedules/trigger`, {
    token,
    json: {
      start: START,
      duration: 'PT2H',
      'flex-model': { 'soc-at-start': '0 MWh', 'soc-min': '0 MWh', 'soc-max': '10 MWh', 'power-capacity': '1 MW', ...model },
      'flex-context': { 'consumption-price': '100 EUR/MWh', ...context },
    },
  });

/** Triggers a 2-hour schedule and waits for it: the device, the power values and the job as GET /jobs/<uuid> shows it. */
async function schedule(model: Record<string, unknown>, context: Record<string, unknown>) {
  const device = await battery();
  const res = await post(device.sensor, model, context);
  expect(res.status).toBe(200);
  await t.server.services.jobs.settled(res.body.schedule, 30_000);
  const job = await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token });
  expect(job.body.status).toBe('finished');
  const s = await waitForSchedule(t, token, device.sensor, res.body.schedule, 'PT2H');
  return { ...device, values: (s.body.values as number[]).map((v) => +v.toFixed(6) + 0), result: job.body.result };
}

// 2 MWh to charge in 2 hours at 1 MW: the battery charges at 1 MW in both hours.
const charging = { 'soc-targets': [{ datetime: END, value: '2 MWh' }] };

describe('commitments', () => {
  it('cost their deviation from the baseline, reported per commitment in the job result', async () => {
    // 0.5 MW above a 500 kW baseline for two hours at 30 EUR/MWh: 2 × 0.5 × 30 = 30 EUR.
    const s = await schedule(charging, {
      commitments: [{ name: 'contract', baseline: '500 kW', 'up-price': '30 EUR/MWh', 'down-price': '0 EUR/MWh' }],
    });
    expect(s.values).toEqual([1, 1]);
    expect(s.result.commitment_costs).toEqual({ energy: 200, contract: 30 });
  });

  it('take a baseline from a sensor and move the schedule to where it is cheapest', async () => {
    // 1 MWh to charge at one price: the tie-breaker charges first, unless the baseline [0, 1] MW
    // makes charging in the first hour cost 50 EUR/MW above it.
    const target = { 'soc-targets': [{ datetime: END, value: '1 MWh' }] };
    expect((await schedule(target, {})).values).toEqual([1, 0]);
    const baseline = await powerSensor([0, 1]);
    const s = await schedule(target, {
      commitments: [{ name: 'evening band', baseline: { sensor: baseline }, 'up-price': '50 EUR/MW' }],
    });
    expect(s.values).toEqual([0, 1]);
    expect(s.result.commitment_costs).toEqual({ energy: 100, 'evening band': 0 });
  });

  it('scoped by sensors bind those devices only: an inflexible one by its known power', async () => {
    // A 0.5 MW inflexible load over a 0 kW baseline for two hours at 10 EUR/MWh: 10 EUR,
    // whatever the battery does.
    const load = await powerSensor([0.5, 0.5]);
    const s = await schedule(charging, {
      'inflexible-consumption': [{ sensor: load }],
      commitments: [{ name: 'load', baseline: '0 kW', 'up-price': '10 EUR/MWh', sensors: [load] }],
    });
    expect(s.values).toEqual([1, 1]);
    expect(s.result.commitment_costs).toEqual({ energy: 300, load: 10 });
  });

  it('scoped to one of two scheduled devices move that device only', async () => {
    // Both batteries want 1 MWh after two hours at one price, so both charge first; the baseline
    // [0, 1] MW at 50 EUR/MW above it binds battery a only, which charges in the second hour.
    const site = await f.asset({ accountId, type: 'battery' });
    const [a, b] = [
      await f.sensor({ assetId: site.id, resolutionMinutes: 60, name: 'a' }),
      await f.sensor({ assetId: site.id, resolutionMinutes: 60, name: 'b' }),
    ];
    const baseline = await powerSensor([0, 1]);
    const model = {
      'soc-at-start': '0 MWh',
      'soc-max': '1 MWh',
      'power-capacity': '1 MW',
      'soc-targets': [{ datetime: END, value: '1 MWh' }],
    };
    const res = await t.request('POST', `/api/v3_0/assets/${site.id}/schedules/trigger`, {
      token,
      json: {
        start: START,
        duration: 'PT2H',
        'flex-model': [
          { sensor: a.id, ...model },
          { sensor: b.id, ...model },
        ],
        'flex-context': {
          'consumption-price': '100 EUR/MWh',
          commitments: [{ name: 'band a', baseline: { sensor: baseline }, 'up-price': '50 EUR/MW', sensors: [a.id] }],
        },
      },
    });
    expect(res.status).toBe(200);
    await t.server.services.jobs.settled(res.body.schedule, 30_000);
    const values = async (sensor: number) =>
      ((await waitForSchedule(t, token, sensor, res.body.schedule, 'PT2H')).body.values as number[]).map((v) => +v.toFixed(6) + 0);
    expect(await values(a.id)).toEqual([0, 1]);
    expect(await values(b.id)).toEqual([1, 0]);
    const job = await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token });
    expect(job.body.result.commitment_costs).toEqual({ energy: 200, 'band a': 0 });
  });

  it('are refused with field messages nested as marshmallow nests them, and nothing is queued', async () => {
    const { sensor } = await battery();
    const before = await t.db('job').count({ n: '*' }).first();
    const refused = async (commitment: Record<string, unknown>) => {
      const res = await post(sensor, charging, { commitments: [commitment] });
      expect(res.status).toBe(422);
      return res.body.message.json;
    };
    expect(await refused({ name: 'c', 'up-price': '1 EUR/MW' })).toEqual({
      commitments: { 0: { baseline: ['A commitment requires a baseline.'] } },
    });
    expect(await refused({ name: 'c', baseline: '1 kW' })).toEqual({
      commitments: { 0: { 'up-price': ['A commitment requires at least one deviation price (up-price and/or down-price).'] } },
    });
    expect(await refused({ name: 'c', baseline: '1 kWh', 'up-price': '1 EUR/MW' })).toEqual({
      commitments: { 0: { baseline: ['Commitment baseline must have a power unit.'] } },
    });
    expect(await refused({ name: 'c', baseline: '1 kW', 'down-price': '1 EUR' })).toEqual({
      commitments: { 0: { 'down-price': ['Commitment down-price must have a power or energy unit in its denominator.'] } },
    });
    expect(await refused({ name: 'c', baseline: '1 kW', 'up-price': '1 EUR/MW', sensors: [999999] })).toEqual({
      commitments: { 0: { sensors: { 0: ['No sensor found with id 999999.'] } } },
    });
    const stranger = await powerSensor([0, 0]);
    expect(await refused({ name: 'c', baseline: '1 kW', 'up-price': '1 EUR/MW', sensors: [stranger] })).toEqual({
      commitments: {
        0: { sensors: { 0: [`Sensor ${stranger} is neither a scheduled device nor an inflexible device of this flex-context.`] } },
      },
    });
    expect(await refused({ name: 'c', baseline: '1 kW', 'up-price': '1 EUR/MW', group: { name: 'feeder' } })).toEqual({
      commitments: {
        0: { group: ['Commitments scoped by an electrical group are not supported yet; list the power sensors under `sensors`.'] },
      },
    });
    expect(await refused({ name: 'c', baseline: '1 kW', 'up-price': '1 EUR/MW', 'down-price': '2 EUR/MW' })).toEqual({
      commitments: {
        0: { 'up-price': ['The up-price must not be below the down-price (a non-convex cost, which Flexsite does not schedule).'] },
      },
    });
    expect(await refused({ name: 'c', baseline: '1 kW', 'up-price': '1 EUR/MW', unknown: 1 })).toEqual({
      commitments: { 0: { unknown: ['Unknown field.'] } },
    });
    expect(await t.db('job').count({ n: '*' }).first()).toEqual(before);
  });

  it("answer 403 for another account's sensor as baseline, price or scope, queueing nothing", async () => {
    const { sensor } = await battery();
    const before = await t.db('job').count({ n: '*' }).first();
    for (const commitment of [
      { name: 'c', baseline: { sensor: otherSensor }, 'up-price': '1 EUR/MW' },
      { name: 'c', baseline: '0 kW', 'up-price': { sensor: otherPrices } },
      { name: 'c', baseline: '0 kW', 'up-price': '1 EUR/MW', sensors: [otherSensor] },
    ]) {
      const res = await post(sensor, charging, { commitments: [commitment], 'inflexible-consumption': [{ sensor: otherSensor }] });
      expect(res.status, JSON.stringify(res.body)).toBe(403);
    }
    expect(await t.db('job').count({ n: '*' }).first()).toEqual(before);
  });
});

describe('resolved and unresolved constraints in the job result', () => {
  // 3 MWh wanted after 2 hours at most 1 MW: unreachable. 0.5 MWh after the first hour: met by 0.5 MWh.
  const model = {
    'soc-targets': [{ datetime: END, value: '3 MWh' }],
    'soc-minima': [{ datetime: '2015-01-02T01:00:00+01:00', value: '0.5 MWh' }],
  };

  it('an unreachable target fails the 0.18 request, as 0.18 does', async () => {
    const { sensor } = await battery();
    const res = await post(sensor, model, {});
    await t.server.services.jobs.settled(res.body.schedule, 30_000);
    const job = await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token });
    expect(job.body.status).toBe('failed');
  });

  it('with relax-constraints: the best achievable schedule, the unmet target with its violation, the met minimum with its margin', async () => {
    const s = await schedule(model, { 'relax-constraints': true });
    expect(s.values).toEqual([1, 1]);
    expect(s.result.unresolved).toEqual([
      { asset: s.asset, sensor: s.sensor, 'soc-targets': [{ datetime: '2015-01-02T01:00:00+00:00', violation: '1000.0 kWh' }] },
    ]);
    expect(s.result.resolved).toEqual([
      { asset: s.asset, sensor: s.sensor, 'soc-minima': [{ datetime: '2015-01-02T00:00:00+00:00', margin: '500.0 kWh' }] },
    ]);
    // The missed MWh costs 1.0's default SoC breach price on its height and on its area (1 h).
    expect(s.result.commitment_costs).toMatchObject({ energy: 200, 'soc minima breach battery': 2e6 });
  });

  it('a device capacity relaxed by name is reported per step where it was breached', async () => {
    // 2 MWh in 2 hours needs 1 MW, above the 0.5 MW consumption capacity: breaching it (1e5 EUR/MW
    // on height and area) is cheaper than missing the target (1e6 EUR/MWh).
    const s = await schedule(
      { ...charging, 'consumption-capacity': '0.5 MW' },
      { 'relax-constraints': true, 'relax-capacity-constraints': true },
    );
    expect(s.values).toEqual([1, 1]);
    expect(s.result.unresolved).toEqual([
      {
        asset: s.asset,
        sensor: s.sensor,
        'consumption-capacity': [
          { datetime: '2015-01-01T23:00:00+00:00', violation: '500.0 kW' },
          { datetime: '2015-01-02T00:00:00+00:00', violation: '500.0 kW' },
        ],
      },
    ]);
    // The production capacity is soft too, and met with all its 1 MW to spare.
    expect(s.result.resolved).toEqual([
      {
        asset: s.asset,
        sensor: s.sensor,
        'production-capacity': [
          { datetime: '2015-01-01T23:00:00+00:00', margin: '1000.0 kW' },
          { datetime: '2015-01-02T00:00:00+00:00', margin: '1000.0 kW' },
        ],
      },
    ]);
  });
});
