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
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataFolder } from '../server/src/dataFolder.ts';
import { migrate, openStore } from '../server/src/db/connection.ts';
import { hashPassword } from '../server/src/domain/passwords.ts';
import { createAccount } from '../server/src/store/accounts.ts';
import { createAsset } from '../server/src/store/assets.ts';
import { issueToken } from '../server/src/store/tokens.ts';
import { createUser } from '../server/src/store/users.ts';
import { median, percentile } from './_stats.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const FLOOD_SECONDS = QUICK ? 5 : 20;
const FLOODERS = 10;
const P99_TARGET_MS = 50;
const TIMING_SAMPLES = QUICK ? 8 : 20;
const EMAIL = 'bench@example.com';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-bench-login-'));

/** An account with a user, a token and a few assets to read. */
async function prepare(): Promise<string> {
  const db = openStore(dataFolder(dir).store);
  await migrate(db);
  const token = await db.transaction(async (trx) => {
    const account = await createAccount(trx, { name: 'bench', roles: [], consultancyAccountId: null });
    const user = await createUser(trx, {
      email: EMAIL,
      username: 'bench',
      passwordHash: await hashPassword('bench-password'),
      accountId: account.id,
      roleIds: [],
    });
    const type = await trx('generic_asset_type').where({ name: 'battery' }).first<{ id: number }>('id');
    for (let i = 0; i < 10; i++) {
      await createAsset(trx, {
        name: `site ${i}`,
        account_id: account.id,
        generic_asset_type_id: type.id,
        parent_asset_id: null,
        latitude: null,
        longitude: null,
        attributes: {},
      });
    }
    return issueToken(trx, user.id, 86_400);
  });
  await db.destroy();
  return token;
}

/** Starts `server/src/serve.ts` in its own process with extra settings and waits for its address. */
async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'server/src/serve.ts')], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', FLEXSITE_DATA_DIR: dir, FLEXSITE_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /Flexsite listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
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
      const res = await login(url, EMAIL, `wrong-${c}-${i}`);
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
  const open = await startServer({ FLEXSITE_LOGIN_ATTEMPTS_PER_EMAIL: '1000000', FLEXSITE_LOGIN_ATTEMPTS_PER_ADDRESS: '1000000' });
  try {
    console.log(`reads alone:                         ${summary(await readFor(open.url, token, 3))}`);
    const flood = await floodWhileReading(open.url, token);
    console.log(`reads during an unthrottled flood:   ${summary(flood.reads)}  [p99 ≤ ${P99_TARGET_MS} ms: ${verdict(flood.reads)}]`);
    console.log(`  logins answered: ${[...flood.statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}`);

    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < TIMING_SAMPLES; i++) {
      for (const [email, into] of [
        [EMAIL, known],
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
    await stop(open.child);
  }

  const throttled = await startServer({});
  try {
    const flood = await floodWhileReading(throttled.url, token);
    console.log(`reads during a throttled flood:      ${summary(flood.reads)}  [p99 ≤ ${P99_TARGET_MS} ms: ${verdict(flood.reads)}]`);
    console.log(`  logins answered: ${[...flood.statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}`);
  } finally {
    await stop(throttled.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
