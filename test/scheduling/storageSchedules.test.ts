import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let priceSensor: number;

/** Day-2 prices of the reference fixture: 100 (00–08 h), 90 (08–16 h), 100 (16–24 h), Amsterdam time. */
const day2 = [...Array(8).fill(100), ...Array(8).fill(90), ...Array(8).fill(100)];

async function battery(props: { unit?: string; attributes?: Record<string, unknown> } = {}) {
  const asset = await f.asset({ accountId, type: 'battery' });
  const sensor = await f.sensor({
    assetId: asset.id,
    unit: props.unit ?? 'MW',
    resolutionMinutes: 15,
    timezone: 'Europe/Amsterdam',
    attributes: props.attributes,
  });
  return { asset, sensor };
}

async function trigger(sensorId: number, body: Record<string, unknown>) {
  return t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, { token, json: body });
}

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  priceSensor = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' })).id;
  await f.beliefs(priceSensor, Date.parse('2015-01-02T00:00:00+01:00'), 3600_000, day2, Date.parse('2015-01-01T12:00:00+01:00'));
});
afterAll(() => t.close());

describe('storage schedules through the API', () => {
  it('reproduces TC9: a two-hour price step 90 → 100', async () => {
    const { sensor } = await battery();
    const res = await trigger(sensor.id, {
      start: '2015-01-02T15:00:00+01:00',
      duration: 'PT2H',
      'flex-model': {
        'soc-at-start': 100,
        'soc-unit': 'kWh',
        'soc-min': 100,
        'soc-max': 1000,
        'roundtrip-efficiency': 1,
        'storage-efficiency': 1,
        'power-capacity': '1 MW',
      },
      'flex-context': { 'consumption-price-sensor': priceSensor, 'site-power-capacity': '1 MW' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      schedule: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'PROCESSED',
      message: 'Request has been processed.',
    });
    const schedule = await waitForSchedule(t, token, sensor.id, res.body.schedule, 'PT2H');
    expect(schedule.status).toBe(200);
    expect(schedule.body).toEqual({
      values: [1, 1, 1, 0.6, -0.6, -1, -1, -1],
      start: '2015-01-02T15:00:00+01:00',
      duration: 'PT2H',
      unit: 'MW',
      scheduler_info: { scheduler: 'StorageScheduler' },
      status: 'PROCESSED',
      message: 'Request has been processed. StorageScheduler was used.',
    });
    // The schedule is stored as beliefs of a scheduler source, production positive as the sensor keeps its data.
    const rows = await t
      .db('timed_belief as b')
      .join('data_source as s', 's.id', 'b.source_id')
      .where('b.sensor_id', sensor.id)
      .select('b.*', 's.type');
    expect(rows).toHaveLength(8);
    expect(rows.every((r: { type: string }) => r.type === 'scheduler')).toBe(true);
  });

  it('reproduces TC9 in kW and kWh units', async () => {
    const { sensor } = await battery({ unit: 'kW' });
    const res = await trigger(sensor.id, {
      start: '2015-01-02T15:00:00+01:00',
      duration: 'PT2H',
      'flex-model': { 'soc-at-start': '0.1 MWh', 'soc-min': '100 kWh', 'soc-max': '1 MWh', 'power-capacity': '1000 kW' },
      'flex-context': { 'consumption-price-sensor': priceSensor, 'site-power-capacity': '1 MW' },
    });
    const schedule = await waitForSchedule(t, token, sensor.id, res.body.schedule, 'PT2H');
    expect(schedule.status).toBe(200);
    expect(schedule.body.unit).toBe('kW');
    expect(schedule.body.values).toEqual([1000, 1000, 1000, 600, -600, -1000, -1000, -1000]);
  });

  it('reproduces TC5 (roundtrip 1, storage 1): a day of 100/90/100 prices', async () => {
    const { sensor } = await battery();
    const res = await trigger(sensor.id, {
      start: '2015-01-02T00:00:00+01:00',
      duration: 'PT24H',
      'flex-model': { 'soc-at-start': 2.5, 'soc-min': 0.5, 'soc-max': 4.5, 'power-capacity': '2 MW' },
      'flex-context': { 'consumption-price-sensor': priceSensor, 'site-power-capacity': '2 MW' },
    });
    const schedule = await waitForSchedule(t, token, sensor.id, res.body.schedule, 'PT24H');
    expect(schedule.status).toBe(200);
    const p: number[] = schedule.body.values;
    expect(p).toHaveLength(96);
    const soc = [2.5];
    for (const v of p) soc.push(soc[soc.length - 1] + v * 0.25);
    const at = (hour: number) => Math.round(soc[hour * 4] * 1e6) / 1e6;
    expect(at(8)).toBeCloseTo(0.5, 6);
    expect(at(16)).toBeCloseTo(4.5, 6);
    expect(at(24)).toBeCloseTo(0.5, 6);
    for (const v of p) expect(Math.abs(v)).toBeLessThanOrEqual(2 + 1e-6);
    const cost = p.reduce((sum, v, j) => sum + v * 0.25 * day2[Math.floor(j / 4)], 0);
    expect(cost).toBeCloseTo(-240, 6);
  });

  it('returns the same job for identical triggers and a new one when forced', async () => {
    const { sensor } = await battery();
    const body = {
      start: '2015-01-02T15:00:00+01:00',
      duration: 'PT1H',
      'flex-model': { 'soc-at-start': 0.5, 'soc-max': 1, 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    };
    const a = await trigger(sensor.id, body);
    const b = await trigger(sensor.id, body);
    expect(b.body.schedule).toBe(a.body.schedule);
    const c = await trigger(sensor.id, { ...body, 'force-new-job-creation': true });
    expect(c.body.schedule).not.toBe(a.body.schedule);
  });

  it('fails a job without prices with the reference message', async () => {
    const market = await f.asset({ accountId, type: 'transmission zone' });
    const empty = await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 });
    const { sensor } = await battery();
    const res = await trigger(sensor.id, {
      start: '2015-01-02T15:00:00+01:00',
      'flex-model': { 'soc-at-start': 0.5, 'soc-max': 1, 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price-sensor': empty.id },
    });
    const schedule = await waitForSchedule(t, token, sensor.id, res.body.schedule);
    expect(schedule.status).toBe(400);
    expect(schedule.body).toEqual({
      result: 'Rejected',
      status: 'UNKNOWN_SCHEDULE',
      message: `No known schedule for this time period. Scheduling job failed with UnknownPricesException: Prices unknown for planning window. (sensor ${empty.id}). StorageScheduler was used.`,
    });
  });

  it('fails a job without power capacity at run time, as the reference does', async () => {
    const { sensor } = await battery();
    const res = await trigger(sensor.id, {
      start: '2015-01-02T15:00:00+01:00',
      'flex-model': { 'soc-at-start': 0.5, 'soc-max': 1 },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    const schedule = await waitForSchedule(t, token, sensor.id, res.body.schedule);
    expect(schedule.body.message).toBe(
      'No known schedule for this time period. Scheduling job failed with ValueError: Power capacity is not defined in the sensor attributes or the flex-model.. StorageScheduler was used.',
    );
  });

  it('answers 400 UNRECOGNIZED_UDI_EVENT for unknown jobs', async () => {
    const { sensor } = await battery();
    const res = await t.request('GET', `/api/v3_0/sensors/${sensor.id}/schedules/not-a-job`, { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'Rejected',
      status: 'UNRECOGNIZED_UDI_EVENT',
      message: 'The requested UDI event (id = not-a-job, type = job) is not known.',
    });
  });

  it('serves the fallback schedule of an infeasible job, naming the conflict', async () => {
    const { sensor } = await battery();
    const res = await trigger(sensor.id, {
      start: '2015-01-02T15:00:00+01:00',
      duration: 'PT1H',
      'flex-model': {
        'soc-at-start': 0,
        'soc-max': 5,
        'soc-targets': [{ value: 4, datetime: '2015-01-02T16:00:00+01:00' }],
        'power-capacity': '1 MW',
      },
      'flex-context': { 'consumption-price-sensor': priceSensor },
    });
    const job = await t.server.services.jobs.get(res.body.schedule);
    const schedule = await waitForSchedule(t, token, sensor.id, res.body.schedule, 'PT1H');
    expect(schedule.status).toBe(200);
    expect(schedule.body.scheduler_info).toEqual({ scheduler: 'StorageFallbackScheduler' });
    expect(schedule.body.values).toEqual([1, 1, 1, 1]);
    const failed = await t.server.services.jobs.get(job!.id);
    expect(failed!.status).toBe('failed');
    expect(failed!.error).toMatch(/^InfeasibleProblemException: .*soc-target/s);
  });
});

describe('trigger validation', () => {
  let sensorId: number;
  beforeAll(async () => {
    sensorId = (await battery()).sensor.id;
  });

  const cases: [string, Record<string, unknown>, unknown][] = [
    ['an unknown flex-model field', { 'soc-minn': 1, 'soc-max': 1 }, { 'soc-minn': ['Unknown field.'] }],
    ['a wrong soc-unit', { 'soc-unit': 'MWH', 'soc-max': 1 }, { 'soc-unit': ['Must be one of: kWh, MWh.'] }],
    ['no soc-max and no targets', {}, 'Need maximal permitted state of charge, please specify soc-max or some soc-targets.'],
    [
      'a roundtrip efficiency above 1',
      { 'soc-max': 1, 'roundtrip-efficiency': 1.2 },
      { 'roundtrip-efficiency': ['Must be greater than 0 and less than or equal to 1.'] },
    ],
    [
      'an unconvertible capacity',
      { 'soc-max': 1, 'power-capacity': '2 m/s' },
      { 'power-capacity': ["Cannot convert value `2 m/s` to 'MW'"] },
    ],
    [
      'a reference without a sensor',
      { 'soc-max': 1, 'power-capacity': { id: 3 } },
      { 'power-capacity': ['Dictionary provided but `sensor` key not found.'] },
    ],
    [
      'an unknown sensor reference',
      { 'soc-max': 1, 'power-capacity': { sensor: 999999 } },
      { 'power-capacity': ['No sensor found with id 999999.'] },
    ],
  ];
  it.each(cases)('rejects %s with 422 and creates no job', async (_, flexModel, message) => {
    const before = await t.db('job').count<{ n: number }[]>({ n: '*' });
    const res = await trigger(sensorId, { start: '2015-01-02T15:00:00+01:00', 'flex-model': flexModel });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ result: 'Rejected', status: 'UNPROCESSABLE_ENTITY', message: { json: message } });
    expect(await t.db('job').count<{ n: number }[]>({ n: '*' })).toEqual(before);
  });

  it('rejects targets beyond the maximum planning horizon', async () => {
    const res = await trigger(sensorId, {
      start: '2015-01-02T15:00:00+01:00',
      'flex-model': { 'soc-max': 1, 'soc-targets': [{ value: 1, datetime: '2015-03-02T15:00:00+01:00' }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.message.json['soc-targets']['0'][0]).toMatch(/exceeds the maximum planning horizon/);
  });

  it('rejects a naive start and unknown top-level keys', async () => {
    const res = await trigger(sensorId, { start: '2015-01-02T15:00:00', colour: 'red' });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({ json: { start: ['Not a valid aware datetime.'], colour: ['Unknown field.'] } });
  });

  it('refuses asset types without a scheduler', async () => {
    const building = await f.asset({ accountId, type: 'building' });
    const sensor = await f.sensor({ assetId: building.id });
    const res = await trigger(sensor.id, { start: '2015-01-02T15:00:00+01:00' });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({ json: 'Scheduling is not (yet) supported for asset type building.' });
  });
});
