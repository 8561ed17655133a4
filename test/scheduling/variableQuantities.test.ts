/**
 * FlexMeasures 1.0's variable quantities through the trigger (fixed, `{"sensor", "default"}`,
 * time segments), soc-at-start read from the state-of-charge sensor, and the consumption,
 * production and aggregate-power output sensors. Hand-checked cases: one battery, hourly steps,
 * a 2-hour schedule, energy at 100 EUR/MWh unless said otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let otherAccountSensor: number;

const START = '2015-01-02T00:00:00+01:00';
const MIDDLE = '2015-01-02T01:00:00+01:00';
const END = '2015-01-02T02:00:00+01:00';
const START_MS = Date.parse(START);
const HOUR = 3_600_000;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const other = await f.account();
  otherAccountSensor = (await f.sensor({ assetId: (await f.asset({ accountId: other.id })).id, unit: 'MW' })).id;
});
afterAll(() => t.close());

async function battery(attributes: Record<string, unknown> = {}): Promise<number> {
  const asset = await f.asset({ accountId, type: 'battery' });
  return (await f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 60, attributes })).id;
}

/** A sensor of the caller's account, optionally with hourly data from the start. */
async function sensor(unit: string, values: number[] = [], resolutionMinutes = 60): Promise<number> {
  const id = (await f.sensor({ assetId: (await f.asset({ accountId })).id, unit, resolutionMinutes })).id;
  if (values.length) await f.beliefs(id, START_MS, HOUR, values, START_MS - 86_400_000);
  return id;
}

const base = { 'soc-at-start': '0 MWh', 'soc-min': '0 MWh', 'soc-max': '10 MWh', 'power-capacity': '1 MW' };

const post = (device: number, model: Record<string, unknown>, context: Record<string, unknown> = {}) =>
  t.request('POST', `/api/v3_0/sensors/${device}/schedules/trigger`, {
    token,
    json: {
      start: START,
      duration: 'PT2H',
      'flex-model': { ...base, ...model },
      'flex-context': { 'consumption-price': '100 EUR/MWh', ...context },
    },
  });

/** Triggers a 2-hour schedule and waits for it: the job id and the power values (MW, consumption positive). */
async function schedule(model: Record<string, unknown>, context: Record<string, unknown> = {}, device?: number) {
  const id = device ?? (await battery());
  const res = await post(id, model, context);
  expect(res.status).toBe(200);
  const s = await waitForSchedule(t, token, id, res.body.schedule, 'PT2H');
  expect(s.status).toBe(200);
  return { job: res.body.schedule as string, values: (s.body.values as number[]).map((v) => +v.toFixed(6) + 0) };
}

/** What a sensor holds, by event start (values as stored). */
async function stored(sensorId: number): Promise<number[]> {
  const rows = await t
    .db('timed_belief')
    .where({ sensor_id: sensorId })
    .orderBy('event_start')
    .select<{ event_value: number }[]>('event_value');
  return rows.map((r) => +r.event_value.toFixed(6) + 0);
}

const jobCount = async () => Number((await t.db('job').count({ n: '*' }))[0].n);
const segment = (start: string, end: string, value: string) => ({ start, end, value });

