import type { Knex } from 'knex';
import { z } from 'zod';
import { AppError, fieldError, fieldTree, rejected, unprocessable } from '../../errors.ts';
import { assetTrigger, scheduleQuery, sensorTrigger } from '../../contracts/flexModel.ts';
import type { AppContext } from '../../http/context.ts';
import { route } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import type { JobRecord } from '../../jobs/jobQueue.ts';
import { resolveStorageJob } from '../../scheduling/flexConfig.ts';
import type { JobSpec } from '../../contracts/jobSpec.ts';
import { jobReferences } from '../../scheduling/jobReferences.ts';
import { conversion } from '../../domain/units.ts';
import { speaks10 } from '../../http/compat.ts';
import { deviceFlexModel, inheritedFlexContext, storedDevices } from '../../scheduling/storedConfig.ts';
import { descendantIds, type Asset } from '../../store/assets.ts';
import type { User } from '../../store/users.ts';
import { userPrincipal } from '../../policies/principal.ts';
import { flexReferences, refuseForeign } from '../../policies/references.ts';
import { queueSchedule, triggerSensorSchedule } from '../../commands/triggerSchedule.ts';
import { getSensor, type SensorInContext } from '../../store/sensors.ts';
import { assertFinished, fallbackOf, scheduleValues, schedulerName, settleBriefly, type SchedulingJob } from '../scheduleResults.ts';
import { assetById, idParams, sensorById } from '../load.ts';

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

/** A resolved trigger: the job and what the request named, whose sensors the chain authorizes. */
interface Trigger {
  spec: JobSpec;
  asset: Asset;
  request: { flexModel: unknown; flexContext: unknown };
}

/**
 * The 403 for a sensor named in the flex configuration that the caller or the asset's account may
 * not use, before the resolution reads it (its unit would otherwise show in a 422).
 */
const refuseNamedForeign = (db: Knex, user: User, asset: Asset, named: { flexModel: unknown; flexContext: unknown }) =>
  refuseForeign(db, user, [...flexReferences(named.flexModel), ...flexReferences(named.flexContext)], asset.account_id);

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
    async command({ ctx, user, body, loaded: { sensor } }) {
      const { reader, config, jobs, clock } = ctx.services;
      const input = { ...triggerInput(body), sensor, flexModel: body['flex-model'] ?? {}, flexContext: body['flex-context'] ?? {} };
      const job = await triggerSensorSchedule({ db: reader, config, jobs, clock }, userPrincipal(user), input, {
        reuseWithinS: config.jobCacheTtlS,
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
    async check({ ctx, db, user, body, loaded: { asset } }): Promise<Trigger & { devices: { sensor: SensorInContext }[] }> {
      // Devices may sit on the asset or anywhere below it.
      const tree = new Set(await descendantIds(db, asset.id));
      const devices: { sensor: SensorInContext; flexModel: Record<string, unknown> }[] = [];
      for (const [i, entry] of (body['flex-model'] ?? []).entries()) {
        const { sensor: sensorId, ...flexModel } = entry;
        // Messages sit under the entry's `sensor`, as marshmallow nests list items.
        const entryError = (message: string) => unprocessable('json', fieldTree(['flex-model', i, 'sensor'], [message]));
        if (sensorId === undefined) throw entryError('Missing data for required field.');
        if (!Number.isSafeInteger(sensorId)) throw entryError('Not a valid integer.');
        const sensor = await getSensor(db, sensorId as number);
        if (!sensor) throw entryError(`No sensor found with id ${String(sensorId)}.`);
        if (!tree.has(sensor.generic_asset_id))
          throw entryError(`Sensor ${sensor.id} does not belong to asset ${asset.id} or one below it.`);
        devices.push({ sensor, flexModel: await deviceFlexModel(db, sensor, flexModel) });
      }
      const unnamed = await storedDevices(db, asset, new Set(devices.map((d) => d.sensor.generic_asset_id)));
      if (typeof unnamed === 'string') throw fieldError('json', 'flex-model', unnamed);
      devices.push(...unnamed);
      if (!devices.length) {
        throw fieldError(
          'json',
          'flex-model',
          'No flexible device: name a power sensor in the flex-model, or store a flex-model on the asset or one below it.',
        );
      }
      const flexContext = await inheritedFlexContext(db, asset, body['flex-context'] ?? {});
      await refuseNamedForeign(db, user, asset, { flexModel: devices.map((d) => d.flexModel), flexContext });
      const spec = await resolveStorageJob(db, ctx.services.config, { ...triggerInput(body), flexContext }, devices, asset);
      const flexModel = devices.map((d) => ({ sensor: d.sensor.id, ...d.flexModel }));
      return { spec, asset, devices, request: { flexModel, flexContext } };
    },
    async command({ ctx, user, body, checked }) {
      const { reader, config, jobs, clock } = ctx.services;
      const options = { sensorId: checked.devices[0].sensor.id, reuseWithinS: config.jobCacheTtlS, force: forced(body) };
      return processed(ctx, await queueSchedule({ db: reader, config, jobs, clock }, userPrincipal(user), checked, options));
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
