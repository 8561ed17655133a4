import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Device links over the API: made through a command with its audit entry, refused for a sensor of
 * another account and for a topic that would reach another account's link; on the embedded
 * broker, each link's credentials open only its own topics.
 */
let t: TestServer;
let token: string;
let otherToken: string;
let sensorId: number;
let otherSensorId: number;
let brokerUrl: string;

beforeAll(async () => {
  t = await startTestServer({ FLEXSITE_MQTT: 'embedded', FLEXSITE_MQTT_HOST: '127.0.0.1', FLEXSITE_MQTT_PORT: '0' });
  brokerUrl = `mqtt://127.0.0.1:${t.server.mqtt!.brokerPort}`;
  const f = factories(t.db);
  const account = await f.account();
  const other = await f.account();
  token = (await f.user({ accountId: account.id })).token;
  otherToken = (await f.user({ accountId: other.id })).token;
  sensorId = (await f.sensor({ assetId: (await f.asset({ accountId: account.id })).id, unit: 'kW' })).id;
  otherSensorId = (await f.sensor({ assetId: (await f.asset({ accountId: other.id })).id, unit: 'kW' })).id;
});

afterAll(() => t.close());

const meter = (topic: string) => ({ direction: 'in', name: 'meter', topic, value_path: 'apower', unit: 'W' });

/** Connects as a device; resolves with the client, or rejects with the broker's refusal. */
function connect(username: string, password: string): Promise<mqtt.MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(brokerUrl, { username, password, reconnectPeriod: 0, clientId: `test-${username}-${Math.random()}` });
    client.once('connect', () => resolve(client));
    client.once('error', (err) => {
      client.end(true);
      reject(err);
    });
  });
}

/** Waits until `check` holds: the bridge stores what the broker passes on in its own time. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
}

describe('MQTT links API', () => {
  it('creates a link, shows its password once, lists it and records the change', async () => {
    const created = await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, {
      token,
      json: meter('shellies/plug-1/status/switch:0'),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      sensor_id: sensorId,
      direction: 'in',
      topic: 'shellies/plug-1/status/switch:0',
      unit: 'W',
      scale: 1,
    });
    expect(created.body.username).toBe(`link-${created.body.id}`);
    expect(created.body.password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await t.db('mqtt_link').where({ id: created.body.id }).first();
    expect(stored.password_hash).not.toContain(created.body.password);
    const listed = await t.request('GET', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token });
    expect(listed.status).toBe(200);
    const mine = listed.body.find((l: { id: number }) => l.id === created.body.id);
    expect(mine.password).toBeUndefined();
    expect(mine.status).toEqual({ last_message_at: null, last_value: null, messages: 0, malformed: 0, late: 0, last_problem: null });
    const audit = await t.db('audit_log').where('event', 'like', `Created MQTT link 'meter'%`).first();
    expect(audit.event).toContain(`for sensor ${sensorId}`);
  });

  it('answers 422 with field messages for a bad topic, path or unit, and stores nothing', async () => {
    const before = (await t.db('mqtt_link').count({ n: '*' }))[0].n;
    const bad = await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, {
      token,
      json: { ...meter('meters/#/power'), value_path: 'a..b', unit: 'bananas' },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.message.json).sort()).toEqual(['topic', 'unit', 'value_path']);
    const unconvertible = await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, {
      token,
      json: { ...meter('m/x'), unit: '°C' },
    });
    expect(unconvertible.status).toBe(422);
    expect(unconvertible.body.message.json.unit[0]).toContain("sensor's unit 'kW'");
    const reserved = await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token, json: meter('+/link-1/setpoint') });
    expect(reserved.status).toBe(422);
    expect(reserved.body.message.json.topic[0]).toContain('flexsite/#');
    expect((await t.db('mqtt_link').count({ n: '*' }))[0].n).toBe(before);
  });

  it("refuses a sensor of another account, another account's link, and a topic overlapping another account's", async () => {
    const foreign = await t.request('POST', `/api/v3_0/sensors/${otherSensorId}/mqtt-links`, { token, json: meter('x/y') });
    expect(foreign.status).toBe(403);
    const mine = await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token, json: meter('site/meter-7/power') });
    expect(mine.status).toBe(201);
    for (const topic of ['site/meter-7/power', 'site/+/power', 'site/#', '#']) {
      const overlap = await t.request('POST', `/api/v3_0/sensors/${otherSensorId}/mqtt-links`, { token: otherToken, json: meter(topic) });
      expect(overlap.status, topic).toBe(422);
    }
    expect(await t.db('mqtt_link').where({ sensor_id: otherSensorId })).toEqual([]);
    expect((await t.request('GET', `/api/v3_0/mqtt-links/${mine.body.id}`, { token: otherToken })).status).toBe(403);
    expect((await t.request('DELETE', `/api/v3_0/mqtt-links/${mine.body.id}`, { token: otherToken })).status).toBe(403);
    expect((await t.request('GET', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token: otherToken })).status).toBe(403);
    expect(await t.db('mqtt_link').where({ id: mine.body.id }).first()).toBeDefined();
  });

  it('admits a device with its own credentials only, on its own topics only', async () => {
    const a = (await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token, json: meter('acl/a/power') })).body;
    const b = (await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token, json: meter('acl/b/power') })).body;
    await expect(connect(a.username, 'wrong')).rejects.toThrow(/Bad username or password|Not authorized/i);
    await expect(connect(b.username, a.password)).rejects.toThrow(/Bad username or password|Not authorized/i);
    // B publishing on A's topic is dropped with B's connection; nothing reaches A's buffer.
    const deviceB = await connect(b.username, b.password);
    const closed = new Promise<void>((resolve) => deviceB.once('close', () => resolve()));
    deviceB.publish('acl/a/power', JSON.stringify({ apower: 5 }), { qos: 1 });
    await closed;
    deviceB.end(true);
    // Nor may an in-link's device subscribe to anything: the broker grants it nothing (SUBACK 0x80).
    const deviceA = await connect(a.username, a.password);
    await expect(deviceA.subscribeAsync('acl/#', { qos: 1 })).rejects.toThrow(/Subscribe error/);
    await deviceA.publishAsync('acl/a/power', JSON.stringify({ apower: 7 }), { qos: 1 });
    await deviceA.endAsync();
    await until(async () => (await t.db('mqtt_reading').where({ link_id: a.id })).length > 0);
    expect((await t.db('mqtt_reading').where({ link_id: a.id })).map((r) => r.value)).toEqual([0.007]);
    expect(await t.db('mqtt_reading').where({ link_id: b.id })).toEqual([]);
  });

  it('removes a link: gone from the store with its entry, its device no longer admitted', async () => {
    const link = (await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token, json: meter('gone/power') })).body;
    const removed = await t.request('DELETE', `/api/v3_0/mqtt-links/${link.id}`, { token });
    expect(removed.status).toBe(204);
    expect(await t.db('mqtt_link').where({ id: link.id }).first()).toBeUndefined();
    expect(await t.db('audit_log').where('event', 'like', `Deleted MQTT link 'meter' (in, gone/power)%`).first()).toBeDefined();
    await expect(connect(link.username, link.password)).rejects.toThrow(/Bad username or password|Not authorized/i);
    expect((await t.request('GET', `/api/v3_0/mqtt-links/${link.id}`, { token })).status).toBe(404);
  });
});
