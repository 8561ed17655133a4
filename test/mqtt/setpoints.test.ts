import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Setpoints out: a battery's out-link receives the current step of its plan at each step
 * boundary, retained, with the plan ahead and its status, and the link's safe setpoint once the
 * plan ends; every setpoint sent is recorded.
 */
const H = 3_600_000;
const START = Date.parse('2026-01-31T23:00:00Z');

let t: TestServer;
let clock: SimulatedClock;
let token: string;
let otherToken: string;
let battery: number;
let jobId: string;
const received = new Map<string, string>();
let device: mqtt.MqttClient;
let link: { id: number; username: string; password: string; topic: string };

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('timed out');
}

beforeAll(async () => {
  clock = new SimulatedClock(START - H / 2);
  t = await startTestServer({ FLEXSITE_MQTT: 'embedded', FLEXSITE_MQTT_HOST: '127.0.0.1', FLEXSITE_MQTT_PORT: '0' }, undefined, { clock });
  const f = factories(t.db);
  const account = await f.account();
  token = (await f.user({ accountId: account.id, roles: ['account-admin'] })).token;
  otherToken = (await f.user({ accountId: (await f.account()).id })).token;
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  const prices = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  await f.beliefs(prices, START, H, [50, 100], START - 24 * H);
  battery = (await f.sensor({ assetId: (await f.asset({ accountId: account.id, type: 'battery' })).id, unit: 'MW', resolutionMinutes: 60 }))
    .id;
  const created = await t.request('POST', `/api/v3_0/sensors/${battery}/mqtt-links`, {
    token,
    json: { direction: 'out', name: 'battery inverter', unit: 'kW', safe_setpoint: 0, stale_after: 'PT6H' },
  });
  expect(created.status).toBe(201);
  link = created.body;
  expect(link.topic).toBe(`flexsite/${link.username}`);
  device = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.mqtt!.brokerPort}`, { username: link.username, password: link.password });
  device.on('message', (topic, payload) => received.set(topic, payload.toString()));
  await device.subscribeAsync(`${link.topic}/#`, { qos: 1 });
});

afterAll(async () => {
  await device.endAsync();
  await t.close();
});

describe('MQTT setpoints out', () => {
  it('says there is no plan, and sends the safe setpoint, before one is made', async () => {
    await clock.advance(250);
    await until(() => received.get(`${link.topic}/status`) === 'no plan');
    expect(received.get(`${link.topic}/setpoint`)).toBe('0');
  });

  it("refuses a subscription outside the device's own setpoint topics", async () => {
    await expect(device.subscribeAsync('flexsite/#', { qos: 1 })).rejects.toThrow(/Subscribe error/);
  });

  it("sends each step of the plan at its boundary, in the link's unit, consumption positive", async () => {
    const res = await t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
      token,
      json: {
        start: '2026-01-31T23:00:00Z',
        duration: 'PT2H',
        'flex-model': {
          'soc-at-start': 0,
          'soc-unit': 'MWh',
          'soc-min': 0,
          'soc-max': 1,
          'roundtrip-efficiency': 1,
          'storage-efficiency': 1,
          'power-capacity': '1 MW',
        },
        'flex-context': {
          'consumption-price-sensor': (await t.db('sensor').where({ unit: 'EUR/MWh' }).first()).id,
          'site-power-capacity': '1 MW',
        },
      },
    });
    expect(res.status).toBe(200);
    jobId = res.body.schedule;
    expect((await waitForSchedule(t, token, battery, jobId)).status).toBe(200);
    // Prices 50 then 100 EUR/MWh: charge 1 MW in the first hour, discharge it in the second.
    await clock.advanceTo(START + 1);
    await until(() => received.get(`${link.topic}/setpoint`) === '1000');
    expect(received.get(`${link.topic}/status`)).toBe('ok');
    expect(JSON.parse(received.get(`${link.topic}/plan`)!)).toEqual([
      { start: '2026-01-31T23:00:00.000Z', value: 1000 },
      { start: '2026-02-01T00:00:00.000Z', value: -1000 },
    ]);
    await clock.advanceTo(START + H + 1);
    await until(() => received.get(`${link.topic}/setpoint`) === '-1000');
    // Two simulated hours are 28,800 ticks of the bridge.
  }, 120_000);

  it('sends the safe setpoint once the plan has ended, and says why', async () => {
    await clock.advanceTo(START + 2 * H + 1);
    await until(() => received.get(`${link.topic}/status`) === 'no plan');
    expect(received.get(`${link.topic}/setpoint`)).toBe('0');
  }, 120_000);

  it('records every setpoint sent: what, when, where and from which job', async () => {
    const rows = await t.db('mqtt_setpoint').where({ link_id: link.id }).orderBy('id');
    expect(rows.map((r) => [Number(r.sent_at), r.topic, r.value, r.status, r.job_id])).toEqual([
      [START - H / 2, `${link.topic}/setpoint`, 0, 'no plan', null],
      // The plan came at 22:30 but begins at 23:00: nothing to follow yet, said with the plan's job.
      [START - H / 2 + 5000, `${link.topic}/setpoint`, 0, 'no plan', jobId],
      [START, `${link.topic}/setpoint`, 1000, 'ok', jobId],
      [START + H, `${link.topic}/setpoint`, -1000, 'ok', jobId],
      [START + 2 * H, `${link.topic}/setpoint`, 0, 'no plan', jobId],
    ]);
    expect((await t.request('GET', `/api/v3_0/mqtt-links/${link.id}`, { token: otherToken })).status).toBe(403);
  });
});
