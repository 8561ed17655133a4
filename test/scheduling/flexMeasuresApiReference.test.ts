/**
 * FlexMeasures 1.0's API schedule tests (flexmeasures/api/v3_0/tests/test_sensor_schedules_fresh_db.py)
 * about which flex-context wins, inflexible devices and sign conventions, rebuilt through Flexsite's
 * API in the 1.0 dialect. FlexMeasures spies on the scheduler (which price sensor it searched, how
 * often it read inflexible power); here the same facts are read from the job as queued: the
 * resolved job spec Flexsite stores with it. Fixtures and expectations are FlexMeasures'.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getAsset } from '../../server/src/store/assets.ts';
import { updateAsset } from '../../server/src/store/write/assets.ts';
import { FIXTURE } from '../helpers/fixtureWriter.ts';
import { DAY1_MS, startConftest, type Conftest } from '../helpers/flexMeasuresConftest.ts';

let c: Conftest;
/** conftest "Test small battery": an asset of the same account for the "other asset" sensors. */
let smallBattery: number;
beforeAll(async () => {
  c = await startConftest();
  smallBattery = await c.asset('battery', {
    flexContext: { 'site-power-capacity': '10 kVA', 'consumption-price': { sensor: c.epexDa } },
    attributes: { max_soc_in_mwh: 0.01, min_soc_in_mwh: 0, soc_in_mwh: 0.005 },
  });
});
afterAll(() => c.t.close());

/** Stored flex configuration the tests change, put back after each (FlexMeasures' tests each get a fresh database). */
const restore: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (restore.length) await restore.pop()!();
});

/** Changes an asset's stored flex_context or flex_model for one test. */
async function storeFlex(
  assetId: number,
  key: 'flex_context' | 'flex_model',
  change: (v: Record<string, unknown>) => Record<string, unknown>,
) {
  const before = (await getAsset(c.t.db, assetId))![key];
  const write = (value: Record<string, unknown>) =>
    c.t.db.transaction(async (trx) => updateAsset(trx, FIXTURE, (await getAsset(trx, assetId))!, { [key]: value }));
  await write(change(structuredClone(before)));
  restore.push(() => write(before));
}

/** `setup_inflexible_device_sensors`: hourly MW sensors with a 2 MW capacity attribute. */
async function inflexibleSensors(assetId: number, n: number, attributes: Record<string, unknown> = {}) {
  const ids: number[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await c.f.sensor({ assetId, unit: 'MW', resolutionMinutes: 60, attributes: { capacity_in_mw: 2, ...attributes } })).id);
  return ids;
}

/** `link_sensors`: adds sensors to an asset's stored inflexible-device-sensors. */
const linkSensors = (assetId: number, ids: number[]) =>
  storeFlex(assetId, 'flex_context', (v) => ({
    ...v,
    'inflexible-device-sensors': [...((v['inflexible-device-sensors'] as number[]) ?? []), ...ids],
  }));

/** Triggers the test battery's schedule; the response and, when accepted, the job spec as queued. */
async function trigger(message: Record<string, unknown>) {
  const res = await c.t.request('POST', `/api/v3_0/sensors/${c.fixture.battery}/schedules/trigger`, {
    token: c.token,
    json: { ...message, 'force-new-job-creation': true },
  });
  if (res.status !== 202) return { res, spec: undefined };
  const row = await c.t.db('job').where({ id: res.body.job }).first<{ args: string }>();
  const spec = (JSON.parse(row.args) as { spec: Record<string, unknown> }).spec;
  return { res, spec };
}

const jobCount = async () => Number((await c.t.db('job').count({ n: '*' }))[0].n);

