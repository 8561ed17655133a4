import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import type { Config } from '../config.ts';
import type { Clock } from '../clock.ts';
import type { IsoDuration } from '../domain/time.ts';
import { assertOwnerMay, forecastSensor } from '../forecasting/forecastJob.ts';
import { prepareSchedule, readSchedule, resolveSensorTrigger } from '../commands/triggerSchedule.ts';
import { isDomainError } from '../errors.ts';
import type { FlexsiteJobs } from '../contracts/jobs.ts';
import { JobFailure, type JobHandler, type QueueAccess } from '../jobs/jobQueue.ts';
import { describePrincipal, resolvePrincipal, type Principal } from '../policies/principal.ts';
import type { AutomationJobArgs, PrincipalRef } from '../contracts/jobs.ts';
import { maxPlanningMs } from '../scheduling/flexConfig.ts';
import { inheritedFlexContext } from '../scheduling/storedConfig.ts';
import { plannedWithin, readRecurring } from '../scheduling/recurringTargets.ts';
import type { Asset } from '../store/assets.ts';
import { getAutomation, type Automation } from '../store/automations.ts';
import { RowReads } from '../store/rowReads.ts';
import type { SensorInContext } from '../store/sensors.ts';
import { floorToGrid } from '../scheduling/timeGrid.ts';
import { nextDue } from '../domain/cron.ts';
import { configOf, namedSensors, readStamp, resolutionStamp, type ResolvedRun } from './unchangedSchedule.ts';
import { standingForecast } from '../store/standingForecast.ts';
import type { WorkerPool } from '../workers/workerPool.ts';
import type { AutomationJobResult } from '../contracts/responses.ts';
import { failingAutomation } from '../attention/attention.ts';
import { dueWindow } from './dueWindow.ts';
import { LastAnswers, type ScheduleAnswer } from './sameAnswer.ts';

/**
 * What an automation forecasts feeds its own schedule: a forecast power sensor (other than the
 * one scheduled) is an inflexible device, a forecast price sensor the consumption price where the
 * stored flex-context gives none. FlexMeasures 1.0's device lists are left as stored (the two
 * kinds of list do not mix).
 * @returns the flex-context to schedule with, and what the forecasts added to it.
 */
async function fedByForecasts(rows: RowReads, context: Record<string, unknown>, forecastIds: number[], scheduledId: number) {
  const sensors = (await Promise.all(forecastIds.map((id) => rows.sensor(id)))).filter((s) => s !== undefined);
  const listed = Array.isArray(context['inflexible-device-sensors']) ? (context['inflexible-device-sensors'] as number[]) : [];
  const modernLists = context['inflexible-consumption'] !== undefined || context['inflexible-production'] !== undefined;
  const devices = modernLists
    ? []
    : sensors.filter((s) => /^[kMG]?W$/.test(s.unit) && s.id !== scheduledId && !listed.includes(s.id)).map((s) => s.id);
  const priced = context['consumption-price'] !== undefined || context['consumption-price-sensor'] !== undefined;
  const price = priced ? undefined : sensors.find((s) => s.unit.includes('/'));
  return {
    context: {
      ...context,
      ...(devices.length && { 'inflexible-device-sensors': [...listed, ...devices] }),
      ...(price && { 'consumption-price-sensor': price.id }),
    },
    added: { inflexible_device_sensors: devices, consumption_price_sensor: price?.id ?? null },
  };
}

/**
 * The device's recurring SoC targets that fall in this run's window, after the soc-targets its
 * stored flex-model lists; with the targets as read, for the runs after it (see sameAnswer.ts).
 */
async function recurringTargetsOf(db: Knex, asset: Asset, startMs: number, endMs: number) {
  const read = await readRecurring(db, asset);
  const planned = plannedWithin(read, asset.flex_model['soc-targets'], { startMs, endMs });
  if ('problem' in planned) throw new JobFailure('ValueError', planned.problem);
  return { ...planned, read };
}

/**
 * Refuses a run whose horizon is longer than the longest schedule of the sensor it schedules,
 * before anything is forecast or any recurring target expanded: the schedule would be refused
 * after all that work (a year of weekly targets is thousands of occurrences).
 */
