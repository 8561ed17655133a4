import { DateTime } from 'luxon';
import type { ForecastTrigger } from '../contracts/forecasts.ts';
import { formatResolution } from '../domain/time.ts';
import { fieldError } from '../errors.ts';
import type { ForecastJobArgs } from '../contracts/jobs.ts';
import { forecastReferences, historyDays, MIN_HISTORY_DAYS, minimumHistoryText, pvArrayOf } from '../forecasting/forecastJob.ts';
import { getAsset } from '../store/assets.ts';
import type { JobRecord } from '../jobs/jobQueue.ts';
import { principalRef, type Principal } from '../policies/principal.ts';
import { authorizeReferences } from '../policies/references.ts';
import type { SensorInContext } from '../store/sensors.ts';
import { BACKTEST_LEAD_DAYS, GEOMETRY_HANDOVER_DAYS } from '../../../worker/src/tasks.ts';
import type { Queueing } from './triggerSchedule.ts';

/**
 * Triggering a forecast: checks the window against the settings' bounds, authorizes the forecast
 * sensor (write) and its regressors (read) for the principal and the sensor's account, and queues
 * the job in the principal's name for that account. No HTTP context: errors are the API's (422, 403).
 */

const DAY_MS = 86_400_000;
const DEFAULT_WINDOW_MS = 2 * DAY_MS;

/** A warning for the trigger's answer when the history is too short to choose the method by backtest. */
function historyNoteAtTrigger(sensorId: number, history: number, horizonMs: number, geometry: boolean): string | null {
  const backtestDays = BACKTEST_LEAD_DAYS + horizonMs / DAY_MS;
  if (history >= backtestDays) return null;
  const method = geometry
    ? `The forecast will come from the PV array's geometry, handing over to the learned one over the first ${GEOMETRY_HANDOVER_DAYS} days of history.`
    : 'The method will be seasonal-naive-day.';
  return (
    `Too little history for a backtest: sensor ${sensorId} has ${Math.round(history * 10) / 10} days of it; ` +
    `${minimumHistoryText(horizonMs)}. ${method}`
  );
}

/** The job's arguments from the trigger, bounded before any date arithmetic (which a huge duration would overflow). */
function forecastArgs(context: Queueing, principal: Principal, sensor: SensorInContext, body: ForecastTrigger): ForecastJobArgs {
  const { maxForecastMs, maxForecastCycles } = context.config.limits;
  const tooLong = (field: string) => fieldError('json', field, `The forecast window may be at most ${maxForecastMs / DAY_MS} days long.`);
  if (body.duration && body.duration.ms > maxForecastMs) throw tooLong('duration');
  const stepMs = sensor.event_resolution_ms;
  if (!stepMs)
    throw fieldError(
      'path',
      'id',
      `Sensor ${sensor.id} records instantaneous values; only sensors with an event resolution can be forecast.`,
    );
  const startMs = body.start?.toMillis() ?? Math.floor(context.clock.now() / stepMs) * stepMs;
  const endMs =
    body.end?.toMillis() ??
    (body.duration ? (body.start ?? DateTime.fromMillis(startMs)).plus(body.duration.luxon).toMillis() : startMs + DEFAULT_WINDOW_MS);
  if (endMs <= startMs) throw fieldError('json', body.end ? 'end' : 'duration', 'The forecast window must end after it starts.');
  // A forecast is ex ante by definition: one believed after its events began would be stamped as known before it was.
  if (body.prior && body.prior.toMillis() > startMs)
    throw fieldError('json', 'prior', 'The belief time of a forecast must not be after the start of its window.');
  if (!(endMs - startMs <= maxForecastMs)) throw tooLong(body.end ? 'end' : 'duration');
  // Each cycle is a model fit: one trigger may not hold the job worker for thousands of them.
  const horizonMs = body['max-forecast-horizon']?.ms;
  if (horizonMs && Math.ceil((endMs - startMs) / horizonMs) > maxForecastCycles) {
    throw fieldError(
      'json',
      'max-forecast-horizon',
      `Too short for this window: at most ${maxForecastCycles} forecast cycles per trigger.`,
    );
  }
  if (horizonMs !== undefined && horizonMs < stepMs) {
    throw fieldError('json', 'max-forecast-horizon', `Must be at least the sensor's resolution (${formatResolution(stepMs)}).`);
  }
  const config = body.config ?? {};
  const regressorIds = [
    ...new Set([
      ...(body.regressors ?? []),
      ...(config.regressors ?? []),
      ...(config['future-regressors'] ?? []),
      ...(config['past-regressors'] ?? []),
    ]),
  ];
  return {
    sensorId: sensor.id,
    principal: principalRef(principal),
    startMs,
    endMs,
    regressorIds,
    ...(body.prior ? { priorMs: body.prior.toMillis() } : {}),
    ...(horizonMs !== undefined ? { maxHorizonMs: horizonMs } : {}),
  };
}

/**
 * Queues a forecast of the sensor as the trigger asks.
 * @param input the sensor (already read) and the trigger.
 * @returns the job, and a note for people when the history is too short for a backtest.
 * @throws 422 for a window out of bounds or too little history, 403 for a sensor the principal
 *   or the sensor's account may not use.
 */
export async function triggerForecast(
  context: Queueing,
  principal: Principal,
  input: { sensor: SensorInContext; trigger: ForecastTrigger },
): Promise<{ job: JobRecord; note: string | null }> {
  const { reader: db, config, jobs } = context;
  const { sensor, trigger } = input;
  const args = forecastArgs(context, principal, sensor, trigger);
  // The job runs for the sensor's account, which must be able to read the regressors too.
  await authorizeReferences(db, principal, forecastReferences(args), [], sensor.account_id);
  // What the job will read, as far as it is known now (without `prior`, the job reads at the time it runs).
  const beliefTimeMs = args.priorMs ?? Math.min(context.clock.now(), args.startMs);
  const horizonMs = Math.min(args.endMs - Math.min(beliefTimeMs, args.startMs), args.maxHorizonMs ?? Infinity);
  const history = await historyDays(db, sensor, args.startMs, beliefTimeMs);
  // A PV array set up with its geometry is forecast from it until history takes over.
  const geometry = pvArrayOf(await getAsset(db, sensor.generic_asset_id)) !== null;
  if (history < MIN_HISTORY_DAYS && !geometry) {
    throw fieldError(
      'json',
      args.priorMs !== undefined ? 'prior' : 'start',
      `Too little history: sensor ${sensor.id} has ${Math.round(history * 10) / 10} days of it known at ` +
        `${new Date(beliefTimeMs).toISOString()} before the start; ${minimumHistoryText(horizonMs)}.`,
    );
  }
  const job = await jobs.enqueue('forecasting', args, {
    accountId: sensor.account_id,
    sensorId: sensor.id,
    reuseWithinS: config.jobCacheTtlS,
  });
  return { job, note: historyNoteAtTrigger(sensor.id, history, horizonMs, geometry) };
}
