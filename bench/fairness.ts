/**
 * Limits and fairness (issue 20), two figures:
 *  1. `/api/v3_0/health/ready` p99 while 20 once-a-minute automations catch up 35 days of
 *     downtime (the server's start-up tick; target ≤ 50 ms). The automations forecast nothing and
 *     schedule nothing, so what is measured is the catch-up itself, which once walked every due time.
 *  2. How long a one-year hourly forecast of one account (365 daily cycles, the most
 *     FLEXSITE_MAX_FORECAST_CYCLES allows by default) delays another account's 24-hour schedules
 *     queued behind it (queued → started), against the forecast's cycle under way when each was
 *     queued (target: at most that cycle), on SQLite with the in-process queue and, where
 *     installed, on PostgreSQL with BullMQ.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { dataFolder } from '../server/src/dataFolder.ts';
import { hashPassword } from '../worker/src/tasks.ts';
import { createAccount } from '../server/src/store/write/accounts.ts';
import { createUser } from '../server/src/store/write/users.ts';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { createAutomation } from '../server/src/store/write/automations.ts';
import { recordBeliefs } from '../server/src/store/write/beliefs.ts';
import { createSensor } from '../server/src/store/write/sensors.ts';
import { getOrCreateSource } from '../server/src/store/write/sources.ts';
import { householdLoad } from './_forecastSeries.ts';
import { BENCH_PASSWORD, benchAsset, benchUser, BENCH_WRITER } from './_fixture.ts';
import { startServer } from './_server.ts';
import { percentile } from './_stats.ts';
import { postgresBinDir, redisServerBin, startPostgres, startRedis } from '../test/helpers/backends.ts';
import { HOUR, DAY } from './_time.ts';

const AUTOMATIONS = 20;
const PROBE_MS = 10_000;

async function catchUp(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-catchup-'));
  const db = openStore(dataFolder(dir).store);
  await migrate(db);
  const now = Date.now();
  await db.transaction(async (trx) => {
    const { accountId, userId } = await benchUser(trx);
    const site = await benchAsset(trx, accountId, 'site');
    for (let i = 0; i < AUTOMATIONS; i++) {
      const a = await createAutomation(trx, BENCH_WRITER, {
        asset: site,
        ownerId: userId,
        nowMs: now - 35 * DAY,
        props: {
          name: `every minute ${i}`,
          cron: '* * * * *',
          timezone: 'UTC',
          forecastSensorIds: [],
          scheduleSensorId: null,
          horizon: 'P1D',
          enabled: true,
        },
      });
      // Down for 35 days: the last run was queued just before.
      await trx('automation')
        .where({ id: a.id })
        .update({ last_due: now - 35 * DAY });
    }
  });
  await db.destroy();
  const server = await startServer(dir);
  try {
    const times: number[] = [];
    const until = Date.now() + PROBE_MS;
    while (Date.now() < until) {
      const started = performance.now();
      const res = await fetch(`${server.url}/api/v3_0/health/ready`);
      await res.arrayBuffer();
      times.push(performance.now() - started);
    }
    console.log(
      `catch-up of ${AUTOMATIONS} every-minute automations after 35 days: /health/ready p50 ${percentile(times, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(times, 99).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms over ${times.length} requests (target p99 ≤ 50 ms)`,
    );
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A second account with a plain user, beside the bench's own. */
async function otherAccountUser(trx: Knex.Transaction, name: string) {
  const account = await createAccount(trx, BENCH_WRITER, { name, roles: [], consultancyAccountId: null });
  const passwordHash = await hashPassword(BENCH_PASSWORD);
  await createUser(trx, BENCH_WRITER, { email: `${name}@example.com`, username: name, passwordHash, accountId: account.id, roleIds: [] });
  return { accountId: account.id };
}

/** Where the fairness measurement runs: SQLite with the in-process queue, or PostgreSQL with BullMQ on Redis. */
interface Backend {
  name: string;
  /** The store to prepare for a server over data folder `dir`, and the server settings that point at it. */
  open(dir: string): Promise<{ target: string; env: Record<string, string>; drop: () => Promise<void> }>;
}

const sqlite: Backend = {
  name: 'SQLite, in-process queue',
  open: async (dir) => ({ target: dataFolder(dir).store, env: {}, drop: async () => {} }),
};

