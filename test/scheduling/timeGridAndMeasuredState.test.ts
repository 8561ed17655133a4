/**
 * The loop's two foundations (issue 30): one time grid, so that a start between grid points
 * cannot push a target off the steps and drop it; and a plan that starts from what was measured,
 * never from a plan written earlier into the same state-of-charge sensor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;

const QUARTER = 15 * 60_000;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
});
afterAll(() => t.close());

async function device(type: string): Promise<{ power: number; assetId: number }> {
  const asset = await f.asset({ accountId, type });
  return { power: (await f.sensor({ assetId: asset.id, unit: 'kW', resolutionMinutes: 15 })).id, assetId: asset.id };
}

async function run(sensorId: number, body: Record<string, unknown>) {
  const res = await t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, { token, json: body });
  expect(res.status).toBe(200);
  await waitForSchedule(t, token, sensorId, res.body.schedule);
  const job = (await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token })).body;
  expect(job.status).toBe('finished');
  return job.result;
}

/** An EV of 40 kWh charging at 7.4 kW from empty; 32 kWh take 4.3 h, well within the night. */
const ev = (target: string) => ({
  'soc-at-start': '0 kWh',
  'soc-min': '0 kWh',
  'soc-max': '40 kWh',
  'power-capacity': '7.4 kW',
  'soc-targets': [{ datetime: target, value: '32 kWh' }],
});
const flatPrice = { 'consumption-price': '100 EUR/MWh' };

describe('one time grid', () => {
  it('floors a start between grid points and says so; the Monday 07:00 target is then met', async () => {
    const { power } = await device('one-way_evse');
    const result = await run(power, {
      start: '2015-01-04T15:03:00+01:00',
      duration: 'PT24H',
      'flex-model': ev('2015-01-05T07:00:00+01:00'),
      'flex-context': flatPrice,
    });
    expect(new Date(result.start_ms).toISOString()).toBe('2015-01-04T14:00:00.000Z');
    expect(result.warnings).toContainEqual({
      code: 'start-floored',
      field: 'start',
      message:
        "The requested start 2015-01-04T14:03:00.000Z lies between the sensor's time steps; the schedule starts 3 min earlier, at 2015-01-04T14:00:00.000Z.",
      periods: [{ start: '2015-01-04T14:00:00.000Z', end: '2015-01-04T14:03:00.000Z' }],
    });
    // 07:00 +01:00 is 16 hours (64 quarter hours) after 15:00 +01:00; soc_mwh[0] is the start.
    expect(result.devices[0].soc_mwh[64]).toBeCloseTo(0.032, 6);
    // What is stored lies on the quarter-hour grid, so that later plans replace it step by step.
    const stored = await t.db('timed_belief').where('sensor_id', power).select('event_start');
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.filter((r: { event_start: number }) => Number(r.event_start) % QUARTER !== 0)).toEqual([]);
  });

  it('meets a target between grid points (07:05) by the step that ends at or before it (07:00)', async () => {
    const { power } = await device('one-way_evse');
    const result = await run(power, {
      start: '2015-01-04T15:00:00+01:00',
      duration: 'PT24H',
      'flex-model': ev('2015-01-05T07:05:00+01:00'),
      'flex-context': flatPrice,
    });
    expect(result.warnings).toEqual([]);
    expect(result.devices[0].soc_mwh[64]).toBeCloseTo(0.032, 6);
  });

  it('refuses another account the sensor it names, and queues nothing', async () => {
    const { power } = await device('one-way_evse');
    const other = await f.account();
    const stranger = (await f.user({ accountId: other.id, roles: ['account-admin'] })).token;
    const before = await t.db('job').count({ n: '*' }).first();
    const res = await t.request('POST', `/api/v3_0/sensors/${power}/schedules/trigger`, {
      token: stranger,
      json: { start: '2015-01-04T15:03:00+01:00', duration: 'PT24H', 'flex-model': ev('2015-01-05T07:00:00+01:00') },
    });
    expect(res.status).toBe(403);
    expect(await t.db('job').count({ n: '*' }).first()).toEqual(before);
  });
});

