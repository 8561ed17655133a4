import { z } from 'zod';
import { AppError, fieldError, rejected } from '../../errors.ts';
import { assetTrigger, scheduleQuery, sensorTrigger } from '../../contracts/flexModel.ts';
import type { AppContext } from '../../http/context.ts';
import { route } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import type { JobRecord } from '../../jobs/jobQueue.ts';
import { jobReferences } from '../../scheduling/jobReferences.ts';
import { conversion } from '../../domain/units.ts';
import { speaks10 } from '../../http/compat.ts';
import { triggerAssetSchedule, triggerSensorSchedule } from '../../commands/triggerSchedule.ts';
import { assertFinished, fallbackOf, scheduleValues, schedulerName, settleBriefly, type SchedulingJob } from '../scheduleResults.ts';
import { assetById, idParams, sensorById } from '../load.ts';
import { withRecurringTargets } from '../../scheduling/recurringTargets.ts';
import { getAsset } from '../../store/assets.ts';

/**
 * The trigger's answer: 0.18's 200 PROCESSED, or 1.0's 202 ACCEPTED naming the job under `job`
 * (and `schedule`, kept by 1.0 for older clients) with where to follow it.
 * @param resultsSensorId the sensor whose schedule URL a sensor trigger names.
 */
async function processed(ctx: AppContext, job: JobRecord, resultsSensorId?: number) {
  await settleBriefly(ctx, job);
  if (!speaks10(ctx.services.config)) return { schedule: job.id, status: 'PROCESSED', message: 'Request has been processed.' };
  return {
    status: 'ACCEPTED',
    message: 'Request has been accepted for processing.',
    job: job.id,
    'job-url': `/api/v3_0/jobs/${job.id}`,
    ...(resultsSensorId === undefined ? {} : { 'results-url': `/api/v3_0/sensors/${resultsSensorId}/schedules/${job.id}` }),
    schedule: job.id,
  };
}

/** Whether the job is a scheduling job writing this sensor (a device, or an output such as `production`). */
function schedules(job: JobRecord, sensorId: number): job is SchedulingJob {
  if (job.queue !== 'scheduling') return false;
  return job.sensorId === sensorId || jobReferences(job.args.spec).some((r) => r.use === 'write' && r.id === sensorId);
}

const triggerInput = (body: Pick<z.output<typeof sensorTrigger>, 'start' | 'duration' | 'resolution' | 'prior'>) => ({
  start: body.start,
  duration: body.duration,
  resolution: body.resolution,
  prior: body.prior,
});

const forced = (body: { 'force-new-job-creation'?: boolean; force_new_job_creation?: boolean }) =>
  Boolean(body['force-new-job-creation'] ?? body.force_new_job_creation);

const triggerResponse = {
  schema: wire.triggerAnswer,
  status: (answer: { status: string }) => (answer.status === 'ACCEPTED' ? 202 : 200),
};

export const scheduleRoutes = [
  route({
    method: 'POST',
    path: '/sensors/:id/schedules/trigger',
    summary: 'Trigger scheduling job',
    request: { params: idParams, json: sensorTrigger },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'create-children') }),
    async command({ ctx, context, principal, body, loaded: { sensor } }) {
      const given = body['flex-model'] ?? {};
      const asset = await getAsset(context.reader, sensor.generic_asset_id);
      const listed = given['soc-targets'] ?? asset?.flex_model['soc-targets'];
      const flexModel = await withRecurringTargets(context.reader, context.config, { window: body, sensor, at: [] }, given, listed);
      const input = { ...triggerInput(body), sensor, flexModel, flexContext: body['flex-context'] ?? {} };
      const job = await triggerSensorSchedule(context, principal, input, {
        reuseWithinS: context.config.jobCacheTtlS,
        force: forced(body),
      });
      return processed(ctx, job, sensor.id);
    },
    response: triggerResponse,
  }),
  route({
    method: 'POST',
    path: '/assets/:id/schedules/trigger',
    summary: 'Trigger scheduling job for the devices of an asset',
    request: { params: idParams, json: assetTrigger },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'create-children') }),
    async command({ ctx, context, principal, body, loaded: { asset } }) {
      const trigger = { ...triggerInput(body), devices: body['flex-model'] ?? [], flexContext: body['flex-context'] ?? {} };
      const options = { reuseWithinS: context.config.jobCacheTtlS, force: forced(body) };
      return processed(ctx, await triggerAssetSchedule(context, principal, { asset, trigger }, options));
    },
    response: triggerResponse,
  }),
  route({
    method: 'GET',
    path: '/sensors/:id/schedules/:uuid',
    summary: 'Download schedule from the platform',
    request: { params: idParams.extend({ uuid: z.string() }), query: scheduleQuery, queryLocation: 'args_and_json' },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'read') }),
    async command({ ctx, params, query, loaded: { sensor } }) {
      const { jobs, config } = ctx.services;
      const jobId = params.uuid;
      let job = await jobs.get(jobId);
      // A job that does not schedule this sensor (another account's, say) is as unknown as none.
      if (!job || !schedules(job, sensor.id)) {
        throw rejected(400, 'UNRECOGNIZED_UDI_EVENT', `The requested UDI event (id = ${jobId}, type = job) is not known.`);
      }
      // FlexMeasures 1.0 retired the storage fallback: a failed schedule is a 400 with the reason.
      if (job.status === 'failed' && job.fallbackJobId && !speaks10(config)) {
        if (config.fallbackRedirect) {
          const location = `${ctx.protocol}://${ctx.host}/api/v3_0/sensors/${sensor.id}/schedules/${job.fallbackJobId}`;
          throw new AppError(
            303,
            {
              result: 'Rejected',
              status: 'UNKNOWN_SCHEDULE',
              message: `Scheduling job failed with ${job.error}. ${schedulerName(job)} was used.`,
            },
            { Location: location },
          );
        }
        job = await fallbackOf(jobs, job.fallbackJobId);
      }
      if (query.unit !== undefined && !conversion(sensor.unit, query.unit, sensor.event_resolution_ms)) {
        throw fieldError('args_and_json', 'unit', `Cannot convert ${sensor.unit} to ${query.unit}.`);
      }
      assertFinished(job);
      const durationMs = query.duration ? Math.max(0, query.duration.ms) : 6 * 3600_000;
      const name = schedulerName(job);
      const output = { unit: query.unit, signConvention: query['sign-convention'] };
      return {
        ...(await scheduleValues(ctx, sensor, job, durationMs, undefined, output)),
        scheduler_info: { scheduler: name },
        status: 'PROCESSED',
        message: `Request has been processed. ${name} was used.`,
      };
    },
    response: { schema: wire.scheduleAnswer },
  }),
];
