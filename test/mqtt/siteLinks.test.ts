import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * A site's device links in one answer (`GET /assets/<id>/mqtt-links`), as the device and Site now
 * pages read them: the links on the sensors of the asset and the assets below it, with what each
 * device last sent and the broker devices reach; refused to another account; "off" when MQTT is.
 */
let t: TestServer;
let token: string;
let otherToken: string;
let site: number;
let device: number;
let sensorId: number;
let otherSite: number;

beforeAll(async () => {
  t = await startTestServer({ FLEXSITE_MQTT: 'embedded', FLEXSITE_MQTT_HOST: '127.0.0.1', FLEXSITE_MQTT_PORT: '0' });
  const f = factories(t.db);
  const account = await f.account();
  const other = await f.account();
  token = (await f.user({ accountId: account.id })).token;
  otherToken = (await f.user({ accountId: other.id })).token;
  site = (await f.asset({ accountId: account.id, name: 'home' })).id;
  device = (await f.asset({ accountId: account.id, name: 'heat pump' })).id;
  await t.db('generic_asset').where({ id: device }).update({ parent_asset_id: site });
  sensorId = (await f.sensor({ assetId: device, unit: 'kW' })).id;
  otherSite = (await f.asset({ accountId: other.id })).id;
});

afterAll(() => t.close());

const meter = (topic: string) => ({ direction: 'in', name: 'meter', topic, value_path: 'apower', unit: 'W' });

describe('a site’s MQTT links', () => {
  it('lists the links below a site with the broker’s port and what the device last sent', async () => {
    const link = await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token, json: meter('site/hp/power') });
    expect(link.status).toBe(201);
    const foreignSensor = (await factories(t.db).sensor({ assetId: otherSite, unit: 'kW' })).id;
    const foreign = await t.request('POST', `/api/v3_0/sensors/${foreignSensor}/mqtt-links`, { token: otherToken, json: meter('x/power') });
    expect(foreign.status).toBe(201);

    const device1 = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.mqtt!.brokerPort}`, {
      username: link.body.username,
      password: link.body.password,
      reconnectPeriod: 0,
    });
    await device1.publishAsync('site/hp/power', JSON.stringify({ apower: 1250 }), { qos: 1 });
    await device1.endAsync();

    // 1250 W in the kW sensor's unit.
    let answer = await t.request('GET', `/api/v3_0/assets/${site}/mqtt-links`, { token });
    for (let i = 0; i < 200 && answer.body.links[0]?.status.last_value === null; i++) {
      await new Promise((r) => setTimeout(r, 25));
      answer = await t.request('GET', `/api/v3_0/assets/${site}/mqtt-links`, { token });
    }
    expect(answer.status).toBe(200);
    expect(answer.body.broker).toEqual({ mode: 'embedded', port: t.server.mqtt!.brokerPort, url: null });
    expect(answer.body.links).toHaveLength(1);
    expect(answer.body.links[0]).toMatchObject({ id: link.body.id, sensor_id: sensorId, topic: 'site/hp/power', unit: 'W' });
    expect(answer.body.links[0].password).toBeUndefined();
    expect(answer.body.links[0].status).toMatchObject({ last_value: 1.25, messages: 1, malformed: 0 });
    expect(Date.parse(answer.body.links[0].status.last_message_at)).toBeGreaterThan(Date.now() - 60_000);

    // The device's own page lists the same link; a site with no links below it none.
    const own = await t.request('GET', `/api/v3_0/assets/${device}/mqtt-links`, { token });
    expect(own.body.links.map((l: { id: number }) => l.id)).toEqual([link.body.id]);
    const others = await t.request('GET', `/api/v3_0/assets/${otherSite}/mqtt-links`, { token: otherToken });
    expect(others.body.links.map((l: { id: number }) => l.id)).toEqual([foreign.body.id]);
  });

  it('refuses another account’s site and answers 404 for an unknown one', async () => {
    const refused = await t.request('GET', `/api/v3_0/assets/${site}/mqtt-links`, { token: otherToken });
    expect(refused.status).toBe(403);
    expect(refused.body.links).toBeUndefined();
    expect((await t.request('GET', `/api/v3_0/assets/999999/mqtt-links`, { token })).status).toBe(404);
    expect((await t.request('GET', `/api/v3_0/assets/${site}/mqtt-links`)).status).toBe(401);
  });

  it('says MQTT is off when it is, and still lists the links made meanwhile', async () => {
    const off = await startTestServer();
    try {
      const f = factories(off.db);
      const account = await f.account();
      const offToken = (await f.user({ accountId: account.id })).token;
      const asset = (await f.asset({ accountId: account.id })).id;
      const sensor = (await f.sensor({ assetId: asset, unit: 'W' })).id;
      const made = await off.request('POST', `/api/v3_0/sensors/${sensor}/mqtt-links`, { token: offToken, json: meter('a/b') });
      expect(made.status).toBe(201);
      const answer = await off.request('GET', `/api/v3_0/assets/${asset}/mqtt-links`, { token: offToken });
      expect(answer.status).toBe(200);
      expect(answer.body.broker).toEqual({ mode: 'off', port: null, url: null });
      expect(answer.body.links.map((l: { id: number }) => l.id)).toEqual([made.body.id]);
    } finally {
      await off.close();
    }
  });
});
