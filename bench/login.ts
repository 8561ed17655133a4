/**
 * Login benchmark (issue 10): the server runs in its own process on 127.0.0.1 over a fresh data
 * folder; this script prints figures, no asserts.
 *
 * 1. Ordinary reads (`GET /api/v3_0/assets`) alone, then while 10 clients flood
 *    `POST /api/requestAuthToken` with wrong passwords — once with throttling out of the way, so
 *    every attempt reaches bcrypt, and once with the default throttle. Target: read p99 ≤ 50 ms.
 * 2. Answer times of logins with an unknown e-mail against a known one with a wrong password:
 *    they should be alike, so accounts cannot be found by timing.
 *
 * Run with `npx tsx bench/login.ts` (BENCH_QUICK=1: 5-second floods).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataFolder } from '../server/src/dataFolder.ts';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { issueToken } from '../server/src/store/write/tokens.ts';
import { BENCH_EMAIL, benchAsset, benchUser } from './_fixture.ts';
import { startServer } from './_server.ts';
import { median, percentile } from './_stats.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const FLOOD_SECONDS = QUICK ? 5 : 20;
const FLOODERS = 10;
const P99_TARGET_MS = 50;
const TIMING_SAMPLES = QUICK ? 8 : 20;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-login-'));

/** An account with a user, a token and a few assets to read. */
async function prepare(): Promise<string> {
  const db = openStore(dataFolder(dir).store);
  await migrate(db);
  const token = await db.transaction(async (trx) => {
    const user = await benchUser(trx, []);
    for (let i = 0; i < 10; i++) await benchAsset(trx, user.accountId, `site ${i}`);
    return issueToken(trx, user.userId, 86_400);
  });
  await db.destroy();
  return token;
}

const login = (url: string, email: string, password: string) =>
  fetch(`${url}/api/requestAuthToken`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });

/** Reads one after another for the given time; @returns their times in ms. */
async function readFor(url: string, token: string, seconds: number): Promise<number[]> {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    const res = await fetch(`${url}/api/v3_0/assets`, { headers: { Authorization: token } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`read answered ${res.status}`);
    times.push(performance.now() - started);
  }
  return times;
}

/** Floods with wrong passwords from FLOODERS clients while reading; @returns read times and login answers by status. */
async function floodWhileReading(url: string, token: string): Promise<{ reads: number[]; statuses: Map<number, number> }> {
  const statuses = new Map<number, number>();
  let flooding = true;
  const flooders = Array.from({ length: FLOODERS }, async (_, c) => {
    for (let i = 0; flooding; i++) {
      const res = await login(url, BENCH_EMAIL, `wrong-${c}-${i}`);
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  });
  const reads = await readFor(url, token, FLOOD_SECONDS);
  flooding = false;
  await Promise.all(flooders);
  return { reads, statuses };
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const summary = (times: number[]) =>
  `${times.length} reads, p50 ${fmt(median(times))}, p99 ${fmt(percentile(times, 99))}, max ${fmt(Math.max(...times))}`;
const verdict = (times: number[]) => (percentile(times, 99) <= P99_TARGET_MS ? 'ok' : 'MISSED');

async function main() {
  console.log(`data folder ${dir}${QUICK ? ' (quick run)' : ''}; ${os.cpus().length} cores`);
  const token = await prepare();

  // Throttling out of the way: every attempt costs a bcrypt comparison.
  const open = await startServer(dir, [], {
    FLEXSITE_LOGIN_ATTEMPTS_PER_EMAIL: '1000000',
    FLEXSITE_LOGIN_ATTEMPTS_PER_ADDRESS: '1000000',
  });
  try {
    console.log(`reads alone:                         ${summary(await readFor(open.url, token, 3))}`);
    const flood = await floodWhileReading(open.url, token);
    console.log(`reads during an unthrottled flood:   ${summary(flood.reads)}  [p99 ≤ ${P99_TARGET_MS} ms: ${verdict(flood.reads)}]`);
    console.log(`  logins answered: ${[...flood.statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}`);

    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < TIMING_SAMPLES; i++) {
      for (const [email, into] of [
        [BENCH_EMAIL, known],
        [`nobody-${i}@example.com`, unknown],
      ] as const) {
        const started = performance.now();
        await (await login(open.url, email, 'wrong')).arrayBuffer();
        into.push(performance.now() - started);
      }
    }
    console.log(`login, known e-mail, wrong password: median ${fmt(median(known))}`);
    console.log(`login, unknown e-mail:               median ${fmt(median(unknown))}`);
  } finally {
    await open.stop();
  }

  const throttled = await startServer(dir);
  try {
    const flood = await floodWhileReading(throttled.url, token);
    console.log(`reads during a throttled flood:      ${summary(flood.reads)}  [p99 ≤ ${P99_TARGET_MS} ms: ${verdict(flood.reads)}]`);
    console.log(`  logins answered: ${[...flood.statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}`);
  } finally {
    await throttled.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
