/**
 * Sensor data benchmark: the server runs in its own process on 127.0.0.1 over a fresh data
 * folder; this script prints figures, no asserts.
 *
 * 1. One upload of 35,040 values (a year at 15 minutes) over HTTP, against inserting the same
 *    rows straight into SQLite in one transaction (same file, same table).
 * 2. Downloads of that year at PT15M and PT1H.
 * 3. Downloads from a sensor holding 100 revisions per day of a 2-day forecast (7 million beliefs)
 *    for windows of a day up to a year: the time follows the beliefs in the window; and one
 *    week from a sensor holding a week against one holding ten years.
 * 4. 50 concurrent clients posting small uploads for 30 seconds.
 *
 * Run with `npx tsx bench/data.ts` (BENCH_QUICK=1: fewer revisions and a 5-second load test).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { dataFolder } from '../server/src/dataFolder.ts';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { createSensor } from '../server/src/store/write/sensors.ts';
import { getOrCreateSource } from '../server/src/store/write/sources.ts';
import { issueToken } from '../server/src/store/write/tokens.ts';
import { startServer } from './_server.ts';
import { benchAsset, benchUser, BENCH_WRITER } from './_fixture.ts';
import { median, percentile, seeded } from './_stats.ts';
import { DAY, QUARTER, YEAR_START, YEAR_VALUES } from './_time.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const RUNS = 5;
const REVISIONS_PER_DAY = 100;
const REVISION_DAYS = QUICK ? 30 : 365;
const FORECAST_MS = 2 * DAY;
const CLIENTS = 50;
const LOAD_SECONDS = QUICK ? 5 : 30;
const LOAD_MAX_REQUESTS = 500_000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-'));
const storeFile = dataFolder(dir).store;

const random = seeded(7);
const value = () => Math.round(random() * 100_000) / 100;

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString('en')}/s`;
const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');

/** Accounts, a user with a token, sensors and the forecast revisions, written before the server starts. */
async function prepare() {
  const db = openStore(storeFile);
  await migrate(db);
  const made = await db.transaction(async (trx) => {
    const user = await benchUser(trx, []);
    const asset = await benchAsset(trx, user.accountId, 'site');
    const sensor = (name: string) =>
      createSensor(trx, BENCH_WRITER, {
        name,
        unit: 'kW',
        event_resolution_ms: QUARTER,
        timezone: 'Europe/Amsterdam',
        generic_asset_id: asset.id,
        attributes: {},
      });
    const uploads = [];
    for (let i = 0; i < RUNS; i++) uploads.push((await sensor(`upload ${i}`)).id);
    const raws = [];
    for (let i = 0; i < RUNS; i++) raws.push((await sensor(`raw ${i}`)).id);
    const clients = [];
    for (let i = 0; i < CLIENTS; i++) clients.push((await sensor(`client ${i}`)).id);
    const forecast = (await sensor('forecast')).id;
    const week = (await sensor('a week')).id;
    const decade = (await sensor('ten years')).id;
    const forecaster = await getOrCreateSource(trx, { name: 'bench', type: 'forecaster', model: 'revisions', version: '1' });
    const userSource = await getOrCreateSource(trx, { name: 'bench', type: 'user', userId: user.userId, accountId: user.accountId });
    return { user, uploads, raws, clients, forecast, week, decade, forecasterId: forecaster.id, userSourceId: userSource.id };
  });
  // One sensor holding a week, one holding ten years of quarter hours, ending at the same time.
  for (const [sensorId, days] of [
    [made.week, 7],
    [made.decade, 3652],
  ]) {
    await db.transaction(async (trx) => {
      const first = YEAR_START - (days - 7) * DAY;
      for (let k = 0; k < (days * DAY) / QUARTER; k += 10_000) {
        const n = Math.min(10_000, (days * DAY) / QUARTER - k);
        const triples = Array.from({ length: n }, (_, i) => [first + (k + i) * QUARTER, first + (k + i + 1) * QUARTER, value()]).flat();
        await trx.raw(
          `INSERT INTO timed_belief (sensor_id, event_start, source_id, cumulative_probability, belief_time, event_value)
           SELECT ?, column1, ?, 0.5, column2, column3 FROM (VALUES ${new Array<string>(n).fill('(?, ?, ?)').join(', ')})`,
          [sensorId, made.userSourceId, ...triples],
        );
      }
    });
  }
  const token = await issueToken(db, made.user.userId, 24 * 3600);

  // Revision j is made at T0 + j · 14.4 min and covers the 2 days from the next quarter hour.
  // Written event by event, in key order, the way a bulk load would.
  const started = performance.now();
  const step = DAY / REVISIONS_PER_DAY;
  const revisions = REVISION_DAYS * REVISIONS_PER_DAY;
  const coverStart = (j: number) => Math.ceil((YEAR_START + j * step) / QUARTER) * QUARTER;
  const lastEvent = coverStart(revisions - 1) + FORECAST_MS;
  let total = 0;
  let lo = 0;
  let hi = 0;
  let batch: number[] = [];
  const flush = async (trx: typeof db) => {
    for (let i = 0; i < batch.length; i += 30_000) {
      const chunk = batch.slice(i, i + 30_000);
      const rows = new Array<string>(chunk.length / 3).fill('(?, ?, ?)').join(', ');
      await trx.raw(
        `INSERT INTO timed_belief (sensor_id, event_start, source_id, cumulative_probability, belief_time, event_value)
         SELECT ?, column1, ?, 0.5, column2, column3 FROM (VALUES ${rows})`,
        [made.forecast, made.forecasterId, ...chunk],
      );
    }
    batch = [];
  };
  await db.transaction(async (trx) => {
    for (let t = coverStart(0); t < lastEvent; t += QUARTER) {
      while (hi < revisions && coverStart(hi) <= t) hi++;
      while (lo < hi && coverStart(lo) + FORECAST_MS <= t) lo++;
      for (let j = lo; j < hi; j++) batch.push(t, YEAR_START + j * step, value());
      total += hi - lo;
      if (batch.length >= 1_500_000) await flush(trx);
    }
    await flush(trx);
    await trx('sensor_source').insert({ sensor_id: made.forecast, source_id: made.forecasterId });
  });
  const setupMs = performance.now() - started;
  await db.destroy();
  return { ...made, token, revisionBeliefs: total, setupMs };
}

