import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { startMosquitto, type Mosquitto } from '../helpers/mosquitto.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Measurements in over MQTT, against the embedded broker and Debian's Mosquitto: readings
 * become the time-weighted mean of each 15-minute interval, stored when it closes as the device's
 * belief; nothing acknowledged is lost when the broker restarts; a repeated message stores once;
 * a malformed one is counted, not stored.
 */
const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
const QUARTER = 900_000;
/** A meter's readings in W: any numbers will do, as long as the test knows them. */
const watts = (k: number) => Math.round(1000 + 500 * Math.sin(k / 37) + (k % 7) * 13);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

let t: TestServer | undefined;
let broker: Mosquitto | undefined;

afterEach(async () => {
  await t?.close();
  await broker?.stop();
  t = broker = undefined;
});

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error('timed out');
}

/** A sensor in kW of a new account's battery, and a token of its user. */
async function arrange(server: TestServer) {
  const f = factories(server.db);
  const account = await f.account();
  const { token } = await f.user({ accountId: account.id });
  const asset = await f.asset({ accountId: account.id });
  const sensor = await f.sensor({ assetId: asset.id, unit: 'kW', resolutionMinutes: 15 });
  return { token, sensorId: sensor.id, assetId: asset.id };
}

async function link(server: TestServer, token: string, sensorId: number, body: Record<string, unknown>) {
  const created = await server.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, {
    token,
    json: { direction: 'in', name: 'grid meter', unit: 'W', ...body },
  });
  expect(created.status).toBe(201);
  return created.body as { id: number; username: string; password: string };
}

async function storedBeliefs(server: TestServer, sensorId: number) {
  return server
    .db('timed_belief as b')
    .join('data_source as s', 's.id', 'b.source_id')
    .where('b.sensor_id', sensorId)
    .orderBy('b.event_start')
    .select('b.event_start', 'b.belief_time', 'b.event_value', 's.type', 's.name');
}

