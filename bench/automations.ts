/**
 * Automations at scale (issue 15): 50 battery sites, each with four load sensors, and per site an
 * automation every 15 minutes that forecasts its four loads (200 forecasts) and then schedules its
 * battery with the site's stored flex-model and flex-context (50 schedules, the forecasts as
 * inflexible load). The store is prepared so that the server's start-up tick finds exactly one run
 * due per automation; the bench times that round, from the first run queued to the last schedule
 * stored, against the 15 minutes before the next round is due.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataFolder } from '../server/src/dataFolder.ts';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { updateAsset } from '../server/src/store/write/assets.ts';
import { createAutomation } from '../server/src/store/write/automations.ts';
import { type BeliefInput } from '../server/src/store/beliefs.ts';
import { recordBeliefs } from '../server/src/store/write/beliefs.ts';
import { createSensor } from '../server/src/store/write/sensors.ts';
import { getOrCreateSource } from '../server/src/store/write/sources.ts';
import { householdLoad } from './_forecastSeries.ts';
import { benchAsset, benchUser, BENCH_WRITER } from './_fixture.ts';
import { startServer } from './_server.ts';
import { QUARTER, HOUR, DAY } from './_time.ts';

const SITES = 50;
const LOADS_PER_SITE = 4;
const HISTORY_DAYS = 35;
const STEP = QUARTER;
const ROUND_BUDGET_MS = 15 * 60_000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-automations-'));
const quarter = Math.floor(Date.now() / STEP) * STEP;

async function prepare(): Promise<void> {
  const db = openStore(dataFolder(dir).store);
  await migrate(db);
  await db.transaction(async (trx) => {
    const { accountId, userId } = await benchUser(trx);
    const source = await getOrCreateSource(trx, { name: 'bench', type: 'demo script' });
    const sensor = (assetId: number, name: string, unit: string, resolutionMs: number, attributes = {}) =>
      createSensor(trx, BENCH_WRITER, {
        name,
        unit,
        event_resolution_ms: resolutionMs,
        timezone: 'UTC',
        generic_asset_id: assetId,
        attributes,
      });
    const market = await benchAsset(trx, accountId, 'market', 'building');
    const prices = await sensor(market.id, 'prices', 'EUR/MWh', HOUR);
    const rows: BeliefInput[] = Array.from({ length: 72 }, (_, h) => ({
      sensorId: prices.id,
      eventStartMs: quarter - DAY + h * HOUR,
      beliefTimeMs: quarter - DAY,
      sourceId: source.id,
      value: 180 + 70 * Math.sin((((h % 24) - 6) / 24) * 2 * Math.PI),
    }));
    await recordBeliefs(trx, rows, { allowOverwrite: false });

    const historyStart = quarter - HISTORY_DAYS * DAY;
    for (let s = 0; s < SITES; s++) {
      const site = await benchAsset(trx, accountId, `site ${s}`);
      const battery = await sensor(site.id, 'battery', 'kW', STEP);
      const loads: number[] = [];
      for (let l = 0; l < LOADS_PER_SITE; l++) {
        const load = await sensor(site.id, `load ${l}`, 'kW', STEP, { consumption_is_positive: true });
        loads.push(load.id);
        const values = householdLoad(historyStart, STEP, HISTORY_DAYS * 96, s * LOADS_PER_SITE + l + 1).values;
        await recordBeliefs(
          trx,
          values.map((value, i) => ({
            sensorId: load.id,
            eventStartMs: historyStart + i * STEP,
            beliefTimeMs: quarter,
            sourceId: source.id,
            value,
          })),
          { allowOverwrite: false },
        );
      }
      await updateAsset(trx, BENCH_WRITER, site, {
        flex_model: { 'soc-at-start': '10 kWh', 'soc-min': '0 kWh', 'soc-max': '40 kWh', 'power-capacity': '10 kW' },
        flex_context: { 'consumption-price': { sensor: prices.id }, 'inflexible-device-sensors': loads },
      });
      const automation = await createAutomation(trx, BENCH_WRITER, {
        asset: site,
        ownerId: userId,
        nowMs: quarter,
        props: {
          name: 'every quarter',
          cron: '*/15 * * * *',
          timezone: 'UTC',
          forecastSensorIds: loads,
          scheduleSensorId: battery.id,
          horizon: 'P1D',
          enabled: true,
        },
      });
      // The last run was the previous quarter's: the start-up tick finds this quarter's due.
      await trx('automation')
        .where({ id: automation.id })
        .update({ last_due: quarter - STEP });
    }
  });
  await db.destroy();
}

interface JobRow {
  id: string;
  queue: string;
  status: string;
  args: string;
  result: string | null;
  created_at: number;
  finished_at: number | null;
}

const done = (j: JobRow) => j.status === 'finished' || j.status === 'failed';

async function main() {
  const t0 = performance.now();
  await prepare();
  const prepared = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `store: ${SITES} sites, ${SITES * LOADS_PER_SITE} load sensors with ${HISTORY_DAYS} days of history (${prepared} s to prepare)`,
  );
  const server = await startServer(dir);
  const db = openStore(dataFolder(dir).store);
  try {
    // This quarter's round only: a later quarter may start while the bench waits.
    let runs: JobRow[] = [];
    let schedules: JobRow[] = [];
    const deadline = Date.now() + ROUND_BUDGET_MS;
    while (Date.now() < deadline) {
      const jobs = await db<JobRow>('job').select('id', 'queue', 'status', 'args', 'result', 'created_at', 'finished_at');
      runs = jobs.filter((j) => j.queue === 'automation' && JSON.parse(j.args).dueMs === quarter);
      const scheduleIds = new Set(runs.map((j) => (j.result ? JSON.parse(j.result).schedule_job_id : null)));
      schedules = jobs.filter((j) => scheduleIds.has(j.id));
      if (
        runs.length === SITES &&
        runs.every(done) &&
        (schedules.length === SITES || runs.some((j) => j.status === 'failed')) &&
        schedules.every(done)
      )
        break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const failed = [...runs, ...schedules].filter((j) => j.status === 'failed').length;
    const first = Math.min(...runs.map((j) => Number(j.created_at)));
    const last = Math.max(...[...runs, ...schedules].map((j) => Number(j.finished_at ?? Infinity)));
    const roundMs = last - first;
    const ok = runs.length === SITES && schedules.length === SITES && failed === 0 && roundMs <= ROUND_BUDGET_MS;
    console.log('round (every 15 min, 2 cores)               | runs | schedules | failed | time    | budget');
    console.log(
      `${SITES * LOADS_PER_SITE} forecasts + ${SITES} schedules by ${SITES} automations | ${String(runs.length).padStart(4)} | ${String(schedules.length).padStart(9)} | ${String(failed).padStart(6)} | ${(roundMs / 1000).toFixed(1).padStart(5)} s | 900 s ${ok ? 'ok' : 'MISSED'}`,
    );
  } finally {
    await db.destroy();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
