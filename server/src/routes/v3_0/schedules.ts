import { z } from 'zod';
import { AppError, fieldError, rejected } from '../../errors.ts';
import { assetTrigger, scheduleQuery, sensorTrigger } from '../../contracts/flexModel.ts';
import { parseInput } from '../../http/validate.ts';
import type { AppContext } from '../../http/context.ts';
import type { RouteSpec } from '../../http/routes.ts';
import type { JobRecord } from '../../jobs/jobQueue.ts';
import { authorize } from '../../policies/access.ts';
import { authorizeReferences } from '../../policies/references.ts';
import { resolveSensorJob, resolveStorageJob, triggerReferences, type TriggerInput } from '../../scheduling/flexConfig.ts';
import type { SchedulingJobArgs } from '../../scheduling/runJob.ts';
import type { JobSpec } from '../../scheduling/jobSpec.ts';
import { getAsset, type Asset } from '../../store/assets.ts';
import { getSensor, type SensorInContext } from '../../store/sensors.ts';
import { assertFinished, fallbackOf, scheduleValues, schedulerName, settleBriefly } from '../scheduleResults.ts';
import { idParams, loadAsset, loadSensor, ownedAccess } from './load.ts';

async function processed(ctx: AppContext, job: JobRecord): Promise<void> {
  await settleBriefly(ctx, job);
  ctx.body = { schedule: job.id, status: 'PROCESSED', message: 'Request has been processed.' };
}

/** Authorizes every sensor the trigger names or its job uses, then queues the job in the caller's name. */
async function enqueue(
  ctx: AppContext,
  spec: JobSpec,
  asset: Asset,
  request: { flexModel: unknown; flexContext: unknown },
  sensorId: number,
  force: boolean,
) {
  const { db, jobs, config } = ctx.services;
  const user = ctx.state.user!;
  await authorizeReferences(db, user, triggerReferences(spec, asset, request));
  const args: SchedulingJobArgs = { spec, ownerId: user.id };
  return jobs.enqueue('scheduling', args, { accountId: asset.account_id, sensorId, reuseWithinS: config.jobCacheTtlS, force });
}

const triggerInput = (body: Pick<z.output<typeof sensorTrigger>, 'start' | 'duration' | 'prior' | 'flex-context'>): TriggerInput => ({
  start: body.start,
  duration: body.duration,
  prior: body.prior,
  flexContext: body['flex-context'] ?? {},
});

export const scheduleRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/sensors/:id/schedules/trigger',
    summary: 'Trigger scheduling job',
    request: { params: idParams, json: sensorTrigger },
    async handler(ctx) {
      const body = parseInput(sensorTrigger, ctx.request.body, 'json');
      const sensor = await loadSensor(ctx);
      authorize(ctx.state.user!, 'create-children', await ownedAccess(ctx, 'sensor', sensor.account_id));
      const asset = (await getAsset(ctx.services.db, sensor.generic_asset_id))!;
      const spec = await resolveSensorJob(ctx.services.db, ctx.services.config, triggerInput(body), sensor, asset, body['flex-model'] ?? {});
      const force = Boolean(body['force-new-job-creation'] ?? body.force_new_job_creation);
      const request = { flexModel: body['flex-model'], flexContext: body['flex-context'] };
      await processed(ctx, await enqueue(ctx, spec, asset, request, sensor.id, force));
    },
  },
  {
    method: 'POST',
    path: '/assets/:id/schedules/trigger',
    summary: 'Trigger scheduling job for the devices of an asset',
    request: { params: idParams, json: assetTrigger },
    async handler(ctx) {
      const body = parseInput(assetTrigger, ctx.request.body, 'json');
      const asset = await loadAsset(ctx);
      authorize(ctx.state.user!, 'create-children', await ownedAccess(ctx, 'asset', asset.account_id));
      const devices: { sensor: SensorInContext; flexModel: unknown }[] = [];
      for (const [i, entry] of body['flex-model'].entries()) {
        const { sensor: sensorId, ...flexModel } = entry;
        if (!Number.isSafeInteger(sensorId)) {
          throw fieldError('json', 'flex-model', `Entry ${i} needs the id of the power sensor it describes under "sensor".`);
        }
        const sensor = await getSensor(ctx.services.db, sensorId as number);
        const onAsset = sensor && (sensor.generic_asset_id === asset.id || (await getAsset(ctx.services.db, sensor.generic_asset_id))?.parent_asset_id === asset.id);
        if (!sensor || !onAsset) {
          throw fieldError('json', 'flex-model', `No sensor found with id ${String(sensorId)} on asset ${asset.id}.`);
        }
        devices.push({ sensor, flexModel });
      }
      const spec = await resolveStorageJob(ctx.services.db, ctx.services.config, triggerInput(body), devices, asset);
      const force = Boolean(body['force-new-job-creation'] ?? body.force_new_job_creation);
      const request = { flexModel: body['flex-model'], flexContext: body['flex-context'] };
      await processed(ctx, await enqueue(ctx, spec, asset, request, devices[0].sensor.id, force));
    },
  },
  {
    method: 'GET',
    path: '/sensors/:id/schedules/:uuid',
    summary: 'Download schedule from the platform',
    request: { params: idParams.extend({ uuid: z.string() }), query: scheduleQuery },
    async handler(ctx) {
      const query = parseInput(scheduleQuery, ctx.query, 'args_and_json');
      const sensor = await loadSensor(ctx);
      authorize(ctx.state.user!, 'read', await ownedAccess(ctx, 'sensor', sensor.account_id));
      const { jobs, config } = ctx.services;
      const jobId = ctx.params.uuid;
      let job = await jobs.get(jobId);
      if (!job) throw rejected(400, 'UNRECOGNIZED_UDI_EVENT', `The requested UDI event (id = ${jobId}, type = job) is not known.`);
      if (job.status === 'failed' && job.fallbackJobId) {
        if (config.fallbackRedirect) {
          const location = `${ctx.protocol}://${ctx.host}/api/v3_0/sensors/${sensor.id}/schedules/${job.fallbackJobId}`;
          throw new AppError(
            303,
            { result: 'Rejected', status: 'UNKNOWN_SCHEDULE', message: `Scheduling job failed with ${job.error}. ${schedulerName(job)} was used.` },
            { Location: location },
          );
        }
        job = await fallbackOf(jobs, job.fallbackJobId);
      }
      assertFinished(job);
      const durationMs = query.duration ? Math.max(0, query.duration.ms) : 6 * 3600_000;
      const name = schedulerName(job);
      ctx.body = {
        ...(await scheduleValues(ctx, sensor, job, durationMs)),
        scheduler_info: { scheduler: name },
        status: 'PROCESSED',
        message: `Request has been processed. ${name} was used.`,
      };
    },
  },
];