describe('time segments', () => {
  // 2 MWh to charge in 2 hours: with 1 MW in the first hour and the attribute's 2 MW after it,
  // charging sooner gives 0.5 MW then 1.5 MW.
  it('a power capacity over the first hour; the sensor attribute where no segment applies; segments outside the schedule ignored', async () => {
    const device = await battery({ capacity_in_mw: 2 });
    const model = {
      'power-capacity': [
        { start: START, duration: 'PT1H', value: '0.5 MW' },
        segment('2016-01-01T00:00:00+01:00', '2016-01-02T00:00:00+01:00', '0 MW'),
      ],
      'soc-targets': [{ datetime: END, value: '2 MWh' }],
    };
    const { job, values } = await schedule(model, {}, device);
    expect(values).toEqual([0.5, 1.5]);
    const { spec } = JSON.parse((await t.db('job').where({ id: job }).first<{ args: string }>('args')).args);
    expect(spec.devices[0].powerCapacityMw).toEqual({
      segments: [{ startMs: START_MS, endMs: START_MS + HOUR, value: 0.5 }],
      overlap: 'min',
      default: 2,
    });
  });

  it('overlapping capacity segments take the smallest', async () => {
    const model = {
      'power-capacity': [segment(START, END, '1 MW'), segment(START, MIDDLE, '500 kW')],
      'soc-targets': [{ datetime: END, value: '1.5 MWh' }],
    };
    expect((await schedule(model)).values).toEqual([0.5, 1]);
  });

  it('consumption prices over time move the charging to the cheaper hour', async () => {
    const target = { 'soc-targets': [{ datetime: END, value: '1 MWh' }] };
    // Without prices that differ, charging sooner wins.
    expect((await schedule(target)).values).toEqual([1, 0]);
    const prices = [segment(START, MIDDLE, '100 EUR/MWh'), segment(MIDDLE, END, '50 EUR/MWh')];
    expect((await schedule(target, { 'consumption-price': prices })).values).toEqual([0, 1]);
  });

  it('overlapping price segments give the first listed', async () => {
    const target = { 'soc-targets': [{ datetime: END, value: '1 MWh' }] };
    const prices = [segment(MIDDLE, END, '50 EUR/MWh'), segment(START, END, '100 EUR/MWh')];
    expect((await schedule(target, { 'consumption-price': prices })).values).toEqual([0, 1]);
  });

  it('a charging efficiency of 50% in the first hour makes the second hour the cheaper one', async () => {
    const model = {
      'charging-efficiency': [segment(START, MIDDLE, '50%'), segment(MIDDLE, END, '100%')],
      'soc-targets': [{ datetime: END, value: '1 MWh' }],
    };
    expect((await schedule(model)).values).toEqual([0, 1]);
  });

  it('a storage efficiency of 50% in the second hour makes charging late worth it', async () => {
    // Kept over the second hour: a half of the stock, and (e − 1)/ln e = 0.5/ln 2 of the energy
    // charged during it; so 0.5 MWh at the end costs ln 2 MWh charged then, 1 MWh charged before.
    const target = { 'soc-targets': [{ datetime: END, value: '0.5 MWh' }] };
    // Without losses the tie-breaker fills up first, at no cost.
    expect((await schedule(target)).values).toEqual([1, -0.5]);
    const model = { ...target, 'storage-efficiency': [segment(MIDDLE, END, '50%')] };
    expect((await schedule(model)).values).toEqual([0, 0.693147]);
  });

  it('a soc-usage component given as segments (a list inside the list) needs its energy charged too', async () => {
    const model = { 'soc-usage': [[segment(START, MIDDLE, '1 MW')]], 'soc-targets': [{ datetime: END, value: '1 MWh' }] };
    expect((await schedule(model)).values).toEqual([1, 1]);
  });

  it('a site consumption capacity of 0 kW in the first hour moves the charging to the second', async () => {
    const target = { 'soc-targets': [{ datetime: END, value: '1 MWh' }] };
    expect((await schedule(target, { 'site-consumption-capacity': [segment(START, MIDDLE, '0 kW')] })).values).toEqual([0, 1]);
  });

  // 3 MWh wanted after 2 hours of at most 1 MW: a breach priced above 2 × 100 / 2 charges all it can.
  const unreachable = { 'soc-minima': [{ datetime: END, value: '3 MWh' }], 'prefer-charging-sooner': false };

  it('a breach price over the schedule acts as the fixed one', async () => {
    const price = [segment(START, END, '60 EUR/MWh')];
    expect((await schedule(unreachable, { 'soc-minima-breach-price': price })).values).toEqual([1, 1]);
    expect((await schedule(unreachable, { 'soc-minima-breach-price': [segment(START, END, '40 EUR/MWh')] })).values).toEqual([0, 0]);
  });
});

