import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;

const Q = 15 * 60_000;
const H = 3600_000;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
});
afterAll(() => t.close());

describe('site now', () => {
  it('gives each sensor of the site its latest measurement, age and data health', async () => {
    const site = await f.asset({ accountId, type: 'building', name: 'Home' });
    const battery = await f.asset({ accountId, type: 'battery', name: 'Battery' });
    await t.db('generic_asset').where({ id: battery.id }).update({ parent_asset_id: site.id });
    const grid = await f.sensor({ assetId: site.id, unit: 'kW', resolutionMinutes: 15, name: 'grid power' });
    const soc = await f.sensor({ assetId: battery.id, unit: '%', resolutionMinutes: 60, name: 'battery SoC' });
    const pv = await f.sensor({ assetId: site.id, unit: 'kW', resolutionMinutes: 15, name: 'PV power' });

    // Grid: the two quarter-hours before the current one. SoC: one hour, three hours back (stale).
    const quarter = Math.floor(Date.now() / Q) * Q;
    const hour = Math.floor(Date.now() / H) * H;
    const post = (sensorId: number, startMs: number, values: number[], duration: string, unit: string) =>
      t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, {
        token,
        json: { values, start: new Date(startMs).toISOString(), duration, unit },
      });
    expect((await post(grid.id, quarter - 2 * Q, [1.5, 2.5], 'PT30M', 'kW')).status).toBe(200);
    expect((await post(soc.id, hour - 4 * H, [55], 'PT1H', '%')).status).toBe(200);

    const res = await t.request('GET', `/api/v3_0/assets/${site.id}/now`, { token });
    expect(res.status).toBe(200);
    // Expectations from the answer's own "now", so a quarter-hour passing during the test changes nothing.
    const now = Date.parse(res.body.now);
    const dayStart = Math.floor(now / 86_400_000) * 86_400_000;
    const endedToday = (step: number) => Math.floor((now - dayStart) / step);
    const measuredToday = (starts: number[], step: number) =>
      starts.filter((s) => s >= dayStart && s + step <= dayStart + endedToday(step) * step).length;
    const [source] = await t
      .db('data_source as s')
      .join('timed_belief as b', 'b.source_id', 's.id')
      .where('b.sensor_id', grid.id)
      .distinct('s.name');
    const [uploadedGrid] = await t.db('timed_belief').where({ sensor_id: grid.id }).max({ bt: 'belief_time' });
    const [uploadedSoc] = await t.db('timed_belief').where({ sensor_id: soc.id }).max({ bt: 'belief_time' });
    expect(res.body).toEqual({
      asset_id: site.id,
      now: expect.any(String),
      // Issue 32: the page reads times in the site's zone, its sensors' (made here in the factory's UTC).
      timezone: 'UTC',
      sensors: [
        {
          id: grid.id,
          name: 'grid power',
          unit: 'kW',
          // Issue 32: power says how it is signed, and whether it was negative all yesterday.
          sign: 'production positive',
          asset: 'Home',
          resolution_minutes: 15,
          latest: { event_start: new Date(quarter - Q).toISOString(), value: 2.5, age_seconds: Math.round((now - quarter) / 1000) },
          stale: now - quarter > 2 * Q,
          stale_after_minutes: 30,
          gaps_today: endedToday(Q) - measuredToday([quarter - 2 * Q, quarter - Q], Q),
          last_upload: { at: new Date(Number(uploadedGrid.bt)).toISOString(), source: source.name },
          malformed_messages: null,
          negative_all_day: null,
        },
        {
          id: pv.id,
          name: 'PV power',
          unit: 'kW',
          // Issue 32: power says how it is signed, and whether it was negative all yesterday.
          sign: 'production positive',
          asset: 'Home',
          resolution_minutes: 15,
          latest: null,
          stale: false,
          stale_after_minutes: 30,
          gaps_today: endedToday(Q),
          last_upload: null,
          malformed_messages: null,
          negative_all_day: null,
        },
        {
          id: soc.id,
          name: 'battery SoC',
          unit: '%',
          // Issue 32: power says how it is signed, and whether it was negative all yesterday.
          sign: null,
          asset: 'Battery',
          resolution_minutes: 60,
          latest: { event_start: new Date(hour - 4 * H).toISOString(), value: 55, age_seconds: Math.round((now - (hour - 3 * H)) / 1000) },
          // Ended three hours (or more) ago: more than twice its hour.
          stale: true,
          stale_after_minutes: 120,
          gaps_today: endedToday(H) - measuredToday([hour - 4 * H], H),
          last_upload: { at: new Date(Number(uploadedSoc.bt)).toISOString(), source: source.name },
          malformed_messages: null,
          negative_all_day: null,
        },
      ],
      // Issue 33's power flow: two power sensors on the site itself could be anything, so only the
      // battery's SoC has a part; it is stale, missing since its hour ended (three hours back).
      flow: [{ role: 'soc', unit: '%', value: 55, stale: true, since: new Date(hour - 3 * H).toISOString(), sensor_ids: [soc.id] }],
    });
  });

  it('judges an instantaneous sensor stale after the stated age, and never counts a forecast as a measurement', async () => {
    const site = await f.asset({ accountId, type: 'building', name: 'Flat' });
    // A state of charge read at instants (no resolution), and a PV power sensor.
    const soc = await f.sensor({ assetId: site.id, unit: '%', resolutionMinutes: 0, name: 'SoC' });
    const pv = await f.sensor({ assetId: site.id, unit: 'kW', resolutionMinutes: 15, name: 'PV' });
    const quarter = Math.floor(Date.now() / Q) * Q;
    const post = (sensorId: number, json: Record<string, unknown>) =>
      t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, { token, json });
    // The SoC read 61 minutes ago: the default allows an hour (FLEXSITE_INSTANT_STALE_AFTER=PT1H).
    expect(
      (await post(soc.id, { values: [40], start: new Date(Date.now() - 61 * 60_000).toISOString(), duration: 'PT0H', unit: '%' })).status,
    ).toBe(200);
    // PV measured in the last quarter hour, then tomorrow's forecast uploaded now (believed before its events).
    expect((await post(pv.id, { values: [1.5], start: new Date(quarter - Q).toISOString(), duration: 'PT15M', unit: 'kW' })).status).toBe(
      200,
    );
    const [measuredAt] = await t.db('timed_belief').where({ sensor_id: pv.id }).max({ bt: 'belief_time' });
    const tomorrow = quarter + 86_400_000;
    expect(
      (
        await post(pv.id, {
          values: [3, 4],
          start: new Date(tomorrow).toISOString(),
          duration: 'PT30M',
          unit: 'kW',
          prior: new Date().toISOString(),
        })
      ).status,
    ).toBe(200);
    // A forecast of the current quarter hour believed a day earlier, from the same user source: no measurement either.
    expect(
      (
        await post(pv.id, {
          values: [9],
          start: new Date(quarter).toISOString(),
          duration: 'PT15M',
          unit: 'kW',
          prior: new Date(quarter - 86_400_000).toISOString(),
        })
      ).status,
    ).toBe(200);

    const res = await t.request('GET', `/api/v3_0/assets/${site.id}/now`, { token });
    expect(res.status).toBe(200);
    const [socNow, pvNow] = [soc.id, pv.id].map((id) => res.body.sensors.find((s: { id: number }) => s.id === id));
    expect(socNow).toMatchObject({ stale: true, stale_after_minutes: 60, latest: expect.objectContaining({ value: 40 }) });
    expect(pvNow).toMatchObject({
      stale: false,
      stale_after_minutes: 30,
      latest: expect.objectContaining({ event_start: new Date(quarter - Q).toISOString(), value: 1.5 }),
      last_upload: expect.objectContaining({ at: new Date(Number(measuredAt.bt)).toISOString() }),
    });
  });

  it('refuses strangers and unknown sites', async () => {
    const site = await f.asset({ accountId, type: 'building' });
    const stranger = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
    expect((await t.request('GET', `/api/v3_0/assets/${site.id}/now`, { token: stranger })).status).toBe(403);
    expect((await t.request('GET', '/api/v3_0/assets/999999/now', { token })).status).toBe(404);
    expect((await t.request('GET', `/api/v3_0/assets/${site.id}/now`)).status).toBe(401);
  });
});
