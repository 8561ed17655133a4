import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type { Knex } from 'knex';
import { openStore } from '../../server/src/db/connection.ts';
import { factories, PASSWORD } from '../helpers/factories.ts';
import { startNpm, stopProcess, waitForLine } from '../helpers/processes.ts';
import { schedulerPluginFolder } from '../helpers/schedulerPlugins.ts';
import { freshDatabase, onSharedBackends } from '../helpers/sharedBackends.ts';

const HOUR = 3600_000;
const start = Date.parse('2015-01-02T00:00:00+01:00');

/** Two API processes and worker processes (`npm run worker`) on one PostgreSQL and one Redis. */
describe.skipIf(!onSharedBackends)('API and worker processes on one PostgreSQL and one Redis', () => {
  const children: ChildProcess[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-scale-'));
  // While this file exists, the `held` scheduler plugin keeps its job running.
  const hold = path.join(dir, 'hold');
  let database: { url: string; drop(): Promise<void> };
  let db: Knex;
  let env: Record<string, string>;
  let token: string;
  let accountId: number;
  let api1: { url: string };
  let api2: { url: string };
  let priceSensor: number;
  let f: ReturnType<typeof factories>;

  const spawnRole = async (role: 'api' | 'worker') => {
    const child = startNpm(
      { ...env, FLEXSITE_DATA_DIR: fs.mkdtempSync(path.join(dir, `${role}-`)), FLEXSITE_ROLE: role },
      role === 'worker' ? 'worker' : 'start',
    );
    children.push(child);
    const line = await waitForLine(child, role === 'api' ? /listening on http:\/\/127\.0\.0\.1:\d+/ : /worker running jobs/);
    return { child, url: role === 'api' ? /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1] : '' };
  };
  const call = async (url: string, method: string, urlPath: string, json?: unknown, as = token) => {
    const res = await fetch(url + urlPath, {
      method,
      headers: { Authorization: as, 'Content-Type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads answers of any shape and checks them with assertions, not types
    return { status: res.status, body: (await res.json()) as any };
  };
  const job = (id: string) => db('job').where({ id }).first();
  async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
    const deadline = Date.now() + ms;
    let v = await what();
    while (!ok(v) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      v = await what();
    }
    return v;
  }
  const battery = async (attributes: Record<string, unknown> = {}) =>
    (await f.sensor({ assetId: (await f.asset({ accountId, type: 'battery', attributes })).id })).id;
  const triggerBody = (sensorStart: number) => ({
    start: new Date(sensorStart).toISOString(),
    duration: 'PT6H',
    'flex-model': { 'soc-at-start': 0.5, 'soc-max': 1, 'power-capacity': '1 MW' },
    'flex-context': { 'consumption-price-sensor': priceSensor },
  });

  beforeAll(async () => {
    database = await freshDatabase();
    db = openStore(database.url);
    f = factories(db);
    accountId = (await f.account()).id;
    token = (await f.user({ accountId, roles: ['account-admin'] })).token;
    const market = await f.asset({ accountId, type: 'battery' });
    priceSensor = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
    const prices = Array.from({ length: 48 }, (_, h) => (h % 24 < 6 ? 20 : 80));
    await f.beliefs(priceSensor, start, HOUR, prices, start - 24 * HOUR);
    env = {
      FLEXSITE_DATABASE_URL: database.url,
      FLEXSITE_REDIS_URL: inject('redisUrl'),
      PORT: '0',
      HOST: '127.0.0.1',
      FLEXSITE_LOG_LEVEL: 'info',
      FLEXSITE_SCHEDULER_PLUGINS: schedulerPluginFolder(hold),
      FLEXSITE_LOGIN_ATTEMPTS_PER_EMAIL: '3',
    };
    [api1, api2] = await Promise.all([spawnRole('api'), spawnRole('api')]);
  });
  afterAll(async () => {
    for (const child of children) await stopProcess(child, 'SIGKILL');
    await db?.destroy();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    'shares data and jobs across API processes; another worker takes over the job of a killed one, once',
    { timeout: 300_000 },
    async () => {
      const workerA = await spawnRole('worker');

      // Data posted through one API process is read through the other.
      const meter = await f.sensor({ assetId: (await f.asset({ accountId })).id, unit: 'kW', resolutionMinutes: 15 });
      const posted = await call(api1.url, 'POST', `/api/v3_0/sensors/${meter.id}/data`, {
        values: [1, 2],
        start: '2015-01-02T00:00:00+01:00',
        duration: 'PT30M',
        unit: 'kW',
      });
      expect(posted.status).toBe(200);
      const more = await call(api2.url, 'POST', `/api/v3_0/sensors/${meter.id}/data`, {
        values: [3, 4],
        start: '2015-01-02T00:30:00+01:00',
        duration: 'PT30M',
        unit: 'kW',
      });
      expect(more.status).toBe(200);
      const read = await call(
        api1.url,
        'GET',
        `/api/v3_0/sensors/${meter.id}/data?start=2015-01-02T00:00:00%2B01:00&duration=PT1H&unit=kW`,
      );
      expect(read.body.values).toEqual([1, 2, 3, 4]);

      // Schedules triggered through either API run on the worker and are read through the other.
      const [s1, s2] = [await battery(), await battery()];
      const t1 = await call(api1.url, 'POST', `/api/v3_0/sensors/${s1}/schedules/trigger`, triggerBody(start));
      const t2 = await call(api2.url, 'POST', `/api/v3_0/sensors/${s2}/schedules/trigger`, triggerBody(start));
      expect([t1.status, t2.status]).toEqual([200, 200]);
      // The same trigger through the other process reuses the job.
      const again = await call(api2.url, 'POST', `/api/v3_0/sensors/${s1}/schedules/trigger`, triggerBody(start));
      expect(again.body.schedule).toBe(t1.body.schedule);
      for (const [sensor, id, url] of [
        [s1, t1.body.schedule, api2.url],
        [s2, t2.body.schedule, api1.url],
      ] as const) {
        expect(
          (
            await until(
              () => job(id),
              (j) => j?.status === 'finished',
              60_000,
            )
          )?.status,
        ).toBe('finished');
        const schedule = await call(url, 'GET', `/api/v3_0/sensors/${sensor}/schedules/${id}?duration=PT6H`);
        expect(schedule.status).toBe(200);
        expect(schedule.body.values).toHaveLength(24);
      }
      const listed = await call(api2.url, 'GET', `/api/v3_0/jobs?account_id=${accountId}`);
      expect(listed.status).toBe(200);

      // A job held by worker A (the gated scheduler waits), A is killed, worker B runs it.
      fs.writeFileSync(hold, '');
      const gated = await battery({ 'custom-scheduler': 'held' });
      const pending = call(api1.url, 'POST', `/api/v3_0/sensors/${gated}/schedules/trigger`, triggerBody(start));
      const running = await until(
        () => db('job').where({ sensor_id: gated }).first(),
        (j) => j?.status === 'started',
        30_000,
      );
      expect(running).toMatchObject({ status: 'started', attempts: 1 });
      expect((await pending).status).toBe(200);
      const workerB = await spawnRole('worker');
      await stopProcess(workerA.child, 'SIGKILL');
      fs.rmSync(hold);
      const retried = await until(
        () => job(running.id),
        (j) => j?.status === 'finished' || j?.status === 'failed',
        90_000,
      );
      expect(retried).toMatchObject({ status: 'finished', attempts: 2 });
      const schedule = await call(api2.url, 'GET', `/api/v3_0/sensors/${gated}/schedules/${running.id}?duration=PT6H`);
      expect(schedule.status).toBe(200);

      // Interrupted twice: B takes a gated job, B dies, C runs it again, C dies: it fails as interrupted.
      fs.writeFileSync(hold, '');
      const twice = await battery({ 'custom-scheduler': 'held' });
      void call(api2.url, 'POST', `/api/v3_0/sensors/${twice}/schedules/trigger`, triggerBody(start));
      const first = await until(
        () => db('job').where({ sensor_id: twice }).first(),
        (j) => j?.status === 'started',
        30_000,
      );
      expect(first).toMatchObject({ status: 'started', attempts: 1 });
      const workerC = await spawnRole('worker');
      await stopProcess(workerB.child, 'SIGKILL');
      expect(
        await until(
          () => job(first.id),
          (j) => j?.attempts === 2,
          60_000,
        ),
      ).toMatchObject({ status: 'started', attempts: 2 });
      await spawnRole('worker');
      await stopProcess(workerC.child, 'SIGKILL');
      const interrupted = await until(
        () => job(first.id),
        (j) => j?.status === 'failed',
        60_000,
      );
      expect(interrupted).toMatchObject({ status: 'failed', attempts: 2 });
      expect(interrupted.error).toBe('JobInterrupted: the worker running this job stopped, twice; trigger it again.');

      // Readiness names each dependency.
      const ready = await fetch(`${api1.url}/api/v3_0/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ database_sql: true, database_redis: true, status: 200 });
    },
  );

  it('keeps no user state in an API process: a change through one is seen by the other at once', async () => {
    const { user, token: theirs } = await f.user({ accountId });
    const me = (url: string) => call(url, 'GET', `/api/v3_0/users/${user.id}`, undefined, theirs);
    // Both processes remember the token.
    expect([(await me(api1.url)).status, (await me(api2.url)).status]).toEqual([200, 200]);
    const deactivated = await call(api1.url, 'PATCH', `/api/v3_0/users/${user.id}`, { active: false });
    expect(deactivated.status).toBe(200);
    expect((await me(api2.url)).status).toBe(401);

    const other = await f.user({ accountId });
    expect((await call(api1.url, 'GET', `/api/v3_0/users/${other.user.id}`, undefined, other.token)).status).toBe(200);
    const reset = await call(api2.url, 'PATCH', `/api/v3_0/users/${other.user.id}/password-reset`);
    expect(reset.status).toBe(200);
    expect((await call(api1.url, 'GET', `/api/v3_0/users/${other.user.id}`, undefined, other.token)).status).toBe(401);
  });

  it('counts login attempts across API processes (in Redis)', async () => {
    const { user } = await f.user({ accountId });
    const login = async (url: string, password: string) =>
      (
        await fetch(`${url}/api/requestAuthToken`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: user.email, password }),
        })
      ).status;
    // FLEXSITE_LOGIN_ATTEMPTS_PER_EMAIL is 3 in each process; spread over two they still allow 3.
    expect([await login(api1.url, 'wrong'), await login(api2.url, 'wrong'), await login(api1.url, 'wrong')]).toEqual([401, 401, 401]);
    expect(await login(api2.url, PASSWORD)).toBe(429);
    expect(await login(api1.url, PASSWORD)).toBe(429);
  });
});