describe('sensor references with a default', () => {
  it('a power-capacity sensor with data for the first hour only: its default elsewhere', async () => {
    const capacity = await sensor('MW', [0.5]);
    const model = { 'power-capacity': { sensor: capacity, default: '2 MW' }, 'soc-targets': [{ datetime: END, value: '2 MWh' }] };
    expect((await schedule(model)).values).toEqual([0.5, 1.5]);
  });

  it('a site consumption capacity from a sensor under a fixed site power capacity: the smaller per step', async () => {
    const capacity = await sensor('MW', [1, 1]);
    const target = { 'soc-targets': [{ datetime: END, value: '0.5 MWh' }] };
    const context = { 'site-consumption-capacity': { sensor: capacity }, 'site-power-capacity': '250 kW' };
    expect((await schedule(target, context)).values).toEqual([0.25, 0.25]);
  });

  it('a breach-price sensor without data: its default is the price', async () => {
    const prices = await sensor('EUR/MWh');
    const unreachable = { 'soc-minima': [{ datetime: END, value: '3 MWh' }], 'prefer-charging-sooner': false };
    const context = { 'soc-minima-breach-price': { sensor: prices, default: '60 EUR/MWh' } };
    expect((await schedule(unreachable, context)).values).toEqual([1, 1]);
  });
});

