import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { householdLoad } from '../../bench/_forecastSeries.ts';
import { factories } from '../helpers/factories.ts';
import { startNpm, stopProcess, waitForLine } from '../helpers/processes.ts';
import { storageJobArgs } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let otherToken: string;
let assetId: number;
let loadSensor: number;
let otherSensor: number;

const STEP = 900_000;

/** Due times of the automation's queued runs, oldest first. */
async function runs(db = t.db, automationId?: number): Promise<string[]> {
  const jobs = await db('job').where({ queue: 'automation' }).orderBy('created_at').select('args');
  return jobs
    .map((j) => JSON.parse(j.args) as { automationId: number; dueMs: number })
    .filter((a) => automationId === undefined || a.automationId === automationId)
    .map((a) => new Date(a.dueMs).toISOString())
    .sort();
}

async function create(body: Record<string, unknown>, as = token) {
  return t.request('POST', `/api/v3_0/assets/${assetId}/automations`, { token: as, json: body });
}

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const account = await f.account();
  token = (await f.user({ accountId: account.id, roles: ['account-admin'] })).token;
  assetId = (await f.asset({ accountId: account.id, type: 'building' })).id;
  loadSensor = (await f.sensor({ assetId, unit: 'kW', timezone: 'Europe/Amsterdam', attributes: { consumption_is_positive: true } })).id;
  // Eight weeks of measurements, known by the first run the tests make the automation do.
  const start = Date.parse('2027-01-30T00:00:00Z');
  await f.beliefs(loadSensor, start, STEP, householdLoad(start, STEP, 56 * 96).values, start + 56 * 86_400_000);
  const other = await f.account();
  otherToken = (await f.user({ accountId: other.id, roles: ['account-admin'] })).token;
  otherSensor = (await f.sensor({ assetId: (await f.asset({ accountId: other.id })).id })).id;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

