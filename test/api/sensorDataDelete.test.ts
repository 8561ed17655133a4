/** DELETE /api/v3_0/sensors/<id>/data (FlexMeasures 1.0): all of a sensor's data, or one source's within a window. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOrCreateSource } from '../../server/src/store/write/sources.ts';
import { unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let adminToken: string;
let memberToken: string;
let otherAdminToken: string;

const START_MS = Date.parse('2015-01-01T00:00:00Z');
const QUARTER = 15 * 60_000;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  adminToken = (await f.user({ accountId, roles: ['account-admin'] })).token;
  memberToken = (await f.user({ accountId })).token;
  otherAdminToken = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
});
afterAll(() => t.close());

/** A 15-minute sensor with 8 values from the fixtures' source and 8 from a second source. */
async function sensorWithData() {
  const s = await f.sensor({ assetId: (await f.asset({ accountId })).id });
  await f.beliefs(s.id, START_MS, QUARTER, [1, 2, 3, 4, 5, 6, 7, 8], START_MS - 86_400_000);
  const other = await t.db.transaction((trx) => getOrCreateSource(trx, { name: 'second', type: 'forecaster' }));
  await t.db('timed_belief').insert(
    Array.from({ length: 8 }, (_, i) => ({
      sensor_id: s.id,
      event_start: START_MS + i * QUARTER,
      source_id: other.id,
      belief_time: START_MS - 86_400_000,
      cumulative_probability: 0.5,
      event_value: 10 + i,
    })),
  );
  return { sensor: s.id, source: other.id };
}

const left = async (sensor: number) =>
  (await t.db('timed_belief').where({ sensor_id: sensor }).orderBy(['source_id', 'event_start']).select('event_value')).map(
    (r: { event_value: number }) => r.event_value,
  );

const del = (sensor: number, token: string, json?: Record<string, unknown>) =>
  t.request('DELETE', `/api/v3_0/sensors/${sensor}/data`, { token, ...(json && { json }) });

describe('DELETE /api/v3_0/sensors/<id>/data', () => {
  it('without a body deletes all the sensor’s data', async () => {
    const { sensor } = await sensorWithData();
    const res = await del(sensor, adminToken);
    expect(res.status).toBe(204);
    expect(await left(sensor)).toEqual([]);
  });

  it('deletes one source’s events that start at or after start and end at or before until', async () => {
    const { sensor, source } = await sensorWithData();
    // 00:30 to 01:15: the events starting 00:30, 00:45 and 01:00 (ending 01:15).
    const res = await del(sensor, adminToken, { source, start: '2015-01-01T00:30:00Z', until: '2015-01-01T01:15:00Z' });
    expect(res.status).toBe(204);
    expect(await left(sensor)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 15, 16, 17]);
  });

  it('refuses bad windows and unknown sources with 422, deleting nothing', async () => {
    const { sensor } = await sensorWithData();
    const before = await left(sensor);
    const backwards = await del(sensor, adminToken, { start: '2015-01-01T01:00:00Z', until: '2015-01-01T00:00:00Z' });
    expect(backwards.body).toEqual(unprocessable('json', { until: ["'until' must not be before 'start'."] }));
    const short = await del(sensor, adminToken, { start: '2015-01-01T01:00:00Z', until: '2015-01-01T01:10:00Z' });
    expect(short.body).toEqual(
      unprocessable('json', {
        until: ["For a sensor with resolution 0:15:00, 'until' must be at least one resolution step (0:15:00) after 'start'."],
      }),
    );
    const unknown = await del(sensor, adminToken, { source: 999_999 });
    expect(unknown.body).toEqual(unprocessable('json', { source: ['No data source found with id 999999.'] }));
    const naive = await del(sensor, adminToken, { start: '2015-01-01T01:00:00' });
    expect(naive.status).toBe(422);
    expect(await left(sensor)).toEqual(before);
  });

  it('is refused (403) to another account and to a member without delete rights, deleting nothing', async () => {
    const { sensor } = await sensorWithData();
    const before = await left(sensor);
    expect((await del(sensor, otherAdminToken)).status).toBe(403);
    expect((await del(sensor, memberToken)).status).toBe(403);
    expect(await left(sensor)).toEqual(before);
  });
});
