import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServiceBuilt, serviceEntry } from '../../scripts/ensureService.ts';
import { dataFolder } from '../../server/src/dataFolder.ts';
import { migrate, openStore } from '../../server/src/db/connection.ts';
import { factories, PASSWORD } from '../helpers/factories.ts';
import { stopProcess, waitForLine } from '../helpers/processes.ts';

const root = path.resolve(import.meta.dirname, '../..');
const EMAIL = 'operator@example.com';

/** A store with one account admin and a battery's power sensor. */
async function prepareStore(dataDir: string): Promise<number> {
  const db = openStore(dataFolder(dataDir).store);
  try {
    await migrate(db);
    const f = factories(db);
    const accountId = (await f.account({ name: 'site' })).id;
    await f.user({ accountId, email: EMAIL, roles: ['account-admin'] });
    const battery = await f.asset({ accountId, type: 'battery', name: 'battery' });
    return (await f.sensor({ assetId: battery.id, name: 'power', unit: 'MW', timezone: 'Europe/Amsterdam' })).id;
  } finally {
    await db.destroy();
  }
}

/** @returns the process ids started by `pid`, from every one of its threads. */
function childrenOf(pid: number): number[] {
  const tasks = fs.readdirSync(`/proc/${pid}/task`);
  return tasks.flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
}

describe('the compiled service (what npm start and the systemd unit run)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-built-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('runs with plain node: ready, logs in and schedules through the compiled worker threads', { timeout: 180_000 }, async () => {
    await ensureServiceBuilt();
    const sensorId = await prepareStore(dataDir);
    const child = spawn(process.execPath, [serviceEntry], {
      cwd: root,
      detached: true,
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', FLEXSITE_DATA_DIR: dataDir, FLEXSITE_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await waitForLine(child, /listening on http:\/\/127\.0\.0\.1:\d+/);
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1];
      const health = await fetch(`${url}/api/v3_0/health/ready`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ database_sql: true, status: 200 });
      // No transpiler or other helper process runs beside the server.
      expect(childrenOf(child.pid!)).toEqual([]);

      // The password check runs in a worker thread of the compiled worker file.
      const login = await fetch(`${url}/api/requestAuthToken`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      });
      expect(login.status).toBe(200);
      const { auth_token: token } = (await login.json()) as { auth_token: string };
      const headers = { Authorization: token, 'Content-Type': 'application/json' };

      // So does the solver. Buying at 60 to sell back at 40 only loses: an empty battery stays idle.
      const trigger = await fetch(`${url}/api/v3_0/sensors/${sensorId}/schedules/trigger`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          start: '2026-01-05T00:00:00+01:00',
          duration: 'PT1H',
          'flex-model': { 'soc-at-start': 0, 'soc-min': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
          'flex-context': { 'consumption-price': '60 EUR/MWh', 'production-price': '40 EUR/MWh' },
        }),
      });
      expect(trigger.status).toBe(200);
      const { schedule: jobId } = (await trigger.json()) as { schedule: string };
      let result: Response;
      for (;;) {
        result = await fetch(`${url}/api/v3_0/sensors/${sensorId}/schedules/${jobId}`, { headers });
        if (result.status !== 400) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(result.status).toBe(200);
      expect(await result.json()).toMatchObject({ values: [0, 0, 0, 0], unit: 'MW', start: '2026-01-05T00:00:00+01:00' });
    } finally {
      await stopProcess(child);
    }
  });
});