describe('MQTT measurements in', () => {
  it('stores the 15-minute means of a meter publishing every 2 s for 30 simulated minutes (embedded broker)', async () => {
    const clock = new SimulatedClock(T0);
    t = await startTestServer({ FLEXSITE_MQTT: 'embedded', FLEXSITE_MQTT_HOST: '127.0.0.1', FLEXSITE_MQTT_PORT: '0' }, undefined, {
      clock,
    });
    const { token, sensorId } = await arrange(t);
    // Shelly Gen1 style: a plain number of watts on its own topic.
    const meter = await link(t, token, sensorId, { topic: 'shellies/shellyem-1/emeter/0/power' });
    const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.mqtt!.brokerPort}`, {
      username: meter.username,
      password: meter.password,
    });
    for (const k of range(0, 900)) {
      await clock.advanceTo(T0 + 2000 * k);
      await device.publishAsync('shellies/shellyem-1/emeter/0/power', String(watts(k)), { qos: 1 });
      await until(async () => (await t!.db('mqtt_reading').where({ link_id: meter.id, time_ms: T0 + 2000 * k })).length === 1);
    }
    await device.endAsync();
    await clock.advanceTo(T0 + 2 * QUARTER + 250);
    const beliefs = await storedBeliefs(t, sensorId);
    expect(beliefs.map((b) => [Number(b.event_start), Number(b.belief_time), b.type, b.name])).toEqual([
      [T0, T0 + QUARTER, 'device', 'grid meter'],
      [T0 + QUARTER, T0 + 2 * QUARTER, 'device', 'grid meter'],
    ]);
    // Each reading holds for the 2 s until the next: the mean of an interval is that of its 450 readings.
    expect(beliefs[0].event_value).toBeCloseTo(mean(range(0, 450).map(watts)) / 1000, 9);
    expect(beliefs[1].event_value).toBeCloseTo(mean(range(450, 900).map(watts)) / 1000, 9);
    const status = (await t.request('GET', `/api/v3_0/mqtt-links/${meter.id}`, { token })).body.status;
    expect(status).toMatchObject({
      messages: 900,
      malformed: 0,
      last_value: watts(899) / 1000,
      last_message_at: new Date(T0 + 1798_000).toISOString(),
    });
    // 900 round trips through the broker and 7,200 ticks of the simulated clock take a while on a busy machine.
  }, 180_000);

  it('counts a malformed payload and stores nothing of it', async () => {
    const clock = new SimulatedClock(T0);
    t = await startTestServer({ FLEXSITE_MQTT: 'embedded', FLEXSITE_MQTT_HOST: '127.0.0.1', FLEXSITE_MQTT_PORT: '0' }, undefined, {
      clock,
    });
    const { token, sensorId, assetId } = await arrange(t);
    const meter = await link(t, token, sensorId, { topic: 'tele/tasmota-1/SENSOR', value_path: 'ENERGY.Power' });
    const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.mqtt!.brokerPort}`, {
      username: meter.username,
      password: meter.password,
    });
    // Sent a minute in: the data health's "last" is when the bridge got them, not the link's start.
    await clock.advanceTo(T0 + 60_000);
    const sentFromMs = clock.now();
    for (const payload of ['not json', '{"ENERGY":{"Power":"lots"}}', '{"ENERGY":{}}'])
      await device.publishAsync('tele/tasmota-1/SENSOR', payload, { qos: 1 });
    await device.endAsync();
    await until(async () => {
      await clock.advance(250);
      return (await t!.db('mqtt_link').where({ id: meter.id }).first()).malformed_count === 3;
    });
    const status = (await t.request('GET', `/api/v3_0/mqtt-links/${meter.id}`, { token })).body.status;
    expect(status).toMatchObject({
      messages: 3,
      malformed: 3,
      last_value: null,
      last_problem: 'tele/tasmota-1/SENSOR: no number at ENERGY.Power',
    });
    // The sensor's data health on the Site now page says so too, with when the last one came.
    const health = (await t.request('GET', `/api/v3_0/assets/${assetId}/now`, { token })).body.sensors[0];
    expect(health).toMatchObject({ id: sensorId, latest: null, malformed_messages: { count: 3, last_at: expect.any(String) } });
    const lastAtMs = Date.parse(health.malformed_messages.last_at);
    expect(lastAtMs).toBeGreaterThanOrEqual(sentFromMs);
    expect(lastAtMs).toBeLessThanOrEqual(clock.now());
    await clock.advance(QUARTER);
    expect(await t.db('mqtt_reading').where({ link_id: meter.id })).toEqual([]);
    expect(await storedBeliefs(t, sensorId)).toEqual([]);
  });

  it('loses no acknowledged reading when Mosquitto restarts mid-run, and stores a repeated one once', async () => {
    broker = await startMosquitto();
    const clock = new SimulatedClock(T0);
    t = await startTestServer({ FLEXSITE_MQTT_URL: broker.url, FLEXSITE_MQTT_CLIENT_ID: 'flexsite-test' }, undefined, { clock });
    await t.server.mqtt!.ready;
    const { token, sensorId } = await arrange(t);
    // The device stamps its readings (zigbee2mqtt and Tasmota can): a delivery delayed by the restart keeps its time.
    await link(t, token, sensorId, { topic: 'zigbee2mqtt/plug-3', value_path: 'power', time_path: 'ts' });
    const device = await mqtt.connectAsync(broker.url, { clientId: 'plug-3', clean: false, reconnectPeriod: 100 });
    const send = (k: number) =>
      device.publishAsync('zigbee2mqtt/plug-3', JSON.stringify({ ts: (T0 + 2000 * k) / 1000, power: watts(k) }), { qos: 1 });
    for (const k of range(0, 200)) await send(k);
    await broker.stop();
    const duringOutage = range(200, 300).map(send);
    await new Promise((r) => setTimeout(r, 500));
    await broker.start();
    // Every publish below resolves only once the broker has acknowledged it.
    await Promise.all([...duringOutage, ...range(300, 451).map(send), send(5)]);
    await device.endAsync();
    await until(async () => (await t!.db('mqtt_reading').count({ n: '*' }))[0].n === 451);
    await clock.advanceTo(T0 + QUARTER + 250);
    const beliefs = await storedBeliefs(t, sensorId);
    expect(beliefs.map((b) => Number(b.event_start))).toEqual([T0]);
    expect(beliefs[0].event_value).toBeCloseTo(mean(range(0, 450).map(watts)) / 1000, 9);
  });
});
