/**
 * Scale-out benchmark: SQLite against PostgreSQL (a throwaway cluster this script starts, as the
 * `postgresql` test project does; skipped when PostgreSQL is not installed). Prints figures, no asserts.
 *
 * 1. A 1-day window read of one sensor (the store's `mostRecentBeliefs`) with 100 k beliefs stored
 *    against 10 M stored (100 sensors of 100 k quarter hours), on SQLite, on PostgreSQL's plain
 *    table, and on the same table range-partitioned by event start (one partition per year): the
 *    measurement that chose the plain layout (docs/scale-out.md).
 * 2. 50 clients posting 4 values each: SQLite (one process), PostgreSQL with 1 and with 2 API
 *    processes behind a client-side round robin.
 * 3. 500 schedules of 192 steps triggered at once through an API process, run by 1 and by 2
 *    worker processes on BullMQ (a throwaway Redis; skipped without redis-server).
 *
 * `npm run bench -- scaleOut` (both backends in one run); BENCH_QUICK=1 stores 1 M instead of
 * 10 M, posts for 5 s and triggers 100 schedules; BENCH_BELIEFS sets the big stores' size;
 * BENCH_ONLY=reads|posting|schedules runs one part.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { dataFolder } from '../server/src/dataFolder.ts';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { mostRecentBeliefs } from '../server/src/store/beliefs.ts';
import { createSensor } from '../server/src/store/write/sensors.ts';
import { getOrCreateSource } from '../server/src/store/write/sources.ts';
import { issueToken } from '../server/src/store/write/tokens.ts';
import { postgresBinDir, redisServerBin, startPostgres, startRedis } from '../test/helpers/backends.ts';
import { startServer } from './_server.ts';
import { benchAsset, benchUser, BENCH_WRITER } from './_fixture.ts';
import { median, percentile, seeded } from './_stats.ts';
import { QUARTER, DAY } from './_time.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const PER_SENSOR = 100_000;
/** BENCH_BELIEFS=100000000 for the 100 M read (about 10 GB of disk per store, 20 min of loading on PostgreSQL). */
const BIG = Number(process.env.BENCH_BELIEFS ?? (QUICK ? 1_000_000 : 10_000_000));
const START = Date.UTC(2020, 0, 1);
const READS = 30;
const CLIENTS = 50;
const LOAD_SECONDS = QUICK ? 5 : 20;
const SCHEDULES = QUICK ? 100 : 500;
/** BENCH_ONLY=reads (or posting, schedules) runs that part alone, as in bench/dataPath.ts. */
const part = (name: 'reads' | 'posting' | 'schedules') => !process.env.BENCH_ONLY || process.env.BENCH_ONLY === name;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-scale-'));
const random = seeded(11);
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

interface Site {
  token: string;
  sourceId: number;
  sensors: number[];
}

/** An account, a user with a token, and `sensors` quarter-hour sensors. */
async function makeSite(db: Knex, sensors: number): Promise<Site> {
  await migrate(db);
  const made = await db.transaction(async (trx) => {
    const user = await benchUser(trx);
    const asset = await benchAsset(trx, user.accountId, 'site');
    const ids = [];
    for (let i = 0; i < sensors; i++) {
      ids.push(
        (
          await createSensor(trx, BENCH_WRITER, {
            name: `s${i}`,
            unit: 'kW',
            event_resolution_ms: QUARTER,
            timezone: 'UTC',
            generic_asset_id: asset.id,
            attributes: {},
          })
        ).id,
      );
    }
    const source = await getOrCreateSource(trx, { name: 'bench', type: 'demo script' });
    return { userId: user.userId, sourceId: source.id, sensors: ids };
  });
  return { token: await issueToken(db, made.userId, 24 * 3600), sourceId: made.sourceId, sensors: made.sensors };
}

