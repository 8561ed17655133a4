import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { schedulerPluginFolder } from '../helpers/schedulerPlugins.ts';
import { startTestServer } from '../helpers/testServer.ts';

/**
 * One solver call cannot give its turn away between cycles: while one account's solve runs long,
 * a spare slot takes another account's job, never a second one of the same account.
 */
describe('a long solve of one account', { timeout: 120_000 }, () => {
  it("holds its own slot only: another account's schedule finishes first, the same account's waits", async () => {
    const hold = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-hold-')), 'hold');
    fs.writeFileSync(hold, '');
    const t = await startTestServer({ FLEXSITE_SCHEDULER_PLUGINS: schedulerPluginFolder(hold) });
    try {
      const f = factories(t.db);
      const trigger = async (token: string, assetId: number) => {
        const sensor = await f.sensor({ assetId, unit: 'MW', resolutionMinutes: 15 });
        const res = await t.request('POST', `/api/v3_0/sensors/${sensor.id}/schedules/trigger`, {
          token,
          json: {
            start: '2026-06-01T00:00:00Z',
            duration: 'PT4H',
            'flex-model': { 'soc-at-start': 0, 'soc-unit': 'MWh', 'soc-min': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
            'flex-context': { 'consumption-price': '30 EUR/MWh' },
          },
        });
        expect(res.status).toBe(200);
        return { sensor: sensor.id, job: res.body.schedule as string };
      };
      const status = async (id: string) => (await t.server.services.jobs.get(id))!.status;
      const a = (await f.account()).id;
      const aToken = (await f.user({ accountId: a, roles: ['account-admin'] })).token;
      const b = (await f.account()).id;
      const bToken = (await f.user({ accountId: b, roles: ['account-admin'] })).token;
      // The `held` plugin solves once the hold file is gone: it stands for a long solve.
      const long = await trigger(aToken, (await f.asset({ accountId: a, type: 'battery', attributes: { 'custom-scheduler': 'held' } })).id);
      while ((await status(long.job)) !== 'started') await new Promise((resolve) => setTimeout(resolve, 50));
      const sameAccount = await trigger(aToken, (await f.asset({ accountId: a, type: 'battery' })).id);
      const otherAccount = await trigger(bToken, (await f.asset({ accountId: b, type: 'battery' })).id);

      expect((await waitForSchedule(t, bToken, otherAccount.sensor, otherAccount.job)).status).toBe(200);
      expect(await status(long.job)).toBe('started');
      expect(await status(sameAccount.job)).toBe('queued');

      fs.rmSync(hold);
      expect((await waitForSchedule(t, aToken, long.sensor, long.job)).status).toBe(200);
      expect((await waitForSchedule(t, aToken, sameAccount.sensor, sameAccount.job)).status).toBe(200);
    } finally {
      fs.rmSync(hold, { force: true });
      await t.close();
    }
  });
});
