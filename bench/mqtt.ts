/**
 * Devices on the LAN at scale (issue 31): 200 simulated meters, each with its own link and
 * credentials, publish a reading every 2 s for 60 s at QoS 1 into the embedded broker of the
 * compiled server (`build/serve.js`, started with plain node as the systemd unit does). Printed:
 *
 * - readings per second held (acknowledged by the broker) against the 100/s offered;
 * - the delay from an interval's close to its mean being in the store, p50/p99/max, seen by
 *   polling the store every 25 ms (target p99 ≤ 1 s). The sensors have a 15-second resolution so
 *   that intervals close during the minute: each close stores 200 means at once, the burst a
 *   15-minute site sees once per quarter hour;
 * - lost readings: acknowledged by the broker but neither counted by the server nor stored (must be 0);
 * - the server's CPU (share of one core over the run) and peak resident memory;
 * - the machine's load (1-minute load average, with its number of cores).
 *
 * `npm run bench -- mqtt`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import { hashDevicePassword } from '../server/src/domain/mqtt.ts';
import { dataFolder } from '../server/src/dataFolder.ts';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { createMqttLink } from '../server/src/store/write/mqttLinks.ts';
import { createSensor } from '../server/src/store/write/sensors.ts';
import { benchAsset, benchUser, BENCH_WRITER } from './_fixture.ts';
import { percentile, seeded } from './_stats.ts';
import { cpuMs } from './_uploads.ts';
import { freePort, sleep, startReadyServer } from './_server.ts';

const DEVICES = 200;
const EVERY_MS = 2000;
const RUN_MS = 60_000;
const RESOLUTION_MS = 15_000;
const POLL_MS = 25;
const TARGET_P99_MS = 1000;
const MB = 1024 * 1024;

const random = seeded(31);

interface Device {
  sensorId: number;
  username: string;
  password: string;
  topic: string;
}

/** A store with 200 kW sensors at a 15-second resolution, each with an in-link whose password the bench keeps. */
async function prepare(dataDir: string): Promise<Device[]> {
  const db = openStore(dataFolder(dataDir).store);
  await migrate(db);
  const devices = await db.transaction(async (trx) => {
    const user = await benchUser(trx);
    const asset = await benchAsset(trx, user.accountId, 'site', 'building');
    const made: Device[] = [];
    for (let i = 0; i < DEVICES; i++) {
      const sensor = await createSensor(trx, BENCH_WRITER, {
        name: `meter ${i}`,
        unit: 'kW',
        event_resolution_ms: RESOLUTION_MS,
        timezone: 'UTC',
        generic_asset_id: asset.id,
        attributes: {},
      });
      const password = `bench-device-${i}-${Math.floor(random() * 1e9)}`;
      const topic = `shellies/meter-${i}/emeter/0/power`;
      const link = await createMqttLink(trx, BENCH_WRITER, {
        sensor: { id: sensor.id, generic_asset_id: asset.id, account_id: user.accountId },
        link: {
          sensorId: sensor.id,
          ownerId: user.userId,
          name: `meter ${i}`,
          direction: 'in',
          topic,
          valuePath: null,
          timePath: null,
          unit: 'W',
          scale: 1,
          inverted: false,
          safeSetpoint: null,
          staleAfterMs: null,
          passwordHash: hashDevicePassword(password),
          createdAt: Date.now(),
        },
      });
      made.push({ sensorId: sensor.id, username: link.username, password, topic });
    }
    return made;
  });
  await db.destroy();
  return devices;
}

/** Resident memory of a process, its threads included (Linux: /proc). */
function rss(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  } catch {
    return 0;
  }
}

/**
 * Polls the store for device means as they appear.
 * @returns when each (sensor, interval start) was first seen, and a function that stops polling.
 */
function watchStore(dataDir: string, fromMs: number) {
  const db = openStore(dataFolder(dataDir).store);
  const firstSeen = new Map<string, number>();
  let running = true;
  const done = (async () => {
    while (running) {
      const rows = await db('timed_belief as b')
        .join('data_source as s', 's.id', 'b.source_id')
        .where('s.type', 'device')
        .andWhere('b.event_start', '>=', fromMs)
        .select('b.sensor_id', 'b.event_start');
      const at = Date.now();
      for (const r of rows as { sensor_id: number; event_start: number }[]) {
        const key = `${r.sensor_id}@${r.event_start}`;
        if (!firstSeen.has(key)) firstSeen.set(key, at);
      }
      await sleep(POLL_MS);
    }
  })();
  const stop = async () => {
    running = false;
    await done;
    await db.destroy();
  };
  return { firstSeen, stop };
}

