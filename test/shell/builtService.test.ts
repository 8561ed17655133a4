import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServiceBuilt, serviceEntry } from '../../scripts/ensureService.ts';
import { dataFolder } from '../../server/src/dataFolder.ts';
import { migrate, openStore } from '../../server/src/db/connection.ts';
import { createAccount } from '../../server/src/store/write/accounts.ts';
import { createAsset } from '../../server/src/store/write/assets.ts';
import { createSensor } from '../../server/src/store/write/sensors.ts';
import { listRoles } from '../../server/src/store/users.ts';
import { createUser } from '../../server/src/store/write/users.ts';
import { hashPassword } from '../../worker/src/tasks.ts';
import { FIXTURE } from '../helpers/fixtureWriter.ts';
import { stopProcess, waitForLine } from '../helpers/processes.ts';

const root = path.resolve(import.meta.dirname, '../..');
const EMAIL = 'operator@example.com';
const PASSWORD = 'a long enough password';

/** A store with one account admin and a battery's power sensor, as the CLI would make them. */
async function prepareStore(dataDir: string): Promise<number> {
  const db = openStore(dataFolder(dataDir).store);
  try {
    await migrate(db);
    return await db.transaction(async (trx) => {
      const account = await createAccount(trx, FIXTURE, { name: 'site', roles: [], consultancyAccountId: null });
      const roleIds = (await listRoles(trx)).filter((r) => r.name === 'account-admin').map((r) => r.id);
      await createUser(trx, FIXTURE, {
        email: EMAIL,
        username: 'operator',
        passwordHash: await hashPassword(PASSWORD),
        accountId: account.id,
        roleIds,
      });
      const type = await trx('generic_asset_type').where({ name: 'battery' }).first<{ id: number }>('id');
      const battery = await createAsset(trx, FIXTURE, {
        name: 'battery',
        account_id: account.id,
        generic_asset_type_id: type.id,
        parent_asset_id: null,
        latitude: null,
        longitude: null,
        attributes: {},
      });
      const sensor = await createSensor(trx, FIXTURE, {
        name: 'power',
        unit: 'MW',
        event_resolution_ms: 15 * 60_000,
        timezone: 'Europe/Amsterdam',
        generic_asset_id: battery.id,
        attributes: {},
      });
      return sensor.id;
    });
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
