import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * `GET /jobs` narrowed to some queues, to the jobs that ended since a time, and with each job's
 * result: what a client collecting many jobs' outcomes asks in one request instead of one per job.
 * The server runs on a simulated clock, so each job ends at a time the test sets.
 */

const T0 = Date.parse('2026-03-02T08:00:00Z');
const MINUTE = 60_000;

let t: TestServer;
let clock: SimulatedClock;
let accountId: number;
let token: string;
let outsiderToken: string;
/** In the order they ended: a schedule (T0+10 min), an automation run (T0+20 min), a failed schedule (T0+30 min). */
let scheduleId: string;
let runId: string;
let failedId: string;
let outsiderRunId: string;

/** What an automation run that answered with the schedule stores (written out here, not taken from the server). */
const runResult = (automationId: number, scheduleJobId: string | null) => ({
  automation_id: automationId,
  due: new Date(T0 + 20 * MINUTE).toISOString(),
  forecasts: [],
  schedule_job_id: scheduleJobId,
  schedule_inputs: null,
});

beforeAll(async () => {
  clock = new SimulatedClock(T0);
  t = await startTestServer({}, undefined, { clock });
  const f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId })).token;
  const outsiderAccount = (await f.account()).id;
  outsiderToken = (await f.user({ accountId: outsiderAccount })).token;
  const battery = await f.asset({ accountId, type: 'battery' });
  const power = await f.sensor({ assetId: battery.id, unit: 'kW', resolutionMinutes: 60 });

  await clock.advanceTo(T0 + 10 * MINUTE);
  const trigger = await t.request('POST', `/api/v3_0/sensors/${power.id}/schedules/trigger`, {
    token,
    json: {
      start: new Date(T0 + 60 * MINUTE).toISOString(),
      duration: 'PT4H',
      'flex-model': { 'soc-at-start': 0, 'soc-unit': 'kWh', 'soc-min': 0, 'soc-max': 10, 'power-capacity': '5 kW' },
      'flex-context': { 'consumption-price': '250 EUR/MWh' },
    },
  });
  expect(trigger.status).toBe(200);
  scheduleId = trigger.body.schedule;
  await clock.settle();

  // An automation run as the automation clock records one that found its last run's job unchanged.
  await clock.advanceTo(T0 + 20 * MINUTE);
  const principal = { kind: 'user' as const, userId: 1 };
  const jobs = t.server.services.jobs;
  const options = { sensorId: null, reuseWithinS: 0 };
  runId = (
    await jobs.record('automation', { automationId: 7, dueMs: T0 + 20 * MINUTE, principal }, runResult(7, scheduleId), {
      ...options,
      accountId,
    })
  ).id;
  outsiderRunId = (
    await jobs.record('automation', { automationId: 8, dueMs: T0 + 20 * MINUTE, principal }, runResult(8, null), {
      ...options,
      accountId: outsiderAccount,
    })
  ).id;

  await clock.advanceTo(T0 + 30 * MINUTE);
  // @ts-expect-error arguments no trigger makes (the queue's type refuses them): the job fails
  failedId = (await jobs.enqueue('scheduling', { nonsense: true }, { ...options, accountId })).id;
  await clock.settle();
}, 120_000);
afterAll(() => t.close());

const list = (query: Record<string, string>, tok = token, path = '/api/v3_0/jobs') => t.request('GET', path, { token: tok, query });
const one = async (id: string) => (await t.request('GET', `/api/v3_0/jobs/${id}`, { token })).body;
const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id);

describe('GET /jobs', () => {
  it('lists every queue newest first without results, as before, when asked nothing more', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([failedId, runId, scheduleId]);
    for (const job of res.body) {
      expect(job).not.toHaveProperty('result');
      const { result: _, ...withoutResult } = await one(job.id);
      expect(job).toEqual(withoutResult);
    }
  });

  it('lists the jobs of the queues asked for, each with the result GET /jobs/<id> gives', async () => {
    const schedules = await list({ queue: 'scheduling', include: 'result' });
    expect(schedules.status).toBe(200);
    expect(ids(schedules.body)).toEqual([failedId, scheduleId]);
    expect(schedules.body).toEqual([await one(failedId), await one(scheduleId)]);
    const [failed, finished] = schedules.body;
    expect(failed).toMatchObject({ status: 'failed', result: null, finished_at: new Date(T0 + 30 * MINUTE).toISOString() });
    // A 4-hour plan at hourly steps: one power value per hour.
    expect(finished).toMatchObject({ status: 'finished', finished_at: new Date(T0 + 10 * MINUTE).toISOString() });
    expect(finished.result.devices[0].power_mw).toHaveLength(4);

    const runs = await list({ queue: 'automation', include: 'result' });
    expect(runs.status).toBe(200);
    expect(runs.body).toEqual([await one(runId)]);
    expect(runs.body[0]).toMatchObject({ queue: 'automation', status: 'finished', result: runResult(7, scheduleId) });

    // Several queues: comma-separated or the parameter repeated.
    expect(ids((await list({ queue: 'automation,scheduling' })).body)).toEqual([failedId, runId, scheduleId]);
    expect(ids((await list({}, token, '/api/v3_0/jobs?queue=automation&queue=scheduling')).body)).toEqual([failedId, runId, scheduleId]);
    expect((await list({ queue: 'forecasting' })).body).toEqual([]);
  });

  it('lists only the jobs that ended at or after ended_after', async () => {
    const at = (minutes: number) => new Date(T0 + minutes * MINUTE).toISOString();
    expect(ids((await list({ ended_after: at(20) })).body)).toEqual([failedId, runId]);
    expect(ids((await list({ ended_after: new Date(T0 + 20 * MINUTE + 1).toISOString() })).body)).toEqual([failedId]);
    // The same instant in another offset.
    expect(ids((await list({ ended_after: '2026-03-02T09:10:00+01:00' })).body)).toEqual([failedId, runId, scheduleId]);
    expect((await list({ ended_after: at(31) })).body).toEqual([]);
    const combined = await list({ ended_after: at(20), queue: 'scheduling', include: 'result' });
    expect(combined.body).toEqual([await one(failedId)]);
  });

  it('refuses a value it does not know with 422 and the field at fault', async () => {
    const queues = 'Must be one of: scheduling, forecasting, automation, battery-replay.';
    for (const [query, fields] of [
      [{ queue: 'automations' }, { queue: [queues] }],
      [{ queue: 'automation,' }, { queue: [queues] }],
      [{ include: 'results' }, { include: ['Must be one of: result.'] }],
      [{ ended_after: '2026-03-02T08:00:00' }, { ended_after: ['Not a valid aware datetime.'] }],
      [{ ended_after: 'yesterday' }, { ended_after: ['Not a valid datetime.'] }],
    ] as const) {
      const res = await list(query);
      expect(res.status, JSON.stringify(query)).toBe(422);
      expect(res.body).toEqual(unprocessable('query', fields));
    }
  });

  it("refuses another account's jobs whatever is asked, and lists the caller's own only", async () => {
    const asked = { queue: 'automation,scheduling', include: 'result', ended_after: new Date(T0).toISOString() };
    const refused = await list({ ...asked, account_id: String(accountId) }, outsiderToken);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(runId);
    const own = await list(asked, outsiderToken);
    expect(own.status).toBe(200);
    expect(ids(own.body)).toEqual([outsiderRunId]);
    expect(own.body[0].result).toEqual(runResult(8, null));
  });
});
