/**
 * A finished job says what it did beyond the request: prices extended to the window's edges (as
 * FlexMeasures does, but said), the fallback scheduler used (under its own source, superseded by a
 * later optimal schedule), soft constraints not met, a state of charge read before the start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let priceSensor: number;

const HOUR = 3_600_000;
/** Prices known for 2015-01-02 00:00–12:00 UTC only: 50 for six hours, then 80. */
const PRICE_START = Date.parse('2015-01-02T00:00:00Z');
const prices = [...Array(6).fill(50), ...Array(6).fill(80)];

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const asset = await f.asset({ accountId });
  priceSensor = (await f.sensor({ assetId: asset.id, name: 'day-ahead', unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  await f.beliefs(priceSensor, PRICE_START, HOUR, prices, PRICE_START - 86_400_000);
});
afterAll(() => t.close());

/** A battery; `names` its asset's and sensor's names where a test reads them in a message. */
async function battery(names: { asset?: string; sensor?: string } = {}): Promise<number> {
  const asset = await f.asset({ accountId, type: 'battery', name: names.asset });
  return (await f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 60, name: names.sensor })).id;
}

async function run(sensorId: number, body: Record<string, unknown>) {
  const res = await t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, { token, json: body });
  expect(res.status).toBe(200);
  await waitForSchedule(t, token, sensorId, res.body.schedule);
  return res.body.schedule as string;
}

const job = async (id: string) => (await t.request('GET', `/api/v3_0/jobs/${id}`, { token })).body;

