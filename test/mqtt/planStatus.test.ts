import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * An out-link's status says why its device gets what it gets: a plan older than the link's limit
 * sends the link's safe setpoint with `stale plan`; a plan made by the fallback scheduler (the
 * problem was infeasible) is sent, but as `fallback`, never as a plain `ok`. The server runs on a
 * simulated clock, so the plan ages without the test waiting for it.
 */
const H = 3_600_000;
const START = Date.parse('2026-03-02T10:00:00Z');

let t: TestServer;
let clock: SimulatedClock;
let token: string;
let accountId: number;
let prices: number;
const devices: mqtt.MqttClient[] = [];

interface OutLink {
  id: number;
  topic: string;
  received: Map<string, string>;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('timed out');
}

/** A battery (MW, hourly) with an out-link made with `link`, and its device listening on the link's topics. */
async function batteryWithDevice(link: Record<string, unknown>): Promise<{ sensorId: number; link: OutLink }> {
  const f = factories(t.db);
  const asset = await f.asset({ accountId, type: 'battery' });
  const sensorId = (await f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 60 })).id;
  const created = await t.request('POST', `/api/v3_0/sensors/${sensorId}/mqtt-links`, {
    token,
    json: { direction: 'out', name: 'inverter', unit: 'kW', ...link },
  });
  expect(created.status).toBe(201);
  const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.mqtt!.brokerPort}`, {
    username: created.body.username,
    password: created.body.password,
  });
  devices.push(device);
  const received = new Map<string, string>();
  device.on('message', (topic, payload) => received.set(topic, payload.toString()));
  await device.subscribeAsync(`${created.body.topic}/#`, { qos: 1 });
  return { sensorId, link: { id: created.body.id, topic: created.body.topic, received } };
}

/** Plans the battery from START, as a client would, and waits for the plan. @returns the job's id. */
async function plan(sensorId: number, flexModel: Record<string, unknown>, duration: string): Promise<string> {
  const res = await t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, {
    token,
    json: {
      start: new Date(START).toISOString(),
      duration,
      'flex-model': { 'soc-at-start': 0, 'soc-unit': 'MWh', 'power-capacity': '1 MW', ...flexModel },
      'flex-context': { 'consumption-price-sensor': prices },
    },
  });
  expect(res.status).toBe(200);
  expect((await waitForSchedule(t, token, sensorId, res.body.schedule)).status).toBe(200);
  return res.body.schedule;
}

const sentTo = async (linkId: number) =>
  (await t.db('mqtt_setpoint').where({ link_id: linkId }).orderBy('id')).map((r) => ({
    sentAt: Number(r.sent_at),
    value: r.value,
    status: r.status,
    jobId: r.job_id,
  }));

beforeAll(async () => {
  clock = new SimulatedClock(START);
  t = await startTestServer({ FLEXSITE_MQTT: 'embedded', FLEXSITE_MQTT_HOST: '127.0.0.1', FLEXSITE_MQTT_PORT: '0' }, undefined, { clock });
  const f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  prices = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  await f.beliefs(prices, START, H, [50, 100], START - 24 * H);
});

afterAll(async () => {
  for (const device of devices) await device.endAsync();
  await t.close();
});

describe('MQTT plan status', () => {
  it("sends a fallback plan as 'fallback', not as 'ok'", async () => {
    const { sensorId, link } = await batteryWithDevice({});
    // 4 MWh in one hour at 1 MW cannot be reached: infeasible, so the fallback scheduler plans instead; it charges at full power.
    const jobId = await plan(
      sensorId,
      { 'soc-max': 5, 'soc-targets': [{ value: 4, datetime: new Date(START + H).toISOString() }] },
      'PT1H',
    );
    const fallbackJobId = (await t.server.services.jobs.get(jobId))!.fallbackJobId;
    expect(fallbackJobId).toEqual(expect.any(String));
    await clock.advance(250);
    await until(() => link.received.get(`${link.topic}/status`) === 'fallback');
    expect(link.received.get(`${link.topic}/setpoint`)).toBe('1000');
    expect(JSON.parse(link.received.get(`${link.topic}/plan`)!)).toEqual([{ start: new Date(START).toISOString(), value: 1000 }]);
    expect(await sentTo(link.id)).toEqual([{ sentAt: START, value: 1000, status: 'fallback', jobId: fallbackJobId }]);
    // Home Assistant's job status says so too.
    await until(() => link.received.get(`${link.topic}/job_status`) === 'fallback');
  });

  it("sends the link's safe setpoint once the plan is older than the link's limit, and says 'stale plan'", async () => {
    // The installer's safe setpoint: a 100 W trickle; a plan counts for five minutes.
    const { sensorId, link } = await batteryWithDevice({ safe_setpoint: 100, stale_after: 'PT5M' });
    const planMadeAt = clock.now();
    // Prices 50 then 100 EUR/MWh: charge 1 MW in the first hour, discharge in the second.
    const jobId = await plan(sensorId, { 'soc-min': 0, 'soc-max': 1, 'roundtrip-efficiency': 1, 'storage-efficiency': 1 }, 'PT2H');
    await clock.advance(250);
    await until(() => link.received.get(`${link.topic}/status`) === 'ok');
    expect(link.received.get(`${link.topic}/setpoint`)).toBe('1000');
    // Six minutes on, the first hour's step still has a planned value, but the plan is too old to follow.
    await clock.advanceTo(planMadeAt + 6 * 60_000);
    await until(() => link.received.get(`${link.topic}/status`) === 'stale plan');
    expect(link.received.get(`${link.topic}/setpoint`)).toBe('100');
    expect(link.received.get(`${link.topic}/plan`)).toBe('[]');
    // Nor does Home Assistant show a SoC plan nobody follows: unknown.
    await until(() => link.received.get(`${link.topic}/next_soc`) === 'None');
    const sent = await sentTo(link.id);
    expect(sent.map(({ value, status, jobId: job }) => [value, status, job])).toEqual([
      [1000, 'ok', jobId],
      [100, 'stale plan', jobId],
    ]);
    expect(sent[1].sentAt).toBeGreaterThan(planMadeAt + 5 * 60_000);
    expect(sent[1].sentAt).toBeLessThanOrEqual(planMadeAt + 6 * 60_000);
  }, 60_000);
});
