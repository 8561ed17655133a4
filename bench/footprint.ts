/**
 * The appliance's footprint against the figures of issue 34, each printed beside its target and
 * the machine's load (1-minute load average; this machine has `os.availableParallelism()` cores):
 *
 * - resident memory of the whole process tree: idle after start (solver warm, and again once the
 *   scheduling threads have ended), peak during a 2520-step schedule, peak during the open loop;
 * - start → `/health/ready` 200 over a fresh data folder;
 * - one POST of 35,040 values against Python's `sqlite3` inserting the same rows into the same
 *   table in one transaction, in the same run (a ratio of rates);
 * - downloads of that year at PT15M and PT1H;
 * - open loop: 500 uploads/s of 96 values each for 15 s, latency from each upload's scheduled
 *   send time (so a stalled server is not excused by a client that waited for it);
 * - a warm 192-step schedule, trigger → result.
 *
 * The server is the compiled one (`build/serve.js`), started with plain node as the systemd unit
 * does, with FLEXSITE_WORKER_IDLE=PT10S so that the bench can see the scheduling threads end.
 * `npx tsx bench/footprint.ts`; BENCH_QUICK=1 runs a 5-second open loop.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureServiceBuilt } from '../scripts/ensureService.ts';
import { dataFolder } from '../server/src/dataFolder.ts';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { recordBeliefs } from '../server/src/store/write/beliefs.ts';
import { createSensor } from '../server/src/store/write/sensors.ts';
import { getOrCreateSource } from '../server/src/store/write/sources.ts';
import { issueToken } from '../server/src/store/write/tokens.ts';
import { benchAsset, benchScheduleBody, benchUser, BENCH_WRITER } from './_fixture.ts';
import { cpuMs, dataPoster, dayUploads } from './_uploads.ts';
import { sleep, startReadyServer } from './_server.ts';
import { DAY, QUARTER, SCHEDULE_START, YEAR_START, YEAR_VALUES } from './_time.ts';
import { median, percentile, seeded } from './_stats.ts';

const QUICK = process.env.BENCH_QUICK === '1';
/** The open loop: uploads of so many values sent at a fixed rate, spread over so many sensors. */
const OPEN_LOOP = { seconds: QUICK ? 5 : 15, rate: 500, values: 96, sensors: 50 };
const RUNS = 5;
const LONG_STEPS = 2520;
const MB = 1024 * 1024;

const random = seeded(34);
const value = () => Math.round(random() * 100_000) / 100;
const load = () => `load ${os.loadavg()[0].toFixed(1)}`;
const rows: string[][] = [];
const row = (figure: string, measured: string, target: string, holds: boolean) =>
  rows.push([figure, measured, target, holds ? 'holds' : 'MISSED', load()]);

