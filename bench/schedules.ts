/**
 * Scheduling benchmark: trigger-to-result wall time for one battery with prices and one
 * inflexible load at 96, 192, 672 and 2520 steps, against the solver's own time for the same
 * model in the same run; then the readiness endpoint's latency while four long schedules run.
 * The server runs as its own process on loopback, as in production.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { recordBeliefs } from '../server/src/store/write/beliefs.ts';
import { createSensor } from '../server/src/store/write/sensors.ts';
import { getOrCreateSource } from '../server/src/store/write/sources.ts';
import { issueToken } from '../server/src/store/write/tokens.ts';
import { benchAsset, benchScheduleBody, benchUser, BENCH_WRITER } from './_fixture.ts';
import { startServer } from './_server.ts';
import { median, percentile } from './_stats.ts';

const STEP_MS = 15 * 60_000;
const START = Date.parse('2026-01-05T00:00:00Z');
const HORIZON_STEPS = 2520;

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

async function prepare(dataDir: string) {
  const db = openStore(path.join(dataDir, 'flexsite.sqlite'));
  await migrate(db);
  const ids = await db.transaction(async (trx) => {
    const user = await benchUser(trx);
    const asset = await benchAsset(trx, user.accountId, 'site');
    const sensor = (props: { name: string; unit: string; minutes: number; attributes?: Record<string, unknown> }) =>
      createSensor(trx, BENCH_WRITER, {
        name: props.name,
        unit: props.unit,
        event_resolution_ms: props.minutes * 60_000,
        timezone: 'UTC',
        generic_asset_id: asset.id,
        attributes: props.attributes ?? {},
      });
    const battery = await sensor({ name: 'battery', unit: 'kW', minutes: 15 });
    const prices = await sensor({ name: 'prices', unit: 'EUR/MWh', minutes: 60 });
    const load = await sensor({ name: 'load', unit: 'kW', minutes: 15, attributes: { consumption_is_positive: true } });
    const source = await getOrCreateSource(trx, { name: 'bench', type: 'demo script' });
    const hours = HORIZON_STEPS / 4;
    // Deterministic daily price shape with negative midday prices on some days.
    const priceRows = Array.from({ length: hours }, (_, h) => ({
      sensorId: prices.id,
      eventStartMs: START + h * 3600_000,
      beliefTimeMs: START - 86_400_000,
      sourceId: source.id,
      value: 180 + 70 * Math.sin((((h % 24) - 6) / 24) * 2 * Math.PI) - ((h / 24) % 3 === 0 && h % 24 > 10 && h % 24 < 15 ? 260 : 0),
    }));
    const loadRows = Array.from({ length: HORIZON_STEPS }, (_, j) => ({
      sensorId: load.id,
      eventStartMs: START + j * STEP_MS,
      beliefTimeMs: START - 86_400_000,
      sourceId: source.id,
      value: 1.5 + Math.sin(j / 7) - (j % 96 > 40 && j % 96 < 60 ? 3 : 0),
    }));
    await recordBeliefs(trx, [...priceRows, ...loadRows], { allowOverwrite: false });
    return { userId: user.userId, battery: battery.id, prices: prices.id, load: load.id };
  });
  const token = await issueToken(db, ids.userId, 3600);
  await db.destroy();
  return { ...ids, token };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-'));
  const ids = await prepare(dataDir);
  const server = await startServer(dataDir);
  const headers = { Authorization: ids.token, 'Content-Type': 'application/json' };
  const body = (steps: number, force: boolean) =>
    benchScheduleBody(START, steps, { prices: ids.prices, load: ids.load, storageEfficiency: 0.99999, force });
  const schedule = async (steps: number) => {
    const t0 = performance.now();
    const trig = await (
      await fetch(`${server.url}/api/v3_0/sensors/${ids.battery}/schedules/trigger`, { method: 'POST', headers, body: body(steps, true) })
    ).json();
    for (;;) {
      const res = await fetch(`${server.url}/api/v3_0/sensors/${ids.battery}/schedules/${trig.schedule}?duration=PT1H`, { headers });
      if (res.status === 200) break;
      const msg = (await res.json()).message as string;
      if (!/waiting|in progress/.test(msg)) throw new Error(msg);
      await new Promise((r) => setTimeout(r, 5));
    }
    const wall = performance.now() - t0;
    const job = await (await fetch(`${server.url}/api/v3_0/jobs/${trig.schedule}`, { headers })).json();
    const stats = job.result.stats as { buildMs: number; solveMs: number; verifyMs: number; binaries: number; iterations: number };
    if (process.env.BENCH_VERBOSE) console.log(steps, Math.round(wall), job.result.timing_ms);
    return { wall, bare: stats.buildMs + stats.solveMs + stats.verifyMs, binaries: stats.binaries, iterations: stats.iterations };
  };

  console.log('steps  end-to-end (median of 5)  bare solver (same model)  overhead  solves  binaries');
  await schedule(96); // warm the worker thread and the solver's WebAssembly
  for (const steps of [96, 192, 672, 2520]) {
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await schedule(steps));
    const wall = median(runs.map((r) => r.wall));
    const bare = median(runs.map((r) => r.bare));
    const last = runs[runs.length - 1];
    console.log(
      `${String(steps).padStart(5)}  ${fmt(wall).padStart(24)}  ${fmt(bare).padStart(24)}  ${(((wall - bare) / bare) * 100).toFixed(0).padStart(7)}%  ${String(last.iterations).padStart(6)}  ${String(last.binaries).padStart(8)}`,
    );
  }

  // Readiness latency while four long schedules are computed.
  const long = Promise.all([0, 1, 2, 3].map(() => schedule(2520)));
  let done = false;
  void long.then(() => (done = true));
  const latencies: number[] = [];
  while (!done) {
    const t0 = performance.now();
    await fetch(`${server.url}/api/v3_0/health/ready`);
    latencies.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  await long;
  console.log(
    `health/ready during 4 × 2520-step schedules: ${latencies.length} requests, p50 ${fmt(percentile(latencies, 50))}, p99 ${fmt(percentile(latencies, 99))}, max ${fmt(Math.max(...latencies))}`,
  );
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

await main();
