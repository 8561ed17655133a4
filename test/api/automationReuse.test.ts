import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const START = Date.parse('2027-03-01T06:00:00Z');

let t: TestServer;
let clock: SimulatedClock;
let f: ReturnType<typeof factories>;
let token: string;
let otherToken: string;
let priceSensor: number;
let socSensor: number;
let automationId: number;

interface Run {
  id: string;
  dueMs: number;
  result: { schedule_job_id: string; schedule_job_reused?: true };
}

/** The automation's finished runs, by due time, as the jobs API reports them. */
async function runs(): Promise<Run[]> {
  const rows = await t.db('job').where({ queue: 'automation' }).select<{ id: string; args: string }[]>('id', 'args');
  const ours = rows
    .map((r) => ({ id: r.id, ...(JSON.parse(r.args) as { automationId: number; dueMs: number }) }))
    .filter((r) => r.automationId === automationId);
  const read = await Promise.all(
    ours.map(async (r) => {
      const res = await t.request('GET', `/api/v3_0/jobs/${r.id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('finished');
      return { ...r, result: res.body.result } as Run;
    }),
  );
  return read.sort((a, b) => a.dueMs - b.dueMs);
}

const schedulingJobs = async () => (await t.db('job').where({ queue: 'scheduling' }).count({ n: '*' }).first())!.n;

beforeAll(async () => {
  clock = new SimulatedClock(START);
  t = await startTestServer({}, undefined, { clock });
  f = factories(t.db);
  const account = await f.account();
  token = (await f.user({ accountId: account.id, roles: ['account-admin'] })).token;
  otherToken = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
  const site = await f.asset({ accountId: account.id, type: 'battery' });
  const battery = await f.sensor({ assetId: site.id, unit: 'kW' });
  socSensor = (await f.sensor({ assetId: site.id, unit: 'kWh', resolutionMinutes: 0 })).id;
  priceSensor = (await f.sensor({ assetId: site.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  // Two days of hourly prices and the SoC at 06:00, all known at the start.
  await f.beliefs(
    priceSensor,
    START - 6 * HOUR,
    HOUR,
    Array.from({ length: 48 }, (_, i) => 100 + (i % 24) * 10),
    START,
  );
  await f.beliefs(socSensor, START, 0, [12], START);
  const patched = await t.request('PATCH', `/api/v3_0/assets/${site.id}`, {
    token,
    json: {
      flex_model: JSON.stringify({
        'state-of-charge': { sensor: socSensor },
        'soc-min': '0 kWh',
        'soc-max': '20 kWh',
        'power-capacity': '5 kW',
      }),
      flex_context: JSON.stringify({ 'consumption-price': { sensor: priceSensor } }),
    },
  });
  expect(patched.status).toBe(200);
  const made = await t.request('POST', `/api/v3_0/assets/${site.id}/automations`, {
    token,
    json: { name: 'every minute', cron: '* * * * *', timezone: 'UTC', horizon: 'PT12H', schedule_sensor_id: battery.id },
  });
  expect(made.status).toBe(201);
  automationId = made.body.id;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

describe('an automation due every minute', () => {
  it('answers the runs of one quarter hour with one schedule job while nothing it reads has changed', async () => {
    await clock.advanceTo(START + 4 * MINUTE);
    const done = await runs();
    expect(done.map((r) => r.dueMs)).toEqual([START + MINUTE, START + 2 * MINUTE, START + 3 * MINUTE]);
    const [first, ...later] = done;
    expect(first.result.schedule_job_reused).toBeUndefined();
    for (const run of later) expect(run.result).toMatchObject({ schedule_job_id: first.result.schedule_job_id, schedule_job_reused: true });
    expect(Number(await schedulingJobs())).toBe(1);
    const job = await t.request('GET', `/api/v3_0/jobs/${first.result.schedule_job_id}`, { token });
    expect(job.body.status).toBe('finished');
    // Another account's user does not read the run, nor the job it names.
    expect((await t.request('GET', `/api/v3_0/jobs/${first.result.schedule_job_id}`, { token: otherToken })).status).not.toBe(200);
    expect((await t.request('GET', `/api/v3_0/jobs/${later[0].id}`, { token: otherToken })).status).not.toBe(200);
  });

  it('queues a new job once a price it reads changed, and answers the next runs with that one', async () => {
    // A corrected price for 09:00, believed at 06:03:30, before the run due at 06:04.
    await f.beliefs(priceSensor, START + 3 * HOUR, HOUR, [999], clock.now() - 30_000);
    await clock.advanceTo(START + 7 * MINUTE);
    const done = await runs();
    expect(done.map((r) => r.dueMs)).toEqual([1, 2, 3, 4, 5, 6].map((m) => START + m * MINUTE));
    const before = done[2].result.schedule_job_id;
    const [changed, ...after] = done.slice(3);
    expect(changed.result.schedule_job_id).not.toBe(before);
    expect(changed.result.schedule_job_reused).toBeUndefined();
    for (const run of after)
      expect(run.result).toMatchObject({ schedule_job_id: changed.result.schedule_job_id, schedule_job_reused: true });
    expect(Number(await schedulingJobs())).toBe(2);
    // The new job read the corrected price.
    const job = await t.request('GET', `/api/v3_0/jobs/${changed.result.schedule_job_id}`, { token });
    expect(job.body.status).toBe('finished');
  });

  it('queues a new job in the next quarter hour, from the SoC measured then', async () => {
    await f.beliefs(socSensor, START + 15 * MINUTE, 0, [14], START + 15 * MINUTE);
    await clock.advanceTo(START + 17 * MINUTE);
    const done = await runs();
    const ids = new Set(done.map((r) => r.result.schedule_job_id));
    const quarter = done.filter((r) => r.dueMs >= START + 15 * MINUTE);
    expect(quarter.map((r) => r.dueMs)).toEqual([START + 15 * MINUTE, START + 16 * MINUTE]);
    expect(quarter[0].result.schedule_job_reused).toBeUndefined();
    expect(quarter[1].result).toMatchObject({ schedule_job_id: quarter[0].result.schedule_job_id, schedule_job_reused: true });
    expect(ids.size).toBe(3);
    const job = await t.server.services.jobs.get(quarter[0].result.schedule_job_id);
    const spec = (job!.args as { spec: { startMs: number; devices: { socAtStartMwh: number }[] } }).spec;
    expect(spec.startMs).toBe(START + 15 * MINUTE);
    expect(spec.devices[0].socAtStartMwh).toBeCloseTo(0.014, 9);
  });
});