function checkScheduleHorizon(
  config: Config,
  automation: { id: number; horizon: string },
  sensor: SensorInContext | undefined,
  horizonMs: number,
) {
  // An instantaneous sensor has no steps to count: the trigger's own check decides.
  const maxMs = sensor && sensor.event_resolution_ms > 0 ? maxPlanningMs(config, sensor.event_resolution_ms) : Infinity;
  if (!sensor || horizonMs <= maxMs) return;
  const days = Math.floor((maxMs / 86_400_000) * 100) / 100;
  throw new JobFailure(
    'ValueError',
    `Automation ${automation.id}'s horizon (${automation.horizon}) is longer than the longest schedule of sensor ${sensor.id} (${days} days); nothing was forecast or scheduled.`,
  );
}

/**
 * The forecast an earlier run made that this run would make again: believed in the step of the due
 * time (so from the same origin on the sensor's grid), reaching the last step of this run's window,
 * and with no measurement of the sensor before that origin believed since (its history would be the same; an
 * automation's forecasts read no regressors). A forecast made from fewer measurements than exist
 * at the due time is never one.
 */
async function unchangedForecast(rows: RowReads, sensorId: number, dueMs: number, endMs: number) {
  const { db } = rows;
  const stepMs = (await rows.sensor(sensorId))?.event_resolution_ms;
  if (!stepMs) return undefined;
  const fromMs = Math.floor(dueMs / stepMs) * stepMs;
  return standingForecast(db, sensorId, { fromMs, atMs: dueMs, lastEventMs: Math.ceil(endMs / stepMs) * stepMs - stepMs });
}

/** What a run's schedule part needs besides the run. */
interface Scheduling {
  db: Knex;
  config: Config;
  clock: Clock;
  /** Where its schedule job is queued (or found). */
  runtime: Pick<QueueAccess, 'enqueue'>;
  /** What each automation's last run resolved (see unchangedSchedule.ts). */
  lastResolved: Map<number, ResolvedRun>;
  /** The run's reads of sensor and asset rows: made for this run, dropped with it. */
  rows: RowReads;
}

/** One run of an automation with a sensor to schedule. */
interface ScheduleRun {
  automation: Automation & { scheduleSensorId: number };
  principal: Principal;
  ref: PrincipalRef;
  start: DateTime;
  horizon: IsoDuration;
  endMs: number;
}

/**
 * Queues the run's schedule, or finds the job of an earlier run that read the same. The job's key
 * decides, as for any trigger; while nothing the resolution read has changed (the stamp), the
 * flex configuration an earlier run resolved is taken again instead of resolved anew, its state
 * of charge and its inputs' figures read now, and the job authorized now.
 */
async function scheduleOf(at: Scheduling, run: ScheduleRun, sensor: SensorInContext | undefined) {
  const { automation, ref } = run;
  const asset = sensor && (await at.rows.asset(sensor.generic_asset_id));
  if (!sensor || !asset) throw new JobFailure('ValueError', `The sensor to schedule (${automation.scheduleSensorId}) no longer exists.`);
  return answerRun(at, run, sensor, asset).catch((err: unknown) => {
    if (isDomainError(err) && err.kind === 'refused') {
      throw new JobFailure(
        'PermissionDenied',
        `${describePrincipal(ref)} or the account of asset ${asset.id} may not use a sensor its stored flex configuration names; nothing was run.`,
      );
    }
    throw err;
  });
}

/** A run's window and the recurring targets in it, as both ways of answering it read them. */
async function runWindow(at: Scheduling, run: ScheduleRun, sensor: SensorInContext, asset: Asset) {
  const { automation, principal, start } = run;
  const dueMs = start.toMillis();
  // Known as of the run (never before its due time): the state of charge at the start included.
  const prior = DateTime.fromMillis(Math.max(dueMs, at.clock.now()), { zone: automation.timezone });
  const recurring = await recurringTargetsOf(at.db, asset, dueMs, run.endMs);
  const gridStartMs = floorToGrid(start, sensor.event_resolution_ms).toMillis();
  const stampParts = { automation, principal, sensor, asset, recurring: recurring.flexModel, gridStartMs };
  const queueing = { reader: at.db, config: at.config, jobs: at.runtime, clock: at.clock };
  const options = { sensorId: sensor.id, reuseWithinS: at.config.jobCacheTtlS, anyBeliefTime: true };
  return { dueMs, prior, recurring, gridStartMs, stampParts, queueing, options, queuedAtMs: at.clock.now() };
}
type RunWindow = Awaited<ReturnType<typeof runWindow>>;

