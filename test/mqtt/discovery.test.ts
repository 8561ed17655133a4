import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { startMosquitto, type Mosquitto } from '../helpers/mosquitto.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Home Assistant's MQTT discovery, read as HA reads it from the site's Mosquitto: a retained
 * config per entity under homeassistant/sensor/<node>/<object>/config with the keys HA documents
 * (name, unique_id, state_topic, unit_of_measurement, device_class, device), whose state topic
 * carries the value; an empty config once the link is removed. The server runs on a simulated
 * clock (Monday 5 January 2026, noon UTC), moved on while the test waits for what HA sees.
 */
const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
let broker: Mosquitto;
let t: TestServer;
let clock: SimulatedClock;
let token: string;
let accountId: number;
let sensorId: number;
let ha: mqtt.MqttClient;
const seen = new Map<string, string>();

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (check()) return;
    await clock.advance(250);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
}

beforeAll(async () => {
  broker = await startMosquitto();
  clock = new SimulatedClock(T0);
  t = await startTestServer({ FLEXSITE_MQTT_URL: broker.url, FLEXSITE_MQTT_CLIENT_ID: 'flexsite-ha-test' }, undefined, { clock });
  await t.server.mqtt!.ready;
  const f = factories(t.db);
  const account = await f.account();
  accountId = account.id;
  token = (await f.user({ accountId: account.id, roles: ['account-admin'] })).token;
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

  it("shows a battery's SoC plan, next target and scheduling job under its site, with the site's money today", async () => {
    const f = factories(t.db);
    const home = await f.asset({ accountId, type: 'building', name: 'Home' });
    const batteryAsset = await f.asset({ accountId, type: 'battery', name: 'Battery' });
    await t.db('generic_asset').where({ id: batteryAsset.id }).update({ parent_asset_id: home.id });
    const battery = (await f.sensor({ assetId: batteryAsset.id, unit: 'MW', resolutionMinutes: 60, name: 'battery power' })).id;
    const market = await f.asset({ accountId: null, type: 'transmission zone' });
    const prices = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
    await f.beliefs(prices, T0, H, [50, 100], T0 - 24 * H);
    // Empty, 1 MWh, 1 MW; 0.25 MWh wanted at 14:00. Buying at 50 to sell at 100 pays: it charges
    // 1 MWh from 12:00 (costs 50 EUR) and sells 0.75 MWh from 13:00 (earns 75 EUR), where idle costs nothing.
    const trigger = await t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
      token,
      json: {
        start: new Date(T0).toISOString(),
        duration: 'PT2H',
        // Made at noon (the clock has moved on a little by now): only a plan made by a step's start is in force at it.
        prior: new Date(T0).toISOString(),
        'flex-model': {
          'soc-at-start': 0,
          'soc-unit': 'MWh',
          'soc-min': 0,
          'soc-max': 1,
          'soc-targets': [{ value: 0.25, datetime: new Date(T0 + 2 * H).toISOString() }],
          'roundtrip-efficiency': 1,
          'storage-efficiency': 1,
          'power-capacity': '1 MW',
        },
        'flex-context': { 'consumption-price-sensor': prices },
      },
    });
    expect(trigger.status).toBe(200);
    expect((await waitForSchedule(t, token, battery, trigger.body.schedule)).status).toBe(200);
    const link = (
      await t.request('POST', `/api/v3_0/sensors/${battery}/mqtt-links`, { token, json: { direction: 'out', name: 'Battery', unit: 'kW' } })
    ).body;
    const node = `homeassistant/sensor/flexsite_link_${link.id}`;
    const siteNode = `homeassistant/sensor/flexsite_site_${home.id}`;
    const state = (name: string) => seen.get(`flexsite/${link.username}/${name}`);
    const money = (name: string) => seen.get(`flexsite/site-${home.id}/${name}`);
    await until(
      () =>
        state('job_status') === 'finished' &&
        money('planned_cost_today') !== undefined &&
        seen.has(`${siteNode}/planned_cost_today/config`),
    );
    const config = (topic: string) => JSON.parse(seen.get(topic)!);

    // The device: its SoC at the end of this hour, the next target, the job that made the plan.
    const device = { identifiers: [`flexsite_sensor_${battery}`], name: 'battery power', via_device: `flexsite_site_${home.id}` };
    expect(config(`${node}/next_soc/config`)).toMatchObject({
      unique_id: `flexsite_link_${link.id}_next_soc`,
      state_topic: `flexsite/${link.username}/next_soc`,
      unit_of_measurement: 'kWh',
      device_class: 'energy_storage',
      device,
    });
    expect(config(`${node}/next_target/config`)).toMatchObject({ unit_of_measurement: 'kWh', device_class: 'energy_storage', device });
    expect(config(`${node}/next_target_time/config`)).toMatchObject({ device_class: 'timestamp', device });
    expect(config(`${node}/job_status/config`)).toMatchObject({ state_topic: `flexsite/${link.username}/job_status`, device });
    expect(state('next_soc')).toBe('1000');
    expect(state('next_target')).toBe('250');
    expect(state('next_target_time')).toBe(new Date(T0 + 2 * H).toISOString());
    expect(state('status')).toBe('ok');

    // The site: a device of its own, with what today's plans cost and save in the prices' currency.
    for (const name of ['planned_cost_today', 'planned_savings_today', 'realised_savings_today'])
      expect(config(`${siteNode}/${name}/config`)).toMatchObject({
        unique_id: `flexsite_site_${home.id}_${name}`,
        state_topic: `flexsite/site-${home.id}/${name}`,
        unit_of_measurement: 'EUR',
        device_class: 'monetary',
        state_class: 'total',
        device: { identifiers: [`flexsite_site_${home.id}`], name: 'Home' },
      });
    expect(Number(money('planned_cost_today'))).toBeCloseTo(50 - 75, 6);
    // Without a plan, a device with a target charges it at once: 0.25 MWh at 50 EUR/MWh.
    expect(Number(money('planned_savings_today'))).toBeCloseTo(0.25 * 50 - (50 - 75), 6);
    // Nothing measured yet: HA shows it as unknown.
    expect(money('realised_savings_today')).toBe('None');

    // An hour on, the next SoC is the plan's at 14:00.
    await clock.advanceTo(T0 + H + 1);
    await until(() => state('next_soc') === '250');

    // The link removed, HA drops its entities and, as it was the site's only link, the site's.
    expect((await t.request('DELETE', `/api/v3_0/mqtt-links/${link.id}`, { token })).status).toBe(204);
    await until(() => seen.get(`${node}/next_soc/config`) === '' && seen.get(`${siteNode}/planned_cost_today/config`) === '');
    for (const name of ['setpoint', 'status', 'next_target', 'next_target_time', 'job_status'])
      expect(seen.get(`${node}/${name}/config`)).toBe('');
    for (const name of ['planned_savings_today', 'realised_savings_today']) expect(seen.get(`${siteNode}/${name}/config`)).toBe('');
  }, 120_000);

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