/** PostgreSQL and Redis of their own, when installed (as test/helpers/backends.ts starts them). */
async function postgresBullmq(): Promise<(Backend & { stop: () => Promise<void> }) | null> {
  if (postgresBinDir() === null || redisServerBin() === null) return null;
  const [pg, redis] = [await startPostgres(), await startRedis()];
  const admin = openStore(pg.url);
  return {
    name: 'PostgreSQL, BullMQ on Redis',
    open: async () => {
      await admin.raw('CREATE DATABASE bench_fairness');
      const target = Object.assign(new URL(pg.url), { pathname: '/bench_fairness' }).href;
      return {
        target,
        env: { FLEXSITE_DATABASE_URL: target, FLEXSITE_REDIS_URL: redis.url },
        drop: async () => void (await admin.raw('DROP DATABASE bench_fairness')),
      };
    },
    stop: async () => {
      await admin.destroy();
      await redis.stop();
      await pg.stop();
    },
  };
}

/** Schedules of the other account, queued one after another while the forecast runs. */
const SAMPLES = 5;
const SAMPLE_EVERY_MS = 1500;

async function forecastBeforeSchedules(backend: Backend): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-fairness-'));
  const { target, env, drop } = await backend.open(dir);
  const db = openStore(target);
  await migrate(db);
  // A year back, with measurements through it: every daily cycle finds history known at its own
  // start (a forecast without recent history fails, issue 22).
  const origin = Math.floor(Date.now() / DAY) * DAY - 366 * DAY;
  const ids = await seed(db, origin);
  await db.destroy();
  const server = await startServer(dir, [], env);
  const store = openStore(target);
  try {
    const { forecast, schedules } = await forecastWithSchedules({ url: server.url, store, ids, origin });
    report(backend.name, forecast, schedules);
  } finally {
    await store.destroy();
    await server.stop();
    await drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One account's household load with a year of measurements, another account's battery. */
async function seed(db: Knex, origin: number): Promise<{ load: number; power: number }> {
  return db.transaction(async (trx) => {
    const a = await benchUser(trx, [], 'forecaster@example.com');
    const b = await otherAccountUser(trx, 'scheduler');
    const source = await getOrCreateSource(trx, { name: 'bench', type: 'demo script' });
    const building = await benchAsset(trx, a.accountId, 'building', 'building');
    const load = await createSensor(trx, BENCH_WRITER, {
      name: 'load',
      unit: 'kW',
      event_resolution_ms: HOUR,
      timezone: 'UTC',
      generic_asset_id: building.id,
      attributes: {},
    });
    const start = origin - 35 * DAY;
    const values = householdLoad(start, HOUR, (35 + 366) * 24).values;
    const measured = (i: number) => ({ eventStartMs: start + i * HOUR, beliefTimeMs: start + (i + 1) * HOUR });
    await recordBeliefs(
      trx,
      values.map((value, i) => ({ sensorId: load.id, ...measured(i), sourceId: source.id, value })),
      { allowOverwrite: false },
    );
    const battery = await benchAsset(trx, b.accountId, 'battery');
    const power = await createSensor(trx, BENCH_WRITER, {
      name: 'battery',
      unit: 'MW',
      event_resolution_ms: 15 * 60_000,
      timezone: 'UTC',
      generic_asset_id: battery.id,
      attributes: { max_soc_in_mwh: 1, capacity_in_mw: 1 },
    });
    return { load: load.id, power: power.id };
  });
}

type JobRow = { status: string; created_at: number; started_at: number; finished_at: number; result: string | null };

/**
 * Triggers the forecast of a year, then the other account's schedules while it runs.
 * @returns the forecast's job and the schedules' jobs once all have ended.
 */
async function forecastWithSchedules({
  url,
  store,
  ids,
  origin,
}: {
  url: string;
  store: Knex;
  ids: { load: number; power: number };
  origin: number;
}): Promise<{ forecast: JobRow; schedules: JobRow[] }> {
  const token = async (email: string) =>
    (
      (await (
        await fetch(`${url}/api/requestAuthToken`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: BENCH_PASSWORD }),
        })
      ).json()) as { auth_token: string }
    ).auth_token;
  const post = async (tok: string, path: string, json: unknown) =>
    (await (
      await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', Authorization: tok },
        body: JSON.stringify(json),
      })
    ).json()) as Record<string, string>;
  type Row = { status: string; created_at: number; started_at: number | null; finished_at: number | null; result: string | null };
  const job = async (id: string): Promise<JobRow> => {
    const row = (await store('job').where({ id }).first<Row>())!;
    return { ...row, created_at: Number(row.created_at), started_at: Number(row.started_at), finished_at: Number(row.finished_at) };
  };
  const ended = async (id: string) => {
    for (;;) {
      const j = await job(id);
      if (j.status === 'finished' || j.status === 'failed') return j;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const [ta, tb] = [await token('forecaster@example.com'), await token('scheduler@example.com')];
  const forecast = await post(ta, `/api/v3_0/sensors/${ids.load}/forecasts/trigger`, {
    start: new Date(origin).toISOString(),
    duration: 'P365D',
    'max-forecast-horizon': 'P1D',
  });
  while ((await job(forecast.job)).status === 'queued') await new Promise((r) => setTimeout(r, 20));
  // Let the forecast get going before the other account asks, then ask every so often.
  const scheduleIds: string[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    await new Promise((r) => setTimeout(r, i === 0 ? 2000 : SAMPLE_EVERY_MS));
    if ((await job(forecast.job)).status !== 'started') break;
    const schedule = await post(tb, `/api/v3_0/sensors/${ids.power}/schedules/trigger`, {
      start: new Date(origin + i * DAY).toISOString(),
      duration: 'PT24H',
      'flex-model': { 'soc-at-start': 0 },
      'flex-context': { 'consumption-price': '50 EUR/MWh' },
    });
    scheduleIds.push(schedule.schedule);
  }
  const schedules = [];
  for (const id of scheduleIds) schedules.push(await ended(id));
  return { forecast: await ended(forecast.job), schedules };
}

/** Prints how long each schedule waited against the forecast's cycle it waited for. */
function report(backendName: string, f: JobRow, schedules: JobRow[]): void {
  type Cycle = { ran_at_ms: number; ran_ms: number };
  const cycles = (JSON.parse(f.result ?? '{}') as { cycles?: Cycle[] }).cycles ?? [];
  const cycleMs = (f.finished_at - f.started_at) / Math.max(1, cycles.length);
  const samples = schedules.map((s) => {
    // The cycle it waited for: the one under way when it was queued, or, queued just after the
    // forecast looked for waiting jobs, the one that began then.
    const under = cycles.find((c) => s.created_at < c.ran_at_ms + c.ran_ms);
    const delay = s.started_at - s.created_at;
    return { delay, cycle: under?.ran_ms ?? null, status: s.status };
  });
  console.log(
    `${backendName}: one-year hourly forecast (${cycles.length} cycles, ${((f.finished_at - f.started_at) / 1000).toFixed(1)} s, ` +
      `mean cycle ${cycleMs.toFixed(0)} ms, longest ${Math.max(...cycles.map((c) => c.ran_ms))} ms; load average ${os.loadavg()[0].toFixed(1)})`,
  );
  for (const [i, x] of samples.entries()) {
    console.log(
      `  schedule ${i + 1} of the other account: queued → started ${x.delay} ms, ` +
        `the forecast's cycle it waited for ${x.cycle === null ? 'none (after the last)' : `${x.cycle} ms`}` +
        `${x.cycle !== null && x.delay > x.cycle ? ' — LONGER than that cycle' : ''} (${x.status})`,
    );
  }
  const within = samples.filter((x) => x.cycle === null || x.delay <= x.cycle).length;
  // Beyond the cycle itself a schedule waits for the hand-over: the turn check and its claim.
  const excess = Math.max(0, ...samples.map((x) => (x.cycle === null ? 0 : x.delay - x.cycle)));
  console.log(
    `  target: each delay at most the cycle it waited for; ${within} of ${samples.length} within, the largest excess ${excess} ms`,
  );
}

await catchUp();
await forecastBeforeSchedules(sqlite);
const shared = await postgresBullmq();
if (shared) {
  try {
    await forecastBeforeSchedules(shared);
  } finally {
    await shared.stop();
  }
} else console.log('PostgreSQL or redis-server not installed: the BullMQ figures are skipped');