describe('automations', () => {
  let automationId: number;

  it('are added per asset, in the time zone of the sensors they run for, and listed with their next run', async () => {
    const res = await create({ name: 'morning plan', cron: '0 6 * * *', forecast_sensor_ids: [loadSensor] });
    expect(res.status).toBe(201);
    automationId = res.body.id;
    expect(res.body).toMatchObject({
      asset_id: assetId,
      name: 'morning plan',
      cron: '0 6 * * *',
      timezone: 'Europe/Amsterdam',
      forecast_sensor_ids: [loadSensor],
      schedule_sensor_id: null,
      horizon: 'P1D',
      enabled: true,
      last_run: null,
      next_run: expect.stringMatching(/T0[45]:00:00.000Z$/),
    });
    const list = await t.request('GET', `/api/v3_0/assets/${assetId}/automations`, { token });
    expect(list.body.map((a: { id: number }) => a.id)).toEqual([automationId]);
  });

  it('fire at 06:00 local time on both sides of the spring DST change (fake clock), once per due time', async () => {
    const clock = t.server.automations;
    expect(await clock.tick(Date.parse('2027-03-27T05:30:00Z'))).toBe(1);
    expect(await clock.tick(Date.parse('2027-03-27T05:45:00Z'))).toBe(0);
    expect(await clock.tick(Date.parse('2027-03-28T04:10:00Z'))).toBe(1);
    // 06:00 CET is 05:00 UTC; after the change 06:00 CEST is 04:00 UTC.
    expect(await runs(t.db, automationId)).toEqual(['2027-03-27T05:00:00.000Z', '2027-03-28T04:00:00.000Z']);
  });

  it('catch up once, not in a burst, when runs were missed', async () => {
    expect(await t.server.automations.tick(Date.parse('2027-04-02T12:00:00Z'))).toBe(1);
    expect((await runs(t.db, automationId)).slice(-1)).toEqual(['2027-04-02T04:00:00.000Z']);
  });

  it('each run is a job that forecasts the sensors from the due time', async () => {
    const [job] = await t.db('job').where({ queue: 'automation' }).orderBy('created_at');
    await t.server.services.jobs.settled(job.id, 20_000);
    const done = await t.request('GET', `/api/v3_0/jobs/${job.id}`, { token });
    expect(done.body.status).toBe('finished');
    expect(done.body.result).toMatchObject({
      automation_id: automationId,
      due: '2027-03-27T05:00:00.000Z',
      forecasts: [{ sensor_id: loadSensor }],
    });
    const stored = await t
      .db('timed_belief')
      .where({ sensor_id: loadSensor, belief_time: Date.parse('2027-03-27T05:00:00Z') })
      .count({ n: '*' })
      .first();
    // 06:00 to 06:00 local on the day the clocks go forward: 23 hours.
    expect(Number(stored!.n)).toBe(92);
  });

  it('refuse sensors of another account, bad crons, and strangers', async () => {
    const before = await t.db('automation').count({ n: '*' }).first();
    expect((await create({ name: 'x', cron: '0 6 * * *', forecast_sensor_ids: [otherSensor] })).status).toBe(403);
    expect((await create({ name: 'x', cron: '0 6 * * *', schedule_sensor_id: otherSensor })).status).toBe(403);
    const missing = await create({ name: 'x', cron: '0 6 * * *', schedule_sensor_id: 999999 });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toEqual({ json: { schedule_sensor_id: ['No sensor found with id 999999.'] } });
    const patched = await t.request('PATCH', `/api/v3_0/automations/${automationId}`, { token, json: { schedule_sensor_id: otherSensor } });
    expect(patched.status).toBe(403);
    const bad = await create({ name: 'x', cron: '61 * * * *' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.message.json)).toEqual(['cron']);
    expect((await create({ name: 'x', cron: '0 6 * * *' }, otherToken)).status).toBe(403);
    expect(
      (await t.request('PATCH', `/api/v3_0/automations/${automationId}`, { token: otherToken, json: { enabled: false } })).status,
    ).toBe(403);
    expect((await t.request('DELETE', `/api/v3_0/automations/${automationId}`, { token: otherToken })).status).toBe(403);
    expect(await t.db('automation').count({ n: '*' }).first()).toEqual(before);
  });

  it('are edited and deleted by their asset owners', async () => {
    const off = await t.request('PATCH', `/api/v3_0/automations/${automationId}`, {
      token,
      json: { enabled: false, cron: '30 7 * * 1-5' },
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, cron: '30 7 * * 1-5', next_run: null });
    expect(await t.server.automations.tick(Date.parse('2027-05-03T12:00:00Z'))).toBe(0);
    expect((await t.request('DELETE', `/api/v3_0/automations/${automationId}`, { token })).status).toBe(204);
    expect(await t.db('automation').where({ id: automationId }).first()).toBeUndefined();
  });
});

describe('automations that schedule', () => {
  it("schedule the asset's battery with the flex-model and flex-context stored on the asset, after the forecast", async () => {
    const account = (await t.db('generic_asset').where({ id: assetId }).first()).account_id as number;
    const site = await f.asset({ accountId: account, type: 'battery' });
    const battery = await f.sensor({ assetId: site.id, unit: 'kW', timezone: 'Europe/Amsterdam' });
    const patched = await t.request('PATCH', `/api/v3_0/assets/${site.id}`, {
      token,
      json: {
        flex_model: JSON.stringify({ 'soc-at-start': '10 kWh', 'soc-min': '0 kWh', 'soc-max': '20 kWh', 'power-capacity': '5 kW' }),
        flex_context: JSON.stringify({ 'consumption-price': '20 EUR/MWh', 'inflexible-device-sensors': [loadSensor] }),
      },
    });
    expect(patched.status).toBe(200);
    const made = await t.request('POST', `/api/v3_0/assets/${site.id}/automations`, {
      token,
      json: { name: 'plan', cron: '0 6 * * *', forecast_sensor_ids: [loadSensor], schedule_sensor_id: battery.id },
    });
    expect(made.status).toBe(201);
    expect(await t.server.automations.tick(Date.parse('2027-03-27T05:30:00Z'))).toBe(1);

    const run = await t.db('job').where({ queue: 'automation' }).orderBy('created_at', 'desc').first();
    await t.server.services.jobs.settled(run.id, 30_000);
    const result = (await t.request('GET', `/api/v3_0/jobs/${run.id}`, { token })).body;
    expect(result).toMatchObject({ status: 'finished', result: { schedule_job_id: expect.any(String) } });
    const scheduleJob = result.result.schedule_job_id as string;
    await t.server.services.jobs.settled(scheduleJob, 30_000);
    const scheduled = (await t.request('GET', `/api/v3_0/jobs/${scheduleJob}`, { token })).body;
    expect(scheduled.status).toBe('finished');
    // The list shows the last run's outcome: its schedule job's, a plain success only without warnings.
    const listed = (await t.request('GET', `/api/v3_0/assets/${site.id}/automations`, { token })).body;
    expect(listed[0].last_outcome).toEqual({
      status: scheduled.warnings.length ? 'warnings' : 'success',
      job_id: scheduleJob,
      finished_at: scheduled.finished_at,
      message: null,
    });
    // The stored soc-max bounds the schedule: from 10 kWh, at most 10 kWh more can be charged.
    const schedule = await t.request('GET', `/api/v3_0/sensors/${battery.id}/schedules/${scheduleJob}?duration=PT23H`, { token });
    expect(schedule.status).toBe(200);
    const charged = (schedule.body.values as number[]).reduce((sum, kw) => sum + kw / 4, 0);
    expect(charged).toBeLessThanOrEqual(10 + 1e-6);
    // 06:00 to 06:00 local on the day the clocks go forward, at 15 minutes.
    expect(schedule.body.values).toHaveLength(92);
  });
});

