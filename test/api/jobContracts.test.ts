import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { householdLoad } from '../../bench/_forecastSeries.ts';
import { schedulingJob } from '../../server/src/contracts/responses.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * The UI checks every job it reads against `schedulingJob` in development; an automation run's
 * or a forecast's job page failed that check. Here every kind of job, as the server answers it,
 * is held against the contract (expected shapes written out, not taken from the handlers).
 */

const STEP = 900_000;
const DAYS = 21;
const HISTORY_START = Date.parse('2026-03-02T00:00:00Z');
const ORIGIN = HISTORY_START + DAYS * 86_400_000;

let t: TestServer;
let token: string;
let otherToken: string;
let loadSensor: number;
let battery: number;
let assetId: number;

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  otherToken = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
  assetId = (await f.asset({ accountId, type: 'battery' })).id;
  loadSensor = (await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15, attributes: { consumption_is_positive: true } })).id;
  battery = (await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 })).id;
  await f.beliefs(loadSensor, HISTORY_START, STEP, householdLoad(HISTORY_START, STEP, DAYS * 96).values, ORIGIN);
});
afterAll(() => t.close());

const readJob = async (id: string, tok = token) => {
  await t.server.services.jobs.settled(id, 60_000);
  return t.request('GET', `/api/v3_0/jobs/${id}`, { token: tok });
};

describe("the UI's job contract", () => {
  it("accepts a forecasting job's result", async () => {
    const res = await t.request('POST', `/api/v3_0/sensors/${loadSensor}/forecasts/trigger`, {
      token,
      json: { start: new Date(ORIGIN).toISOString(), duration: 'PT6H', prior: new Date(ORIGIN).toISOString() },
    });
    expect(res.status).toBe(202);
    const job = await readJob(res.body.job);
    expect(job.body).toMatchObject({
      status: 'finished',
      queue: 'forecasting',
      result: { sensor_id: loadSensor, method: expect.any(String) },
    });
    expect(schedulingJob.safeParse(job.body).error).toBeUndefined();
    expect((await readJob(res.body.job, otherToken)).status).toBe(403);
  });

  it("accepts an automation run's result and the schedule it queued", async () => {
    const made = await t.request('POST', `/api/v3_0/assets/${assetId}/automations`, {
      token,
      json: { name: 'plan', cron: '0 6 * * *', forecast_sensor_ids: [loadSensor], schedule_sensor_id: battery },
    });
    expect(made.status).toBe(201);
    const stored = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, {
      token,
      json: { flex_model: JSON.stringify({ 'soc-at-start': 5, 'soc-max': 10, 'soc-unit': 'kWh', 'power-capacity': '5 kW' }) },
    });
    expect(stored.status).toBe(200);
    await t
      .db('automation')
      .where({ id: made.body.id })
      .update({ last_due: ORIGIN - 86_400_000 });
    expect(await t.server.automations.tick(ORIGIN + 7 * 3600_000)).toBe(1);
    const runId = (await t.db('automation').where({ id: made.body.id }).first<{ last_job_id: string }>()).last_job_id;
    const run = await readJob(runId);
    expect(run.body.error).toBeNull();
    expect(run.body).toMatchObject({
      queue: 'automation',
      status: 'finished',
      result: {
        automation_id: made.body.id,
        forecasts: [expect.objectContaining({ sensor_id: loadSensor })],
        schedule_job_id: expect.any(String),
        schedule_inputs: { inflexible_device_sensors: [loadSensor], consumption_price_sensor: null },
      },
    });
    expect(schedulingJob.safeParse(run.body).error).toBeUndefined();
    const schedule = await readJob(run.body.result.schedule_job_id);
    expect(schedule.body.queue).toBe('scheduling');
    expect(schedulingJob.safeParse(schedule.body).error).toBeUndefined();
  });
});
