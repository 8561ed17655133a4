import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let assetId: number;
let memberToken: string;
let memberId: number;
let otherToken: string;

const PROCESSED = { status: 'PROCESSED', message: 'Request has been processed.' };
const ALREADY_RECEIVED = {
  results: 'PROCESSED',
  status: 'ALREADY_RECEIVED_AND_SUCCESSFULLY_PROCESSED',
  message: 'Some of the data has already been received and successfully processed.',
};
const INVALID_REPLACEMENT = {
  results: 'Rejected',
  status: 'INVALID_REPLACEMENT',
  message:
    'Some of the data represents a replacement, which is reserved for servers in play mode. Enable play mode or update the prior in your request.',
};
const unprocessable = (location: string, fields: unknown) => ({
  message: { [location]: fields },
  result: 'Rejected',
  status: 'UNPROCESSABLE_ENTITY',
});

const ms = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  assetId = (await f.asset({ accountId })).id;
  const member = await f.user({ accountId });
  memberToken = member.token;
  memberId = member.user.id;
  otherToken = (await f.user({ accountId: (await f.account()).id })).token;
});
afterAll(() => t.close());

/** A fresh sensor on the test asset. */
async function sensor(props: { unit?: string; resolutionMinutes?: number; timezone?: string } = {}) {
  return f.sensor({ assetId, unit: props.unit ?? 'm³/h', resolutionMinutes: props.resolutionMinutes ?? 10, timezone: props.timezone });
}

/** Stored beliefs of a sensor, oldest event first. */
async function stored(sensorId: number) {
  const rows = await t
    .db('timed_belief')
    .where({ sensor_id: sensorId })
    .orderBy(['event_start', 'belief_time', 'source_id'])
    .select<{ event_start: number; belief_time: number; source_id: number; event_value: number; cumulative_probability: number }[]>();
  return rows.map((r) => ({
    start: new Date(r.event_start).toISOString(),
    beliefTime: new Date(r.belief_time).toISOString(),
    value: r.event_value,
    source: r.source_id,
  }));
}

