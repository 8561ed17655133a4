import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import type { Config } from '../config.ts';
import type { Clock } from '../clock.ts';
import { parseIsoDuration } from '../domain/time.ts';
import { assertOwnerMay, forecastSensor } from '../forecasting/forecastJob.ts';
import { triggerSensorSchedule } from '../commands/triggerSchedule.ts';
import { isDomainError } from '../errors.ts';
import type { FlexsiteJobs } from '../contracts/jobs.ts';
import { JobFailure, type JobHandler } from '../jobs/jobQueue.ts';
import { describePrincipal, resolvePrincipal } from '../policies/principal.ts';
import { maxPlanningMs } from '../scheduling/flexConfig.ts';
import { inheritedFlexContext } from '../scheduling/storedConfig.ts';
import { plannedSocTargets, type SocTargetAt } from '../scheduling/recurringTargets.ts';
import { getAsset, type Asset } from '../store/assets.ts';
import { getAutomation } from '../store/automations.ts';
import { getSensor } from '../store/sensors.ts';
import { standingForecast } from '../store/standingForecast.ts';
import type { WorkerPool } from '../workers/workerPool.ts';
import type { AutomationJobResult } from '../contracts/responses.ts';

/**
 * What an automation forecasts feeds its own schedule: a forecast power sensor (other than the
 * one scheduled) is an inflexible device, a forecast price sensor the consumption price where the
 * stored flex-context gives none. FlexMeasures 1.0's device lists are left as stored (the two
 * kinds of list do not mix).
 * @returns the flex-context to schedule with, and what the forecasts added to it.
 */
async function fedByForecasts(db: Knex, context: Record<string, unknown>, forecastIds: number[], scheduledId: number) {
  const sensors = (await Promise.all(forecastIds.map((id) => getSensor(db, id)))).filter((s) => s !== undefined);
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

/** The device's recurring SoC targets that fall in this run's window, after the soc-targets its stored flex-model lists. */
async function recurringTargetsOf(db: Knex, asset: Asset, startMs: number, endMs: number) {
  const planned = await plannedSocTargets(db, asset, asset.flex_model['soc-targets'], { startMs, endMs });
  if ('problem' in planned) throw new JobFailure('ValueError', planned.problem);
  return planned;
}

/**
 * Refuses a run whose horizon is longer than the longest schedule of the sensor it schedules,
 * before anything is forecast or any recurring target expanded: the schedule would be refused
 * after all that work (a year of weekly targets is thousands of occurrences).
 */
async function checkScheduleHorizon(
  db: Knex,
  config: Config,
  automation: { id: number; horizon: string; scheduleSensorId: number | null },
  horizonMs: number,
): Promise<void> {
  const sensor = automation.scheduleSensorId === null ? undefined : await getSensor(db, automation.scheduleSensorId);
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
async function unchangedForecast(db: Knex, sensorId: number, dueMs: number, endMs: number) {
  const stepMs = (await getSensor(db, sensorId))?.event_resolution_ms;
  if (!stepMs) return undefined;
  const fromMs = Math.floor(dueMs / stepMs) * stepMs;
  return standingForecast(db, sensorId, { fromMs, atMs: dueMs, lastEventMs: Math.ceil(endMs / stepMs) * stepMs - stepMs });
}

/**
 * The handler of the `automation` queue: forecasts the automation's sensors from the due time
 * over its horizon, then queues a schedule of its power sensor with the asset's stored
 * flex-model and flex-context, fed by its forecasts (a job of its own, on the Jobs page). Without a
 * stored soc-at-start, the state of charge is read from the flex-model's `state-of-charge` sensor
 * at the due time. It acts with the rights of
 * the user who made the automation, checked now, not when it was made.
 */
export function automationHandler(db: Knex, pool: WorkerPool, config: Config, clock: Clock): JobHandler<FlexsiteJobs, 'automation'> {
  return async (job, runtime) => {
    const { automationId, dueMs, principal: ref } = job.args;
    const automation = await getAutomation(db, automationId);
    if (!automation) throw new JobFailure('ValueError', `Automation ${automationId} no longer exists.`);
    const principal = await resolvePrincipal(db, ref);
    if (typeof principal === 'string') throw new JobFailure('PermissionDenied', `${principal}; nothing was run.`);
    const horizon = parseIsoDuration(automation.horizon);
    if (typeof horizon === 'string') throw new JobFailure('ValueError', `Automation ${automationId} has an unreadable horizon: ${horizon}`);
    const start = DateTime.fromMillis(dueMs, { zone: automation.timezone });
    const endMs = start.plus(horizon.luxon).toMillis();
    await checkScheduleHorizon(db, config, automation, endMs - dueMs);

    const forecasts: AutomationJobResult['forecasts'] = [];
    for (const sensorId of automation.forecastSensorIds) {
      // Forecast as known at the due time, which the run stands for even when it runs late.
      const forecast = { sensorId, principal: ref, startMs: dueMs, endMs, priorMs: dueMs, regressorIds: [] };
      const standing = await unchangedForecast(db, sensorId, dueMs, endMs);
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

    let scheduleJobId: string | null = null;
    let scheduleJobReused = false;
    let scheduleInputs: AutomationJobResult['schedule_inputs'] = null;
    let socTargets: SocTargetAt[] = [];
    if (automation.scheduleSensorId !== null) {
      const sensor = await getSensor(db, automation.scheduleSensorId);
      const asset = sensor && (await getAsset(db, sensor.generic_asset_id));
      if (!sensor || !asset)
        throw new JobFailure('ValueError', `The sensor to schedule (${automation.scheduleSensorId}) no longer exists.`);
      // The asset's stored flex configuration (inherited from its ancestors), as a trigger without a body gets it.
      const fed = await fedByForecasts(db, await inheritedFlexContext(db, asset, {}), automation.forecastSensorIds, sensor.id);
      scheduleInputs = fed.added;
      // Known as of the run (never before its due time): the state of charge at the start included.
      const prior = DateTime.fromMillis(Math.max(dueMs, clock.now()), { zone: automation.timezone });
      const recurring = await recurringTargetsOf(db, asset, dueMs, endMs);
      socTargets = recurring.added;
      const input = { start, duration: horizon, prior, sensor, flexModel: recurring.flexModel, flexContext: fed.context };
      const queuedAtMs = clock.now();
      // A run finds the job of an earlier one only while everything that job read is unchanged.
      const queued = await triggerSensorSchedule({ reader: db, config, jobs: runtime, clock }, principal, input, {
        reuseWithinS: config.jobCacheTtlS,
        anyBeliefTime: true,
      }).catch((err: unknown) => {
        if (isDomainError(err) && err.kind === 'refused') {
          throw new JobFailure(
            'PermissionDenied',
            `${describePrincipal(ref)} or the account of asset ${asset.id} may not use a sensor its stored flex configuration names; nothing was run.`,
          );
        }
        throw err;
      });
      scheduleJobId = queued.id;
      scheduleJobReused = queued.createdAt < queuedAtMs;
    }
    return {
      automation_id: automationId,
      due: new Date(dueMs).toISOString(),
      forecasts,
      schedule_job_id: scheduleJobId,
      ...(scheduleJobReused && { schedule_job_reused: true }),
      schedule_inputs: scheduleInputs,
      // The occurrences of the device's recurring SoC targets this run scheduled for.
      ...(socTargets.length && { soc_targets: socTargets }),
    } satisfies AutomationJobResult;
  };
}
