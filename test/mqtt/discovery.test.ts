import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startMosquitto, type Mosquitto } from '../helpers/mosquitto.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Home Assistant's MQTT discovery, read as HA reads it from the site's Mosquitto: a retained
 * config per entity under homeassistant/sensor/<node>/<object>/config with the keys HA documents
 * (name, unique_id, state_topic, unit_of_measurement, device_class, device), whose state topic
 * carries the value; an empty config once the link is removed.
 */
let broker: Mosquitto;
let t: TestServer;
let token: string;
let sensorId: number;
let ha: mqtt.MqttClient;
const seen = new Map<string, string>();

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
}

beforeAll(async () => {
  broker = await startMosquitto();
  t = await startTestServer({ FLEXSITE_MQTT_URL: broker.url, FLEXSITE_MQTT_CLIENT_ID: 'flexsite-ha-test' });
  await t.server.mqtt!.ready;
  const f = factories(t.db);
  const account = await f.account();
  token = (await f.user({ accountId: account.id })).token;
  sensorId = (await f.sensor({ assetId: (await f.asset({ accountId: account.id })).id, unit: 'kW', name: 'grid connection' })).id;
  ha = await mqtt.connectAsync(broker.url, { clientId: 'homeassistant' });
  ha.on('message', (topic, payload) => seen.set(topic, payload.toString()));
  await ha.subscribeAsync(['homeassistant/#', 'flexsite/#'], { qos: 1 });
});

afterAll(async () => {
  await ha.endAsync();
  await t.close();
  await broker.stop();
});

describe('Home Assistant discovery', () => {
  it("shows an in-link's measurement as a power sensor of the sensor's device, with its latest value", async () => {
    const link = (
      await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, {
        token,
        json: { direction: 'in', name: 'Grid meter', topic: 'shellies/em-9/emeter/0/power', unit: 'W' },
      })
    ).body;
    const topic = `homeassistant/sensor/flexsite_link_${link.id}/measurement/config`;
    await until(() => seen.has(topic));
    const config = JSON.parse(seen.get(topic)!);
    expect(config).toMatchObject({
      name: 'Grid meter measurement',
      unique_id: `flexsite_link_${link.id}_measurement`,
      state_topic: `flexsite/${link.username}/value`,
      unit_of_measurement: 'kW',
      device_class: 'power',
      state_class: 'measurement',
      device: { identifiers: [`flexsite_sensor_${sensorId}`], name: 'grid connection' },
    });
    const meter = await mqtt.connectAsync(broker.url, { clientId: 'em-9' });
    await meter.publishAsync('shellies/em-9/emeter/0/power', '1234', { qos: 1 });
    await meter.endAsync();
    await until(() => seen.get(config.state_topic) === '1.234');
  });

  it("shows an out-link's planned setpoint and plan status", async () => {
    const link = (
      await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, {
        token,
        json: { direction: 'out', name: 'Inverter', unit: 'W' },
      })
    ).body;
    const node = `homeassistant/sensor/flexsite_link_${link.id}`;
    await until(() => seen.has(`${node}/setpoint/config`) && seen.has(`${node}/status/config`));
    expect(JSON.parse(seen.get(`${node}/setpoint/config`)!)).toMatchObject({
      unique_id: `flexsite_link_${link.id}_setpoint`,
      state_topic: `flexsite/${link.username}/setpoint`,
      unit_of_measurement: 'W',
      device_class: 'power',
    });
    const status = JSON.parse(seen.get(`${node}/status/config`)!);
    expect(status.state_topic).toBe(`flexsite/${link.username}/status`);
    expect(status.device_class).toBeUndefined();
    await until(() => seen.get(status.state_topic) === 'no plan');
  });

  it('removes the entities when the link is removed', async () => {
    const link = (
      await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, {
        token,
        json: { direction: 'in', name: 'Gone', topic: 'gone/p', unit: 'kW' },
      })
    ).body;
    const topic = `homeassistant/sensor/flexsite_link_${link.id}/measurement/config`;
    await until(() => Boolean(seen.get(topic)));
    expect((await t.request('DELETE', `/api/v3_0/mqtt-links/${link.id}`, { token })).status).toBe(204);
    await until(() => seen.get(topic) === '');
  });
});
