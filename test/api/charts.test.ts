import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordBeliefs } from '../../server/src/store/write/beliefs.ts';
import { getOrCreateSource } from '../../server/src/store/write/sources.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let memberToken: string;
let outsiderToken: string;
let assetId: number;
let powerId: number;
let priceId: number;
let hiddenId: number;

const H = 3_600_000;
const T0 = Date.parse('2025-03-01T00:00:00Z');

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const accountId = (await f.account()).id;
  memberToken = (await f.user({ accountId })).token;
  outsiderToken = (await f.user({ accountId: (await f.account()).id })).token;
  const publicAsset = await f.asset({ accountId: null, type: 'battery', name: 'zone' });
  const otherAsset = await f.asset({ accountId: (await f.account()).id });
  const asset = await f.asset({ accountId, name: 'site' });
  assetId = asset.id;
  powerId = (await f.sensor({ assetId, name: 'power', unit: 'kW', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' })).id;
  priceId = (await f.sensor({ assetId: publicAsset.id, name: 'prices', unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  hiddenId = (await f.sensor({ assetId: otherAsset.id, name: 'not yours', unit: 'kW' })).id;
  await t
    .db('generic_asset')
    .where({ id: assetId })
    .update({ attributes: JSON.stringify({ sensors_to_show: [powerId, [priceId, hiddenId]] }) });
  await t.db.transaction(async (trx) => {
    const meter = await getOrCreateSource(trx, { name: 'meter', type: 'demo script' });
    const forecaster = await getOrCreateSource(trx, { name: 'forecaster', type: 'forecaster' });
    await recordBeliefs(
      trx,
      [
        // The forecaster changed its mind about 01:00 later on.
        { sensorId: powerId, eventStartMs: T0, beliefTimeMs: T0 - 2 * H, sourceId: forecaster.id, value: 1 },
        { sensorId: powerId, eventStartMs: T0 + H, beliefTimeMs: T0 - 2 * H, sourceId: forecaster.id, value: 2 },
        { sensorId: powerId, eventStartMs: T0 + H, beliefTimeMs: T0 - H, sourceId: forecaster.id, value: 2.5 },
        { sensorId: powerId, eventStartMs: T0, beliefTimeMs: T0 + H, sourceId: meter.id, value: 1.2 },
        { sensorId: priceId, eventStartMs: T0, beliefTimeMs: T0 - 24 * H, sourceId: meter.id, value: 50 },
        { sensorId: hiddenId, eventStartMs: T0, beliefTimeMs: T0 - H, sourceId: meter.id, value: 99 },
      ],
      { allowOverwrite: false },
    );
  });
});
afterAll(() => t.close());

const window = { event_starts_after: '2025-03-01T00:00:00Z', event_ends_before: '2025-03-02T00:00:00Z' };

describe('GET /assets/<id>/chart_data/', () => {
  it('checks authentication, permission and the query first', async () => {
    expect((await t.request('GET', `/api/v3_0/assets/${assetId}/chart_data/`, { query: window })).status).toBe(401);
    expect((await t.request('GET', `/api/v3_0/assets/${assetId}/chart_data/`, { token: outsiderToken, query: window })).status).toBe(403);
    expect((await t.request('GET', '/api/v3_0/assets/999999/chart_data/', { token: memberToken })).status).toBe(404);
    const naive = await t.request('GET', `/api/v3_0/assets/${assetId}/chart_data/`, {
      token: memberToken,
      query: { event_starts_after: '2025-03-01T00:00:00' },
    });
    expect(naive.status).toBe(422);
    expect(naive.body.message).toEqual({ query: { event_starts_after: ['Not a valid aware datetime.'] } });
    const backwards = await t.request('GET', `/api/v3_0/assets/${assetId}/chart_data/`, {
      token: memberToken,
      query: { event_starts_after: window.event_ends_before, event_ends_before: window.event_starts_after },
    });
    expect(backwards.status).toBe(422);
    expect(backwards.body.message.query.event_ends_before).toEqual(['Must be later than event_starts_after.']);
  });

  it("gives the most recent belief per event and source of the sensors shown, in the site's zone", async () => {
    const res = await t.request('GET', `/api/v3_0/assets/${assetId}/chart_data/`, { token: memberToken, query: window });
    expect(res.status).toBe(200);
    const rows = res.body as Record<string, unknown>[];
    // The sensor of another account is left out; the public price sensor is readable.
    expect(new Set(rows.map((r) => r.sensor_id))).toEqual(new Set([powerId, priceId]));
    const power = rows.filter((r) => r.sensor_id === powerId);
    expect(power.map((r) => [r.event_start, r.source, r.event_value])).toEqual([
      ['2025-03-01T01:00:00+01:00', 'forecaster', 1],
      ['2025-03-01T01:00:00+01:00', 'meter', 1.2],
      ['2025-03-01T02:00:00+01:00', 'forecaster', 2.5],
    ]);
    expect(power[0]).toEqual({
      sensor_id: powerId,
      sensor: 'power',
      unit: 'kW',
      event_start: '2025-03-01T01:00:00+01:00',
      event_value: 1,
      belief_time: '2025-02-28T23:00:00+01:00',
      source: 'forecaster',
      source_id: expect.any(Number),
      source_type: 'forecaster',
      // Wall-clock 01:00 in Amsterdam, encoded as UTC.
      local_time: Date.parse('2025-03-01T01:00:00Z'),
    });
  });

  it('filters on belief time, or gives every belief', async () => {
    const known = await t.request('GET', `/api/v3_0/assets/${assetId}/chart_data/`, {
      token: memberToken,
      query: { ...window, beliefs_before: '2025-02-28T22:30:00Z' },
    });
    expect(
      known.body.filter((r: { sensor_id: number }) => r.sensor_id === powerId).map((r: { event_value: number }) => r.event_value),
    ).toEqual([1, 2]);
    const all = await t.request('GET', `/api/v3_0/assets/${assetId}/chart_data/`, {
      token: memberToken,
      query: { ...window, most_recent_beliefs_only: 'false', beliefs_after: '2025-02-28T21:00:00Z' },
    });
    expect(
      all.body.filter((r: { sensor_id: number }) => r.sensor_id === powerId).map((r: { event_value: number }) => r.event_value),
    ).toEqual([1, 1.2, 2, 2.5]);
  });

  it('redirects the form without a trailing slash', async () => {
    const res = await t.request('GET', `/api/v3_0/assets/${assetId}/chart_data`, { token: memberToken, query: window });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toMatch(new RegExp(`/api/v3_0/assets/${assetId}/chart_data/\\?event_starts_after=`));
  });
});

describe('GET /assets/<id>/chart/', () => {
  it('returns a Vega-Lite spec with one plot per sensors_to_show entry, data embedded on request', async () => {
    const res = await t.request('GET', `/api/v3_0/assets/${assetId}/chart/`, {
      token: memberToken,
      query: { ...window, include_data: 'true', width: 600, height: 150, dataset_name: 'mine' },
    });
    expect(res.status).toBe(200);
    const spec = res.body;
    expect(spec.$schema).toMatch(/vega-lite\/v6/);
    expect(spec.data).toEqual({ name: 'mine' });
    expect(spec.datasets.mine).toHaveLength(4);
    expect(spec.vconcat.map((p: { title: string }) => p.title)).toEqual(['power', 'prices']);
    const [power] = spec.vconcat;
    expect(power).toMatchObject({ width: 600, height: 150 });
    expect(power.transform[0]).toEqual({ filter: { field: 'sensor_id', oneOf: [powerId] } });
    expect(power.layer[0].mark).toMatchObject({ type: 'line', interpolate: 'step-after' });
    expect(power.layer[0].encoding.y.title).toBe('kW, production positive');
    expect(power.layer[0].encoding.x.axis.title).toBe('Time (Europe/Amsterdam)');
    expect(power.layer[1].encoding.tooltip.map((t: { title: string }) => t.title)).toEqual([
      'Sensor',
      'Time',
      'Value',
      'Unit',
      'Source',
      'Known at',
    ]);
  });

  it('leaves the data out by default and validates its drawing parameters', async () => {
    const res = await t.request('GET', `/api/v3_0/assets/${assetId}/chart/`, { token: memberToken, query: window });
    expect(res.status).toBe(200);
    expect(res.body.datasets).toBeUndefined();
    expect(res.body.data).toEqual({ name: 'chart_data' });
    expect(res.body.vconcat[0].width).toBe('container');
    const bad = await t.request('GET', `/api/v3_0/assets/${assetId}/chart/`, { token: memberToken, query: { width: 'wide', height: 5 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.message.query).sort()).toEqual(['height', 'width']);
  });
});

describe('sensor charts', () => {
  it("chart one sensor's sources, readable as its asset is", async () => {
    expect((await t.request('GET', `/api/v3_0/sensors/${hiddenId}/chart_data/`, { token: memberToken, query: window })).status).toBe(403);
    const data = await t.request('GET', `/api/v3_0/sensors/${priceId}/chart_data/`, { token: memberToken, query: window });
    expect(data.status).toBe(200);
    expect(data.body.map((r: { event_start: string; event_value: number }) => [r.event_start, r.event_value])).toEqual([
      ['2025-03-01T00:00:00Z', 50],
    ]);
    const chart = await t.request('GET', `/api/v3_0/sensors/${powerId}/chart/`, {
      token: memberToken,
      query: { ...window, include_data: 'true' },
    });
    expect(chart.status).toBe(200);
    expect(chart.body.vconcat).toHaveLength(1);
    expect(chart.body.vconcat[0].layer[0].encoding.color.title).toBe('Source');
    expect(chart.body.datasets.chart_data).toHaveLength(3);
  });
});

describe('chart time axis', () => {
  it("spans the asked window in the site's wall-clock time", async () => {
    const res = await t.request('GET', `/api/v3_0/assets/${assetId}/chart/`, { token: memberToken, query: window });
    // As an expression of a plain array: Vega's expression interpreter cannot evaluate the `datetime(ms)` a numeric domain compiles to.
    expect(res.body.vconcat[0].layer[0].encoding.x.scale).toEqual({
      type: 'utc',
      domain: { expr: JSON.stringify([Date.parse('2025-03-01T01:00:00Z'), Date.parse('2025-03-02T01:00:00Z')]) },
    });
  });
});
