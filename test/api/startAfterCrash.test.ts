import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import { createLogger } from '../../server/src/logger.ts';
import { factories } from '../helpers/factories.ts';
import { schedulerPluginFolder } from '../helpers/schedulerPlugins.ts';
import { onSharedBackends } from '../helpers/sharedBackends.ts';
import { startTestServer, storeSettings } from '../helpers/testServer.ts';

/**
 * A start after a crash (kill -9 during a long job) resumes the interrupted job; the port must
 * not wait for it. The entry point starts with the solver warm-up (`warm`), whose tasks once
 * queued behind the resumed job's, so the port opened only when that job ended. The store's
 * `started` row stands for the crash on the in-process queue; on BullMQ a dead worker's job is
 * handed out again by Redis (test/scaleOut/multiProcess.test.ts).
 */
describe.skipIf(onSharedBackends)('a start after a crash', { timeout: 120_000 }, () => {
  it('answers readiness while the interrupted job it resumed still runs', async () => {
    const hold = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-hold-')), 'hold');
    const plugins = { FLEXSITE_SCHEDULER_PLUGINS: schedulerPluginFolder(hold) };
    const t = await startTestServer(plugins);
    const dir = t.dataDir;
    let jobId: string;
    try {
      const f = factories(t.db);
      const accountId = (await f.account()).id;
      const token = (await f.user({ accountId, roles: ['account-admin'] })).token;
      // The `held` plugin solves once the hold file is gone: it stands for a long solve.
      const battery = await f.asset({ accountId, type: 'battery', attributes: { 'custom-scheduler': 'held' } });
      const sensor = await f.sensor({ assetId: battery.id });
      const trigger = await t.request('POST', `/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
        token,
        json: {
          start: '2015-01-02T00:00:00+01:00',
          'flex-model': { 'soc-at-start': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
          'flex-context': { 'consumption-price': '50 EUR/MWh' },
        },
      });
      expect(trigger.status).toBe(200);
      jobId = trigger.body.schedule as string;
      await t.server.services.jobs.settled(jobId, 60_000);
      // As a kill -9 leaves it: started once, never ended.
      await t.db('job').where({ id: jobId }).update({ status: 'started', result: null, finished_at: null, attempts: 1 });
    } finally {
      await t.server.close();
    }
    fs.writeFileSync(hold, '');
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', FLEXSITE_LOG_LEVEL: 'silent', ...(await storeSettings(dir)), ...plugins });
    const restarted = await startServer(config, { log: createLogger('silent'), warm: true });
    try {
      const ready = await fetch(`${restarted.url}/api/v3_0/health/ready`);
      expect(ready.status).toBe(200);
      // Ready while the resumed job waits for its turn or is held in its solve.
      expect(['queued', 'started']).toContain((await restarted.services.jobs.get(jobId!))!.status);
      fs.rmSync(hold);
      await restarted.services.jobs.settled(jobId!, 60_000);
      expect(await restarted.services.db('job').where({ id: jobId! }).first('status', 'attempts')).toEqual({
        status: 'finished',
        attempts: 2,
      });
    } finally {
      await restarted.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
