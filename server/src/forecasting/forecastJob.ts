import type { Knex } from 'knex';
import { resampleToGrid } from '../domain/resample.ts';
import type { FlexsiteJobs, ForecastJobArgs } from '../contracts/jobs.ts';
import { JobFailure, type JobHandler } from '../jobs/jobQueue.ts';
import { getAsset, type Asset } from '../store/assets.ts';
import { mostRecentBeliefs, type BeliefInput } from '../store/beliefs.ts';
import { recordBeliefs } from '../store/write/beliefs.ts';
import { saveForecastModel } from '../store/write/forecastModels.ts';
import { getSensor, type SensorInContext } from '../store/sensors.ts';
import { getOrCreateSource } from '../store/write/sources.ts';
import { firstRefused, type Reference } from '../policies/references.ts';
import { describePrincipal, resolvePrincipal } from '../policies/principal.ts';
import {
  BACKTEST_LEAD_DAYS,
  FORECASTER_VERSION,
  type ForecastOutcome,
  type ForecastTask,
  type PvArray,
} from '../../../worker/src/tasks.ts';
import type { WorkerPool } from '../workers/workerPool.ts';
import type { Clock } from '../clock.ts';
import type { ForecastJobResult } from '../contracts/responses.ts';

/** One forecast made at one belief time, and what it found. */
export interface ForecastCycle {
  beliefTimeMs: number;
  startMs: number;
  endMs: number;
  /** The forecaster source its values were stored under (one per method). */
  sourceId: number;
  outcome: ForecastOutcome;
  /** When it ran (epoch ms) and how long it took, for people and for the fairness bench (a cycle is a job's turn). */
  ranAtMs: number;
  ranMs: number;
}

const DAY_MS = 86_400_000;
/** History read per forecast: the methods fit on 84 days and backtest on 14 more, plus a week of lags. */
const HISTORY_MS = 112 * DAY_MS;
/** A seasonal-naive forecast repeats the day before: without a day of history there is nothing to go on. */
export const MIN_HISTORY_DAYS = 1;

const floorTo = (ms: number, stepMs: number) => Math.floor(ms / stepMs) * stepMs;

/**
 * The PV array an asset describes (device set-up stores its peak, tilt and azimuth), or null when
 * any of them, or the asset's location, is missing: then there is no forecast from geometry.
 */
export function pvArrayOf(asset: Asset | undefined): PvArray | null {
  const { capacity_in_mw: mw, tilt_in_degrees: tiltDeg, azimuth_in_degrees: azimuthDeg } = asset?.attributes ?? {};
  const numbers = [mw, tiltDeg, azimuthDeg].every((v) => typeof v === 'number' && Number.isFinite(v));
  if (!numbers || asset?.latitude === null || asset?.longitude === null) return null;
  return { peakKw: (mw as number) * 1000, tiltDeg: tiltDeg as number, azimuthDeg: azimuthDeg as number };
}

/** The site facts a forecaster uses, from the sensor's asset: country (attribute), location and any PV array. */
function siteOf(sensor: SensorInContext, asset: Asset | undefined): Pick<ForecastTask, 'timezone' | 'country' | 'location' | 'pv'> {
  const country = asset?.attributes.country ?? sensor.attributes.country;
  const hasLocation = asset && asset.latitude !== null && asset.longitude !== null;
  return {
    timezone: sensor.timezone,
    country: typeof country === 'string' ? country : null,
    location: hasLocation ? { latitude: asset.latitude!, longitude: asset.longitude! } : null,
    pv: pvArrayOf(asset),
  };
}

/**
 * Source types whose beliefs are not history: forecasts (Flexsite's own would feed back into the
 * next forecast) and schedules (plans, not what happened).
 */
const NOT_HISTORY = ['forecaster', 'scheduler'];

/**
 * A sensor's beliefs known at `beliefTimeMs` on the grid [startMs, endMs), whenever they were
 * formed: measurements, and ex-ante beliefs such as day-ahead prices known the day before their
 * events. For the forecast sensor's own history, forecasts and schedules are left out (`history`);
 * regressors take any belief, as their future is only known as a forecast.
 */