describe('automations that see the present', () => {
  it('read the SoC at the start from the state-of-charge sensor and feed their load forecast to the schedule as an inflexible device', async () => {
    const account = (await t.db('generic_asset').where({ id: assetId }).first()).account_id as number;
    const site = await f.asset({ accountId: account, type: 'battery' });
    const battery = await f.sensor({ assetId: site.id, unit: 'kW', timezone: 'Europe/Amsterdam' });
    const soc = await f.sensor({ assetId: site.id, unit: 'kWh', resolutionMinutes: 0, timezone: 'Europe/Amsterdam' });
    // 06:00 in Amsterdam (CEST) a day after the last measurement: a forecast needs recent history.
    const due = Date.parse('2027-03-28T04:00:00Z');
    await f.beliefs(soc.id, due, 0, [12], due);
    const patched = await t.request('PATCH', `/api/v3_0/assets/${site.id}`, {
      token,
      json: {
        flex_model: JSON.stringify({
          'state-of-charge': { sensor: soc.id },
          'soc-min': '0 kWh',
          'soc-max': '20 kWh',
          'power-capacity': '5 kW',
        }),
        flex_context: JSON.stringify({ 'consumption-price': '20 EUR/MWh' }),
      },
    });
    expect(patched.status).toBe(200);
    const made = await t.request('POST', `/api/v3_0/assets/${site.id}/automations`, {
      token,
      json: { name: 'present', cron: '0 6 * * *', forecast_sensor_ids: [loadSensor], schedule_sensor_id: battery.id },
    });
    expect(made.status).toBe(201);
    await t
      .db('automation')
      .where({ id: made.body.id })
      .update({ last_due: due - 86_400_000 });
    // Earlier tests' automations may be due too.
    expect(await t.server.automations.tick(due + 60_000)).toBeGreaterThanOrEqual(1);
    const runs = await t.db('job').where({ queue: 'automation' }).select<{ id: string; args: string }[]>('id', 'args');
    const run = runs.find((j) => JSON.parse(j.args).automationId === made.body.id)!;
    await t.server.services.jobs.settled(run.id, 30_000);
    const result = (await t.request('GET', `/api/v3_0/jobs/${run.id}`, { token })).body.result;
    expect(result.schedule_inputs).toEqual({ inflexible_device_sensors: [loadSensor], consumption_price_sensor: null });
    const scheduling = await t.server.services.jobs.get(result.schedule_job_id);
    const { spec } = storageJobArgs(scheduling);
    expect(spec.inflexibleSensorIds).toEqual([loadSensor]);
    expect(spec.devices[0].socAtStartMwh).toBeCloseTo(0.012, 9);
    await t.server.services.jobs.settled(result.schedule_job_id, 30_000);
    const job = (await t.request('GET', `/api/v3_0/jobs/${result.schedule_job_id}`, { token })).body;
    expect(job.status).toBe('finished');
    // The SoC reading is at the start itself: nothing to warn about it.
    expect(job.result.warnings.map((w: { code: string }) => w.code)).not.toContain('soc-reading');
  });
});