describe('test_sensor_schedules_fresh_db.py::test_price_sensor_priority', () => {
  type Where = 'epex_da' | 'epex_da_production' | null;
  const rows: [Where, Where, Where, Where][] = [
    ['epex_da', null, null, 'epex_da'],
    [null, 'epex_da', null, 'epex_da'],
    ['epex_da_production', 'epex_da', null, 'epex_da_production'],
    [null, null, 'epex_da', 'epex_da'],
    [null, 'epex_da', 'epex_da_production', 'epex_da'],
  ];
  const cases = (['consumption', 'production'] as const).flatMap((type) => rows.map((r) => [type, ...r] as const));
  it.each(cases)('%s: context %s, asset %s, parent %s: uses %s', async (type, context, onAsset, onParent, expected) => {
    const id = (name: Where) => (name === 'epex_da' ? c.epexDa : c.epexDaProduction);
    const used = `${type}-price`;
    const unused = type === 'consumption' ? 'production-price' : 'consumption-price';
    if (onAsset) await storeFlex(c.fixture.batteryAsset, 'flex_context', (v) => ({ ...v, [used]: { sensor: id(onAsset) } }));
    if (onParent) await storeFlex(c.fixture.building, 'flex_context', (v) => ({ ...v, [used]: { sensor: id(onParent) } }));
    const flexContext: Record<string, unknown> = { [unused]: { sensor: c.epexDa }, 'site-power-capacity': '1 TW' };
    if (context) flexContext[used] = { sensor: id(context) };
    const { res, spec } = await trigger({ ...c.messageForTriggerSchedule(), 'flex-context': flexContext });
    expect(res.status).toBe(202);
    const price = spec![type === 'consumption' ? 'consumptionPrice' : 'productionPrice'] as { sensor: number };
    expect(price.sensor).toBe(id(expected));
    expect(await c.settled(res.body.job)).toBe('finished');
  });
});

describe('test_sensor_schedules_fresh_db.py::test_inflexible_device_sensors_priority', () => {
  const cases: [number, number, number, number][] = [
    [1, 0, 2, 1],
    [0, 1, 2, 1],
    [0, 0, 1, 1],
    [1, 2, 3, 1],
  ];
  it.each(cases)('context %d, asset %d, parent %d sensors: %d read', async (inContext, onAsset, onParent, expected) => {
    const flexContext: Record<string, unknown> = {
      'consumption-price': { sensor: c.epexDa },
      'production-price': { sensor: c.epexDa },
      'site-power-capacity': '1 TW',
    };
    if (inContext) flexContext['inflexible-device-sensors'] = await inflexibleSensors(smallBattery, inContext);
    if (onAsset) await linkSensors(c.fixture.batteryAsset, await inflexibleSensors(c.fixture.batteryAsset, onAsset));
    if (onParent) await linkSensors(c.fixture.building, await inflexibleSensors(c.fixture.building, onParent));
    const { res, spec } = await trigger({ ...c.messageForTriggerSchedule(), 'flex-context': flexContext });
    expect(res.status).toBe(202);
    expect(spec!.inflexibleSensorIds).toHaveLength(expected);
    expect(await c.settled(res.body.job)).toBe('finished');
  });
});

describe('test_sensor_schedules_fresh_db.py::test_get_schedule_sign_convention_*', () => {
  /** `_assert_schedule_sign_convention`: the output's sign against the main power sensor's (consumption positive). */
  function assertSignConvention(outputType: string, convention: string, main: number[], output: number[]) {
    const sameSign = convention === 'consumption-positive' || (outputType === 'consumption' && convention === 'wysiwyg');
    main.forEach((m, i) => {
      if (m > 0) expect(sameSign ? output[i] >= 0 : output[i] <= 0).toBe(true);
      else if (m < 0) expect(sameSign ? output[i] <= 0 : output[i] >= 0).toBe(true);
    });
  }
  const cases = (['json', 'db'] as const).flatMap((where) =>
    (['consumption', 'production'] as const).flatMap((outputType) =>
      (['consumption-positive', 'production-positive', 'wysiwyg'] as const).map((convention) => [where, outputType, convention] as const),
    ),
  );
  it.each(cases)('%s flex-model, %s output, sign-convention %s', async (where, outputType, convention) => {
    const output = (await c.f.sensor({ assetId: c.fixture.batteryAsset, unit: 'MW', resolutionMinutes: 15, name: `${outputType} output` }))
      .id;
    const message = c.messageForTriggerSchedule({ resolution: 'PT1H' });
    if (where === 'json') message['flex-model'][outputType] = { sensor: output };
    else await storeFlex(c.fixture.batteryAsset, 'flex_model', (v) => ({ ...v, [outputType]: { sensor: output } }));
    const { res } = await trigger(message);
    expect(res.status).toBe(202);
    const job = res.body.job as string;
    expect(await c.settled(job)).toBe('finished');
    const got = await c.t.request('GET', `/api/v3_0/sensors/${output}/schedules/${job}`, {
      token: c.token,
      query: { duration: 'PT24H', 'sign-convention': convention },
    });
    expect(got.status).toBe(200);
    const values = got.body.values as number[];
    expect(values.length).toBeGreaterThan(0);
    expect(values.some((v) => v !== 0)).toBe(true);
    const main = (await c.schedule(c.fixture.battery, job, 'PT24H')).values;
    assertSignConvention(outputType, convention, main, values);
  });
});

