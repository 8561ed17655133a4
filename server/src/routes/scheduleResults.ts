import { DateTime } from 'luxon';
import { rejected } from '../errors.ts';
import { formatDurationHours, formatStart } from '../domain/time.ts';
import { conversion } from '../domain/units.ts';
import type { AppContext } from '../http/context.ts';
import type { FlexsiteJobs } from '../contracts/jobs.ts';
import type { JobQueue, JobRecord } from '../jobs/jobQueue.ts';
import { consumptionSign } from '../scheduling/buildProblem.ts';
import { mostRecentBeliefs } from '../store/beliefs.ts';
import type { SensorInContext } from '../store/sensors.ts';

/**
 * Reading a scheduling job's result, shared by the v3.0 schedule endpoint and the legacy device
 * messages: the job's state as the reference reports it, and the scheduled values.
 */

const NO_SCHEDULE = 'No known schedule for this time period.';

/** A job of the scheduling queue. */
export type SchedulingJob = JobRecord<FlexsiteJobs, 'scheduling'>;

/** The scheduler a job's messages name: "<Name> was used." (empty while it has not run yet). */
export function schedulerName(job: SchedulingJob): string {
  if (job.status === 'queued' || job.status === 'started') return '';
  const info = job.result?.scheduler_info;
  if (info?.scheduler) return info.scheduler;
  return job.args.fallback ? 'StorageFallbackScheduler' : job.args.spec.scheduler;
}

/** The 400 UNKNOWN_SCHEDULE answer for a job without (usable) result. */
export const unknownSchedule = (message: string, job: SchedulingJob) =>
  rejected(400, 'UNKNOWN_SCHEDULE', `${NO_SCHEDULE} ${message} ${schedulerName(job)} was used.`);

/**
 * Clients poll right after triggering and back off for ten seconds or more when the schedule is
 * not ready; most schedules take well under a second, so a trigger waits briefly for its job.
 */
const TRIGGER_WAIT_MS = 3000;

/** Waits until the job has settled or a few seconds have passed, whichever comes first. */
export const settleBriefly = (ctx: AppContext, job: JobRecord) => ctx.services.jobs.settled(job.id, TRIGGER_WAIT_MS);

/**
 * The fallback job that holds the schedule of a failed job.
 * @returns the fallback job; throws UNRECOGNIZED_UDI_EVENT when it is gone.
 */
export async function fallbackOf(jobs: JobQueue, fallbackJobId: string): Promise<SchedulingJob> {
  const fallback = await jobs.get(fallbackJobId);
  if (fallback?.queue !== 'scheduling') {
    throw rejected(400, 'UNRECOGNIZED_UDI_EVENT', `The requested UDI event (id = ${fallbackJobId}, type = fallback-job) is not known.`);
  }
  return fallback;
}

/** Throws the UNKNOWN_SCHEDULE answer for a job that is waiting, running or failed. */
export function assertFinished(job: SchedulingJob): void {
  if (job.status === 'queued') throw unknownSchedule('Scheduling job waiting to be processed.', job);
  if (job.status === 'started') throw unknownSchedule('Scheduling job in progress.', job);
  if (job.status === 'failed') throw unknownSchedule(`Scheduling job failed with ${job.error}.`, job);
}

/** Whether the sensor is where the job wrote a device's state of charge. */
function isSocOutput(job: SchedulingJob, sensorId: number): boolean {
  const { spec } = job.args;
  return spec.scheduler === 'StorageScheduler' && spec.devices.some((d) => d.socSensorId === sensorId);
}

/** How schedule values are given: in another unit than the sensor's, or with another sign (FlexMeasures 1.0). */
export interface ScheduleOutput {
  unit?: string;
  /** `wysiwyg`: as stored. */
  signConvention?: 'consumption-positive' | 'production-positive' | 'wysiwyg';
}

/**
 * The values a finished job scheduled for a sensor, consumption positive unless asked otherwise,
 * in the sensor's unit (or a convertible one) and resolution, from the job's start (or `fromMs`,
 * when later) for at most `durationMs`, capped by the planning horizon.
 * @returns values, start, duration and unit; throws UNKNOWN_SCHEDULE when none are stored.
 */
export async function scheduleValues(
  ctx: AppContext,
  sensor: SensorInContext,
  job: SchedulingJob,
  durationMs: number,
  fromMs?: number,
  output: ScheduleOutput = {},
) {
  const result = job.result;
  if (!result) throw unknownSchedule('Scheduling job has no result.', job);
  const startMs = Math.max(result.start_ms, fromMs ?? result.start_ms);
  const windowMs = Math.min(durationMs, ctx.services.config.planningHorizonMs);
  const beliefs = await mostRecentBeliefs(ctx.services.db, {
    sensorId: sensor.id,
    startMs,
    endMs: startMs + windowMs,
    sourceIds: [result.data_source_id],
  });
  if (!beliefs.length) {
    throw unknownSchedule('A scheduling job has been processed with your job ID, but  the schedule was not found in the database.', job);
  }
  const step = sensor.event_resolution_ms;
  const firstMs = beliefs[0].eventStartMs;
  const lastEndMs = beliefs[beliefs.length - 1].eventStartMs + step;
  const spanMs = Math.min(windowMs, durationMs, lastEndMs - firstMs);
  const convention = output.signConvention ?? 'consumption-positive';
  // A state of charge has no consumption sign: it is served as stored.
  const signed = convention !== 'wysiwyg' && !isSocOutput(job, sensor.id);
  const sign = signed ? consumptionSign(sensor) * (convention === 'production-positive' ? -1 : 1) : 1;
  const unit = output.unit ?? sensor.unit;
  // Checked by the caller; the identity when the unit is the sensor's.
  const c = conversion(sensor.unit, unit, step)!;
  const value = (v: number) => Math.round((sign * v * c.scale + c.offset) * 1e6) / 1e6;
  let values: (number | null)[];
  let count: number;
  if (step === 0) {
    // An instantaneous sensor (a state of charge) has a value at each instant, both ends included.
    values = beliefs.filter((b) => b.eventStartMs <= firstMs + spanMs).map((b) => value(b.value));
    count = 0;
  } else {
    count = Math.floor(spanMs / step);
    values = new Array<number | null>(count).fill(null);
    for (const b of beliefs) {
      const i = (b.eventStartMs - firstMs) / step;
      if (Number.isInteger(i) && i < count) values[i] = value(b.value);
    }
  }
  return {
    values,
    start: formatStart(DateTime.fromMillis(firstMs, { zone: sensor.timezone })),
    duration: formatDurationHours(step === 0 ? spanMs : count * step),
    unit,
  };
}