async function gridValues(
  db: Knex,
  sensor: SensorInContext,
  window: { startMs: number; endMs: number; stepMs: number },
  beliefTimeMs: number,
  history: boolean,
): Promise<(number | null)[]> {
  const events = await mostRecentBeliefs(db, {
    sensorId: sensor.id,
    startMs: window.startMs,
    endMs: window.endMs,
    overlapping: true,
    beliefsBeforeMs: beliefTimeMs,
    ...(history ? { excludeSourceTypes: NOT_HISTORY } : {}),
  });
  return resampleToGrid(events, { ...window, eventResolutionMs: sensor.event_resolution_ms });
}

/** Where a forecast's history ends: the step its belief time falls in is not known yet, nor anything from the start on. */
const originOf = (beliefTimeMs: number, startMs: number, stepMs: number) =>
  Math.min(floorTo(beliefTimeMs, stepMs), floorTo(startMs, stepMs));

/**
 * How much history of its own a sensor has for a forecast from `startMs` made at `beliefTimeMs`:
 * the days from its first known value in the window read to the origin (0: none).
 */
export async function historyDays(db: Knex, sensor: SensorInContext, startMs: number, beliefTimeMs: number): Promise<number> {
  const stepMs = sensor.event_resolution_ms;
  const originMs = originOf(beliefTimeMs, startMs, stepMs);
  const values = await gridValues(db, sensor, { startMs: originMs - HISTORY_MS, endMs: originMs, stepMs }, beliefTimeMs, true);
  const first = values.findIndex((v) => v !== null);
  return first < 0 ? 0 : ((values.length - first) * stepMs) / DAY_MS;
}

const days = (d: number) => `${Math.round(d * 10) / 10} day${d === 1 ? '' : 's'}`;

/**
 * The least history a forecast takes, in words: a day for any forecast, and, to choose the method by
 * backtest, BACKTEST_LEAD_DAYS more than the horizon.
 */
export function minimumHistoryText(horizonMs: number): string {
  const backtestDays = BACKTEST_LEAD_DAYS + horizonMs / DAY_MS;
  return (
    `a forecast needs at least ${days(MIN_HISTORY_DAYS)} of history, and choosing its method by backtest ` +
    `at least ${days(backtestDays)} (${BACKTEST_LEAD_DAYS} days before the earliest origin plus the ${Math.round((horizonMs / 3600_000) * 100) / 100}-hour horizon)`
  );
}

/** What a cycle's outcome says about too little history, or null when its method was chosen by backtest (or named). */
export function historyNote(sensorId: number, stepMs: number, outcome: ForecastOutcome, methodNamed: boolean): string | null {
  if (outcome.backtest || methodNamed) return null;
  const horizonMs = outcome.backtestMinimumSteps * stepMs - BACKTEST_LEAD_DAYS * DAY_MS;
  const geometry =
    outcome.geometryWeight > 0 ? ` The PV array's geometry forecast weighed ${Math.round(outcome.geometryWeight * 100)} % of it.` : '';
  return (
    `Too little history: sensor ${sensorId} had ${days((outcome.historySteps * stepMs) / DAY_MS)} of it; ` +
    `${minimumHistoryText(horizonMs)}. The method was ${outcome.method}, chosen without a backtest.${geometry}`
  );
}

/** The sensors a forecast writes (the forecast sensor) and reads (its regressors), by field. */
export function forecastReferences(args: Pick<ForecastJobArgs, 'sensorId' | 'regressorIds'>): Reference[] {
  return [
    { kind: 'sensor', id: args.sensorId, use: 'write', location: 'path', field: 'id' },
    ...args.regressorIds.map((id, i): Reference => ({ kind: 'sensor', id, use: 'read', location: 'json', field: `regressors.${i}` })),
  ];
}

/**
 * Re-checks the owner's current rights, so a job queued before a role change cannot write where
 * its owner no longer may, and those of the forecast sensor's account, whose data the regressors
 * feed (the job runs for that account, whoever started it).
 */