describe('test_sensor_schedules_fresh_db.py::test_trigger_schedule_with_sign_explicit_inflexible_fields', () => {
  async function signExplicit(productionRef: Record<string, unknown>) {
    const [consumption, production] = await inflexibleSensors(smallBattery, 2);
    await linkSensors(c.fixture.batteryAsset, await inflexibleSensors(c.fixture.batteryAsset, 3));
    const result = await trigger({
      ...c.messageForTriggerSchedule(),
      'flex-context': {
        'consumption-price': { sensor: c.epexDa },
        'production-price': { sensor: c.epexDa },
        'site-power-capacity': '1 TW',
        'inflexible-consumption': [{ sensor: consumption }],
        'inflexible-production': [{ sensor: production, ...productionRef }],
      },
    });
    return { ...result, consumption, production };
  }

  it("the request's sign-explicit fields are used, shadowing the asset's stored inflexible-device-sensors", async () => {
    // Without FlexMeasures' `exclude-source-types` filter on the production sensor (see the next case).
    const { res, spec, consumption, production } = await signExplicit({});
    expect(res.status).toBe(202);
    // Only the request's two sensors, the first read consumption positive, the second production positive.
    expect(spec!.inflexibleSensorIds).toEqual([]);
    expect(spec!.inflexibleConsumptionSensorIds).toEqual([consumption]);
    expect(spec!.inflexibleProductionSensorIds).toEqual([production]);
    expect(await c.settled(res.body.job)).toBe('finished');
  });

  it('a source filter on a sensor reference (`exclude-source-types`) is accepted, as in 1.0', async () => {
    const { res } = await signExplicit({ 'exclude-source-types': ['scheduler'] });
    expect(res.status).toBe(202);
    expect(await c.settled(res.body.job)).toBe('finished');
  });
});

