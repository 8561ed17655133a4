import { z } from 'zod';
import { DateTime } from 'luxon';
import { AppError, fieldError, rejected } from '../../errors.ts';
import { assetTrigger, scheduleQuery, sensorTrigger } from '../../contracts/flexModel.ts';
import { formatDurationHours, formatStart } from '../../domain/time.ts';
import { parseInput } from '../../http/validate.ts';
import type { AppContext } from '../../http/context.ts';
import type { RouteSpec } from '../../http/routes.ts';
import type { JobRecord } from '../../jobs/jobQueue.ts';
import { authorize } from '../../policies/access.ts';
import { consumptionSign } from '../../scheduling/buildProblem.ts';
import { resolveSensorJob, resolveStorageJob, type TriggerInput } from '../../scheduling/flexConfig.ts';
import type { SchedulingJobArgs } from '../../scheduling/runJob.ts';
import { mostRecentBeliefs } from '../../store/beliefs.ts';
import { getAsset } from '../../store/assets.ts';
import { getSensor, type SensorInContext } from '../../store/sensors.ts';
import { idParams, loadAsset, loadSensor, ownedAccess } from './load.ts';

const NO_SCHEDULE = 'No known schedule for this time period.';

/**
 * Clients poll right after triggering and back off for ten seconds or more when the schedule is
 * not ready; most schedules take well under a second, so the trigger waits briefly for its job.
 */
const TRIGGER_WAIT_MS = 3000;

async function processed(ctx: AppContext, job: JobRecord): Promise<void> {
  await ctx.services.jobs.settled(job.id, TRIGGER_WAIT_MS);
  ctx.body = { schedule: job.id, status: 'PROCESSED', message: 'Request has been processed.' };
}

async function enqueue(ctx: AppContext, args: SchedulingJobArgs, sensorId: number, accountId: number | null, force: boolean) {
  const { jobs, config } = ctx.services;
  return jobs.enqueue('scheduling', args, { accountId, sensorId, reuseWithinS: config.jobCacheTtlS, force });
}

const triggerInput = (body: Pick<z.output<typeof sensorTrigger>, 'start' | 'duration' | 'prior' | 'flex-context'>): TriggerInput => ({
  start: body.start,
  duration: body.duration,
  prior: body.prior,
  flexContext: body['flex-context'] ?? {},
});

/** The scheduler a job's messages name: "<Name> was used." (empty while it has not run yet). */
function schedulerName(job: JobRecord): string {
  if (job.status === 'queued' || job.status === 'started') return '';
  const info = job.result?.scheduler_info as { scheduler?: string } | undefined;
  if (info?.scheduler) return info.scheduler;
  const args = job.args as SchedulingJobArgs;
  return args.fallback ? 'StorageFallbackScheduler' : args.spec.scheduler;
}

const unknownSchedule = (message: string, job: JobRecord) =>
  rejected(400, 'UNKNOWN_SCHEDULE', `${NO_SCHEDULE} ${message} ${schedulerName(job)} was used.`);

async function scheduleValues(ctx: AppContext, sensor: SensorInContext, job: JobRecord, durationMs: number) {
  const result = job.result as { data_source_id: number; start_ms: number };
  const windowMs = Math.min(durationMs, ctx.services.config.planningHorizonMs);
  const beliefs = await mostRecentBeliefs(ctx.services.db, {
    sensorId: sensor.id,
    startMs: result.start_ms,
    endMs: result.start_ms + windowMs,
    sourceIds: [result.data_source_id],
  });
  if (!beliefs.length) {
    throw unknownSchedule('A scheduling job has been processed with your job ID, but  the schedule was not found in the database.', job);
  }
  const step = sensor.event_resolution_ms;
  const firstMs = beliefs[0].eventStartMs;
  const lastEndMs = beliefs[beliefs.length - 1].eventStartMs + step;
  const spanMs = Math.min(windowMs, durationMs, lastEndMs - firstMs);
  const count = Math.floor(spanMs / step);
  const values: (number | null)[] = new Array<number | null>(count).fill(null);
  const sign = consumptionSign(sensor);
  for (const b of beliefs) {
    const i = (b.eventStartMs - firstMs) / step;
    if (Number.isInteger(i) && i < count) values[i] = Math.round(sign * b.value * 1e6) / 1e6;
  }
  return {
    values,
    start: formatStart(DateTime.fromMillis(firstMs, { zone: sensor.timezone })),
    duration: formatDurationHours(count * step),
    unit: sensor.unit,
  };
}

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
      await processed(ctx, await enqueue(ctx, { spec }, sensor.id, sensor.account_id, force));
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
      await processed(ctx, await enqueue(ctx, { spec }, devices[0].sensor.id, asset.account_id, force));
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
        const fallback = await jobs.get(job.fallbackJobId);
        if (!fallback) {
          throw rejected(400, 'UNRECOGNIZED_UDI_EVENT', `The requested UDI event (id = ${job.fallbackJobId}, type = fallback-job) is not known.`);
        }
        job = fallback;
      }
      if (job.status === 'queued') throw unknownSchedule('Scheduling job waiting to be processed.', job);
      if (job.status === 'started') throw unknownSchedule('Scheduling job in progress.', job);
      if (job.status === 'failed') throw unknownSchedule(`Scheduling job failed with ${job.error}.`, job);
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