describe('automations with a horizon longer than a schedule', () => {
  it('fail their run before expanding recurring targets, saying why', async () => {
    const account = (await t.db('generic_asset').where({ id: assetId }).first()).account_id as number;
    const ev = await f.asset({ accountId: account, type: 'one-way_evse' });
    const power = await f.sensor({ assetId: ev.id, unit: 'kW', timezone: 'Europe/Amsterdam' });
    // 50 weekly targets: over 370 days, 2,650 occurrences.
    const targets = Array.from({ length: 50 }, (_, i) => ({
      days: [['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'][i % 7]],
      time: `${String(Math.floor(i / 7)).padStart(2, '0')}:${String((i % 7) * 5).padStart(2, '0')}`,
      value: '10 kWh',
    }));
    const put = await t.request('PUT', `/api/v3_0/assets/${ev.id}/recurring-soc-targets`, { token, json: { targets } });
    expect(put.status).toBe(200);
    const made = await t.request('POST', `/api/v3_0/assets/${ev.id}/automations`, {
      token,
      json: { name: 'year ahead', cron: '0 6 * * *', schedule_sensor_id: power.id, horizon: 'P370D' },
    });
    expect(made.status).toBe(201);
    const due = Date.parse('2027-06-01T04:00:00Z');
    await t
      .db('automation')
      .where({ id: made.body.id })
      .update({ last_due: due - 86_400_000 });
    await t.server.automations.tick(due + 60_000);
    const run = (await t.db('job').where({ queue: 'automation' }).select<{ id: string; args: string }[]>('id', 'args')).find(
      (j) => JSON.parse(j.args).automationId === made.body.id,
    )!;
    await t.server.services.jobs.settled(run.id, 30_000);
    const job = (await t.request('GET', `/api/v3_0/jobs/${run.id}`, { token })).body;
    expect(job.status).toBe('failed');
    // The default longest schedule: 2520 steps of the sensor's 15 minutes.
    expect(job.error).toContain(
      `Automation ${made.body.id}'s horizon (P370D) is longer than the longest schedule of sensor ${power.id} (26.25 days); nothing was forecast or scheduled.`,
    );
    expect(await t.db('job').where({ queue: 'scheduling', sensor_id: power.id })).toEqual([]);
    // The list says how the last run went: failed, why (without the exception's name), and which job to look at.
    const listed = (await t.request('GET', `/api/v3_0/assets/${ev.id}/automations`, { token })).body;
    expect(listed[0].last_outcome).toEqual({
      status: 'failed',
      job_id: run.id,
      finished_at: job.finished_at,
      message: `Automation ${made.body.id}'s horizon (P370D) is longer than the longest schedule of sensor ${power.id} (26.25 days); nothing was forecast or scheduled.`,
    });
  });
});

describe('automations across a kill -9', () => {
  it('queue each due run once: a restart finds the run it queued before it was killed', async () => {
    // A store of its own that outlives its servers.
    await t.close();
    t = await startTestServer({}, fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-automations-')));
    f = factories(t.db);
    const account = await f.account();
    token = (await f.user({ accountId: account.id, roles: ['account-admin'] })).token;
    assetId = (await f.asset({ accountId: account.id, type: 'building' })).id;
    const res = await create({ name: 'every minute', cron: '* * * * *' });
    const id = res.body.id as number;
    // Missed runs: the last one was queued ten minutes ago.
    await t
      .db('automation')
      .where({ id })
      .update({ last_due: Date.now() - 600_000 });
    await t.close();
    const env = { ...t.storeSettings, PORT: '0', FLEXSITE_LOG_LEVEL: 'info' };
    for (let attempt = 0; attempt < 2; attempt++) {
      const child = startNpm(env);
      await waitForLine(child, /Flexsite listening/);
      // Killed while (or right after) the catch-up tick queues the run.
      process.kill(-child.pid!, 'SIGKILL');
      await stopProcess(child).catch(() => undefined);
    }
    t = await startTestServer({}, t.dataDir);
    // What the start's own catch-up tick does, awaited.
    await t.server.automations.tick(Date.now());
    const due = await runs(t.db, id);
    expect(due.length).toBeGreaterThanOrEqual(1);
    expect(new Set(due).size).toBe(due.length);
  }, 90_000);
});