/** A GET with a JSON body, which fetch refuses to send. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads answers of any shape and checks them with assertions, not types
function getWithBody(path: string, json: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(json);
    const req = http.request(
      t.url + path,
      {
        method: 'GET',
        headers: { Authorization: memberToken, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) },
      },
      (res) => {
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const post = (sensorId: number, json: unknown, token = memberToken) =>
  t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, { token, json });
const get = (sensorId: number, query: Record<string, string | number | undefined>, token = memberToken) =>
  t.request('GET', `/api/v3_0/sensors/${sensorId}/data`, { token, query });

describe('POST sensor data', () => {
  it('stores values evenly spaced from start, with the horizon setting each belief time, as beliefs of the user', async () => {
    const s = await sensor();
    const res = await post(s.id, {
      values: [-11.28, -11.3, null, -11.32],
      start: '2021-06-07T00:00:00+02:00',
      duration: 'PT40M',
      horizon: 'PT0H',
      unit: 'm³/h',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(PROCESSED);
    const rows = await stored(s.id);
    expect(rows.map((r) => [r.start, r.beliefTime, r.value])).toEqual([
      ['2021-06-06T22:00:00.000Z', '2021-06-06T22:10:00.000Z', -11.28],
      ['2021-06-06T22:10:00.000Z', '2021-06-06T22:20:00.000Z', -11.3],
      ['2021-06-06T22:30:00.000Z', '2021-06-06T22:40:00.000Z', -11.32],
    ]);
    const source = await t.db('data_source').where({ id: rows[0].source }).first();
    expect(source).toMatchObject({ type: 'user', user_id: memberId, account_id: accountId, model: null, version: null });
    expect(await t.db('sensor_source').where({ sensor_id: s.id })).toEqual([{ sensor_id: s.id, source_id: rows[0].source }]);
  });

  it('also takes the sensor as an entity address, as older clients send it', async () => {
    const s = await sensor();
    const res = await t.request('POST', '/api/v3_0/sensors/data', {
      token: memberToken,
      json: {
        sensor: `ea1.1000-01.required-but-unused-field:fm1.${s.id}`,
        values: [1, 2],
        start: '2021-06-07T00:00:00Z',
        duration: 'PT20M',
        unit: 'm³/h',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(PROCESSED);
    expect((await stored(s.id)).map((r) => r.value)).toEqual([1, 2]);
  });

  it('answers ALREADY_RECEIVED for identical data and stores nothing new, with or without belief timing', async () => {
    const s = await sensor();
    const body = { values: [1, 2, 3], start: '2021-06-07T00:00:00Z', duration: 'PT30M', unit: 'm³/h' };
    expect((await post(s.id, { ...body, horizon: 'PT0H' })).body).toEqual(PROCESSED);
    const again = await post(s.id, { ...body, horizon: 'PT0H' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(ALREADY_RECEIVED);
    // Without timing the belief time is "now", later than before: still the same values, so nothing new.
    const now = await post(s.id, body);
    expect(now.status).toBe(200);
    expect(now.body).toEqual(ALREADY_RECEIVED);
    expect(await stored(s.id)).toHaveLength(3);
  });

  it('refuses a different value with the same belief timing (403) and stores none of the upload', async () => {
    const s = await sensor();
    const body = { values: [1, 2, 3], start: '2021-06-07T00:00:00Z', duration: 'PT30M', unit: 'm³/h', prior: '2021-06-08T00:00:00Z' };
    expect((await post(s.id, body)).body).toEqual(PROCESSED);
    // One replacement next to new events: the whole upload is refused.
    const res = await post(s.id, { ...body, values: [1, 2, 4, 5, 6], duration: 'PT50M' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(INVALID_REPLACEMENT);
    expect((await stored(s.id)).map((r) => r.value)).toEqual([1, 2, 3]);
  });

  it('stores a changed value with a later belief time as a new belief', async () => {
    const s = await sensor();
    const body = { values: [1, 2], start: '2021-06-07T00:00:00Z', duration: 'PT20M', unit: 'm³/h' };
    await post(s.id, { ...body, prior: '2021-06-08T00:00:00Z' });
    const res = await post(s.id, { ...body, values: [1, 5], prior: '2021-06-09T00:00:00Z' });
    expect(res.body).toEqual(ALREADY_RECEIVED); // the first value was unchanged
    expect((await stored(s.id)).map((r) => [r.beliefTime.slice(0, 10), r.value])).toEqual([
      ['2021-06-08', 1],
      ['2021-06-08', 2],
      ['2021-06-09', 5],
    ]);
  });

  it('takes a single number as a list of one, and stores nothing for nulls only', async () => {
    const s = await sensor();
    expect((await post(s.id, { values: 7.5, start: '2021-06-07T00:00:00Z', duration: 'PT10M', unit: 'm³/h' })).body).toEqual(PROCESSED);
    expect((await stored(s.id)).map((r) => r.value)).toEqual([7.5]);
    const nulls = await post(s.id, { values: [null, null], start: '2021-06-08T00:00:00Z', duration: 'PT20M', unit: 'm³/h' });
    expect(nulls.status).toBe(200);
    expect(nulls.body).toEqual(ALREADY_RECEIVED);
    expect(await stored(s.id)).toHaveLength(1);
  });

  it('sets belief times from prior (which wins over horizon), from the horizon before each event end, or from now', async () => {
    const s = await sensor({ unit: 'kW', resolutionMinutes: 15 });
    const start = '2021-06-07T13:00:00+02:00';
    await post(s.id, { values: [1], start, duration: 'PT15M', unit: 'kW', horizon: 'PT6H' });
    expect((await stored(s.id))[0].beliefTime).toBe('2021-06-07T05:15:00.000Z'); // 07:15 local
    const s2 = await sensor({ unit: 'kW', resolutionMinutes: 15 });
    await post(s2.id, { values: [1, 2], start, duration: 'PT30M', unit: 'kW', horizon: 'PT6H', prior: '2021-06-01T00:00:00Z' });
    expect((await stored(s2.id)).map((r) => r.beliefTime)).toEqual(['2021-06-01T00:00:00.000Z', '2021-06-01T00:00:00.000Z']);
    const s3 = await sensor({ unit: 'kW', resolutionMinutes: 15 });
    const before = Date.now();
    await post(s3.id, { values: [1], start, duration: 'PT15M', unit: 'kW' });
    const beliefTime = ms((await stored(s3.id))[0].beliefTime);
    expect(beliefTime).toBeGreaterThanOrEqual(before);
    expect(beliefTime).toBeLessThanOrEqual(Date.now());
  });

  it('upsamples coarser data: rates repeat, amounts are split evenly', async () => {
    const rate = await sensor({ unit: 'm³/h', resolutionMinutes: 10 });
    expect((await post(rate.id, { values: [1, 2, 3], start: '2021-06-07T00:00:00Z', duration: 'PT1H', unit: 'm³/h' })).body).toEqual(
      PROCESSED,
    );
    expect((await stored(rate.id)).map((r) => r.value)).toEqual([1, 1, 2, 2, 3, 3]);
    expect((await stored(rate.id)).map((r) => r.start.slice(11, 16))).toEqual(['00:00', '00:10', '00:20', '00:30', '00:40', '00:50']);

    const amount = await sensor({ unit: 'kWh', resolutionMinutes: 15 });
    await post(amount.id, { values: [4], start: '2021-06-07T00:00:00Z', duration: 'PT1H', unit: 'kWh' });
    expect((await stored(amount.id)).map((r) => r.value)).toEqual([1, 1, 1, 1]);

    // 4 kWh in an hour is 4 kW throughout, whatever the sensor's resolution.
    const power = await sensor({ unit: 'kW', resolutionMinutes: 15 });
    await post(power.id, { values: [4], start: '2021-06-07T00:00:00Z', duration: 'PT1H', unit: 'kWh' });
    expect((await stored(power.id)).map((r) => r.value)).toEqual([4, 4, 4, 4]);
  });

  it.each([
    ['m³/h', 10, 'm³', 2, 12], // stock → flow over 10 minutes: × 6
    ['m³/h', 10, 'l/h', 2500, 2.5],
    ['kW', 15, 'kWh', 1, 4],
    ['kWh', 15, 'kW', 4, 1],
    ['kW', 15, 'MW', 0.5, 500],
    ['kW', 15, 'W', 1500, 1.5],
    ['EUR/MWh', 60, 'EUR/kWh', 0.25, 250],
    ['%', 15, 'dimensionless', 0.5, 50],
    ['K', 15, '°C', 20, 293.15],
    ['km/h', 15, 'm/s', 10, 36],
    ['W/m²', 15, 'kW/m²', 0.8, 800],
  ])('converts to the sensor unit %s from %s', async (sensorUnit, minutes, unit, value, expected) => {
    const s = await sensor({ unit: sensorUnit, resolutionMinutes: minutes });
    const res = await post(s.id, { values: [value], start: '2021-06-07T00:00:00Z', duration: `PT${minutes}M`, unit });
    expect(res.body).toEqual(PROCESSED);
    expect((await stored(s.id))[0].value).toBeCloseTo(expected, 9);
  });

  it('refuses data whose spacing is not a multiple of the sensor resolution', async () => {
    const s = await sensor();
    const res = await post(s.id, { values: [1, 2, 3, 4, 5, 6], start: '2021-06-07T00:00:00Z', duration: 'PT30M', unit: 'm³/h' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      unprocessable('json', { _schema: ["Resolution of 0:05:00 is incompatible with the sensor's required resolution of 0:10:00."] }),
    );
    const daily = await sensor({ resolutionMinutes: 24 * 60 });
    const res2 = await post(daily.id, { values: [1, 2], start: '2021-06-07T00:00:00Z', duration: 'PT24H', unit: 'm³/h' });
    expect(res2.body.message.json._schema).toEqual([
      "Resolution of 12:00:00 is incompatible with the sensor's required resolution of 1 day, 0:00:00.",
    ]);
    expect(await stored(s.id)).toEqual([]);
  });

  it('lets instantaneous sensors take any spacing, but one value for a zero duration', async () => {
    const s = await sensor({ unit: '°C', resolutionMinutes: 0 });
    expect((await post(s.id, { values: [20, 21, 22], start: '2021-06-07T00:00:00Z', duration: 'PT7M', unit: '°C' })).body).toEqual(
      PROCESSED,
    );
    expect((await stored(s.id)).map((r) => r.start.slice(11, 19))).toEqual(['00:00:00', '00:02:20', '00:04:40']);
    expect((await post(s.id, { values: 23, start: '2021-06-07T01:00:00Z', duration: 'P0DT0H0M0S', unit: '°C' })).body).toEqual(PROCESSED);
    const res = await post(s.id, { values: [1, 2], start: '2021-06-07T02:00:00Z', duration: 'PT0M', unit: '°C' });
    expect(res.status).toBe(422);
    expect(res.body.message.json._schema[0]).toMatch(/^Cannot save multiple instantaneous values that overlap/);
    expect(await stored(s.id)).toHaveLength(4);
  });

  it('checks the optional message type', async () => {
    const power = await sensor({ unit: 'kW', resolutionMinutes: 15 });
    const future = { values: [1], start: '2999-06-07T00:00:00Z', duration: 'PT15M', unit: 'kW' };
    const meter = await post(power.id, { ...future, type: 'PostMeterDataRequest' });
    expect(meter.body).toEqual(unprocessable('json', { _schema: ['Meter data must lie in the past.'] }));
    const past = { values: [1], start: '2021-06-07T00:00:00Z', duration: 'PT15M', unit: 'kW' };
    const prognosis = await post(power.id, { ...past, type: 'PostPrognosisRequest' });
    expect(prognosis.body).toEqual(unprocessable('json', { _schema: ['Prognoses must lie in the future.'] }));
    const price = await post(power.id, { ...past, type: 'PostPriceDataRequest' });
    expect(price.body.message.json._schema).toEqual([
      'The unit required for this message type should be convertible to an energy price unit, got incompatible unit: kW',
    ]);
    const prices = await sensor({ unit: 'EUR/MWh', resolutionMinutes: 60 });
    const meterPrice = await post(prices.id, {
      values: [1],
      start: '2021-06-07T00:00:00Z',
      duration: 'PT1H',
      unit: 'EUR/MWh',
      type: 'PostMeterDataRequest',
    });
    expect(meterPrice.body.message.json._schema).toEqual([
      'The unit required for this message type should be convertible to MW, got incompatible unit: EUR/MWh',
    ]);
    expect((await post(power.id, { ...past, type: 'PostMeterDataRequest' })).body).toEqual(PROCESSED);
    expect((await post(power.id, { ...future, type: 'PostPrognosisRequest' })).body).toEqual(PROCESSED);
    const type = await post(power.id, { ...past, type: 'GetSensorDataRequest' });
    expect(type.body.message.json.type).toEqual([
      'Must be one of: PostSensorDataRequest, PostMeterDataRequest, PostPrognosisRequest, PostPriceDataRequest, PostWeatherDataRequest.',
    ]);
  });

  it('overwrites a replacement when FLEXSITE_ALLOW_DATA_OVERWRITE is set', async () => {
    const t2 = await startTestServer({ FLEXSITE_ALLOW_DATA_OVERWRITE: '1' });
    try {
      const f2 = factories(t2.db);
      const account = await f2.account();
      const { token } = await f2.user({ accountId: account.id });
      const s = await f2.sensor({ assetId: (await f2.asset({ accountId: account.id })).id, unit: 'kW' });
      const body = { values: [1, 2], start: '2021-06-07T00:00:00Z', duration: 'PT30M', unit: 'kW', prior: '2021-06-08T00:00:00Z' };
      await t2.request('POST', `/api/v3_0/sensors/${s.id}/data`, { token, json: body });
      const res = await t2.request('POST', `/api/v3_0/sensors/${s.id}/data`, { token, json: { ...body, values: [1, 3] } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(ALREADY_RECEIVED); // the unchanged first value
      const rows = await t2.db('timed_belief').where({ sensor_id: s.id }).orderBy('event_start');
      expect(rows.map((r: { event_value: number }) => r.event_value)).toEqual([1, 3]);
    } finally {
      await t2.close();
    }
  });

  it('needs a token, and membership of the sensor account', async () => {
    const s = await sensor();
    const body = { values: [1], start: '2021-06-07T00:00:00Z', duration: 'PT10M', unit: 'm³/h' };
    const anonymous = await t.request('POST', `/api/v3_0/sensors/${s.id}/data`, { json: body });
    expect(anonymous.status).toBe(401);
    const other = await post(s.id, body, otherToken);
    expect(other.status).toBe(403);
    expect(other.body).toEqual({
      result: 'Rejected',
      status: 'INVALID_SENDER',
      message: 'You cannot be authorized for this content or functionality.',
    });
    expect(await stored(s.id)).toEqual([]);
  });
});

describe('POST sensor data: bad input is a 422 naming the field, and nothing is stored', () => {
  let s: Awaited<ReturnType<typeof sensor>>;
  const good = { values: [1, 2], start: '2021-06-07T00:00:00Z', duration: 'PT20M', unit: 'm³/h' };
  beforeAll(async () => {
    s = await sensor();
  });

  it.each([
    ['ea2.2021-01.localhost:fm1.1', "A valid type 1 USEF entity address starts with 'ea1', please review ea2.2021-01.localhost:fm1.1"],
    ['ea1.2021-13.localhost:fm1.1', "After 'ea1.', a date specification of the format ([0-9]{4})-(0[1-9]|1[012]) is expected."],
    [
      'ea1.2021-01.localhost:fm0.1',
      "A valid type 1 FlexMeasures entity address starts with 'ea1.2021-01.localhost:fm1.', please review ea1.2021-01.localhost:fm0.1",
    ],
    ['ea1.2021-01.localhost:fm1.x', 'Could not parse sensor ea1.2021-01.localhost:fm1.x.'],
    ['ea1.2021-01.localhost:fm1.999999', "sensor with entity address ea1.2021-01.localhost:fm1.999999 doesn't exist."],
  ])('entity address %s', async (ea, message) => {
    const res = await t.request('POST', '/api/v3_0/sensors/data', { token: memberToken, json: { ...good, sensor: ea } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', { sensor: [message] }));
  });

  it('an unknown sensor in the path', async () => {
    const res = await post(999999, good);
    expect(res.body).toEqual(unprocessable('path', { id: ['No sensor found with id 999999.'] }));
  });

  it.each([
    ['naive start', { start: '2021-06-07T00:00:00' }, { start: ['Not a valid aware datetime.'] }],
    [
      'non-numeric values',
      { values: [1, 'abc', true, {}] },
      { values: { 1: ['Not a valid number.'], 2: ['Not a valid number.'], 3: ['Not a valid number.'] } },
    ],
    ['a non-numeric single value', { values: 'abc' }, { values: ['Not a valid number.'] }],
    ['an empty list', { values: [] }, { values: ['Shorter than minimum length 1.'] }],
    [
      'a list that does not divide the duration',
      { values: [1, 2, 3, 4, 5, 6, 7] },
      { _schema: ["Resolution of 0:02:51.428571 is incompatible with the sensor's required resolution of 0:10:00."] },
    ],
    [
      'a million values',
      { values: new Array(1_000_000).fill(1), duration: 'PT1000000M' },
      { values: ['Longer than maximum length 527040.'] },
    ],
    ['an unknown unit', { unit: 'florps' }, { unit: ["Unit 'florps' cannot be handled."] }],
    ['a missing unit', { unit: undefined }, { unit: ['Missing data for required field.'] }],
    ['a bad duration', { duration: 'an hour' }, { duration: [expect.stringMatching(/^Cannot parse an hour as ISO8601 duration/)] }],
    ['an unknown field', { colour: 'red' }, { colour: ['Unknown field.'] }],
    ['null values', { values: null }, { values: ['Field may not be null.'] }],
  ])('%s', async (_, change, fields) => {
    const res = await post(s.id, { ...good, ...change });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', fields));
  });

  it('an incompatible unit', async () => {
    const res = await post(s.id, { ...good, unit: 'kW' });
    expect(res.body).toEqual(unprocessable('json', { _schema: ['Required unit for this sensor is m³/h, got incompatible unit: kW'] }));
  });

  it('NaN and Infinity in the JSON text', async () => {
    const res = await t.request('POST', `/api/v3_0/sensors/${s.id}/data`, {
      token: memberToken,
      raw: '{"values": [1, NaN, -Infinity, Infinity], "start": "2021-06-07T00:00:00Z", "duration": "PT40M", "unit": "m³/h"}',
    });
    expect(res.status).toBe(422);
    const special = ['Special numeric values (nan or infinity) are not permitted.'];
    expect(res.body).toEqual(unprocessable('json', { values: { 1: special, 2: special, 3: special } }));
  });

  it('stored nothing along the way', async () => {
    expect(await stored(s.id)).toEqual([]);
  });
});

describe('GET sensor data', () => {
  it('answers the most recent value per event on the requested grid, nulls for gaps, mean when downsampling', async () => {
    const s = await sensor();
    await post(s.id, { values: [91.3, 91.7, 92.1], start: '2021-05-02T00:00:00+02:00', duration: 'PT30M', unit: 'm³/h', horizon: 'PT0H' });
    const res = await get(s.id, { start: '2021-05-02T00:00:00+02:00', duration: 'PT1H20M', unit: 'm³/h', resolution: 'PT20M' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      values: [91.5, 92.1, null, null],
      start: '2021-05-02T00:00:00+02:00',
      duration: 'PT1H20M',
      unit: 'm³/h',
      resolution: 'PT20M',
      ...PROCESSED,
    });
    const native = await get(s.id, { start: '2021-05-01T22:00:00Z', duration: 'PT40M', unit: 'l/h' });
    expect(native.body).toMatchObject({ values: [91300, 91700, 92100, null], start: '2021-05-01T22:00:00Z', resolution: 'PT10M' });
  });

  it('reads a JSON body when a GET has no query string, as the spec describes it', async () => {
    const s = await sensor({ unit: 'kW', resolutionMinutes: 15 });
    await post(s.id, { values: [1, 2], start: '2021-05-02T00:00:00Z', duration: 'PT30M', unit: 'kW' });
    const source = (await t.db('data_source').where({ user_id: memberId }).first()).id;
    const res = await getWithBody('/api/v3_0/sensors/data', {
      sensor: `ea1.2021-01.io.flexmeasures:fm1.${s.id}`,
      start: '2021-05-02T00:00:00Z',
      duration: 'PT30M',
      unit: 'W',
      source: [source],
    });
    expect(res.body).toMatchObject({ values: [1000, 2000], resolution: 'PT15M', status: 'PROCESSED' });
    const bad = await getWithBody(`/api/v3_0/sensors/${s.id}/data`, { start: '2021-05-02T00:00:00', duration: 'PT30M', unit: 'kW' });
    expect(bad.body).toEqual(unprocessable('json', { start: ['Not a valid aware datetime.'] }));
  });

  it('takes the sensor as an entity address in the query string', async () => {
    const s = await sensor();
    await post(s.id, { values: [1, 2], start: '2021-05-02T00:00:00Z', duration: 'PT20M', unit: 'm³/h' });
    const res = await t.request('GET', '/api/v3_0/sensors/data', {
      token: memberToken,
      query: {
        sensor: `ea1.1000-01.required-but-unused-field:fm1.${s.id}`,
        start: '2021-05-02T00:00:00Z',
        duration: 'PT20M',
        unit: 'm³/h',
        resolution: 'PT10M',
      },
    });
    expect(res.body.values).toEqual([1, 2]);
  });

  it('repeats rates and splits amounts when upsampling, sums amounts when downsampling', async () => {
    const rate = await sensor({ unit: 'kW', resolutionMinutes: 60 });
    await post(rate.id, { values: [4, 8], start: '2021-05-02T00:00:00Z', duration: 'PT2H', unit: 'kW' });
    expect((await get(rate.id, { start: '2021-05-02T00:00:00Z', duration: 'PT2H', unit: 'kW', resolution: 'PT30M' })).body.values).toEqual([
      4, 4, 8, 8,
    ]);
    const amount = await sensor({ unit: 'kWh', resolutionMinutes: 15 });
    await post(amount.id, { values: [1, 2, 3, 4], start: '2021-05-02T00:00:00Z', duration: 'PT1H', unit: 'kWh' });
    const hourly = await get(amount.id, { start: '2021-05-02T00:00:00Z', duration: 'PT1H', unit: 'kWh', resolution: 'PT1H' });
    expect(hourly.body.values).toEqual([10]);
    // 10 kWh in one hour is 10 kW on average; 1 kWh in a quarter hour is 4 kW.
    expect((await get(amount.id, { start: '2021-05-02T00:00:00Z', duration: 'PT1H', unit: 'kW', resolution: 'PT1H' })).body.values).toEqual(
      [10],
    );
    expect((await get(amount.id, { start: '2021-05-02T00:00:00Z', duration: 'PT30M', unit: 'kW' })).body.values).toEqual([4, 8]);
  });

  it('takes the first value per step for instantaneous sensors and reports resolution PT0H', async () => {
    const s = await sensor({ unit: '°C', resolutionMinutes: 0 });
    await post(s.id, { values: [815, 817, 818], start: '2021-05-02T00:00:00+02:00', duration: 'PT30M', unit: '°C' });
    const res = await get(s.id, { start: '2021-05-02T00:00:00+02:00', duration: 'PT1H20M', unit: '°C', resolution: 'PT20M' });
    expect(res.body).toMatchObject({ values: [815, 818, null, null], resolution: 'PT0H', duration: 'PT1H20M' });
    // Without a resolution, a window of at most 8 hours is shown in 5-minute steps.
    const fine = await get(s.id, { start: '2021-05-02T00:00:00+02:00', duration: 'PT30M', unit: 'K' });
    expect(fine.body.values.map((v: number | null) => v && Math.round(v * 100) / 100)).toEqual([
      1088.15,
      null,
      1090.15,
      null,
      1091.15,
      null,
    ]);
  });

  it('filters on belief time (prior), horizon and source', async () => {
    const s = await sensor({ unit: 'kW', resolutionMinutes: 60 });
    const window = { start: '2021-05-02T00:00:00Z', duration: 'PT1H', unit: 'kW' };
    await post(s.id, { ...window, values: [1], horizon: 'PT24H' }); // a forecast, a day ahead
    await post(s.id, { ...window, values: [2], horizon: 'PT1H' }); // a later forecast
    const other = await f.user({ accountId });
    await post(s.id, { ...window, values: [3], horizon: 'PT0H' }, other.token); // a measurement by someone else
    const sources = await t.db('data_source').whereIn('user_id', [memberId, other.user.id]).orderBy('id');
    const mine = sources.find((x: { user_id: number }) => x.user_id === memberId).id;
    const theirs = sources.find((x: { user_id: number }) => x.user_id === other.user.id).id;

    // One value per event: of each source's latest belief, the one formed first.
    expect((await get(s.id, window)).body.values).toEqual([2]);
    expect((await get(s.id, { ...window, source: theirs })).body.values).toEqual([3]);
    expect((await get(s.id, { ...window, source: `${mine},${theirs}` })).body.values).toEqual([2]);
    expect((await get(s.id, { ...window, source: mine, prior: '2021-05-01T01:00:00Z' })).body.values).toEqual([1]);
    expect((await get(s.id, { ...window, horizon: 'PT2H' })).body.values).toEqual([1]);
    expect((await get(s.id, { ...window, prior: '2021-04-30T00:00:00Z' })).body.values).toEqual([null]);
    expect((await get(s.id, { ...window, type: 'GetMeterDataRequest' })).body.values).toEqual([3]);
    expect((await get(s.id, { ...window, type: 'GetPrognosisRequest', source: mine })).body.values).toEqual([2]);

    const unknown = await get(s.id, { ...window, source: 987654 });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual(unprocessable('query', { source: ['No data source found with id 987654.'] }));
  });

  it('handles days of 23 and 25 hours in Europe/Amsterdam', async () => {
    const s = await sensor({ unit: 'kW', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' });
    const spring = Array.from({ length: 23 }, (_, i) => i);
    expect((await post(s.id, { values: spring, start: '2023-03-26T00:00:00+01:00', duration: 'PT23H', unit: 'kW' })).body).toEqual(
      PROCESSED,
    );
    const autumn = Array.from({ length: 25 }, (_, i) => 100 + i);
    expect((await post(s.id, { values: autumn, start: '2023-10-29T00:00:00+02:00', duration: 'PT25H', unit: 'kW' })).body).toEqual(
      PROCESSED,
    );
    const rows = await stored(s.id);
    // Local 02:00 does not exist on 26 March; 02:00 happens twice on 29 October.
    expect(rows.slice(0, 4).map((r) => r.start.slice(11, 16))).toEqual(['23:00', '00:00', '01:00', '02:00']);
    expect(rows.filter((r) => r.start.startsWith('2023-03-26')).length + 1).toBe(23);
    expect(rows.slice(23, 27).map((r) => r.start.slice(0, 16))).toEqual([
      '2023-10-28T22:00',
      '2023-10-28T23:00',
      '2023-10-29T00:00',
      '2023-10-29T01:00',
    ]);

    const springDay = await get(s.id, { start: '2023-03-26T00:00:00+01:00', duration: 'PT23H', unit: 'kW' });
    expect(springDay.body).toMatchObject({ values: spring, start: '2023-03-26T00:00:00+01:00', duration: 'PT23H', resolution: 'PT1H' });
    // The rest of the day after the clocks moved, and the whole day as one value.
    const asSummer = await get(s.id, { start: '2023-03-26T03:00:00+02:00', duration: 'PT21H', unit: 'kW' });
    expect(asSummer.body).toMatchObject({ values: spring.slice(2), start: '2023-03-26T03:00:00+02:00' });
    const mean = spring.reduce((a, b) => a + b, 0) / 23;
    expect((await get(s.id, { start: '2023-03-26T00:00:00+01:00', duration: 'PT23H', unit: 'kW', resolution: 'P1D' })).body).toMatchObject({
      values: [mean],
      resolution: 'PT24H',
    });
    const autumnDay = await get(s.id, { start: '2023-10-29T00:00:00+02:00', duration: 'PT25H', unit: 'kW' });
    expect(autumnDay.body.values).toEqual(autumn);
    expect(autumnDay.body.duration).toBe('PT25H');
  });

  it('validates the query', async () => {
    const s = await sensor();
    const window = { start: '2021-05-02T00:00:00Z', duration: 'PT1H', unit: 'm³/h' };
    expect((await get(s.id, { ...window, unit: undefined })).body).toEqual(
      unprocessable('query', { unit: ['Missing data for required field.'] }),
    );
    expect((await get(s.id, { ...window, unit: 'kW' })).body).toEqual(
      unprocessable('query', { _schema: ['Required unit for this sensor is m³/h, got incompatible unit: kW'] }),
    );
    expect((await get(s.id, { ...window, start: '2021-05-02T00:00:00' })).body).toEqual(
      unprocessable('query', { start: ['Not a valid aware datetime.'] }),
    );
    expect((await get(s.id, { ...window, resolution: 'PT0M' })).body).toEqual(
      unprocessable('query', { resolution: ['Must be greater than 0.'] }),
    );
    expect((await get(s.id, { ...window, duration: 'P1000D', resolution: 'PT1M' })).body).toEqual(
      unprocessable('query', { resolution: ['Too many values: at most 527040 per request.'] }),
    );
    expect((await get(s.id, { ...window, type: 'GetPriceDataRequest' })).body.message.query._schema).toEqual([
      'The unit requested for this message type should be convertible from an energy price unit, got incompatible unit: m³/h',
    ]);
    const unknown = await t.request('GET', '/api/v3_0/sensors/data', {
      token: memberToken,
      query: { ...window, sensor: 'ea1.2021-01.x:fm1.999999' },
    });
    expect(unknown.body).toEqual(
      unprocessable('query', { sensor: ["sensor with entity address ea1.2021-01.x:fm1.999999 doesn't exist."] }),
    );
    expect((await get(s.id, window, otherToken)).status).toBe(403);
    expect((await t.request('GET', `/api/v3_0/sensors/${s.id}/data`, { query: window })).status).toBe(401);
  });
});

describe('deleting', () => {
  it('a sensor or an asset leaves no beliefs behind', async () => {
    const asset = await f.asset({ accountId });
    const a = await f.sensor({ assetId: asset.id, unit: 'kW' });
    const b = await f.sensor({ assetId: asset.id, unit: 'kW' });
    for (const s of [a, b]) await post(s.id, { values: [1, 2], start: '2021-06-07T00:00:00Z', duration: 'PT30M', unit: 'kW' });
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    expect((await t.request('DELETE', `/api/v3_0/sensors/${a.id}`, { token: admin.token })).status).toBe(204);
    expect(await t.db('timed_belief').where({ sensor_id: a.id })).toEqual([]);
    expect(await t.db('timed_belief').where({ sensor_id: b.id })).toHaveLength(2);
    expect((await t.request('DELETE', `/api/v3_0/assets/${asset.id}`, { token: admin.token })).status).toBe(204);
    expect(await t.db('timed_belief').where({ sensor_id: b.id })).toEqual([]);
    expect(await t.db('sensor_source').whereIn('sensor_id', [a.id, b.id])).toEqual([]);
    const orphans = await t.db('timed_belief').whereNotIn('sensor_id', t.db('sensor').select('id')).count<{ n: number }[]>({ n: '*' });
    expect(orphans[0].n).toBe(0);
  });
});