describe('test_sensor_schedules_fresh_db.py::test_trigger_schedule_inflexible_conflicts', () => {
  const cases: [string, Record<string, string>, string][] = [
    [
      'both the deprecated and the sign-explicit fields',
      { 'inflexible-device-sensors': 'ID_0', 'inflexible-production': 'REF_1' },
      'Must pass either inflexible-device-sensors',
    ],
    ['one sensor in both lists', { 'inflexible-consumption': 'REF_0', 'inflexible-production': 'REF_0' }, 'may only be listed once'],
    [
      'a consumption-positive sensor as production',
      { 'inflexible-production': 'REF_CONSUMPTION_ATTR' },
      'conflicts with the sign convention',
    ],
  ];
  it.each(cases)('%s: 422, nothing queued', async (_name, extra, expected) => {
    const plain = await inflexibleSensors(smallBattery, 2);
    const [consumptionPositive] = await inflexibleSensors(smallBattery, 1, { consumption_is_positive: true });
    const placeholders: Record<string, unknown> = {
      ID_0: [plain[0]],
      REF_0: [{ sensor: plain[0] }],
      REF_1: [{ sensor: plain[1] }],
      REF_CONSUMPTION_ATTR: [{ sensor: consumptionPositive }],
    };
    const before = await jobCount();
    const { res } = await trigger({
      ...c.messageForTriggerSchedule(),
      'flex-context': {
        'consumption-price': { sensor: c.epexDa },
        'production-price': { sensor: c.epexDa },
        ...Object.fromEntries(Object.entries(extra).map(([field, p]) => [field, placeholders[p]])),
      },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain(expected);
    expect(await jobCount()).toBe(before);
  });
});

describe('test_asset_schedules_fresh_db.py::test_asset_trigger_and_get_aggregate_schedule', () => {
  it('fills the aggregate-consumption and aggregate-production sensors of the flex-context', async () => {
    const aggregateConsumption = (await c.f.sensor({ assetId: c.fixture.hub, unit: 'MW', name: 'aggregate-consumption' })).id;
    const aggregateProduction = (await c.f.sensor({ assetId: c.fixture.hub, unit: 'MW', name: 'aggregate-production' })).id;
    const message = c.messageForTriggerSchedule({ resolution: 'PT30M' });
    const cp1 = { ...message['flex-model'], 'state-of-charge': { sensor: c.fixture.biSoc }, sensor: c.fixture.bidirectional };
    const cp2 = { ...message['flex-model'], 'state-of-charge': { sensor: c.fixture.uniSoc }, sensor: c.fixture.station };
    const res = await c.t.request('POST', `/api/v3_0/assets/${c.fixture.hub}/schedules/trigger`, {
      token: c.token,
      json: {
        ...message,
        'flex-model': [cp1, cp2],
        'flex-context': {
          'consumption-price': { sensor: c.epexDa },
          'production-price': { sensor: c.epexDa },
          'site-power-capacity': '1 TW',
          'aggregate-consumption': { sensor: aggregateConsumption },
          'aggregate-production': { sensor: aggregateProduction },
        },
        'force-new-job-creation': true,
      },
    });
    expect(res.status).toBe(202);
    expect(await c.settled(res.body.schedule)).toBe('finished');
    // Stored under the scheduler's source with each sensor's own sign convention (production
    // positive, as no attribute says otherwise): the consumption part negative, the production part non-negative.
    const consumption = await c.storedValues(aggregateConsumption);
    const production = await c.storedValues(aggregateProduction);
    expect(consumption.length).toBeGreaterThan(0);
    expect(production.length).toBeGreaterThan(0);
    expect(consumption.some((v) => -v > 0)).toBe(true);
    for (const v of production) expect(v).toBeGreaterThanOrEqual(0);
  });
});

describe('test_sensor_schedules_fresh_db.py::test_conflicting_consumption_is_positive_attribute_prevents_job_creation', () => {
  it('a consumption-positive sensor as the production output: 422 at the trigger, no job, nothing stored', async () => {
    // conftest `battery_soc_sensor`: an instantaneous % sensor, 50 at the start.
    const soc = (await c.f.sensor({ assetId: c.fixture.batteryAsset, unit: '%', resolutionMinutes: 0 })).id;
    await c.f.beliefs(soc, DAY1_MS, 0, [50], DAY1_MS);
    const mismatched = (
      await c.f.sensor({
        assetId: c.fixture.batteryAsset,
        unit: 'MW',
        resolutionMinutes: 15,
        attributes: { consumption_is_positive: true },
      })
    ).id;
    const message = c.messageForTriggerSchedule({ resolution: 'PT1H' });
    const { 'soc-at-start': _omitted, ...flexModel } = message['flex-model'];
    const before = await jobCount();
    const { res } = await trigger({
      ...message,
      'flex-model': { ...flexModel, 'state-of-charge': { sensor: soc }, production: { sensor: mismatched } },
      'flex-context': {
        'consumption-price': { sensor: c.epexDa },
        'production-price': { sensor: c.epexDa },
        'site-power-capacity': '1 TW',
      },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.message)).toContain('consumption_is_positive');
    expect(await jobCount()).toBe(before);
    expect(await c.t.db('timed_belief').where({ sensor_id: mismatched }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});
