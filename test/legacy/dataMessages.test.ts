import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EA, connection, fm1, from, legacySite, processed, rejected, type LegacySite, type Prefix } from '../helpers/legacy.ts';

let site: LegacySite;
let accountId: number;
beforeAll(async () => {
  site = await legacySite();
  accountId = site.account.id;
});
afterAll(() => site.t.close());

const START = '2015-01-01T00:00:00+00:00';
const is2 = (prefix: Prefix) => prefix === 'v2_0';

/** Stored values of a sensor, by event start. */
async function stored(sensorId: number) {
  const rows = await site.t
    .db('timed_belief')
    .where({ sensor_id: sensorId })
    .orderBy('event_start')
    .select<{ event_start: number; event_value: number }[]>();
  return rows.map((r) => [new Date(r.event_start).toISOString(), r.event_value]);
}

/** Belief timing of an upload in the version's own terms: a horizon in 1.x, a prior in 2.0. */
const knownAt = (prefix: Prefix, iso: string, horizon: string) => (is2(prefix) ? { prior: iso } : { horizon });

describe.each(from('v1'))('/api/%s meter data', (prefix) => {
  it('postMeterData stores each group for its connections, upsampled, consumption positive', async () => {
    const a = await site.battery();
    const b = await site.battery();
    const c = await site.battery({ name: `CS ${prefix}` });
    const res = await site.message('POST', `/api/${prefix}/postMeterData`, {
      type: 'PostMeterDataRequest',
      groups: [
        { connections: [connection(accountId, a.id), fm1(b.id)], values: [1, 2] },
        { connection: `CS ${prefix}`, values: [0.5, -0.5, 0.75, 0.25] },
      ],
      start: START,
      duration: 'PT1H',
      unit: 'MW',
      ...knownAt(prefix, '2015-01-01T01:00:00+00:00', 'PT0H'),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(processed('PostMeterDataResponse'));
    const quarter = (m: number) => `2015-01-01T00:${String(m).padStart(2, '0')}:00.000Z`;
    // Stored production positive, as the sensors keep their data.
    for (const s of [a, b])
      expect(await stored(s.id)).toEqual([
        [quarter(0), -1],
        [quarter(15), -1],
        [quarter(30), -2],
        [quarter(45), -2],
      ]);
    expect(await stored(c.id)).toEqual([
      [quarter(0), -0.5],
      [quarter(15), 0.5],
      [quarter(30), -0.75],
      [quarter(45), -0.25],
    ]);
  });

  it('round trip: meter data read back through v3.0 and through the old version', async () => {
    const s = await site.battery();
    const posted = await site.message('POST', `/api/${prefix}/postMeterData`, {
      type: 'PostMeterDataRequest',
      connection: connection(accountId, s.id),
      values: [306.66, 12, -4, 306.66],
      start: START,
      duration: 'PT1H',
      unit: 'kW',
    });
    expect(posted.body).toEqual(processed('PostMeterDataResponse'));
    const v3 = await site.t.request('GET', '/api/v3_0/sensors/data', {
      token: site.member.token,
      query: { sensor: fm1(s.id), start: START, duration: 'PT1H', unit: 'kW' },
    });
    expect(v3.status).toBe(200);
    expect(v3.body.values).toEqual([-306.66, -12, 4, -306.66]);
    const request = { type: 'GetMeterDataRequest', connection: connection(accountId, s.id), start: START, duration: 'PT1H', unit: 'kW' };
    for (const method of prefix === 'v1' ? (['GET', 'POST'] as const) : (['GET'] as const)) {
      const old = await site.message(method, `/api/${prefix}/getMeterData`, request);
      expect(old.status, method).toBe(200);
      expect(old.body).toEqual({
        ...processed('GetMeterDataResponse'),
        connection: connection(accountId, s.id),
        values: [306.66, 12, -4, 306.66],
        start: '2015-01-01T00:00:00Z',
        duration: 'PT1H',
        unit: 'kW',
        resolution: 'PT15M',
      });
    }
  });

  it('getMeterData answers several connections in groups, at a coarser resolution', async () => {
    const a = await site.battery({ name: `meter A ${prefix}` });
    const b = await site.battery();
    await site.message('POST', `/api/${prefix}/postMeterData`, {
      type: 'PostMeterDataRequest',
      groups: [
        { connection: connection(accountId, a.id), values: [1, 3, 5, 7] },
        { connection: connection(accountId, b.id), values: [2, 2, 2, 2] },
      ],
      start: START,
      duration: 'PT1H',
      unit: 'MW',
    });
    // Several connections travel as a repeated query parameter.
    const query = [`meter A ${prefix}`, fm1(b.id)].map((c) => `connections=${encodeURIComponent(c)}`).join('&');
    const repeated = await site.t.request('GET', `/api/${prefix}/getMeterData?${query}`, {
      token: site.member.token,
      query: { type: 'GetMeterDataRequest', start: START, duration: 'PT1H', unit: 'MW', resolution: 'PT30M' },
    });
    expect(repeated.status).toBe(200);
    expect(repeated.body).toMatchObject({
      groups: [
        { connection: `meter A ${prefix}`, values: [2, 6] },
        { connection: fm1(b.id), values: [2, 2] },
      ],
      resolution: 'PT30M',
    });
  });
});

describe.each(from('v1_1'))('/api/%s prognoses, prices, weather and connections', (prefix) => {
  it('postPrognosis stores forecasts that getPrognosis reads back', async () => {
    const s = await site.battery();
    const res = await site.message('POST', `/api/${prefix}/postPrognosis`, {
      type: 'PostPrognosisRequest',
      connection: fm1(s.id),
      values: [10, 20],
      start: START,
      duration: 'PT30M',
      unit: 'kW',
      ...knownAt(prefix, '2014-12-31T18:00:00+00:00', 'R/PT6H'),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(processed('PostPrognosisResponse'));
    const got = await site.message('GET', `/api/${prefix}/getPrognosis`, {
      type: 'GetPrognosisRequest',
      connection: fm1(s.id),
      start: START,
      duration: 'PT30M',
      unit: 'kW',
    });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      ...processed('GetPrognosisResponse'),
      connection: fm1(s.id),
      values: [10, 20],
      start: '2015-01-01T00:00:00Z',
      duration: 'PT30M',
      unit: 'kW',
      resolution: 'PT15M',
    });
    // Meter data are not prognoses.
    const meter = await site.message('GET', `/api/${prefix}/getMeterData`, {
      type: 'GetMeterDataRequest',
      connection: fm1(s.id),
      start: START,
      duration: 'PT30M',
      unit: 'kW',
    });
    expect(meter.body.values).toEqual([null, null]);
  });

  it('postPriceData stores prices for a market named in the old form, fm0 form and by sensor id', async () => {
    const markets = [`${EA}:epex_da`, `${EA}:fm0.epex_da`, fm1(site.market.id)];
    for (const [i, market] of markets.entries()) {
      // A day of its own per version and address form.
      const day = `2015-02-${String(1 + 3 * from('v1_1').indexOf(prefix) + i).padStart(2, '0')}`;
      const res = await site.message('POST', `/api/${prefix}/postPriceData`, {
        type: 'PostPriceDataRequest',
        market,
        values: [50, 60],
        start: `${day}T00:00:00+00:00`,
        duration: 'PT2H',
        unit: 'EUR/kWh',
        ...knownAt(prefix, `${day}T00:00:00+00:00`, 'PT35H'),
      });
      expect(res.status, market).toBe(200);
      expect(res.body).toEqual(processed('PostPriceDataResponse'));
      const rows = await site.t
        .db('timed_belief')
        .where({ sensor_id: site.market.id })
        .where('event_start', '>=', Date.parse(`${day}T00:00:00Z`))
        .where('event_start', '<', Date.parse(`${day}T02:00:00Z`))
        .orderBy('event_start')
        .pluck('event_value');
      expect(rows).toEqual([50_000, 60_000]);
    }
  });

  it('postWeatherData finds weather sensors by type and location (synonyms too) and by id', async () => {
    const day = `2015-03-${10 + from('v1_1').indexOf(prefix)}`;
    const res = await site.message('POST', `/api/${prefix}/postWeatherData`, {
      type: 'PostWeatherDataRequest',
      groups: [
        { sensor: `${EA}:temperature:33.4843866:126.477859`, values: [20.04, 20.1] },
        { sensor: `${EA}:fm0.radiation:33.48:126.48`, values: [0.5, 0.6] },
        { sensor: fm1(site.weather.wind.id), values: [4, 5] },
      ],
      start: `${day}T00:00:00+00:00`,
      duration: 'PT2H',
      unit: 'kW/m²',
    });
    // One unit for three quantities cannot fit them all.
    expect(res.status).toBe(400);
    expect(res.body).toEqual(rejected('INVALID_UNIT'));
    for (const [group, sensorId, unit, values] of [
      [{ sensor: `${EA}:temperature:33.4843866:126.477859`, values: [20.04, 20.1] }, site.weather.temperature.id, '°C', [20.04, 20.1]],
      [{ sensor: `${EA}:fm0.radiation:33.48:126.48`, values: [500, 600] }, site.weather.irradiance.id, 'W/m²', [0.5, 0.6]],
      [{ sensor: fm1(site.weather.wind.id), values: [4, 5] }, site.weather.wind.id, 'm/s', [4, 5]],
    ] as const) {
      const ok = await site.message('POST', `/api/${prefix}/postWeatherData`, {
        type: 'PostWeatherDataRequest',
        groups: [group],
        start: `${day}T00:00:00+00:00`,
        duration: 'PT2H',
        unit,
        ...knownAt(prefix, `${day}T00:00:00+00:00`, 'PT2H'),
      });
      expect(ok.status, group.sensor).toBe(200);
      expect(ok.body).toEqual(processed('PostWeatherDataResponse'));
      const rows = await site.t
        .db('timed_belief')
        .where({ sensor_id: sensorId })
        .where('event_start', '>=', Date.parse(`${day}T00:00:00Z`))
        .where('event_start', '<', Date.parse(`${day}T02:00:00Z`))
        .orderBy('event_start')
        .pluck('event_value');
      expect(rows.map((v: number) => Math.round(v * 1e6) / 1e6)).toEqual(values);
    }
  });

  it('getConnection lists the account’s power connections, newest first, in the version’s address form', async () => {
    const s = await site.battery({ name: `connection ${prefix}` });
    const res = await site.message('GET', `/api/${prefix}/getConnection`, { type: 'GetConnectionRequest' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(processed('GetConnectionResponse'));
    const local = is2(prefix) ? `fm1.${s.id}` : `${accountId}:${s.id}`;
    expect(res.body.connections[0]).toMatch(new RegExp(`^ea1\\.\\d{4}-\\d{2}\\.localhost:${local.replace('.', '\\.')}$`));
    expect(res.body.names[0]).toBe(`connection ${prefix}`);
    expect(res.body.connections).toHaveLength(res.body.names.length);
    // Price and weather sensors are no connections.
    expect(res.body.names).not.toContain('epex_da');
    expect(res.body.names).not.toContain('temperature');
    // What getConnection lists is accepted back as a connection.
    const back = await site.message('GET', `/api/${prefix}/getMeterData`, {
      type: 'GetMeterDataRequest',
      connection: res.body.connections[0],
      start: START,
      duration: 'PT15M',
      unit: 'MW',
    });
    expect(back.status).toBe(200);
  });
});

describe('uploads: repeats, replacements, belief timing, resolution, permissions', () => {
  const meter = (sensorId: number, values: number[], extra: Record<string, unknown> = {}) => ({
    type: 'PostMeterDataRequest',
    connection: fm1(sensorId),
    values,
    start: START,
    duration: 'PT30M',
    unit: 'MW',
    horizon: 'PT0H',
    ...extra,
  });

  it('answers a repeat as already received and a changed value as an invalid replacement', async () => {
    const s = await site.battery();
    expect((await site.message('POST', '/api/v1_3/postMeterData', meter(s.id, [1, 2]))).body).toEqual(processed('PostMeterDataResponse'));
    const again = await site.message('POST', '/api/v1_3/postMeterData', meter(s.id, [1, 2]));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ type: 'PostMeterDataResponse', status: 'ALREADY_RECEIVED_AND_SUCCESSFULLY_PROCESSED' });
    const changed = await site.message('POST', '/api/v1_3/postMeterData', meter(s.id, [1, 3]));
    expect(changed.status).toBe(403);
    expect(changed.body).toMatchObject({ results: 'Rejected', status: 'INVALID_REPLACEMENT' });
  });

  it('stores nothing of an upload when one of its connections fails', async () => {
    const s = await site.battery();
    const res = await site.message('POST', '/api/v1_3/postMeterData', {
      ...meter(s.id, [1, 2]),
      connection: undefined,
      connections: [fm1(s.id), fm1(999_999)],
    });
    expect(res.body).toEqual(rejected('UNRECOGNIZED_ASSET'));
    expect(await stored(s.id)).toEqual([]);
  });

  it('reads a plain horizon back from the end of the period and a rolling one per value', async () => {
    const s = await site.battery();
    await site.message('POST', '/api/v1_3/postPrognosis', { ...meter(s.id, [1, 2]), type: 'PostPrognosisRequest', horizon: 'PT1H' });
    const p = await site.message('POST', '/api/v1_3/postPrognosis', {
      ...meter(s.id, [1, 2]),
      type: 'PostPrognosisRequest',
      start: '2015-01-01T01:00:00+00:00',
      horizon: 'R/PT1H',
    });
    expect(p.status).toBe(200);
    const rows = await site.t.db('timed_belief').where({ sensor_id: s.id }).orderBy('event_start').pluck('belief_time');
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(rows.map(iso)).toEqual([
      '2014-12-31T23:30:00.000Z',
      '2014-12-31T23:30:00.000Z',
      '2015-01-01T00:15:00.000Z',
      '2015-01-01T00:30:00.000Z',
    ]);
  });

  it('refuses meter data known before the fact and prognoses known after it (INVALID_HORIZON)', async () => {
    const s = await site.battery();
    const early = await site.message('POST', '/api/v1_3/postMeterData', meter(s.id, [1, 2], { horizon: 'R/PT15M' }));
    expect(early.status).toBe(400);
    expect(early.body).toEqual(rejected('INVALID_HORIZON'));
    const late = await site.message('POST', '/api/v2_0/postPrognosis', {
      ...meter(s.id, [1, 2]),
      type: 'PostPrognosisRequest',
      horizon: undefined,
      prior: '2015-01-02T00:00:00+00:00',
    });
    expect(late.body).toEqual(rejected('INVALID_HORIZON'));
    const unreadable = await site.message('POST', '/api/v1_3/postMeterData', meter(s.id, [1, 2], { horizon: 'six hours' }));
    expect(unreadable.body).toEqual(rejected('INVALID_HORIZON'));
  });

  it('refuses values finer than the sensor’s resolution (INVALID_RESOLUTION) and unreadable periods (INVALID_PERIOD)', async () => {
    const s = await site.battery();
    const fine = await site.message('POST', '/api/v1_3/postMeterData', meter(s.id, [1, 2, 3, 4, 5, 6]));
    expect(fine.status).toBe(400);
    expect(fine.body).toEqual(rejected('INVALID_RESOLUTION'));
    const period = await site.message('POST', '/api/v1_3/postMeterData', meter(s.id, [1, 2], { duration: 'half an hour' }));
    expect(period.body).toEqual(rejected('INVALID_PERIOD'));
  });

  it('answers 403 INVALID_SENDER for a connection of another account, for uploads and downloads', async () => {
    const s = await site.battery();
    const up = await site.message('POST', '/api/v1_3/postMeterData', meter(s.id, [1, 2]), site.stranger.token);
    expect(up.status).toBe(403);
    expect(up.body).toMatchObject({ result: 'Rejected', status: 'INVALID_SENDER' });
    const down = await site.message(
      'GET',
      '/api/v1_3/getMeterData',
      { type: 'GetMeterDataRequest', connection: fm1(s.id), start: START, duration: 'PT30M', unit: 'MW' },
      site.stranger.token,
    );
    expect(down.status).toBe(403);
  });

  it('filters downloads by source', async () => {
    const s = await site.battery();
    await site.message('POST', '/api/v1_3/postMeterData', meter(s.id, [1, 2]));
    const sourceId = (await site.t.db('data_source').where({ user_id: site.member.user.id }).first<{ id: number }>('id')).id;
    const other = (
      await site.t.db('data_source').insert({ name: 'someone else', type: 'demo script' }).returning<{ id: number }[]>('id')
    )[0].id;
    const ask = (source: string) =>
      site.message('GET', '/api/v1_3/getMeterData', {
        type: 'GetMeterDataRequest',
        connection: fm1(s.id),
        start: START,
        duration: 'PT30M',
        unit: 'MW',
        source,
      });
    expect((await ask(String(sourceId))).body.values).toEqual([1, 2]);
    expect((await ask(String(other))).body.values).toEqual([null, null]);
  });
});

/** The 400 names of the legacy error table, each produced by its condition. */
describe('error names of the data endpoints', () => {
  let conn: string;
  let sensorId: number;
  beforeAll(async () => {
    sensorId = (await site.battery()).id;
    conn = connection(accountId, sensorId);
  });

  const bases: Record<string, { method: 'GET' | 'POST'; first: Prefix; message: () => Record<string, unknown> }> = {
    getConnection: { method: 'GET', first: 'v1_1', message: () => ({ type: 'GetConnectionRequest' }) },
    getMeterData: {
      method: 'GET',
      first: 'v1',
      message: () => ({ type: 'GetMeterDataRequest', connection: conn, start: START, duration: 'PT1H', unit: 'MW' }),
    },
    getPrognosis: {
      method: 'GET',
      first: 'v1_1',
      message: () => ({ type: 'GetPrognosisRequest', connection: conn, start: START, duration: 'PT1H', unit: 'MW' }),
    },
    postMeterData: {
      method: 'POST',
      first: 'v1',
      message: () => ({
        type: 'PostMeterDataRequest',
        groups: [{ connections: [conn], values: [1, 2] }],
        start: START,
        duration: 'PT30M',
        unit: 'MW',
      }),
    },
    postPrognosis: {
      method: 'POST',
      first: 'v1_1',
      message: () => ({
        type: 'PostPrognosisRequest',
        groups: [{ connections: [conn], values: [1, 2] }],
        start: START,
        duration: 'PT30M',
        unit: 'MW',
      }),
    },
    postPriceData: {
      method: 'POST',
      first: 'v1_1',
      message: () => ({
        type: 'PostPriceDataRequest',
        market: `${EA}:epex_da`,
        values: [1, 2],
        start: START,
        duration: 'PT2H',
        unit: 'EUR/MWh',
      }),
    },
    postWeatherData: {
      method: 'POST',
      first: 'v1_1',
      message: () => ({
        type: 'PostWeatherDataRequest',
        groups: [{ sensor: `${EA}:temperature:33.4843866:126.477859`, values: [1, 2] }],
        start: START,
        duration: 'PT2H',
        unit: '°C',
      }),
    },
  };

  const badType = { type: 'SomethingElse' };
  const naive = { start: '2015-01-01T00:00:00' };
  const cases: [string, string, Record<string, unknown>][] = [
    ['getConnection', 'INVALID_MESSAGE_TYPE', badType],

    ['getMeterData', 'INVALID_DOMAIN', { connection: 'ea1.2018-6.localhost:1:2' }],
    ['getMeterData', 'INVALID_MESSAGE_TYPE', badType],
    ['getMeterData', 'INVALID_SOURCE', { source: '999999' }],
    ['getMeterData', 'INVALID_TIMEZONE', naive],
    ['getMeterData', 'INVALID_UNIT', { unit: 'EUR/MWh' }],
    ['getMeterData', 'UNRECOGNIZED_ASSET', { connection: `${EA}:1:999999` }],
    ['getMeterData', 'UNRECOGNIZED_CONNECTION_GROUP', { connection: undefined }],

    ['getPrognosis', 'INVALID_MESSAGE_TYPE', badType],
    ['getPrognosis', 'INVALID_SOURCE', { source: 'MDC' }],
    ['getPrognosis', 'INVALID_TIMEZONE', naive],
    ['getPrognosis', 'INVALID_UNIT', { unit: 'kWh' }],
    ['getPrognosis', 'UNRECOGNIZED_ASSET', { connection: 'CS 404' }],
    ['getPrognosis', 'UNRECOGNIZED_CONNECTION_GROUP', { connection: undefined }],

    ['postMeterData', 'INVALID_DOMAIN', { groups: [{ connections: [`${EA}:one:two`], values: [1, 2] }] }],
    ['postMeterData', 'INVALID_MESSAGE_TYPE', badType],
    ['postMeterData', 'INVALID_TIMEZONE', naive],
    ['postMeterData', 'INVALID_UNIT', { unit: 'MWh' }],
    ['postMeterData', 'REQUIRED_INFO_MISSING', { start: undefined }],
    ['postMeterData', 'UNRECOGNIZED_ASSET', { groups: [{ connections: [fm1(999_999)], values: [1, 2] }] }],
    ['postMeterData', 'UNRECOGNIZED_CONNECTION_GROUP', { groups: [{ values: [1, 2] }] }],

    ['postPrognosis', 'INVALID_MESSAGE_TYPE', { type: 'PostMeterDataRequest' }],
    ['postPrognosis', 'INVALID_TIMEZONE', naive],
    ['postPrognosis', 'INVALID_UNIT', { unit: '°C' }],
    ['postPrognosis', 'REQUIRED_INFO_MISSING', { groups: [{ connections: [`${EA}:1:1`] }] }],
    ['postPrognosis', 'UNRECOGNIZED_ASSET', { groups: [{ connections: [`${EA}:1:999999`], values: [1, 2] }] }],
    ['postPrognosis', 'UNRECOGNIZED_CONNECTION_GROUP', { groups: [] }],

    ['postPriceData', 'INVALID_DOMAIN', { market: 'epex_da' }],
    ['postPriceData', 'INVALID_MESSAGE_TYPE', badType],
    ['postPriceData', 'INVALID_TIMEZONE', naive],
    ['postPriceData', 'INVALID_UNIT', { unit: 'MW' }],
    ['postPriceData', 'REQUIRED_INFO_MISSING', { values: ['fifty', 60] }],
    ['postPriceData', 'UNRECOGNIZED_ASSET', { market: `${EA}:fm1.999999` }],
    ['postPriceData', 'UNRECOGNIZED_MARKET', { market: `${EA}:nord_pool` }],

    ['postWeatherData', 'INVALID_DOMAIN', { groups: [{ sensor: `${EA}:temperature:north:east`, values: [1, 2] }] }],
    ['postWeatherData', 'INVALID_MESSAGE_TYPE', badType],
    ['postWeatherData', 'INVALID_TIMEZONE', naive],
    ['postWeatherData', 'INVALID_UNIT', { unit: 'm/s' }],
    ['postWeatherData', 'REQUIRED_INFO_MISSING', { duration: undefined }],
    ['postWeatherData', 'UNRECOGNIZED_ASSET', { groups: [{ sensor: `${EA}:fm1.999999`, values: [1, 2] }] }],
    ['postWeatherData', 'UNRECOGNIZED_SENSOR', { groups: [{ sensor: `${EA}:temperature:52.37:4.89`, values: [1, 2] }] }],
  ];

  it.each(
    cases.flatMap(([endpoint, name, change]) => (['v1_1', 'v1_3', 'v2_0'] as Prefix[]).map((p) => [endpoint, name, p, change] as const)),
  )('%s answers 400 %s (%s)', async (endpoint, name, prefix, change) => {
    const base = bases[endpoint];
    const message = { ...base.message(), ...change };
    // Fields set to undefined are left out.
    const res = await site.message(base.method, `/api/${prefix}/${endpoint}`, JSON.parse(JSON.stringify(message)));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(rejected(name));
  });

  it.each(['getMeterData', 'postMeterData'])('%s under version 1.0 answers the same names', async (endpoint) => {
    const base = bases[endpoint];
    const res = await site.message(base.method, `/api/v1/${endpoint}`, { ...base.message(), type: 'Wrong' });
    expect(res.body).toEqual(rejected('INVALID_MESSAGE_TYPE'));
  });
});