describe('measured state, never our own plan', () => {
  const S = Date.parse('2015-01-06T10:00:00Z');
  const iso = (ms: number) => new Date(ms).toISOString();

  /** A 10 kWh battery whose SoC sensor (in %) holds an earlier plan: full (100 %) throughout, written an hour before S. */
  async function batteryWithOwnPlan() {
    const { power, assetId } = await device('battery');
    const soc = (await f.sensor({ assetId, unit: '%', resolutionMinutes: 0 })).id;
    const model = { 'soc-min': '0 kWh', 'soc-max': '10 kWh', 'power-capacity': '5 kW', 'state-of-charge': { sensor: soc } };
    await run(power, {
      start: iso(S - 3_600_000),
      prior: iso(S - 3_600_000),
      duration: 'PT3H',
      'flex-model': { ...model, 'soc-at-start': '10 kWh' },
      'flex-context': flatPrice,
    });
    const planned = await t.db('timed_belief').where({ sensor_id: soc, event_start: S }).select('event_value');
    expect(planned.map((r: { event_value: number }) => r.event_value)).toEqual([100]);
    return { power, soc, model };
  }

  it('starts from the measured 77 %, not from the 10 kWh an older plan wrote at the start', async () => {
    const { power, soc, model } = await batteryWithOwnPlan();
    await f.beliefs(soc, S - QUARTER, 0, [77], S - QUARTER);
    const result = await run(power, { start: iso(S), prior: iso(S), duration: 'PT2H', 'flex-model': model, 'flex-context': flatPrice });
    expect(result.devices[0].soc_mwh[0]).toBeCloseTo(0.0077, 9);
    expect(result.warnings.map((w: { code: string }) => w.code)).toEqual(['soc-reading']);
  });

  it('says the SoC is unknown since its last measurement when that is older than two steps, and what it assumed', async () => {
    const { power, soc, model } = await batteryWithOwnPlan();
    await f.beliefs(soc, S - 3 * QUARTER, 0, [77], S - 3 * QUARTER);
    const result = await run(power, { start: iso(S), prior: iso(S), duration: 'PT2H', 'flex-model': model, 'flex-context': flatPrice });
    expect(result.devices[0].soc_mwh[0]).toBeCloseTo(0.0077, 9);
    expect(result.warnings).toEqual([
      {
        code: 'soc-unknown',
        field: 'soc-at-start',
        sensor_id: soc,
        message: `SoC unknown since 2015-01-06T09:15:00.000Z: sensor ${soc} has no measurement in the 30 min before the start; assumed 7.7 kWh, its last measurement.`,
        periods: [{ start: '2015-01-06T09:15:00.000Z', end: '2015-01-06T10:00:00.000Z' }],
      },
    ]);
  });

  it('reads the plan only when the sensor reference asks for the scheduler source (source-types)', async () => {
    const { power, soc, model } = await batteryWithOwnPlan();
    await f.beliefs(soc, S - QUARTER, 0, [77], S - QUARTER);
    const asked = { ...model, 'state-of-charge': { sensor: soc, 'source-types': ['scheduler'] } };
    const result = await run(power, { start: iso(S), prior: iso(S), duration: 'PT2H', 'flex-model': asked, 'flex-context': flatPrice });
    expect(result.devices[0].soc_mwh[0]).toBeCloseTo(0.01, 9);
  });

  it('excludes what exclude-source-types names instead of the default', async () => {
    const { power, soc, model } = await batteryWithOwnPlan();
    await f.beliefs(soc, S - QUARTER, 0, [77], S - QUARTER);
    const asked = { ...model, 'state-of-charge': { sensor: soc, 'exclude-source-types': ['demo script'] } };
    const result = await run(power, { start: iso(S), prior: iso(S), duration: 'PT2H', 'flex-model': asked, 'flex-context': flatPrice });
    expect(result.devices[0].soc_mwh[0]).toBeCloseTo(0.01, 9);
  });

  it('bounds the SoC at the first step end by what the device can do after a reading between grid points (14:17 → 14:30: 13 minutes)', async () => {
    const { power, assetId } = await device('battery');
    const soc = (await f.sensor({ assetId, unit: 'kWh', resolutionMinutes: 0 })).id;
    const at = Date.parse('2015-01-06T14:17:00Z');
    await f.beliefs(soc, at, 0, [5], at);
    // Cheap in the first quarter hour, dear afterwards: the battery charges as fast as it can, then sells.
    const price = (cheap: string) => [
      { start: '2015-01-06T14:15:00Z', end: '2015-01-06T14:30:00Z', value: cheap },
      { start: '2015-01-06T14:30:00Z', end: '2015-01-06T16:30:00Z', value: '500 EUR/MWh' },
    ];
    const result = await run(power, {
      start: iso(at),
      prior: iso(at),
      duration: 'PT2H',
      'flex-model': { 'soc-min': '0 kWh', 'soc-max': '10 kWh', 'power-capacity': '5 kW', 'state-of-charge': { sensor: soc } },
      'flex-context': { 'consumption-price': price('10 EUR/MWh'), 'production-price': price('10 EUR/MWh') },
    });
    expect(new Date(result.start_ms).toISOString()).toBe('2015-01-06T14:15:00.000Z');
    expect(result.devices[0].soc_mwh[0]).toBeCloseTo(0.005, 9);
    // 5 kWh + 5 kW × 13/60 h, not the 6.25 kWh a whole quarter hour would allow.
    expect(result.devices[0].soc_mwh[1]).toBeCloseTo(0.005 + (0.005 * 13) / 60, 6);
    expect(result.warnings.map((w: { code: string }) => w.code)).toEqual(['start-floored', 'soc-reading']);
  });

  it('keeps the setpoint of a quarter hour already under way when it plans at 14:55 from 14:45, so the battery never goes below soc-min', async () => {
    const { power, assetId } = await device('battery');
    const soc = (await f.sensor({ assetId, unit: 'kWh', resolutionMinutes: 0 })).id;
    const at = Date.parse('2015-01-06T14:45:00Z');
    // Measured at 14:45: 2 kWh of a 10 kWh battery that must keep 1 kWh.
    await f.beliefs(soc, at, 0, [2], at);
    const model = { 'soc-min': '1 kWh', 'soc-max': '10 kWh', 'power-capacity': '5 kW', 'state-of-charge': { sensor: soc } };
    const prices = (first: string, second: string) => {
      const p = [
        { start: '2015-01-06T14:45:00Z', end: '2015-01-06T15:00:00Z', value: first },
        { start: '2015-01-06T15:00:00Z', end: '2015-01-06T15:15:00Z', value: second },
        { start: '2015-01-06T15:15:00Z', end: '2015-01-06T17:00:00Z', value: '10 EUR/MWh' },
      ];
      return { 'consumption-price': p, 'production-price': p };
    };
    // At 14:45, dear now: the plan sells down to the floor, 1 kWh in 15 minutes, -4 kW.
    const first = await run(power, {
      start: iso(at),
      prior: iso(at),
      duration: 'PT2H',
      'flex-model': model,
      'flex-context': prices('500 EUR/MWh', '10 EUR/MWh'),
    });
    expect(first.devices[0].power_mw[0]).toBeCloseTo(-0.004, 9);
    // The device follows that -4 kW from 14:45. At 14:55 the prices say the opposite (dear at
    // 15:00); the plan starts at 14:45 (floored), from the 14:45 reading.
    const second = await run(power, {
      start: '2015-01-06T14:55:00Z',
      prior: '2015-01-06T14:55:00Z',
      duration: 'PT2H',
      'flex-model': model,
      'flex-context': prices('10 EUR/MWh', '500 EUR/MWh'),
    });
    expect(new Date(second.start_ms).toISOString()).toBe('2015-01-06T14:45:00.000Z');
    expect(second.devices[0].soc_mwh[0]).toBeCloseTo(0.002, 9);
    // The quarter hour under way keeps its -4 kW: 2 kWh - 4 kW × 0.25 h = 1 kWh at 15:00, where the device will be.
    expect(second.devices[0].power_mw[0]).toBeCloseTo(-0.004, 6);
    expect(second.devices[0].soc_mwh[1]).toBeCloseTo(0.001, 6);
    // What the battery does: -4 kW until 15:00, then the new plan; it never holds less than 1 kWh.
    let kwh = 2 - 4 * 0.25;
    const held = [kwh];
    for (const mw of second.devices[0].power_mw.slice(1) as number[]) held.push((kwh += mw * 1000 * 0.25));
    expect(Math.min(...held)).toBeGreaterThanOrEqual(1 - 1e-6);
  });
});
