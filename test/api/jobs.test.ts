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
