import { z } from 'zod';
import * as replay from '../../contracts/batteryReplay.ts';
import { startBatteryReplay } from '../../commands/startBatteryReplay.ts';
import { notFound } from '../../errors.ts';
import { route } from '../../http/routes.ts';
import { assetById, idParams } from '../load.ts';

const HOW =
  "Replays the site's measured history with each battery size it does not have: once a day at local midnight the load " +
  'and PV are forecast from the 28 days measured before (nothing later), the storage scheduler plans each battery for ' +
  '48 hours against the prices known then, and the battery follows the first day of its plan against what was measured, ' +
  "within its power and capacity. Every hour is priced without and with each battery. The site's load is its house " +
  'load (less its PV), or its grid meter. Prices entered here are in EUR/kWh; the result is in EUR. ' +
  `At most ${replay.MAX_REPLAY_SIZES} sizes and ${replay.MAX_REPLAY_DAYS} days per replay.`;

/** "Would a battery pay?": a replay of a site's history with battery sizes it does not have, as a job. */
export const batteryReplayRoutes = [
  route({
    method: 'POST',
    path: '/assets/:id/battery-replay',
    summary: "Start a replay of a site's measured history with one or a few battery sizes (a job)",
    request: { params: idParams, json: replay.batteryReplayRequest },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    transaction: true,
    async command({ context, principal, body, loaded: { asset } }) {
      const job = await startBatteryReplay(context, principal, { asset, request: body });
      return {
        job: job.id,
        status: 'ACCEPTED' as const,
        message: 'Battery replay job has been queued.',
        'job-url': `/api/v3_0/assets/${asset.id}/battery-replay/${job.id}`,
      };
    },
    response: { status: 202, schema: replay.batteryReplayStarted, description: HOW },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/battery-replay/:job',
    summary: 'Get a battery replay: its state, how many days it has replayed, and its report once finished',
    request: { params: idParams.extend({ job: z.string() }) },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    async command({ ctx, params, loaded: { asset } }) {
      const job = await ctx.services.jobs.get(params.job);
      // A job of another asset answers as an unknown one, telling nothing of it.
      if (!job || job.queue !== 'battery-replay' || job.args.assetId !== asset.id)
        throw notFound(`Battery replay ${params.job} not found.`);
      return {
        job: job.id,
        status: job.status,
        progress: job.progress,
        error: job.error,
        result: job.status === 'finished' ? job.result : null,
      };
    },
    response: { schema: replay.batteryReplayJob },
  }),
];