/** Resident memory of a process and every process it started (threads count with their process). */
function treeRss(pid: number): number {
  let total = 0;
  try {
    total = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`))
      for (const child of fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean))
        total += treeRss(Number(child));
  } catch {
    // The process ended meanwhile.
  }
  return total;
}

/** Samples the tree's memory every 20 ms while `work` runs. @returns its result and the peak. */
async function peakDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = treeRss(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(pid))), 20);
  try {
    return { result: await work(), peak };
  } finally {
    clearInterval(sampler);
  }
}

async function prepare(dataDir: string) {
  const db = openStore(dataFolder(dataDir).store);
  await migrate(db);
  const ids = await db.transaction(async (trx) => {
    const user = await benchUser(trx);
    const asset = await benchAsset(trx, user.accountId, 'site');
    const sensor = async (name: string, unit = 'kW', minutes = 15) =>
      (
        await createSensor(trx, BENCH_WRITER, {
          name,
          unit,
          event_resolution_ms: minutes * 60_000,
          timezone: 'UTC',
          generic_asset_id: asset.id,
          attributes: {},
        })
      ).id;
    const battery = await sensor('battery');
    const prices = await sensor('prices', 'EUR/MWh', 60);
    const year = await sensor('year');
    const uploads = [];
    for (let i = 0; i < OPEN_LOOP.sensors; i++) uploads.push(await sensor(`meter ${i}`));
    const source = await getOrCreateSource(trx, { name: 'bench', type: 'demo script' });
    // A daily price shape with negative midday prices every third day, over the long horizon.
    const hours = LONG_STEPS / 4;
    const priceRows = Array.from({ length: hours }, (_, h) => ({
      sensorId: prices,
      eventStartMs: SCHEDULE_START + h * 3_600_000,
      beliefTimeMs: SCHEDULE_START - DAY,
      sourceId: source.id,
      value: 180 + 70 * Math.sin((((h % 24) - 6) / 24) * 2 * Math.PI) - ((h / 24) % 3 === 0 && h % 24 > 10 && h % 24 < 15 ? 260 : 0),
    }));
    await recordBeliefs(trx, priceRows, { allowOverwrite: false });
    return { userId: user.userId, battery, prices, year, uploads };
  });
  const token = await issueToken(db, ids.userId, 3600);
  await db.destroy();
  return { ...ids, token };
}

type Fixture = Awaited<ReturnType<typeof prepare>>;

/** Starts the compiled server and measures start → ready 200. */
async function start(dataDir: string) {
  const server = await startReadyServer(dataDir, { FLEXSITE_WORKER_IDLE: 'PT10S' });
  return { ...server, pid: server.child.pid!, readyCpuMs: cpuMs(server.child.pid) };
}

/** Waits until the tree's memory has not changed by more than 2 MB for 3 s (at most `limitMs`). */
async function settled(pid: number, limitMs: number): Promise<number> {
  const until = performance.now() + limitMs;
  let last = treeRss(pid);
  let stableSince = performance.now();
  while (performance.now() < until && performance.now() - stableSince < 3000) {
    await sleep(250);
    const now = treeRss(pid);
    if (Math.abs(now - last) > 2 * MB) stableSince = performance.now();
    last = now;
  }
  return last;
}

/** One schedule, trigger → result (ms). */
async function schedule(url: string, fx: Fixture, steps: number): Promise<number> {
  const headers = { Authorization: fx.token, 'Content-Type': 'application/json' };
  const t0 = performance.now();
  const trigger = await fetch(`${url}/api/v3_0/sensors/${fx.battery}/schedules/trigger`, {
    method: 'POST',
    headers,
    body: benchScheduleBody(SCHEDULE_START, steps, { prices: fx.prices, force: true }),
  });
  const { schedule: id, message } = (await trigger.json()) as { schedule?: string; message?: string };
  if (trigger.status !== 200) throw new Error(`trigger answered ${trigger.status}: ${message}`);
  for (;;) {
    const res = await fetch(`${url}/api/v3_0/sensors/${fx.battery}/schedules/${id}?duration=PT1H`, { headers });
    const body = (await res.json()) as { message?: string };
    if (res.status === 200) return performance.now() - t0;
    if (!/waiting|in progress/.test(body.message ?? '')) throw new Error(String(body.message));
    await sleep(2);
  }
}

/** Python's sqlite3 inserting the rows into a new file holding the same table, in one transaction. @returns ms. */
async function pythonInsert(ddl: string[], rowsToInsert: number[][]): Promise<number> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-python-')), 'plain.sqlite');
  const script = `
import json, sqlite3, sys, time
job = json.load(sys.stdin)
db = sqlite3.connect(job["file"], isolation_level=None)
db.execute("PRAGMA journal_mode = WAL"); db.execute("PRAGMA synchronous = NORMAL")
for statement in job["ddl"]: db.execute(statement)
rows = [tuple(r) for r in job["rows"]]
t0 = time.perf_counter()
db.execute("BEGIN")
db.executemany("INSERT INTO timed_belief (sensor_id, event_start, source_id, cumulative_probability, belief_time, event_value) VALUES (?, ?, ?, ?, ?, ?)", rows)
db.execute("COMMIT")
print((time.perf_counter() - t0) * 1000)
`;
  // Not spawnSync: a blocked event loop misses the server closing an idle kept-alive socket, and
  // the next request would be sent on it.
  const child = spawn('python3', ['-c', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdin.end(JSON.stringify({ file, ddl, rows: rowsToInsert }));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  if (code !== 0) throw new Error(`python3: ${err}`);
  return Number(out.trim());
}

/**
 * The belief table as the server made it, and its indexes, for Python to make the same. Its
 * foreign keys name tables Python's file lacks, which SQLite allows (and enforces only when asked).
 */
async function beliefTableDdl(dataDir: string): Promise<string[]> {
  const db = openStore(dataFolder(dataDir).store);
  const found = await db('sqlite_master').where({ tbl_name: 'timed_belief' }).whereNotNull('sql').orderBy('type', 'desc').pluck('sql');
  await db.destroy();
  return found;
}

async function yearFigures(url: string, fx: Fixture, dataDir: string) {
  const headers = { Authorization: fx.token, 'Content-Type': 'application/json' };
  const values = Array.from({ length: YEAR_VALUES }, value);
  const ddl = await beliefTableDdl(dataDir);
  const uploadMs: number[] = [];
  const pythonMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Each run a year of its own on the same sensor, so each inserts all its rows.
    const start = Date.UTC(2023 - i * 2, 0, 1);
    const t0 = performance.now();
    const res = await fetch(`${url}/api/v3_0/sensors/${fx.year}/data`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ values, start: new Date(start).toISOString(), duration: 'PT8760H', unit: 'kW', horizon: 'PT0H' }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`upload answered ${res.status}`);
    uploadMs.push(performance.now() - t0);
    pythonMs.push(
      await pythonInsert(
        ddl,
        values.map((v, k) => [fx.year, start + k * QUARTER, 1, 0.5, start + (k + 1) * QUARTER, v]),
      ),
    );
  }
  const ratio = median(pythonMs) / median(uploadMs);
  row(
    'one POST of 35,040 values vs Python sqlite3, same rows, same run',
    `${ratio.toFixed(2)}× (POST ${median(uploadMs).toFixed(0)} ms, Python ${median(pythonMs).toFixed(0)} ms, medians of ${RUNS})`,
    '≥ 0.5×',
    ratio >= 0.5,
  );
  const download = [];
  for (const resolution of ['PT15M', 'PT1H']) {
    const q = new URLSearchParams({ start: '2023-01-01T00:00:00Z', duration: 'PT8760H', unit: 'kW', resolution });
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const res = await fetch(`${url}/api/v3_0/sensors/${fx.year}/data?${q}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`download answered ${res.status}`);
      runs.push(performance.now() - t0);
    }
    download.push(median(runs));
  }
  row(
    'download a year, PT15M / PT1H',
    `${(download[0] / 1000).toFixed(3)} s / ${(download[1] / 1000).toFixed(3)} s`,
    '≤ 0.1 s each',
    download.every((ms) => ms <= 100),
  );
}

