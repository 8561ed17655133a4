/** FlexMeasures 1.0's `source-account` and `source-type` filters on GET /api/v3_0/sensors/<id>/data. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let sensorId: number;
let ownAccount: number;
let adminAccount: number;
let member: string;
let admin: string;
let stranger: string;

const START = '2026-03-01T00:00:00Z';

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  ownAccount = (await f.account()).id;
  adminAccount = (await f.account()).id;
  member = (await f.user({ accountId: ownAccount })).token;
  admin = (await f.user({ accountId: adminAccount, roles: ['admin'] })).token;
  stranger = (await f.user({ accountId: (await f.account()).id })).token;
  sensorId = (await f.sensor({ assetId: (await f.asset({ accountId: ownAccount })).id })).id;
  // A demo script's values, known before anyone posted.
  await f.beliefs(sensorId, Date.parse(START), 15 * 60_000, [7, 7, 7, 7], Date.parse('2026-02-01T00:00:00Z'));
  // Users' values: sources of type "user" with their user's account.
  const post = async (token: string, values: number[]) =>
    expect(
      (
        await t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, {
          token,
          json: { values, start: START, duration: `PT${15 * values.length}M`, unit: 'MW' },
        })
      ).status,
    ).toBe(200);
  await post(member, [1, 2]);
  await post(admin, [5]);
});
afterAll(() => t.close());

const get = (query: Record<string, string | number>, token = member) =>
  t.request('GET', `/api/v3_0/sensors/${sensorId}/data`, { token, query: { start: START, duration: 'PT1H', unit: 'MW', ...query } });

describe('GET /sensors/<id>/data: source-account and source-type (1.0)', () => {
  it('source-account keeps the data of sources of that account', async () => {
    expect((await get({ 'source-account': ownAccount })).body.values).toEqual([1, 2, null, null]);
    expect((await get({ 'source-account': adminAccount })).body.values).toEqual([5, null, null, null]);
  });

  it('source-type keeps the data of sources of that type; both filters combine; snake case works too', async () => {
    expect((await get({ 'source-type': 'demo script' })).body.values).toEqual([7, 7, 7, 7]);
    expect((await get({ source_type: 'user', source_account: ownAccount })).body.values).toEqual([1, 2, null, null]);
    expect((await get({ 'source-type': 'demo script', 'source-account': ownAccount })).body.values).toEqual([null, null, null, null]);
  });

  it('a source type without data on the sensor is a 422; an unknown account a 404', async () => {
    expect(await get({ 'source-type': 'forecaster' })).toMatchObject({
      status: 422,
      body: unprocessable('query', { source_type: ["No data source with source-type 'forecaster' has recorded any data on this sensor."] }),
    });
    expect(await get({ 'source-account': 999_999 })).toMatchObject({ status: 404, body: { message: 'Account 999999 not found' } });
    expect((await get({ 'source-account': 'x' })).status).toBe(422);
  });

  it('the source-type 422 comes first, whatever else the request gets wrong, and for a window with or without values', async () => {
    const noForecaster = unprocessable('query', {
      source_type: ["No data source with source-type 'forecaster' has recorded any data on this sensor."],
    });
    // A unit the sensor cannot convert to; more values than one answer holds; a window with no data.
    const others: Record<string, string>[] = [
      { unit: 'm' },
      { duration: 'P10000D', resolution: 'PT1M' },
      { start: '2026-05-01T00:00:00Z' },
    ];
    for (const query of others) {
      expect(await get({ 'source-type': 'forecaster', ...query })).toMatchObject({ status: 422, body: noForecaster });
    }
    // A type with data elsewhere on the sensor: an empty window is no problem.
    expect(await get({ 'source-type': 'user', start: '2026-05-01T00:00:00Z' })).toMatchObject({
      status: 200,
      body: { values: [null, null, null, null] },
    });
    expect((await get({ 'source-type': 'user', unit: 'm' })).body).toEqual(
      unprocessable('query', { _schema: ['Required unit for this sensor is MW, got incompatible unit: m'] }),
    );
  });

  it('another account stays refused whatever the filters', async () => {
    expect((await get({ 'source-account': ownAccount }, stranger)).status).toBe(403);
  });
});
