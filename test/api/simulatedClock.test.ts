import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { householdLoad } from '../../bench/_forecastSeries.ts';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

const STEP = 900_000;
const DAY = 86_400_000;
const START = Date.parse('2027-03-01T00:00:00Z');
const DUE = Date.parse('2027-03-01T06:00:00Z');

let t: TestServer;
let clock: SimulatedClock;
let token: string;
let automationId: number;
let loadSensor: number;
let assetId: number;

const automationJobs = () => t.db('job').where({ queue: 'automation' }).select('id', 'args', 'status', 'created_at', 'finished_at');

beforeAll(async () => {
  clock = new SimulatedClock(START);
  t = await startTestServer({}, undefined, { clock });
  const f = factories(t.db);
  const account = await f.account();
  token = (await f.user({ accountId: account.id, roles: ['account-admin'] })).token;
  assetId = (await f.asset({ accountId: account.id, type: 'building' })).id;
  loadSensor = (await f.sensor({ assetId, unit: 'kW', timezone: 'UTC', attributes: { consumption_is_positive: true } })).id;
  // Eight weeks of measurements up to the simulated start, known then.
  const from = START - 56 * DAY;
  await f.beliefs(loadSensor, from, STEP, householdLoad(from, STEP, 56 * 96).values, START);
  const res = await t.request('POST', `/api/v3_0/assets/${assetId}/automations`, {
    token,
    json: { name: 'morning forecast', cron: '0 6 * * *', timezone: 'UTC', forecast_sensor_ids: [loadSensor] },
  });
  expect(res.status).toBe(201);
  automationId = res.body.id;
  // The next run is counted from the simulated time, not the wall clock's.
  expect(res.body.next_run).toBe('2027-03-01T06:00:00.000Z');
});
afterAll(async () => {
  await t.close();
});

describe('a server on a simulated clock', () => {
  it('runs nothing while the clock stands still or before an automation is due', async () => {
    await clock.advanceTo(DUE - 60_000);
    expect(clock.now()).toBe(DUE - 60_000);
    expect(await automationJobs()).toEqual([]);
    // Standing at the due time: what is due then runs when the clock moves on.
    await clock.advanceTo(DUE);
    expect(await automationJobs()).toEqual([]);
  });

  it('runs an automation once the clock passes its due time, and its work is done when advancing returns', async () => {
    await clock.advance(60_000);
    const jobs = await automationJobs();
    expect(jobs).toHaveLength(1);
    const [job] = jobs;
    expect(JSON.parse(job.args)).toMatchObject({ automationId, dueMs: DUE });
    // Queued by the tick at 06:00 and finished before the clock moved on.
    expect(job.status).toBe('finished');
    expect(Number(job.created_at)).toBe(DUE);
    expect(Number(job.finished_at)).toBe(DUE);
    // Its forecast is believed at the due time, from then on for a day.
    const stored = await t.db('timed_belief').where({ sensor_id: loadSensor, belief_time: DUE }).count({ n: '*' }).first();
    expect(Number(stored!.n)).toBe(96);
    const listed = await t.request('GET', `/api/v3_0/assets/${assetId}/automations`, { token });
    expect(listed.body[0]).toMatchObject({ last_run: '2027-03-01T06:00:00.000Z', next_run: '2027-03-02T06:00:00.000Z' });
  });

  it('stamps measurements posted without a belief time with the simulated time', async () => {
    const at = '2027-03-01T06:00:00Z';
    const res = await t.request('POST', `/api/v3_0/sensors/${loadSensor}/data`, {
      token,
      json: { values: [1.5], start: at, duration: 'PT15M', unit: 'kW' },
    });
    expect(res.status).toBe(200);
    const row = await t
      .db('timed_belief')
      .where({ sensor_id: loadSensor, event_start: Date.parse(at), event_value: 1.5 })
      .first();
    expect(Number(row.belief_time)).toBe(clock.now());
  });
});
