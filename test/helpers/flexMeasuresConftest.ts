/**
 * FlexMeasures 1.0's test fixtures (flexmeasures/conftest.py) rebuilt through Flexsite's API, for
 * the transcribed FlexMeasures scheduling tests: the epex_da prices, the building with the "Test
 * battery", and the charging hub with its two charging stations. Assets and sensors are created
 * with FlexMeasures' attributes as its conftest writes them (soc_datetime "2015-01-01T00:00+01",
 * soc_in_mwh, soc_udi_event_id, "soc-usage": "0 kW", the seasonality flags), so the API's value
 * checks meet them as FlexMeasures' own clients write them; each test file starts its own server.
 */
import { expect } from 'vitest';
import { factories } from './factories.ts';
import { waitForSchedule } from './schedules.ts';
import { startTestServer, type TestServer } from './testServer.ts';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
/** 2015-01-01T00:00:00+01:00, the start of the fixtures' "day 1". */
export const DAY1_MS = Date.parse('2015-01-01T00:00:00+01:00');
/** The fixtures' prices are known a month before day 1. */
export const KNOWN_MS = DAY1_MS - 30 * DAY_MS;

/** epex_da, day 1: FlexMeasures' seeded random prices (EUR/MWh, hourly, local time). */
export const DAY1_PRICES = [
  0.6394267984578837, 0.03148401500669048, 0.4125439775536789, 0.3810445647275101, 1.374273994786017, 1.3303409989612758,
  1.7843591354096908, 0.17091529637359196, 0.7873168339436719, 0.05086703536323349, 0.32795696220540504, 0.636150861207784,
  0.026535969683863632, 0.14737467980550156, 0.32494221888976177, 0.15960966431884493, 0.029533443327409575, 0.02007874127427867, 0.0,
  0.00022143986617584885, 0.10795930888702622, 0.20448029457857794, 0.1701252582589958, 0.11523844413747857,
];
/** epex_da_production, day 1: the next 24 of the same seeded draws. */
export const DAY1_PRODUCTION_PRICES = [
  0.9572130722067812, 0.4237116238653942, 0.13911876507022186, 0.1651051827441999, 1.5814460171685556, 1.1868805970671752,
  1.6142565465487604, 1.434598565725442, 1.000615240877317, 1.6612125195687113, 0.5678015658125302, 0.6949192603171565, 0.8294046642529951,
  0.4584350606802843, 0.4308534501553888, 0.16910252821310523, 0.09439472726175119, 0.0015614280088794132, 0.0, 0.009860655741630944,
  0.010690097889584386, 0.06818287201671873, 0.050500714704864516, 0.20602874058943074,
];
/** epex_da, day 2: 100 (00–08 h), 90 (08–16 h), 100 (16–24 h). */
export const DAY2_PRICES = [...new Array<number>(8).fill(100), ...new Array<number>(8).fill(90), ...new Array<number>(8).fill(100)];
/** Day 3: consumption −10 for 8 hours, then 100; production 40 lower (−50, then 60). */
export const DAY3_PRICES = [...new Array<number>(8).fill(-10), ...new Array<number>(16).fill(100)];
export const DAY3_PRODUCTION_PRICES = [...new Array<number>(8).fill(-50), ...new Array<number>(16).fill(60)];

/** The attributes the conftest gives the test battery and the charging stations, as written there. */
const socAttributes = {
  max_soc_in_mwh: 5,
  min_soc_in_mwh: 0,
  soc_in_mwh: 2.5,
  soc_datetime: '2015-01-01T00:00+01',
  soc_udi_event_id: 203,
  is_consumer: true,
  is_producer: true,
  can_curtail: true,
  can_shift: true,
};
/** The conftest's power sensors all carry these. */
const seasonality = { daily_seasonality: true, weekly_seasonality: true, yearly_seasonality: true };

export interface Conftest {
  t: TestServer;
  f: ReturnType<typeof factories>;
  token: string;
  accountId: number;
  epexDa: number;
  epexDaProduction: number;
  /** The test building: power sensors (15 min, MW) and state-of-charge sensors (instantaneous). */
  fixture: {
    building: number;
    batteryKw: number;
    battery: number;
    batteryAsset: number;
    batterySoc: number;
    station: number;
    stationAsset: number;
    uniSoc: number;
    bidirectional: number;
    bidirectionalAsset: number;
    biSoc: number;
    hub: number;
  };
  /** An asset as the conftest makes it, with its stored flex-context and parent. */
  asset(
    type: string,
    props: { parent?: number; flexContext?: Record<string, unknown>; attributes?: Record<string, unknown> },
  ): Promise<number>;
  /** Waits for a job to settle; returns its status. */
  settled(job: string): Promise<string>;
  /** Beliefs the scheduler stored on a sensor, in order. */
  storedValues(sensorId: number): Promise<number[]>;
  /** A finished job's schedule for a sensor (200 expected). */
  schedule(sensorId: number, job: string, duration: string): Promise<{ values: number[]; start: string; duration: string; unit: string }>;
  /** flexmeasures/api/v3_0/tests/utils.py `message_for_trigger_schedule`, with the options the tests use. */
  messageForTriggerSchedule(opts?: { resolution?: string; withTargets?: boolean; useTimeWindow?: boolean }): {
    start: string;
    duration: string;
    resolution?: string;
    'flex-model': Record<string, unknown>;
    'flex-context': Record<string, unknown>;
  };
}