/**
 * The answer of a run whose stamp and key are those of the automation's last run (see
 * unchangedSchedule.ts): the job those found, looked for (or queued again once its time to live
 * ran out); undefined when anything differs, and the run must resolve in full.
 * @param spell the automation's spell of failures, which the stamp's statement reads as well.
 */
async function reuseResolved(
  at: Scheduling,
  run: ScheduleRun,
  sensor: SensorInContext,
  asset: Asset,
  w: RunWindow,
  spell?: { accountId: number; subject: string },
) {
  const last = at.lastResolved.get(run.automation.id);
  // A run of another grid step has another window: only a full resolution tells its job.
  if (last?.resolved.spec.startMs !== w.gridStartMs) return undefined;
  const now = await readStamp(at.db, { ...w.stampParts, sensorIds: namedSensors(last.resolved, sensor.id) }, spell);
  if (last.stamp !== now.stamp) return undefined;
  const spec = {
    ...last.resolved.spec,
    priorMs: w.prior.toMillis(),
    requestedStartMs: w.dueMs === last.resolved.spec.startMs ? undefined : w.dueMs,
  };
  // Its rights are those checked when it was resolved: the stamp covers all they rest on. Its
  // sensors' units and resolutions are those the stamp has just read.
  const job = { ...last.resolved, spec, asset };
  const prepared = await readSchedule(w.queueing, run.principal, job, { ...w.options, sensors: now.sensors }, at.rows);
  // Another key: the data changed, and the resolution may read them too.
  if (prepared.key !== last.key) return undefined;
  const queued = await prepared.queue();
  const answer: ScheduleAnswer & { spellOpen: boolean; key: string } = {
    key: prepared.key,
    jobId: queued.id,
    reused: queued.createdAt < w.queuedAtMs,
    scheduleInputs: last.scheduleInputs,
    socTargets: w.recurring.added,
    spellOpen: spell === undefined || now.spellOpen,
  };
  return answer;
}

/** `scheduleOf` once the sensor and its asset are found. */
async function answerRun(at: Scheduling, run: ScheduleRun, sensor: SensorInContext, asset: Asset): Promise<ScheduleAnswer> {
  const w = await runWindow(at, run, sensor, asset);
  const reused = await reuseResolved(at, run, sensor, asset, w);
  if (reused) return reused;
  const { db } = at;
  const { automation, principal, start, horizon } = run;
  const { dueMs, prior, recurring, gridStartMs, stampParts, queueing, options, queuedAtMs } = w;
  at.lastResolved.delete(automation.id);
  // Kept only for a next run of the same grid step (an automation due every quarter hour has none).
  const nextMs = nextDue(automation.cron, automation.timezone, dueMs) ?? Infinity;
  const keep = nextMs < gridStartMs + sensor.event_resolution_ms;
  const before = keep && (await resolutionStamp(db, { ...stampParts, sensorIds: [sensor.id] }));
  // The asset's stored flex configuration (inherited from its ancestors), as a trigger without a body gets it.
  // The rows read before the stamp `before` (the sensor and its asset) are in the stamp themselves.
  const fed = await fedByForecasts(at.rows, await inheritedFlexContext(at.rows, asset, {}), automation.forecastSensorIds, sensor.id);
  const input = { start, duration: horizon, prior, sensor, flexModel: recurring.flexModel, flexContext: fed.context };
  const resolved = await resolveSensorTrigger(queueing, principal, input, at.rows);
  const prepared = await prepareSchedule(queueing, principal, resolved, options, at.rows);
  const queued = await prepared.queue();
  const scheduleInputs = fed.added;
  // Kept only when nothing the stamp covers changed while it was resolved.
  if (before && before === (await resolutionStamp(db, { ...stampParts, sensorIds: [sensor.id] }))) {
    const stamp = await resolutionStamp(db, { ...stampParts, sensorIds: namedSensors(resolved, sensor.id) });
    at.lastResolved.set(automation.id, { stamp, resolved, key: prepared.key, scheduleInputs });
  }
  return { jobId: queued.id, reused: queued.createdAt < queuedAtMs, scheduleInputs, socTargets: recurring.added };
}