/** Inserts rows with all six columns bound, in multi-row statements inside one transaction. */
async function rawInsert(rows: number[][]): Promise<number> {
  const conn = await new Promise<sqlite3.Database>((resolve, reject) => {
    const c = new sqlite3.Database(storeFile, (err) => (err ? reject(err) : resolve(c)));
  });
  const run = (sql: string, params: unknown[] = []) =>
    new Promise<void>((resolve, reject) => conn.run(sql, params, (err) => (err ? reject(err) : resolve())));
  await run('PRAGMA synchronous = NORMAL');
  await run('PRAGMA foreign_keys = ON');
  await run('PRAGMA busy_timeout = 10000');
  const started = performance.now();
  await run('BEGIN');
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000);
    await run(
      `INSERT INTO timed_belief (sensor_id, event_start, source_id, cumulative_probability, belief_time, event_value) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      chunk.flat(),
    );
  }
  await run('COMMIT');
  const ms = performance.now() - started;
  await new Promise((resolve) => conn.close(resolve));
  return ms;
}

async function timed(fn: () => Promise<Response>): Promise<{ ms: number; status: number; body: { values?: unknown[] } }> {
  const started = performance.now();
  const res = await fn();
  const body = (await res.json()) as { values?: unknown[] };
  return { ms: performance.now() - started, status: res.status, body };
}

async function main() {
  console.log(`data folder ${dir}${QUICK ? ' (quick run)' : ''}`);
  const fx = await prepare();
  console.log(
    `setup: ${fx.revisionBeliefs.toLocaleString('en')} forecast beliefs (${REVISION_DAYS} days × ${REVISIONS_PER_DAY} revisions × 2 days) ` +
      `bulk-loaded in ${(fx.setupMs / 1000).toFixed(1)} s (${rate(fx.revisionBeliefs, fx.setupMs)})`,
  );
  const { url, stop } = await startServer(dir);
  const at: Served = { url, fx, headers: { Authorization: fx.token, 'Content-Type': 'application/json' } };
  try {
    await uploadYear(at);
    await downloadYear(at);
    await forecastWindows(at);
    await manyClients(at);
  } finally {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The running server, its fixture and the headers of its user. */
interface Served {
  url: string;
  fx: Awaited<ReturnType<typeof prepare>>;
  headers: Record<string, string>;
}

/** 1. A year of quarter hours in one upload, against the same rows inserted straight. */
async function uploadYear({ url, fx, headers }: Served) {
  const values = Array.from({ length: YEAR_VALUES }, value);
  const body = JSON.stringify({ values, start: '2023-01-01T00:00:00+01:00', duration: 'PT8760H', unit: 'kW', horizon: 'PT0H' });
  const uploadMs: number[] = [];
  const rawMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await timed(() => fetch(`${url}/api/v3_0/sensors/${fx.uploads[i]}/data`, { method: 'POST', headers, body }));
    if (r.status !== 200) throw new Error(`upload answered ${r.status}: ${JSON.stringify(r.body)}`);
    uploadMs.push(r.ms);
    const start = Date.parse('2022-12-31T23:00:00Z');
    const rows = values.map((v, k) => [fx.raws[i], start + k * QUARTER, fx.userSourceId, 0.5, start + (k + 1) * QUARTER, v]);
    rawMs.push(await rawInsert(rows));
  }
  const up = median(uploadMs);
  const raw = median(rawMs);
  console.log('\n1. upload of 35,040 values (median of 5; each into a fresh sensor)');
  console.log(
    `   HTTP upload       ${fmt(up)}  ${rate(YEAR_VALUES, up)}   [${uploadMs.map((m) => m.toFixed(0)).join(', ')}]  target < 500 ms: ${mark(up < 500)}`,
  );
  console.log(`   straight INSERT   ${fmt(raw)}  ${rate(YEAR_VALUES, raw)}   [${rawMs.map((m) => m.toFixed(0)).join(', ')}]`);
  console.log(`   upload rate / insert rate = ${(raw / up).toFixed(2)}  target ≥ 0.5: ${mark(raw / up >= 0.5)}`);
}

/** 2. Downloads of that year. */
async function downloadYear({ url, fx, headers }: Served) {
  console.log('\n2. download of that year (median of 5)');
  for (const resolution of ['PT15M', 'PT1H']) {
    const q = new URLSearchParams({ start: '2023-01-01T00:00:00+01:00', duration: 'PT8760H', unit: 'kW', resolution });
    const runs = [];
    let count = 0;
    for (let i = 0; i < RUNS; i++) {
      const r = await timed(() => fetch(`${url}/api/v3_0/sensors/${fx.uploads[0]}/data?${q}`, { headers }));
      count = r.body.values?.length ?? 0;
      runs.push(r.ms);
    }
    console.log(`   ${resolution.padEnd(6)} ${count} values  ${fmt(median(runs))}  target < 200 ms: ${mark(median(runs) < 200)}`);
  }
}

/** 3. Windows of the forecast sensor: time per belief in the window stays flat. */
async function forecastWindows({ url, fx, headers }: Served) {
  const tableSize = fx.revisionBeliefs + 2 * RUNS * YEAR_VALUES + (3652 + 7) * 96;
  console.log(`\n3. download from the forecast sensor (table: ${tableSize.toLocaleString('en')} beliefs; median of 3)`);
  const windows = [['1 day', 'PT24H'], ['1 week', 'PT168H'], ['30 days', 'PT720H'], ...(QUICK ? [] : [['1 year', 'PT8760H']])];
  for (const [label, duration] of windows) {
    const startMs = YEAR_START + 3 * DAY;
    const durationMs = Number(/PT(\d+)H/.exec(duration)![1]) * 3_600_000;
    const inWindow = (Math.min(durationMs, REVISION_DAYS * DAY - 3 * DAY) / QUARTER) * 2 * REVISIONS_PER_DAY;
    const q = new URLSearchParams({ start: new Date(startMs).toISOString(), duration, unit: 'kW', resolution: 'PT15M' });
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push((await timed(() => fetch(`${url}/api/v3_0/sensors/${fx.forecast}/data?${q}`, { headers }))).ms);
    const ms = median(runs);
    console.log(
      `   ${label.padEnd(8)} ~${Math.round(inWindow).toLocaleString('en').padStart(10)} beliefs in window  ${fmt(ms).padStart(10)}  ${((ms * 1000) / inWindow).toFixed(2)} µs per belief`,
    );
  }
  // The same week from a sensor holding only that week and from one holding ten years.
  const weekQ = new URLSearchParams({ start: new Date(YEAR_START).toISOString(), duration: 'PT168H', unit: 'kW' });
  for (const [label, sensorId] of [
    ['holding one week', fx.week],
    ['holding ten years', fx.decade],
  ] as const) {
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push((await timed(() => fetch(`${url}/api/v3_0/sensors/${sensorId}/data?${weekQ}`, { headers }))).ms);
    console.log(`   one week (672 values) from a sensor ${label.padEnd(17)} ${fmt(median(runs))}`);
  }
}

/** 4. Many devices posting a few values each. */
async function manyClients({ url, fx, headers }: Served) {
  console.log(`\n4. ${CLIENTS} clients posting 4 values each, for ${LOAD_SECONDS} s`);
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + LOAD_SECONDS * 1000;
  await Promise.all(
    fx.clients.map(async (sensorId) => {
      for (let k = 0; performance.now() < until && latencies.length + errors < LOAD_MAX_REQUESTS; k++) {
        const start = new Date(YEAR_START + k * 3_600_000).toISOString();
        const payload = JSON.stringify({ values: [value(), value(), value(), value()], start, duration: 'PT1H', unit: 'kW' });
        try {
          const r = await timed(() => fetch(`${url}/api/v3_0/sensors/${sensorId}/data`, { method: 'POST', headers, body: payload }));
          if (r.status === 200) latencies.push(r.ms);
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  console.log(
    `   ${latencies.length.toLocaleString('en')} requests, ${(latencies.length / LOAD_SECONDS).toFixed(0)} requests/s, ` +
      `p50 ${fmt(percentile(latencies, 50))}, p99 ${fmt(percentile(latencies, 99))}, errors ${errors}: ${mark(errors === 0)}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(1);
});
