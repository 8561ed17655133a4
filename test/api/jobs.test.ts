import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let memberToken: string;
let outsiderToken: string;
let jobId: string;

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  memberToken = (await f.user({ accountId })).token;
  outsiderToken = (await f.user({ accountId: (await f.account()).id })).token;
  // @ts-expect-error arguments no trigger makes (the queue's type refuses them): the job fails, which is all this test needs
  const job = await t.server.services.jobs.enqueue('scheduling', { nonsense: true }, { accountId, sensorId: null, reuseWithinS: 0 });
  jobId = job.id;
  for (let i = 0; i < 200 && (await t.server.services.jobs.get(jobId))?.status !== 'failed'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
});
afterAll(() => t.close());

describe('jobs', () => {
  it('needs a token and read access to the account', async () => {
    expect((await t.request('GET', '/api/v3_0/jobs')).status).toBe(401);
    expect((await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token: outsiderToken })).status).toBe(403);
    const unknown = await t.request('GET', '/api/v3_0/jobs/no-such-job', { token: memberToken });
    expect(unknown.status).toBe(400);
    expect(unknown.body.status).toBe('UNRECOGNIZED_UDI_EVENT');
  });

  it("lists the account's jobs and gives one with its state and error", async () => {
    const list = await t.request('GET', '/api/v3_0/jobs', { token: memberToken, query: { limit: 10 } });
    expect(list.status).toBe(200);
    expect(list.body.map((j: { id: string }) => j.id)).toEqual([jobId]);
    expect((await t.request('GET', '/api/v3_0/jobs', { token: outsiderToken })).body).toEqual([]);
    const one = await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token: memberToken });
    expect(one.status).toBe(200);
    // `status` is the job's state, not the HTTP code.
    expect(one.body).toMatchObject({ id: jobId, status: 'failed', queue: 'scheduling', args: { nonsense: true } });
    expect(one.body.error).toMatch(/\w+: /);
    expect(one.body).toHaveProperty('result');
  });
});

describe('a run recorded without the queue', () => {
  /** An automation run's finished outcome (written out here, not taken from the server). */
  const result = (dueMs: number) => ({
    automation_id: 7,
    due: new Date(dueMs).toISOString(),
    forecasts: [],
    schedule_job_id: null,
    schedule_inputs: null,
  });
  const principal = { kind: 'user' as const, userId: 1 };
  const DUE = Date.parse('2026-03-02T08:00:00Z');

  it('is stored once when recorded twice: the second record answers with the first job', async () => {
    const accountId = (await factories(t.db).account()).id;
    const { jobs } = t.server.services;
    const options = { accountId, sensorId: null, reuseWithinS: 600 };
    const record = (dueMs: number, more = {}) =>
      jobs.record('automation', { automationId: 7, dueMs, principal }, result(dueMs), { ...options, ...more });
    const stored = async () =>
      t.db('job').where({ account_id: accountId }).orderBy('created_at').select('id', 'status', 'attempts', 'result');

    const first = await record(DUE);
    expect(first).toMatchObject({ queue: 'automation', status: 'finished', attempts: 1, accountId, result: result(DUE) });
    expect(first.startedAt).toBe(first.createdAt);
    expect(first.finishedAt).toBe(first.createdAt);
    expect(await jobs.get(first.id)).toEqual(first);
    const again = await record(DUE);
    expect(again).toEqual(first);
    expect(await stored()).toEqual([{ id: first.id, status: 'finished', attempts: 1, result: JSON.stringify(result(DUE)) }]);

    // Another run is another job; a forced record stores a new one whatever is there.
    const next = await record(DUE + 60_000);
    const forced = await record(DUE, { force: true });
    expect(new Set([first.id, next.id, forced.id]).size).toBe(3);
    expect((await stored()).map((j) => j.id).sort()).toEqual([first.id, next.id, forced.id].sort());
  });
});