/** Fills each sensor with PER_SENSOR quarter hours, generated inside the database (bulk load). */
async function fill(db: Knex, site: Site, engine: 'sqlite' | 'postgresql'): Promise<number> {
  const started = performance.now();
  for (const sensorId of site.sensors) {
    const args = [sensorId, START, QUARTER, site.sourceId, START + QUARTER, QUARTER];
    if (engine === 'postgresql') {
      await db.raw(
        `INSERT INTO timed_belief (sensor_id, event_start, source_id, cumulative_probability, belief_time, event_value)
         SELECT ?, ? + g * ?::bigint, ?, 0.5, ? + g * ?::bigint, random() * 100 FROM generate_series(0, ${PER_SENSOR - 1}) g`,
        args,
      );
    } else {
      await db.raw(
        `INSERT INTO timed_belief (sensor_id, event_start, source_id, cumulative_probability, belief_time, event_value)
         WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i < ${PER_SENSOR - 1})
         SELECT ?, ? + i * ?, ?, 0.5, ? + i * ?, abs(random() % 10000) / 100.0 FROM g`,
        args,
      );
    }
  }
  if (engine === 'postgresql') await db.raw('ANALYZE timed_belief');
  return performance.now() - started;
}

/** Median and p95 of a 1-day window read of the first sensor, at days spread over its data. */
async function windowReads(db: Knex, site: Site): Promise<{ median: number; p95: number }> {
  const days = PER_SENSOR / 96;
  const runs: number[] = [];
  for (let i = 0; i < READS + 3; i++) {
    const startMs = START + Math.floor(random() * (days - 1)) * DAY;
    const t0 = performance.now();
    const got = await mostRecentBeliefs(db, { sensorId: site.sensors[0], startMs, endMs: startMs + DAY });
    if (got.length !== 96) throw new Error(`expected 96 beliefs, read ${got.length}`);
    if (i >= 3) runs.push(performance.now() - t0); // the first reads warm the caches
  }
  return { median: median(runs), p95: percentile(runs, 95) };
}

/** Replaces the belief table with one range-partitioned by event start, a partition per year. */
async function partitionBeliefs(db: Knex): Promise<void> {
  await db.raw('DROP TABLE timed_belief');
  await db.raw(`CREATE TABLE timed_belief (
    sensor_id bigint NOT NULL REFERENCES sensor(id) ON DELETE CASCADE, event_start bigint NOT NULL,
    source_id bigint NOT NULL REFERENCES data_source(id), cumulative_probability double precision NOT NULL,
    belief_time bigint NOT NULL, event_value double precision NOT NULL,
    PRIMARY KEY (sensor_id, event_start, source_id, cumulative_probability, belief_time)
  ) PARTITION BY RANGE (event_start)`);
  for (let y = 2020; y < 2024; y++) {
    await db.raw(
      `CREATE TABLE timed_belief_${y} PARTITION OF timed_belief FOR VALUES FROM (${Date.UTC(y, 0, 1)}) TO (${Date.UTC(y + 1, 0, 1)})`,
    );
  }
  await db.raw('CREATE TABLE timed_belief_other PARTITION OF timed_belief DEFAULT');
}