/** Starts a 1.0-dialect server holding the conftest's markets, building and charging hub. */
export async function startConftest(): Promise<Conftest> {
  const t = await startTestServer({ FLEXSITE_API_COMPAT: '1.0' });
  const f = factories(t.db);
  const accountId = (await f.account({ roles: ['Prosumer'] })).id;
  const token = (await f.user({ accountId, roles: ['account-admin'] })).token;

  let made = 0;
  const created = (res: { status: number; body: { id: number } }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id;
  };
  const asset: Conftest['asset'] = async (type, props) =>
    created(
      await t.request('POST', '/api/v3_0/assets', {
        token,
        json: {
          name: `${type} ${++made}`,
          generic_asset_type_id: await f.assetType(type),
          account_id: accountId,
          latitude: 10,
          longitude: 100,
          ...(props.parent !== undefined && { parent_asset_id: props.parent }),
          ...(props.flexContext && { flex_context: JSON.stringify(props.flexContext) }),
          ...(props.attributes && { attributes: JSON.stringify(props.attributes) }),
        },
      }),
    );
  const sensor = async (assetId: number, name: string, unit: string, minutes: number, attributes?: Record<string, unknown>) =>
    created(
      await t.request('POST', '/api/v3_0/sensors', {
        token,
        json: {
          name,
          unit,
          event_resolution: `PT${minutes}M`,
          generic_asset_id: assetId,
          ...(attributes && { attributes: JSON.stringify(attributes) }),
        },
      }),
    );

  const market = await asset('transmission zone', {});
  const epexDa = await sensor(market, 'epex_da', 'EUR/MWh', 60);
  await f.beliefs(epexDa, DAY1_MS, HOUR_MS, [...DAY1_PRICES, ...DAY2_PRICES, ...DAY3_PRICES], KNOWN_MS);
  const epexDaProduction = await sensor(market, 'epex_da_production', 'EUR/MWh', 60);
  await f.beliefs(epexDaProduction, DAY1_MS, HOUR_MS, DAY1_PRODUCTION_PRICES, KNOWN_MS);
  await f.beliefs(epexDaProduction, DAY1_MS + 2 * DAY_MS, HOUR_MS, DAY3_PRODUCTION_PRICES, KNOWN_MS);
  const siteContext = { 'site-power-capacity': '2 MVA', 'consumption-price': { sensor: epexDa } };

  const building = await asset('building', { flexContext: { 'site-power-capacity': '2 MVA' } });
  const batteryAsset = await asset('battery', {
    parent: building,
    flexContext: siteContext,
    attributes: { ...socAttributes, 'soc-usage': '0 kW' },
  });
  const hub = await asset('building', {});
  const stationAsset = await asset('one-way_evse', {
    parent: hub,
    flexContext: siteContext,
    attributes: { ...socAttributes, is_producer: false },
  });
  const bidirectionalAsset = await asset('two-way_evse', {
    parent: hub,
    flexContext: siteContext,
    attributes: socAttributes,
  });
  const fixture = {
    building,
    batteryAsset,
    battery: await sensor(batteryAsset, 'power', 'MW', 15, seasonality),
    batteryKw: await sensor(batteryAsset, 'power (kW)', 'kW', 15, seasonality),
    batterySoc: await sensor(batteryAsset, 'state of charge', 'kWh', 0),
    hub,
    stationAsset,
    station: await sensor(stationAsset, 'power', 'MW', 15, seasonality),
    uniSoc: await sensor(stationAsset, 'uni-soc', 'MWh', 0),
    bidirectionalAsset,
    bidirectional: await sensor(bidirectionalAsset, 'power', 'MW', 15, seasonality),
    biSoc: await sensor(bidirectionalAsset, 'bi-soc', 'MWh', 0),
  };

  return {
    t,
    f,
    token,
    accountId,
    epexDa,
    epexDaProduction,
    fixture,
    asset,
    async settled(job) {
      await t.server.services.jobs.settled(job, 60_000);
      return (await t.db('job').where({ id: job }).first<{ status: string }>()).status;
    },
    async storedValues(sensorId) {
      const rows = await t
        .db('timed_belief')
        .join('data_source', 'data_source.id', 'timed_belief.source_id')
        .where({ sensor_id: sensorId, 'data_source.type': 'scheduler' })
        .orderBy('event_start')
        .select<{ event_value: number }[]>('event_value');
      return rows.map((r) => r.event_value);
    },
    async schedule(sensorId, job, duration) {
      const res = await waitForSchedule(t, token, sensorId, job, duration);
      expect(res.status).toBe(200);
      return res.body as { values: number[]; start: string; duration: string; unit: string };
    },
    messageForTriggerSchedule(opts = {}) {
      const flexModel: Record<string, unknown> = {
        'soc-at-start': 12.1,
        'soc-min': 0,
        'soc-max': 40,
        'soc-unit': 'kWh',
        'roundtrip-efficiency': '98%',
        'storage-efficiency': '99.99%',
        'power-capacity': '2 MW',
      };
      if (opts.withTargets) {
        const at = '2015-01-02T23:00:00+01:00';
        const when = opts.useTimeWindow ? { start: '2015-01-02T22:45:00+01:00', end: at } : { datetime: at };
        flexModel['soc-targets'] = [{ value: 25, ...when }];
        flexModel['soc-minima'] = [{ value: 24, ...when }];
        flexModel['soc-maxima'] = [{ value: 26, ...when }];
      }
      return {
        start: '2015-01-01T00:00:00+01:00',
        duration: 'PT24H',
        ...(opts.resolution && { resolution: opts.resolution }),
        'flex-model': flexModel,
        // The tests put the prices and a site capacity "big enough to avoid any infeasibilities" here.
        'flex-context': { 'consumption-price': { sensor: epexDa }, 'production-price': { sensor: epexDa }, 'site-power-capacity': '1 TW' },
      };
    },
  };
}
