import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { getOrCreateSource } from '../../server/src/store/write/sources.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
});
afterAll(() => t.close());

const TYPES = ['user', 'scheduler', 'forecaster', 'reporter', 'demo script', 'CLI script'];

describe('GET /api/v3_0/sources', () => {
  it('lists the sources a caller can see, and those with data on a sensor', async () => {
    const mine = await f.account();
    const theirs = await f.account();
    const me = await f.user({ accountId: mine.id });
    const them = await f.user({ accountId: theirs.id });
    const admin = await f.user({ accountId: theirs.id, roles: ['admin'] });
    const sensor = await f.sensor({ assetId: (await f.asset({ accountId: mine.id })).id, unit: 'kW' });
    const body = { values: [1], start: '2021-06-07T00:00:00Z', duration: 'PT15M', unit: 'kW' };
    expect((await t.request('POST', `/api/v3_0/sensors/${sensor.id}/data`, { token: me.token, json: body })).status).toBe(200);
    const scheduler = await getOrCreateSource(t.db, { name: 'Flexsite', type: 'scheduler', model: 'StorageScheduler', version: '3' });
    const theirSource = await getOrCreateSource(t.db, {
      name: them.user.username,
      type: 'user',
      userId: them.user.id,
      accountId: theirs.id,
    });

    const listed = await t.request('GET', '/api/v3_0/sources', { token: me.token });
    expect(listed.status).toBe(200);
    const myUserSource = {
      id: expect.any(Number),
      name: me.user.username,
      type: 'user',
      model: null,
      version: null,
      account_id: mine.id,
      user_id: me.user.id,
    };
    expect(listed.body.types).toEqual(TYPES);
    expect(listed.body.sources).toContainEqual(myUserSource);
    expect(listed.body.sources).toContainEqual({
      id: scheduler.id,
      name: 'Flexsite',
      type: 'scheduler',
      model: 'StorageScheduler',
      version: '3',
      account_id: null,
      user_id: null,
    });
    expect(listed.body.sources.map((s: { id: number }) => s.id)).not.toContain(theirSource.id);

    const all = await t.request('GET', '/api/v3_0/sources', { token: admin.token });
    expect(all.body.sources.map((s: { id: number }) => s.id)).toEqual(
      expect.arrayContaining([scheduler.id, theirSource.id, listed.body.sources[0].id]),
    );

    const onSensor = await t.request('GET', '/api/v3_0/sources', { token: me.token, query: { sensor_id: sensor.id } });
    expect(onSensor.body.sources).toEqual([myUserSource]);
    // The ids work as the `source` filter of a download.
    const data = await t.request('GET', `/api/v3_0/sensors/${sensor.id}/data`, {
      token: me.token,
      query: { start: '2021-06-07T00:00:00Z', duration: 'PT15M', unit: 'kW', source: onSensor.body.sources[0].id },
    });
    expect(data.body.values).toEqual([1]);

    expect((await t.request('GET', '/api/v3_0/sources', { token: them.token, query: { sensor_id: sensor.id } })).status).toBe(403);
    const unknown = await t.request('GET', '/api/v3_0/sources', { token: me.token, query: { sensor_id: 999999 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toEqual({ query: { sensor_id: ['No sensor found with id 999999.'] } });
    expect((await t.request('GET', '/api/v3_0/sources')).status).toBe(401);
  });

  it('gives a consultant the sources of client accounts', async () => {
    const consultancy = await f.account();
    const client = await f.account({ consultancyAccountId: consultancy.id });
    const consultant = await f.user({ accountId: consultancy.id, roles: ['consultant'] });
    const clientUser = await f.user({ accountId: client.id });
    const source = await getOrCreateSource(t.db, {
      name: clientUser.user.username,
      type: 'user',
      userId: clientUser.user.id,
      accountId: client.id,
    });
    const listed = await t.request('GET', '/api/v3_0/sources', { token: consultant.token });
    expect(listed.body.sources.map((s: { id: number }) => s.id)).toContain(source.id);
  });
});