/** 50 clients posting small uploads to the servers in turn for LOAD_SECONDS. */
async function postingLoad(urls: string[], site: Site): Promise<string> {
  const headers = { Authorization: site.token, 'Content-Type': 'application/json' };
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + LOAD_SECONDS * 1000;
  await Promise.all(
    site.sensors.slice(0, CLIENTS).map(async (sensorId, c) => {
      const url = urls[c % urls.length];
      for (let k = 0; performance.now() < until; k++) {
        const start = new Date(START + k * 3_600_000).toISOString();
        const values = [random(), random(), random(), random()].map((v) => Math.round(v * 10_000) / 100);
        const t0 = performance.now();
        try {
          const res = await fetch(`${url}/api/v3_0/sensors/${sensorId}/data`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ values, start, duration: 'PT1H', unit: 'kW' }),
          });
          await res.arrayBuffer();
          if (res.status === 200) latencies.push(performance.now() - t0);
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return `${(latencies.length / LOAD_SECONDS).toFixed(0).padStart(5)} requests/s  p50 ${fmt(percentile(latencies, 50))}  p99 ${fmt(percentile(latencies, 99))}  errors ${errors}`;
}

async function main() {
  const hasPostgres = postgresBinDir() !== null;
  console.log(
    `${QUICK ? 'quick run: ' : ''}${BIG.toLocaleString('en')} beliefs in the big stores; ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
  );
  const pg = hasPostgres ? await startPostgres() : undefined;
  if (!pg) console.log('PostgreSQL is not installed: SQLite figures only');
  const admin = pg && openStore(pg.url);
  const stores = pg && admin ? postgresStores(pg.url, admin) : undefined;
  try {
    await windowReadsPart(stores);
    await postingPart(stores);
    await schedulesPart(stores);
  } finally {
    await admin?.destroy();
    await pg?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** A store for one measurement, and how to give its disk space back. */
type Opened = { store: Knex; drop: () => Promise<void> };

/** New databases on the bench's PostgreSQL: by URL, or opened with a way to drop them. */
interface PostgresStores {
  database(): Promise<string>;
  open(): Promise<Opened>;
}

function postgresStores(pgUrl: string, admin: Knex): PostgresStores {
  let db = 0;
  const database = async () => {
    const name = `bench_${db++}`;
    await admin.raw(`CREATE DATABASE ${name}`);
    return Object.assign(new URL(pgUrl), { pathname: `/${name}` }).href;
  };
  return {
    database,
    open: async () => {
      const url = await database();
      const name = new URL(url).pathname.slice(1);
      return { store: openStore(url), drop: async () => void (await admin.raw(`DROP DATABASE ${name}`)) };
    },
  };
}

const sqliteStore = async (): Promise<Opened> => {
  const dir = fs.mkdtempSync(path.join(tmp, 'sqlite-'));
  return { store: openStore(dataFolder(dir).store), drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
};

/** 1. Window reads over a small and a big store, per layout. */
async function windowReadsPart(pg: PostgresStores | undefined) {
  if (part('reads')) console.log('\n1. 1-day window read of one sensor (96 of its 100,000 beliefs), median and p95 of 30 reads');
  const layouts: [string, 'sqlite' | 'postgresql', () => Promise<Opened>, boolean][] = [
    ['SQLite', 'sqlite', sqliteStore, false],
    ...(pg
      ? ([
          ['PostgreSQL, plain table', 'postgresql', pg.open, false],
          // The layout was chosen at 10 M; bigger runs measure the chosen one only (disk and time).
          ...(BIG <= 10_000_000 ? [['PostgreSQL, partitioned by year', 'postgresql', pg.open, true] as const] : []),
        ] as const)
      : []),
  ].map((l) => [...l] as [string, 'sqlite' | 'postgresql', () => Promise<Opened>, boolean]);
  for (const [label, engine, open, partitioned] of part('reads') ? layouts : []) {
    const figures: string[] = [];
    const medians: number[] = [];
    for (const stored of [PER_SENSOR, BIG]) {
      const { store, drop } = await open();
      try {
        const site = await makeSite(store, stored / PER_SENSOR);
        if (partitioned) await partitionBeliefs(store);
        const loadMs = await fill(store, site, engine);
        const r = await windowReads(store, site);
        medians.push(r.median);
        figures.push(
          `${stored.toLocaleString('en').padStart(10)} stored: ${fmt(r.median)} (p95 ${fmt(r.p95)}; loaded at ${Math.round((stored / loadMs) * 1000).toLocaleString('en')}/s)`,
        );
      } finally {
        await store.destroy();
        await drop();
      }
    }
    console.log(`   ${label}\n     ${figures.join('\n     ')}\n     ratio ${(medians[1] / medians[0]).toFixed(2)} (target ≤ 2)`);
  }
}

/** 2. Many clients posting, on SQLite and on PostgreSQL with one and two processes. */
async function postingPart(pg: PostgresStores | undefined) {
  if (part('posting')) {
    console.log(`\n2. ${CLIENTS} clients posting 4 values each for ${LOAD_SECONDS} s`);
    const sqliteDir = fs.mkdtempSync(path.join(tmp, 'post-sqlite-'));
    const sqlite = openStore(dataFolder(sqliteDir).store);
    const sqliteSite = await makeSite(sqlite, CLIENTS);
    await sqlite.destroy();
    const one = await startServer(sqliteDir);
    try {
      console.log(`   SQLite, 1 process          ${await postingLoad([one.url], sqliteSite)}`);
    } finally {
      await one.stop();
    }
    if (pg) {
      for (const processes of [1, 2]) {
        const url = await pg.database();
        const store = openStore(url);
        const site = await makeSite(store, CLIENTS);
        await store.destroy();
        const servers = [];
        try {
          for (let i = 0; i < processes; i++) {
            servers.push(await startServer(fs.mkdtempSync(path.join(tmp, 'post-pg-')), [], { FLEXSITE_DATABASE_URL: url }));
          }
          console.log(
            `   PostgreSQL, ${processes} process${processes > 1 ? 'es' : '  '}   ${await postingLoad(
              servers.map((s) => s.url),
              site,
            )}`,
          );
        } finally {
          for (const s of servers) await s.stop();
        }
      }
    }
  }
}

/** 3. Many schedules at once, with one and two worker processes (PostgreSQL and BullMQ). */
async function schedulesPart(pg: PostgresStores | undefined) {
  const bullmq = pg !== undefined && redisServerBin() !== null;
  if (part('schedules'))
    console.log(`\n3. ${SCHEDULES} schedules of 192 steps triggered at once (1 API process), time until all are finished`);
  if (part('schedules') && !bullmq) console.log('   skipped: needs PostgreSQL and redis-server');
  for (const workers of part('schedules') && bullmq ? [1, 2] : []) {
    const redis = await startRedis();
    const url = await pg!.database();
    const store = openStore(url);
    const site = await makeSite(store, SCHEDULES + 1);
    const [priceSensor, ...batteries] = site.sensors;
    await store('sensor').where({ id: priceSensor }).update({ unit: 'EUR/MWh', event_resolution_ms: 3_600_000 });
    const prices = Array.from({ length: 48 }, (_, h) => [
      priceSensor,
      START + h * 3_600_000,
      site.sourceId,
      0.5,
      START - DAY,
      20 + ((h * 37) % 90),
    ]);
    await store('timed_belief').insert(
      prices.map(([sensor_id, event_start, source_id, cumulative_probability, belief_time, event_value]) => ({
        sensor_id,
        event_start,
        source_id,
        cumulative_probability,
        belief_time,
        event_value,
      })),
    );
    const env = { FLEXSITE_DATABASE_URL: url, FLEXSITE_REDIS_URL: redis.url };
    const processes: { stop: () => Promise<void> }[] = [];
    try {
      const api = await startServer(fs.mkdtempSync(path.join(tmp, 'api-')), [], { ...env, FLEXSITE_ROLE: 'api' });
      processes.push(api);
      for (let w = 0; w < workers; w++) {
        processes.push(await startServer(fs.mkdtempSync(path.join(tmp, 'worker-')), [], { ...env, FLEXSITE_ROLE: 'worker' }));
      }
      const started = performance.now();
      const headers = { Authorization: site.token, 'Content-Type': 'application/json' };
      const body = JSON.stringify({
        start: new Date(START).toISOString(),
        duration: 'PT48H',
        'flex-model': { 'soc-at-start': 0.5, 'soc-min': 0.1, 'soc-max': 1, 'power-capacity': '0.5 MW' },
        'flex-context': { 'consumption-price-sensor': priceSensor },
      });
      const triggered = await Promise.all(
        batteries.map(async (sensorId) => {
          const res = await fetch(`${api.url}/api/v3_0/sensors/${sensorId}/schedules/trigger`, { method: 'POST', headers, body });
          if (res.status !== 200) throw new Error(`trigger answered ${res.status}: ${await res.text()}`);
          return ((await res.json()) as { schedule: string }).schedule;
        }),
      );
      const triggerMs = performance.now() - started;
      for (;;) {
        const open = Number((await store('job').whereIn('id', triggered).whereIn('status', ['queued', 'started']).count({ n: '*' }))[0].n);
        if (open === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const doneMs = performance.now() - started;
      const failed = Number((await store('job').whereIn('id', triggered).where({ status: 'failed' }).count({ n: '*' }))[0].n);
      console.log(
        `   ${workers} worker process${workers > 1 ? 'es' : '  '}  all triggered in ${(triggerMs / 1000).toFixed(1)} s, all finished after ${(doneMs / 1000).toFixed(1)} s ` +
          `(${((SCHEDULES / doneMs) * 1000).toFixed(1)} schedules/s), failed ${failed}`,
      );
    } finally {
      for (const p of processes) await p.stop();
      await store.destroy();
      await redis.stop();
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
});