/** Connects every device, then has each publish every 2 s (phases spread over the 2 s) until `RUN_MS` ends. */
async function publishAll(devices: Device[], brokerPort: number) {
  const clients = await Promise.all(
    devices.map((d) =>
      mqtt.connectAsync(`mqtt://127.0.0.1:${brokerPort}`, { username: d.username, password: d.password, clientId: d.username }),
    ),
  );
  let acked = 0;
  let failed = 0;
  const sendDelays: number[] = [];
  const startMs = Date.now();
  const endMs = startMs + RUN_MS;
  const pending: Promise<void>[] = [];
  await Promise.all(
    clients.map(async (client, i) => {
      for (let due = startMs + (i / devices.length) * EVERY_MS; due < endMs; due += EVERY_MS) {
        await sleep(Math.max(0, due - Date.now()));
        const sent = client.publishAsync(devices[i].topic, String(Math.round(500 + 1000 * random())), { qos: 1 }).then(
          () => {
            acked++;
            sendDelays.push(Date.now() - due);
          },
          () => void failed++,
        );
        pending.push(sent);
      }
    }),
  );
  await Promise.all(pending);
  await Promise.all(clients.map((c) => c.endAsync()));
  return { acked, failed, sendDelays, startMs, endMs };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-mqtt-'));
  try {
    const devices = await prepare(dataDir);
    const brokerPort = await freePort();
    const server = await startReadyServer(dataDir, {
      FLEXSITE_MQTT: 'embedded',
      FLEXSITE_MQTT_HOST: '127.0.0.1',
      FLEXSITE_MQTT_PORT: String(brokerPort),
    });
    try {
      // Start on an interval's boundary, so the first interval is a whole one.
      await sleep(RESOLUTION_MS - (Date.now() % RESOLUTION_MS));
      const watch = watchStore(dataDir, Date.now());
      let peakRss = rss(server.child.pid!);
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, rss(server.child.pid!))), 100);
      const cpuBefore = cpuMs(server.child.pid!);
      const run = await publishAll(devices, brokerPort);
      const cpu = cpuMs(server.child.pid!) - cpuBefore;
      const load = os.loadavg()[0];
      // The last interval closes after the last reading; its means follow.
      const lastClose = Math.ceil(run.endMs / RESOLUTION_MS) * RESOLUTION_MS;
      await sleep(Math.max(0, lastClose + 3000 - Date.now()));
      clearInterval(sampler);
      await watch.stop();
      const db = openStore(dataFolder(dataDir).store);
      const [counted] = await db('mqtt_link').sum({ messages: 'message_count', malformed: 'malformed_count', late: 'late_count' });
      const buffered = Number((await db('mqtt_reading').count({ n: '*' }))[0].n);
      await db.destroy();
      report({ run, cpu, peakRss, load, firstSeen: watch.firstSeen, counted, buffered, lastClose });
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(r: {
  run: Awaited<ReturnType<typeof publishAll>>;
  cpu: number;
  peakRss: number;
  load: number;
  firstSeen: Map<string, number>;
  counted: Record<string, unknown>;
  buffered: number;
  lastClose: number;
}): void {
  const { run } = r;
  const seconds = (run.endMs - run.startMs) / 1000;
  const delays = [...r.firstSeen.entries()].map(([key, at]) => at - (Number(key.split('@')[1]) + RESOLUTION_MS));
  const counted = Number(r.counted.messages) - Number(r.counted.malformed) - Number(r.counted.late);
  const lost = run.acked - counted;
  const p99 = percentile(delays, 99);
  console.log(`${DEVICES} devices, a reading every ${EVERY_MS / 1000} s each, for ${seconds.toFixed(0)} s into the embedded broker`);
  console.log(
    `  readings acknowledged  ${run.acked} (${(run.acked / seconds).toFixed(1)}/s held of ${DEVICES / (EVERY_MS / 1000)}/s offered), ${run.failed} refused`,
  );
  console.log(`  publish → broker ack   p50 ${percentile(run.sendDelays, 50)} ms, p99 ${percentile(run.sendDelays, 99)} ms`);
  console.log(
    `  interval close → stored mean  p50 ${percentile(delays, 50)} ms, p99 ${p99} ms, max ${Math.max(...delays)} ms over ${delays.length} means; target p99 ≤ ${TARGET_P99_MS} ms: ${p99 <= TARGET_P99_MS ? 'holds' : 'MISSED'}`,
  );
  console.log(
    `  lost readings          ${lost} (acknowledged ${run.acked}, counted by the server ${counted}, still buffered ${r.buffered})`,
  );
  console.log(
    `  server CPU             ${((r.cpu / (run.endMs - run.startMs)) * 100).toFixed(0)} % of one core over the run; peak memory ${(r.peakRss / MB).toFixed(0)} MB`,
  );
  console.log(`  machine                load ${r.load.toFixed(1)} on ${os.availableParallelism()} cores`);
  if (lost !== 0) process.exitCode = 1;
}

await main();