describe('stored on the asset', () => {
  it('an asset flex_model with a capacity time series and an output sensor schedules from a bare trigger', async () => {
    const consumption = await sensor('MW');
    const flexModel = {
      ...base,
      'power-capacity': [segment(START, MIDDLE, '0.5 MW'), segment(MIDDLE, END, '2 MW')],
      'soc-targets': [{ datetime: END, value: '2 MWh' }],
      consumption: { sensor: consumption },
    };
    const asset = await t.request('POST', '/api/v3_0/assets', {
      token,
      json: {
        name: 'stored variable battery',
        generic_asset_type_id: await f.assetType('battery'),
        account_id: accountId,
        latitude: 52,
        longitude: 4,
        flex_model: JSON.stringify(flexModel),
        flex_context: JSON.stringify({ 'consumption-price': [segment(START, END, '100 EUR/MWh')] }),
      },
    });
    expect(asset.status, JSON.stringify(asset.body)).toBe(201);
    const device = (await f.sensor({ assetId: asset.body.id, unit: 'MW', resolutionMinutes: 60 })).id;
    const res = await t.request('POST', `/api/v3_0/sensors/${device}/schedules/trigger`, {
      token,
      json: { start: START, duration: 'PT2H' },
    });
    expect(res.status).toBe(200);
    expect((await waitForSchedule(t, token, device, res.body.schedule, 'PT2H')).body.values).toEqual([0.5, 1.5]);
    expect(await stored(consumption)).toEqual([0.5, 1.5]);
  });

  it('refuses a badly timed segment in a stored flex_model with the message nested under the field', async () => {
    const res = await t.request('POST', '/api/v3_0/assets', {
      token,
      json: {
        name: 'badly timed battery',
        generic_asset_type_id: await f.assetType('battery'),
        account_id: accountId,
        latitude: 52,
        longitude: 4,
        flex_model: JSON.stringify({ 'power-capacity': [{ start: START, end: END, duration: 'PT1H', value: '1 MW' }] }),
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({
      json: {
        flex_model: { 'power-capacity': { '0': { _schema: ["If using the 'duration' field, either 'start' or 'end' is expected."] } } },
      },
    });
  });
});

describe('bad variable quantities', () => {
  it('answer 422 with the messages nested per segment as marshmallow nests them, queueing nothing', async () => {
    const device = await battery();
    const before = await jobCount();
    const cases: [Record<string, unknown>, Record<string, unknown>, unknown][] = [
      [
        { 'power-capacity': [segment(START, END, 'lots')] },
        {},
        { 'power-capacity': { '0': { value: [expect.stringContaining('lots')] } } },
      ],
      [
        { 'power-capacity': [{ start: START, value: '1 MW' }] },
        {},
        {
          'power-capacity': {
            '0': {
              _schema: [
                "Missing field(s) to describe timing: use the 'datetime' field, or a combination of 2 fields of 'start', 'end' and 'duration'.",
              ],
            },
          },
        },
      ],
      [
        { 'soc-gain': [[segment(START, END, '1 MW'), segment(START, END, '-')]] },
        {},
        { 'soc-gain': { '0': { '1': { value: [expect.any(String)] } } } },
      ],
      [
        {},
        { 'site-consumption-capacity': [segment(START, END, '-1 kW')] },
        { 'site-consumption-capacity': { '0': { value: ['Must be greater than or equal to 0.'] } } },
      ],
      [
        { 'charging-efficiency': { sensor: await sensor('%'), default: '0%' } },
        {},
        { 'charging-efficiency': { default: ['Must be greater than 0.'] } },
      ],
    ];
    for (const [model, context, json] of cases) {
      const res = await post(device, model, context);
      expect(res.status).toBe(422);
      expect(res.body.message.json).toEqual(json);
    }
    expect(await jobCount()).toBe(before);
  });
});

describe('soc-at-start from the state-of-charge sensor', () => {
  // The battery is full (2 of 2 MWh) at the start and should hold 2 MWh at the end: it stays idle.
  // From a soc-at-start of 0 it would have to charge in both hours.
  const keep = (soc: number) => ({
    'soc-at-start': undefined,
    'soc-max': '2 MWh',
    'state-of-charge': { sensor: soc },
    'soc-targets': [{ datetime: END, value: '2 MWh' }],
  });

  it('takes the value nearest the start within four steps, and writes the scheduled SoC to the sensor', async () => {
    const soc = await sensor('MWh', [], 0);
    await f.beliefs(soc, START_MS - 3 * HOUR, 0, [5], START_MS - 3 * HOUR);
    await f.beliefs(soc, START_MS - HOUR, 0, [2], START_MS - HOUR);
    expect((await schedule(keep(soc))).values).toEqual([0, 0]);
    // The two readings, then the schedule's SoC at the start and after each hour.
    expect(await stored(soc)).toEqual([5, 2, 2, 2, 2]);
  });

  it('reads a % sensor as a share of soc-max', async () => {
    const soc = await sensor('%', [], 0);
    await f.beliefs(soc, START_MS, 0, [100], START_MS - HOUR);
    expect((await schedule(keep(soc))).values).toEqual([0, 0]);
  });

  it('refuses a stale value (older than four steps) and a value not yet known at `prior`, queueing nothing', async () => {
    const device = await battery();
    const soc = await sensor('MWh', [], 0);
    await f.beliefs(soc, START_MS - 5 * HOUR, 0, [2], START_MS - 5 * HOUR);
    await f.beliefs(soc, START_MS, 0, [2], START_MS + HOUR);
    const before = await jobCount();
    const message = {
      'state-of-charge': [`No recent state-of-charge value found for sensor ${soc} within 4:00:00 of schedule start ${START}.`],
    };
    const res = await t.request('POST', `/api/v3_0/sensors/${device}/schedules/trigger`, {
      token,
      json: {
        start: START,
        duration: 'PT2H',
        prior: START,
        'flex-model': { ...base, ...keep(soc) },
        'flex-context': { 'consumption-price': '100 EUR/MWh' },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual(message);
    expect(await jobCount()).toBe(before);
  });

  it('another account’s state-of-charge sensor is refused (403) before its data is looked at', async () => {
    const device = await battery();
    const before = await jobCount();
    const res = await post(device, keep(otherAccountSensor));
    expect(res.status).toBe(403);
    expect(await jobCount()).toBe(before);
  });
});

describe('output sensors', () => {
  // Cheap then dear energy from 1 MWh: charge 1 MW, then discharge 1 MW.
  const arbitrage = { 'soc-at-start': '1 MWh', 'soc-max': '2 MWh', 'soc-targets': [{ datetime: END, value: '1 MWh' }] };
  const prices = { 'consumption-price': [segment(START, MIDDLE, '50 EUR/MWh'), segment(MIDDLE, END, '150 EUR/MWh')] };

  it('consumption and production together get the consumption part and the production part, both positive', async () => {
    const consumption = await sensor('kW');
    const production = await sensor('MW');
    const model = { ...arbitrage, consumption: { sensor: consumption }, production: { sensor: production } };
    const { job, values } = await schedule(model, prices);
    expect(values).toEqual([1, -1]);
    expect(await stored(consumption)).toEqual([1000, 0]);
    expect(await stored(production)).toEqual([0, 1]);
    // Each sensor now says how its values are signed, and its schedule reads back from the job.
    const attrs = async (id: number) =>
      JSON.parse((await t.db('sensor').where({ id }).first<{ attributes: string }>('attributes')).attributes);
    expect((await attrs(consumption)).consumption_is_positive).toBe(true);
    expect((await attrs(production)).consumption_is_positive).toBe(false);
    const read = await waitForSchedule(t, token, production, job, 'PT2H');
    expect(read.body.values).toEqual([0, -1]);
  });

  it('a consumption sensor alone gets the whole schedule, consumption positive', async () => {
    const consumption = await sensor('MW');
    await schedule({ ...arbitrage, consumption: { sensor: consumption } }, prices);
    expect(await stored(consumption)).toEqual([1, -1]);
  });

  it('a production sensor alone gets the whole schedule, production positive', async () => {
    const production = await sensor('MW');
    await schedule({ ...arbitrage, production: { sensor: production } }, prices);
    expect(await stored(production)).toEqual([-1, 1]);
  });

  it('aggregate-power gets the site power, scheduled plus inflexible devices, stored as power sensors keep it', async () => {
    const aggregate = await sensor('MW');
    const load = await sensor('MW', [0.5, 0.5]);
    const { job } = await schedule(arbitrage, {
      ...prices,
      'inflexible-consumption': [{ sensor: load }],
      'aggregate-power': { sensor: aggregate },
    });
    // Production positive in the store, as the reference stores power (the sensor has no sign attribute).
    expect(await stored(aggregate)).toEqual([-1.5, 0.5]);
    expect((await waitForSchedule(t, token, aggregate, job, 'PT2H')).body.values).toEqual([1.5, -0.5]);
  });

  it('aggregate-consumption and aggregate-production together get the site’s consumption part and production part', async () => {
    const consumption = await sensor('MW');
    const production = await sensor('kW');
    const load = await sensor('MW', [0.5, 0.5]);
    await schedule(arbitrage, {
      ...prices,
      'inflexible-consumption': [{ sensor: load }],
      'aggregate-consumption': { sensor: consumption },
      'aggregate-production': { sensor: production },
    });
    // Stored with each sensor's own sign convention (production positive): 1.0 sets the sign
    // attribute on a device's outputs only, so the consumption part is stored negative here.
    expect(await stored(consumption)).toEqual([-1.5, 0]);
    expect(await stored(production)).toEqual([0, 500]);
  });

  it('refuses another account’s output sensor (403) and a contradicting sign attribute (422), queueing and storing nothing', async () => {
    const device = await battery();
    const before = await jobCount();
    for (const [model, context] of [
      [{ consumption: { sensor: otherAccountSensor } }, {}],
      [{ production: { sensor: otherAccountSensor } }, {}],
      [{}, { 'aggregate-power': { sensor: otherAccountSensor } }],
      [{}, { 'aggregate-consumption': { sensor: otherAccountSensor } }],
      [{}, { 'aggregate-production': { sensor: otherAccountSensor } }],
    ]) {
      expect((await post(device, model, context)).status).toBe(403);
    }
    const signed = (
      await f.sensor({ assetId: (await f.asset({ accountId })).id, unit: 'MW', attributes: { consumption_is_positive: true } })
    ).id;
    const res = await post(device, { production: { sensor: signed } });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual({
      production: [
        `Sensor ${signed} already has \`consumption_is_positive=True\`, which conflicts with the 'production_schedule' output schedule (expected \`consumption_is_positive=False\`).`,
      ],
    });
    expect(await jobCount()).toBe(before);
    expect(await stored(otherAccountSensor)).toEqual([]);
    expect(await stored(signed)).toEqual([]);
  });
});
