/**
 * GET /api/v3_0/sensors/<id>/status (FlexMeasures 1.0), with the cases of FlexMeasures'
 * `test_sensor_data_schema.py::test_get_status_no_status_specs` (15-minute sensor: recorded data
 * stale after two resolutions, schedules when they reach less than 12 hours ahead), set relative
 * to now since the server's clock cannot be frozen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAsset } from '../../server/src/store/assets.ts';
import { updateAsset } from '../../server/src/store/write/assets.ts';
import { FIXTURE } from '../helpers/fixtureWriter.ts';
import { getOrCreateSource } from '../../server/src/store/write/sources.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let otherToken: string;
let accountId: number;

const MINUTE = 60_000;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId })).token;
  otherToken = (await f.user({ accountId: (await f.account()).id })).token;
});
afterAll(() => t.close());

/** A 15-minute sensor with one event per source type, starting at the given offsets from now. */
async function sensorWith(events: [type: string, startOffsetMs: number][], attributes: Record<string, unknown> = {}) {
  const asset = await f.asset({ accountId, name: `site ${Math.random()}` });
  const sensor = await f.sensor({ assetId: asset.id, name: 'production', attributes });
  const now = Date.now();
  for (const [type, offset] of events) {
    const source = await t.db.transaction((trx) => getOrCreateSource(trx, { name: `${type} source`, type }));
    await t.db('timed_belief').insert({
      sensor_id: sensor.id,
      event_start: Math.floor((now + offset) / 1000) * 1000,
      source_id: source.id,
      belief_time: now - 3_600_000,
      cumulative_probability: 0.5,
      event_value: 1,
    });
  }
  return { sensor: sensor.id, asset };
}

const status = async (sensor: number, as = token) => t.request('GET', `/api/v3_0/sensors/${sensor}/status`, { token: as });

describe('GET /api/v3_0/sensors/<id>/status', () => {
  it('without data: stale, "no data recorded", with the sensor and its relation to the asset', async () => {
    const { sensor, asset } = await sensorWith([]);
    const res = await status(sensor);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sensors_data: [
        {
          staleness: null,
          stale: true,
          staleness_since: null,
          reason: 'no data recorded',
          source_type: null,
          id: sensor,
          name: 'production',
          resolution: 'PT15M',
          asset_name: asset.name,
          relation: 'sensor belongs to this asset',
        },
      ],
    });
  });

  it('recorded data known 29 minutes ago is not stale; 31 minutes ago it is (at most two resolutions)', async () => {
    // An event ending 29 (31) minutes ago starts 44 (46) minutes ago.
    const fresh = (await status((await sensorWith([['demo script', -44 * MINUTE]])).sensor)).body.sensors_data[0];
    expect(fresh).toMatchObject({ source_type: 'demo script', stale: false });
    expect(fresh.reason).toMatch(/^most recent data is 29 minutes( and [\d.]+ seconds)? old, which is not more than 30 minutes old$/);
    expect(fresh.staleness).toMatch(/^PT29M/);
    const stale = (await status((await sensorWith([['demo script', -46 * MINUTE]])).sensor)).body.sensors_data[0];
    expect(stale).toMatchObject({ source_type: 'demo script', stale: true });
    expect(stale.reason).toMatch(/ old, but should not be more than 30 minutes old$/);
  });

  it('a schedule reaching 24 h 45 min ahead is not stale; one with only past events is', async () => {
    const ahead = (await status((await sensorWith([['scheduler', (24 * 60 + 45) * MINUTE]])).sensor)).body.sensors_data[0];
    expect(ahead).toMatchObject({ source_type: 'scheduler', stale: false });
    expect(ahead.reason).toMatch(
      /^most recent data is 1 day, 44 minutes and [\d.]+ seconds in the future, which is not less than 12 hours in the future$/,
    );
    const past = (await status((await sensorWith([['scheduler', -60 * MINUTE]])).sensor)).body.sensors_data[0];
    expect(past).toMatchObject({
      source_type: 'scheduler',
      stale: true,
      staleness: null,
      reason: 'Found no future data which this source should have',
    });
  });

  it('lists each source type, honours status_specs and names flex-context relations', async () => {
    const { sensor, asset } = await sensorWith(
      [
        ['user', -46 * MINUTE],
        ['forecaster', 13 * 60 * MINUTE],
      ],
      { status_specs: { max_staleness: 'PT1H' } },
    );
    await t.db.transaction(async (trx) =>
      updateAsset(trx, FIXTURE, (await getAsset(trx, asset.id))!, { flex_context: { 'consumption-price': { sensor } } }),
    );
    const rows = (await status(sensor)).body.sensors_data;
    expect(rows.map((r: { source_type: string }) => r.source_type)).toEqual(['user', 'forecaster']);
    expect(rows[0]).toMatchObject({ stale: false, relation: 'sensor belongs to this asset;flex context (consumption-price)' });
    expect(rows[0].reason).toMatch(/which is not more than 1 hour old$/);
    expect(rows[1]).toMatchObject({ stale: false });
  });

  it('needs read access to the sensor (403)', async () => {
    const { sensor } = await sensorWith([]);
    expect((await status(sensor, otherToken)).status).toBe(403);
  });
});