/** What a run is of: the automation, as whom it acts, its window and the sensor it schedules. */
async function runOf(rows: RowReads, config: Config, args: AutomationJobArgs, read?: Automation) {
  const { db } = rows;
  const { automationId, dueMs, principal: ref } = args;
  const automation = read ?? (await getAutomation(db, automationId));
  if (!automation) throw new JobFailure('ValueError', `Automation ${automationId} no longer exists.`);
  const principal = await resolvePrincipal(db, ref, automation);
  if (typeof principal === 'string') throw new JobFailure('PermissionDenied', `${principal}; nothing was run.`);
  const window = dueWindow(automation, dueMs);
  if (typeof window === 'string') throw new JobFailure('ValueError', `Automation ${automationId} has an unreadable horizon: ${window}`);
  const { horizon, start, endMs } = window;
  const sensor = automation.scheduleSensorId === null ? undefined : await rows.sensor(automation.scheduleSensorId);
  checkScheduleHorizon(config, automation, sensor, endMs - dueMs);
  return { automation, principal, ref, horizon, start, endMs, sensor };
}

/** A run's result from its forecasts and its schedule's answer. */
const resultOf = (args: AutomationJobArgs, forecasts: AutomationJobResult['forecasts'], schedule: ScheduleAnswer | undefined) =>
  ({
    automation_id: args.automationId,
    due: new Date(args.dueMs).toISOString(),
    forecasts,
    schedule_job_id: schedule?.jobId ?? null,
    ...(schedule?.reused && { schedule_job_reused: true }),
    schedule_inputs: schedule?.scheduleInputs ?? null,
    // The occurrences of the device's recurring SoC targets this run scheduled for.
    ...(schedule?.socTargets.length && { soc_targets: schedule.socTargets }),
  }) satisfies AutomationJobResult;

/** What the caller of `unchanged` has just read for the run, at its tick: not read again. */
export interface AlreadyRead {
  automation: Automation;
  /** The account of the automation's asset, which its runs are recorded for. */
  accountId: number | null;
}

/** A run answered without the queue. */
export interface UnchangedRun {
  result: AutomationJobResult;
  /**
   * Whether the automation's spell of failures was open when the run read its stamp (the same
   * statement reads both), so that the run's success must end it. A spell another process opens
   * after that is ended by the next successful run, as one opened just after this run would be.
   */
  spellOpen: boolean;
}

/**
 * Automation runs in this process. `handler` is the handler of the `automation` queue: it
 * forecasts the automation's sensors from the due time over its horizon, then queues a schedule
 * of its power sensor with the asset's stored flex-model and flex-context, fed by its forecasts
 * (a job of its own, on the Jobs page). Without a stored soc-at-start, the state of charge is read
 * from the flex-model's `state-of-charge` sensor at the due time. It acts with the rights of the
 * user who made the automation, checked now, not when it was made. `unchanged` answers a run
 * without the queue when it would only find its last run's schedule job again.
 */
export class AutomationRuns {
  /** What each automation's last run resolved (see unchangedSchedule.ts). */
  private lastResolved = new Map<number, ResolvedRun>();
  /** What each automation's last run answered without the queue (see sameAnswer.ts). */
  private answers = new LastAnswers();

  constructor(
    private db: Knex,
    private pool: WorkerPool,
    private config: Config,
    private clock: Clock,
  ) {}