/** 500 uploads/s × 96 values, sent on schedule whatever the answers do. @returns latencies from the scheduled times, and errors. */
async function openLoop(url: string, fx: Fixture) {
  const total = OPEN_LOOP.rate * OPEN_LOOP.seconds;
  const perSensor = Math.ceil(total / OPEN_LOOP.sensors);
  const bodies = dayUploads(perSensor, OPEN_LOOP.values, YEAR_START + 2 * 365 * DAY, value);
  const { post, close } = dataPoster(url, { Authorization: fx.token, 'Content-Type': 'application/json' }, 256);
  const latencies: number[] = [];
  let errors = 0;
  // Latencies count from the scheduled time: a late send is the server's lateness too.
  const send = (sensorId: number, body: Buffer, scheduledAt: number) =>
    post(sensorId, body).then(
      (status) => {
        if (status === 200) latencies.push(performance.now() - scheduledAt);
        else errors++;
      },
      () => void errors++,
    );
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const scheduledAt = t0 + (i * 1000) / OPEN_LOOP.rate;
    const wait = scheduledAt - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(send(fx.uploads[i % OPEN_LOOP.sensors], bodies[Math.floor(i / OPEN_LOOP.sensors)], scheduledAt));
  }
  await Promise.all(pending);
  close();
  return { latencies, errors, total };
}

async function main() {
  await ensureServiceBuilt();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-footprint-'));
  const fx = await prepare(dataDir);
  console.log(
    `${os.availableParallelism()} cores; data folder ${dataDir}${QUICK ? ' (quick run)' : ''}; figures on a shared machine vary with its load`,
  );
  const server = await start(dataDir);
  const { pid, url } = server;
  try {
    row(
      'start → /health/ready 200',
      `${(server.readyMs / 1000).toFixed(2)} s (the server's CPU time until then: ${(server.readyCpuMs / 1000).toFixed(2)} s)`,
      '≤ 2 s',
      server.readyMs <= 2000,
    );
    const warm = await settled(pid, 30_000);
    await sleep(12_000); // FLEXSITE_WORKER_IDLE=PT10S: the warmed scheduling threads end.
    const idle = await settled(pid, 10_000);
    row(
      'resident memory, whole tree, idle after start',
      `${(warm / MB).toFixed(0)} MB solver warm, ${(idle / MB).toFixed(0)} MB once the scheduling threads ended`,
      '≤ 150 MB',
      warm <= 150 * MB,
    );

    const long = await peakDuring(pid, () => schedule(url, fx, LONG_STEPS));
    row(
      'resident memory, peak during a 2520-step schedule',
      `${(long.peak / MB).toFixed(0)} MB (schedule ${(long.result / 1000).toFixed(2)} s)`,
      '≤ 300 MB',
      long.peak <= 300 * MB,
    );

    const warmRuns = [];
    for (let i = 0; i < 3; i++) await schedule(url, fx, 192);
    for (let i = 0; i < RUNS; i++) warmRuns.push(await schedule(url, fx, 192));
    row(
      'warm 192-step schedule, trigger → result',
      `${(median(warmRuns) / 1000).toFixed(3)} s (median of ${RUNS})`,
      '≤ 0.05 s',
      median(warmRuns) <= 50,
    );

    await yearFigures(url, fx, dataDir);

    const loop = await peakDuring(pid, () => openLoop(url, fx));
    const p99 = percentile(loop.result.latencies, 99);
    row(
      `open loop, ${OPEN_LOOP.rate} uploads/s × ${OPEN_LOOP.values} values, ${OPEN_LOOP.seconds} s: p99`,
      `${p99.toFixed(0)} ms (p50 ${percentile(loop.result.latencies, 50).toFixed(0)} ms, ${loop.result.errors} errors of ${loop.result.total})`,
      '≤ 50 ms',
      p99 <= 50 && loop.result.errors === 0,
    );
    row('resident memory, peak during the open loop', `${(loop.peak / MB).toFixed(0)} MB`, '(printed)', true);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  console.log('\n| figure | measured | target | | machine |\n|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

await main();