export async function assertOwnerMay(db: Knex, args: ForecastJobArgs): Promise<void> {
  const principal = await resolvePrincipal(db, args.principal);
  if (typeof principal === 'string') throw new JobFailure('PermissionDenied', `${principal}; nothing was stored.`);
  const account = (await getSensor(db, args.sensorId))?.account_id;
  const refused = await firstRefused(db, principal, forecastReferences(args), undefined, account);
  if (refused) {
    throw new JobFailure(
      'PermissionDenied',
      `${describePrincipal(args.principal)} or the account of sensor ${args.sensorId} may no longer ${refused.use} sensor ${refused.id}; nothing was stored.`,
    );
  }
}

/** The cycles of a job: one, unless the window is longer than the longest horizon asked for. */
function cycles(args: ForecastJobArgs, nowMs: number): { beliefTimeMs: number; startMs: number; endMs: number }[] {
  if (args.priorMs !== undefined || !args.maxHorizonMs || args.endMs - args.startMs <= args.maxHorizonMs) {
    return [{ beliefTimeMs: args.priorMs ?? Math.min(nowMs, args.startMs), startMs: args.startMs, endMs: args.endMs }];
  }
  const out = [];
  for (let from = args.startMs; from < args.endMs; from += args.maxHorizonMs) {
    out.push({ beliefTimeMs: Math.min(nowMs, from), startMs: from, endMs: Math.min(args.endMs, from + args.maxHorizonMs) });
  }
  return out;
}

/** What a caller hears of the cycles of a forecast. */
export interface CycleHooks {
  /** Before each cycle: a job gives its turn to another account's waiting job here, so none waits longer than one cycle. */
  beforeCycle?: () => Promise<void>;
  /** After each stored cycle: progress, for the CLI. */
  afterCycle?: (done: number, total: number) => void;
}

/**
 * Forecasts a sensor over a window: per cycle, reads the history known at the belief time,
 * forecasts in a worker thread, and stores the values as beliefs of a `forecaster` source named
 * after the method, so forecasts sit beside measurements and are filtered by source.
 */
export async function forecastSensor(
  db: Knex,
  pool: WorkerPool,
  args: ForecastJobArgs,
  hooks: CycleHooks,
  clock: Clock,
): Promise<{ sourceId: number; cycles: ForecastCycle[] }> {
  const sensor = await getSensor(db, args.sensorId);
  if (!sensor) throw new JobFailure('ValueError', `No sensor found with id ${args.sensorId}.`);
  const stepMs = sensor.event_resolution_ms;
  if (!stepMs)
    throw new JobFailure(
      'ValueError',
      `Sensor ${sensor.id} has no event resolution; only sensors of events with a duration can be forecast.`,
    );
  const regressors = await Promise.all(args.regressorIds.map((id) => getSensor(db, id)));
  const site = siteOf(sensor, await getAsset(db, sensor.generic_asset_id));
  const plan = cycles(args, clock.now());
  const done: ForecastCycle[] = [];
  let sourceId = 0;
  for (const cycle of plan) {
    await hooks.beforeCycle?.();
    const ranAtMs = clock.now();
    const started = performance.now();
    const originMs = originOf(cycle.beliefTimeMs, cycle.startMs, stepMs);
    const historyStartMs = originMs - HISTORY_MS;
    const endMs = cycle.endMs;
    const history = await gridValues(db, sensor, { startMs: historyStartMs, endMs: originMs, stepMs }, cycle.beliefTimeMs, true);
    // A PV array set up with its geometry is forecast from it while it has no history.
    if (!site.pv && !history.some((v) => v !== null)) {
      throw new JobFailure(
        'ValueError',
        `No usable history: sensor ${sensor.id} has no measurements or other beliefs (forecasts and schedules aside) ` +
          `known at ${new Date(cycle.beliefTimeMs).toISOString()} for events in the ${HISTORY_MS / DAY_MS} days before ` +
          `${new Date(originMs).toISOString()}; ${minimumHistoryText(Math.max(endMs - originMs, stepMs))}. Nothing was stored.`,
      );
    }
    const regressorValues = await Promise.all(
      regressors.map((r) => gridValues(db, r!, { startMs: historyStartMs, endMs, stepMs }, cycle.beliefTimeMs, false)),
    );
    const steps = Math.ceil((endMs - originMs) / stepMs);
    const task: ForecastTask = { stepMs, historyStartMs, history, steps, ...site, regressors: regressorValues, method: args.method };
    const outcome: ForecastOutcome = await pool.run('forecast', task);
    if (!outcome.values.some((v, i) => v !== null && originMs + i * stepMs >= cycle.startMs)) {
      throw new JobFailure(
        'ValueError',
        `No usable history: sensor ${sensor.id}'s history known at ${new Date(cycle.beliefTimeMs).toISOString()} ` +
          `has no values a day or a week before the forecast window; ${minimumHistoryText(endMs - originMs)}. Nothing was stored.`,
      );
    }
    sourceId = await storeForecast(db, args, sensor, { ...cycle, originMs, stepMs }, outcome);
    done.push({ ...cycle, sourceId, outcome, ranAtMs, ranMs: Math.round(performance.now() - started) });
    hooks.afterCycle?.(done.length, plan.length);
  }
  return { sourceId, cycles: done };
}