  readonly handler: JobHandler<FlexsiteJobs, 'automation'> = async (job, runtime) => {
    const { db, pool, config, clock } = this;
    const rows = new RowReads(db);
    const { automation, principal, ref, horizon, start, endMs, sensor } = await runOf(rows, config, job.args);
    const { dueMs } = job.args;
    const forecasts: AutomationJobResult['forecasts'] = [];
    for (const sensorId of automation.forecastSensorIds) {
      // Forecast as known at the due time, which the run stands for even when it runs late.
      const forecast = { sensorId, principal: ref, startMs: dueMs, endMs, priorMs: dueMs, regressorIds: [] };
      const standing = await unchangedForecast(rows, sensorId, dueMs, endMs);
      if (standing) {
        // The rights a new forecast would need, checked now all the same.
        await assertOwnerMay(db, forecast);
        forecasts.push({
          sensor_id: sensorId,
          data_source_id: standing.sourceId,
          ...(standing.method && { method: standing.method }),
          reused: true,
        });
        continue;
      }
      const made = await forecastSensor(db, pool, forecast, { beforeCycle: () => runtime.yieldTurn() }, clock);
      forecasts.push({ sensor_id: sensorId, data_source_id: made.sourceId, method: made.cycles[0]?.outcome.method });
    }

    const { scheduleSensorId } = automation;
    const schedule =
      scheduleSensorId === null
        ? undefined
        : await scheduleOf(
            { db, config, clock, runtime, lastResolved: this.lastResolved, rows },
            { automation: { ...automation, scheduleSensorId }, principal, ref, start, horizon, endMs },
            sensor,
          );
    return resultOf(job.args, forecasts, schedule);
  };

  /**
   * The result of the run `args` stands for when it would answer with the job of its
   * automation's last run in this process, every check of a run made and all it reads unchanged
   * (see `reuseResolved`): an automation that forecasts nothing, its maker resolved, its stamp and
   * its job's key the same. Undefined for anything else, a failure included: the run then goes
   * through the queue and runs in full, which reports what failed.
   * @param jobs where the schedule job is found (or queued again once its time to live ran out).
   */
  async unchanged(args: AutomationJobArgs, jobs: Pick<QueueAccess, 'enqueue'>, read?: AlreadyRead): Promise<UnchangedRun | undefined> {
    if (!this.lastResolved.has(args.automationId)) return undefined;
    const rows = new RowReads(this.db);
    const at = { db: this.db, config: this.config, clock: this.clock, runtime: jobs, lastResolved: this.lastResolved, rows };
    try {
      const spell =
        read && read.accountId !== null ? { accountId: read.accountId, subject: failingAutomation(args.automationId) } : undefined;
      const looked =
        read && (await this.answers.lookUp(this.db, { automation: read.automation, dueMs: args.dueMs, nowMs: this.clock.now(), spell }));
      if (looked?.again) return { result: { ...resultOf(args, [], looked.again), without_queue: true }, spellOpen: looked.again.spellOpen };
      this.answers.forget(args.automationId);
      const { automation, principal, ref, horizon, start, endMs, sensor } = await runOf(rows, this.config, args, read?.automation);
      const asset = sensor && (await rows.asset(sensor.generic_asset_id));
      const { scheduleSensorId } = automation;
      if (automation.forecastSensorIds.length || scheduleSensorId === null || !sensor || !asset) return undefined;
      const run = { automation: { ...automation, scheduleSensorId }, principal, ref, start, horizon, endMs };
      const w = await runWindow(at, run, sensor, asset);
      const schedule = await reuseResolved(at, run, sensor, asset, w, spell);
      if (!schedule) return undefined;
      if (looked) {
        this.answers.keep(automation.id, {
          count: looked.count,
          priorMs: w.prior.toMillis(),
          config: configOf(automation),
          stepMs: sensor.event_resolution_ms,
          gridStartMs: w.gridStartMs,
          recurring: w.recurring.read,
          listed: asset.flex_model['soc-targets'],
          flexModel: JSON.stringify(w.recurring.flexModel),
          jobKey: schedule.key,
          jobId: schedule.jobId,
          reuseWithinS: this.config.jobCacheTtlS,
          scheduleInputs: schedule.scheduleInputs,
        });
      }
      return { result: { ...resultOf(args, [], schedule), without_queue: true }, spellOpen: schedule.spellOpen };
    } catch {
      return undefined;
    }
  }
}
