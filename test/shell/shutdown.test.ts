import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataFolder } from '../../server/src/dataFolder.ts';
import { openStore } from '../../server/src/db/connection.ts';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { schedulerPluginFolder } from '../helpers/schedulerPlugins.ts';
import { tempDir } from '../helpers/shell.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

async function jobStatus(t: TestServer, id: string): Promise<{ status: string; started_at: number | null }> {
  return t.db('job').where({ id }).first('status', 'started_at');
}

// The queue gives a running job 15 s to finish before it re-queues it.
describe('clean shutdown with a job running', { timeout: 120_000 }, () => {
  it('re-queues the job, closes the store, and the next start finishes the job', async () => {
    const dataDir = tempDir();
    const hold = path.join(tempDir(), 'hold');
    fs.writeFileSync(hold, '');
    const plugins = { FLEXSITE_SCHEDULER_PLUGINS: schedulerPluginFolder(hold) };
    let t = await startTestServer(plugins, dataDir);
    const f = factories(t.db);
    const accountId = (await f.account()).id;
    const { token } = await f.user({ accountId, roles: ['account-admin'] });
    const market = await f.asset({ accountId: null, type: 'transmission zone' });
    const prices = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
    await f.beliefs(
      prices,
      Date.parse('2015-01-02T00:00:00+01:00'),
      3600_000,
      new Array(24).fill(50),
      Date.parse('2015-01-01T00:00:00+01:00'),
    );
    const battery = await f.asset({ accountId, type: 'battery', attributes: { 'custom-scheduler': 'held' } });
    const sensor = await f.sensor({ assetId: battery.id });

    const trigger = await t.request('POST', `/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
      token,
      json: {
        start: '2015-01-02T00:00:00+01:00',
        'flex-model': { 'soc-at-start': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
        'flex-context': { 'consumption-price-sensor': prices },
      },
    });
    expect(trigger.status).toBe(200);
    const jobId: string = trigger.body.schedule;
    while ((await jobStatus(t, jobId)).status !== 'started') await new Promise((resolve) => setTimeout(resolve, 50));

    await t.close();
    expect(fs.existsSync(`${dataFolder(dataDir).store}-wal`)).toBe(false);
    const stopped = openStore(dataFolder(dataDir).store);
    expect(await stopped('job').where({ id: jobId }).first('status', 'started_at')).toEqual({ status: 'queued', started_at: null });
    await stopped.destroy();

    fs.rmSync(hold);
    t = await startTestServer(plugins, dataDir);
    try {
      const schedule = await waitForSchedule(t, token, sensor.id, jobId, 'PT1H');
      expect(schedule.status).toBe(200);
      expect(schedule.body.values).toEqual([0, 0, 0, 0]);
      // Interrupted once, run to the end on the second attempt.
      expect(await t.db('job').where({ id: jobId }).first('status', 'attempts')).toEqual({ status: 'finished', attempts: 2 });
    } finally {
      await t.close();
    }
  });
});