describe('job warnings', () => {
  it('extends prices that end inside the window to its edges, and says which sensor over which periods', async () => {
    const device = await battery();
    // 22:00 the day before until 22:00: two hours before the prices start, ten after they end.
    const id = await run(device, {
      start: '2015-01-01T22:00:00Z',
      duration: 'PT24H',
      'flex-model': { 'soc-at-start': '0 MWh', 'soc-min': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    const body = await job(id);
    expect(body.status).toBe('finished');
    expect(body.result.consumption_price).toEqual([50, 50, ...prices, ...Array(10).fill(80)]);
    expect(body.result.currency).toBe('EUR');
    const warning = {
      code: 'input-extended',
      field: 'consumption-price',
      sensor_id: priceSensor,
      message: `Prices of sensor ${priceSensor} (day-ahead) do not cover the whole schedule; extended with the first known price backwards, the last known price forwards.`,
      periods: [
        { start: '2015-01-01T22:00:00.000Z', end: '2015-01-02T00:00:00.000Z' },
        { start: '2015-01-02T12:00:00.000Z', end: '2015-01-02T22:00:00.000Z' },
      ],
    };
    expect(body.result.warnings).toEqual([warning]);
    // Lists carry them too, without the result.
    const list = await t.request('GET', '/api/v3_0/jobs', { token, query: { account_id: accountId } });
    const listed = list.body.find((j: { id: string }) => j.id === id);
    expect(listed.result).toBeUndefined();
    expect(listed.warnings).toEqual([warning]);
    const stored = JSON.parse((await t.db('job').where({ id }).first()).result);
    expect(stored.warnings).toEqual([warning]);
  });

  it('has no warnings when the inputs cover the window and everything is met', async () => {
    const id = await run(await battery(), {
      start: '2015-01-02T00:00:00Z',
      duration: 'PT6H',
      'flex-model': { 'soc-at-start': '0 MWh', 'soc-min': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    const body = await job(id);
    expect(body.result.warnings).toEqual([]);
    expect(body.warnings).toEqual([]);
  });

  it('names a soft SoC target that was missed, and its device as people know it', async () => {
    const device = await battery({ asset: 'Garage battery', sensor: 'power' });
    const id = await run(device, {
      start: '2015-01-02T00:00:00Z',
      duration: 'PT4H',
      'flex-model': {
        'soc-at-start': '0 MWh',
        'soc-min': '0 MWh',
        'soc-max': '10 MWh',
        'power-capacity': '1 MW',
        // 5 MWh after two hours at 1 MW: 3 MWh short.
        'soc-targets': [{ datetime: '2015-01-02T02:00:00Z', value: '5 MWh' }],
      },
      'flex-context': { 'consumption-price-sensor': priceSensor, 'relax-constraints': true },
    });
    const body = await job(id);
    expect(body.status).toBe('finished');
    expect(body.result.warnings).toEqual([
      {
        code: 'target-missed',
        field: 'soc-targets',
        sensor_id: device,
        // The device by its asset's name and its sensor's, as the screens name it; not "sensor <id>".
        message: 'SoC targets of Garage battery power not met at 1 step(s), by up to 3000.0 kWh.',
        periods: [{ start: '2015-01-02T01:00:00.000Z', end: '2015-01-02T02:00:00.000Z' }],
      },
    ]);
  });

  it('says the state of charge at the start was read an hour before it', async () => {
    const device = await battery();
    const soc = (await f.sensor({ assetId: (await f.asset({ accountId })).id, unit: 'MWh', resolutionMinutes: 0 })).id;
    await f.beliefs(soc, PRICE_START - HOUR, 0, [0.5], PRICE_START - HOUR);
    const id = await run(device, {
      start: '2015-01-02T00:00:00Z',
      duration: 'PT2H',
      'flex-model': { 'soc-min': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW', 'state-of-charge': { sensor: soc } },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    expect((await job(id)).result.warnings).toEqual([
      {
        code: 'soc-reading',
        field: 'soc-at-start',
        sensor_id: soc,
        message: `State of charge at the start taken from sensor ${soc}'s reading 60 min before the start.`,
        periods: [{ start: '2015-01-01T23:00:00.000Z', end: '2015-01-02T00:00:00.000Z' }],
      },
    ]);
  });

  it('stores a fallback schedule under its own source, with a warning; a later optimal schedule supersedes it', async () => {
    const device = await battery();
    const window = { start: '2015-01-02T00:00:00Z', duration: 'PT2H' };
    const infeasible = {
      ...window,
      prior: '2015-01-01T10:00:00Z',
      'flex-model': {
        'soc-at-start': '0 MWh',
        'soc-max': '5 MWh',
        'power-capacity': '1 MW',
        'soc-targets': [{ datetime: '2015-01-02T01:00:00Z', value: '4 MWh' }],
      },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    };
    const failedId = await run(device, infeasible);
    const failed = await job(failedId);
    expect(failed.status).toBe('failed');
    const fallback = await job(failed.fallback_job_id);
    expect(fallback.status).toBe('finished');
    expect(fallback.result.scheduler_info).toEqual({ scheduler: 'StorageFallbackScheduler' });
    // It also misses the unreachable target: 1 of 4 MWh after the hour.
    expect(fallback.result.warnings.map((w: { code: string; field?: string }) => [w.code, w.field])).toEqual([
      ['fallback', undefined],
      ['target-missed', 'soc-targets'],
    ]);
    const source = await t.db('data_source').where({ id: fallback.result.data_source_id }).first();
    expect(source).toMatchObject({ name: 'Flexsite fallback', type: 'scheduler', model: 'StorageFallbackScheduler' });
    const read = () =>
      t.request('GET', `/api/v3_0/sensors/${device}/data`, { token, query: { ...window, unit: 'MW', resolution: 'PT1H' } });
    // The fallback charges at full power (stored production-positive).
    expect((await read()).body.values).toEqual([-1, -1]);

    // Known later: an optimal schedule of a battery held full (min = max = start), so idle.
    const optimalId = await run(device, {
      ...window,
      prior: '2015-01-01T11:00:00Z',
      'flex-model': { 'soc-at-start': '1 MWh', 'soc-min': '1 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    const optimal = await job(optimalId);
    expect(optimal.result.scheduler_info).toEqual({ scheduler: 'StorageScheduler' });
    expect((await t.db('data_source').where({ id: optimal.result.data_source_id }).first()).name).toBe('Flexsite');
    expect((await read()).body.values).toEqual([0, 0]);
    // Both stay stored, each under its source.
    const sources = await t.db('timed_belief').where({ sensor_id: device }).distinct('source_id').pluck('source_id');
    expect(sources.sort()).toEqual([fallback.result.data_source_id, optimal.result.data_source_id].sort());
  });
});