/** The forecaster source's model: the method, and the PV geometry where it weighed in (alone before any history). */
const sourceModel = (outcome: ForecastOutcome) =>
  outcome.geometryWeight >= 1 ? 'pv-geometry' : outcome.geometryWeight > 0 ? `${outcome.method}+pv-geometry` : outcome.method;

/** Stores one cycle's values (those inside its window) and the sensor's method choice, in one transaction. */
async function storeForecast(
  db: Knex,
  args: ForecastJobArgs,
  sensor: SensorInContext,
  cycle: { beliefTimeMs: number; startMs: number; endMs: number; originMs: number; stepMs: number },
  outcome: ForecastOutcome,
): Promise<number> {
  return db.transaction(async (trx) => {
    await assertOwnerMay(trx, args);
    const source = await getOrCreateSource(trx, {
      name: 'Flexsite',
      type: 'forecaster',
      model: sourceModel(outcome),
      version: FORECASTER_VERSION,
    });
    const rows: BeliefInput[] = [];
    outcome.values.forEach((value, i) => {
      const eventStartMs = cycle.originMs + i * cycle.stepMs;
      if (value === null || eventStartMs < cycle.startMs || eventStartMs >= cycle.endMs) return;
      rows.push({
        sensorId: sensor.id,
        eventStartMs,
        beliefTimeMs: cycle.beliefTimeMs,
        sourceId: source.id,
        value: Math.round(value * 1e6) / 1e6,
      });
    });
    // A forecast made again at the same belief time replaces its own earlier values.
    await recordBeliefs(trx, rows, { allowOverwrite: true });
    // A named method says nothing about which is best; a choice without a backtest (too little history) is recorded as such.
    if (!args.method)
      await saveForecastModel(trx, { sensorId: sensor.id, sourceId: source.id, method: outcome.method, backtest: outcome.backtest });
    return source.id;
  });
}

/** The handler of the `forecasting` queue; the job result names the source, the method and the backtest. */
export function forecastingHandler(db: Knex, pool: WorkerPool, clock: Clock): JobHandler<FlexsiteJobs, 'forecasting'> {
  return async ({ args }, runtime) => {
    const { sourceId, cycles: made } = await forecastSensor(db, pool, args, { beforeCycle: () => runtime.yieldTurn() }, clock);
    const last = made[made.length - 1];
    const sensor = await getSensor(db, args.sensorId);
    const note = historyNote(args.sensorId, sensor?.event_resolution_ms ?? 0, last.outcome, args.method !== undefined);
    return {
      data_source_id: sourceId,
      sensor_id: args.sensorId,
      start_ms: args.startMs,
      end_ms: args.endMs,
      cycles: made.map((c) => ({
        belief_time_ms: c.beliefTimeMs,
        start_ms: c.startMs,
        end_ms: c.endMs,
        method: c.outcome.method,
        data_source_id: c.sourceId,
        ran_at_ms: c.ranAtMs,
        ran_ms: c.ranMs,
      })),
      method: last.outcome.method,
      backtest: last.outcome.backtest,
      ...(note ? { message: note } : {}),
    } satisfies ForecastJobResult;
  };
}
