import type { Knex } from 'knex';
import { resampleToGrid } from '../domain/resample.ts';
import { JobFailure, type JobHandler } from '../jobs/jobQueue.ts';
import { getAsset, type Asset } from '../store/assets.ts';
import { mostRecentBeliefs, recordBeliefs, type BeliefInput } from '../store/beliefs.ts';
import { saveForecastModel } from '../store/forecastModels.ts';
import { getSensor, type SensorInContext } from '../store/sensors.ts';
import { getOrCreateSource } from '../store/sources.ts';
import { getUser } from '../store/users.ts';
import { firstRefused, type Reference } from '../policies/references.ts';
import { FORECASTER_VERSION, type ForecastOutcome, type ForecastTask, type MethodName } from '../../../worker/src/tasks.ts';
import type { WorkerPool } from '../scheduling/workerPool.ts';

/** What a forecasting job is asked: which sensor, which window, as known when, from what. */
export interface ForecastJobArgs {
  sensorId: number;
  /**
   * The user on whose behalf it runs: the job reads and writes only what this user may, when it
   * runs. Null for the site operator at the command line, who holds the whole store anyway.
   */
  ownerId: number | null;
  startMs: number;
  endMs: number;
  /** The belief time of the forecasts; when absent, the time the job runs (or the start, if earlier). */
  priorMs?: number;
  /** Longest horizon of one forecast: a longer window is forecast in rolling cycles, each made at its own start. */
  maxHorizonMs?: number;
  regressorIds: number[];
  method?: MethodName;
}

/** One forecast made at one belief time, and what it found. */
export interface ForecastCycle {
  beliefTimeMs: number;
  startMs: number;
  endMs: number;
  outcome: ForecastOutcome;
}

const DAY_MS = 86_400_000;
/** History read per forecast: the methods fit on 84 days and backtest on 14 more, plus a week of lags. */
const HISTORY_MS = 112 * DAY_MS;

const floorTo = (ms: number, stepMs: number) => Math.floor(ms / stepMs) * stepMs;

/** The site facts a forecaster uses, from the sensor's asset: country (attribute) and location. */
function siteOf(sensor: SensorInContext, asset: Asset | undefined): Pick<ForecastTask, 'timezone' | 'country' | 'location'> {
  const country = asset?.attributes.country ?? sensor.attributes.country;
  const hasLocation = asset && asset.latitude !== null && asset.longitude !== null;
  return {
    timezone: sensor.timezone,
    country: typeof country === 'string' ? country : null,
    location: hasLocation ? { latitude: asset.latitude!, longitude: asset.longitude! } : null,
  };
}

/**
 * A sensor's beliefs known at `beliefTimeMs` on the grid [startMs, endMs). Measurements only
 * (ex-post beliefs) for the forecast sensor itself, so that its own earlier forecasts never
 * feed back as history; any belief for regressors, whose future is only known as a forecast.
 */
async function gridValues(
  db: Knex,
  sensor: SensorInContext,
  window: { startMs: number; endMs: number; stepMs: number },
  beliefTimeMs: number,
  measurementsOnly: boolean,
): Promise<(number | null)[]> {
  const events = await mostRecentBeliefs(db, {
    sensorId: sensor.id,
    startMs: window.startMs,
    endMs: window.endMs,
    overlapping: true,
    beliefsBeforeMs: beliefTimeMs,
    ...(measurementsOnly ? { horizonAtMostMs: 0 } : {}),
  });
  return resampleToGrid(events, { ...window, eventResolutionMs: sensor.event_resolution_ms });
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
async function assertOwnerMay(db: Knex, args: ForecastJobArgs): Promise<void> {
  if (args.ownerId === null) return;
  const owner = await getUser(db, args.ownerId);
  const account = (await getSensor(db, args.sensorId))?.account_id;
  const refused = owner?.active ? await firstRefused(db, owner, forecastReferences(args), undefined, account) : undefined;
  if (!owner?.active || refused) {
    throw new JobFailure(
      'PermissionDenied',
      `The user who triggered this forecast (id ${args.ownerId}) may no longer use sensor ${refused?.id ?? args.sensorId}; nothing was stored.`,
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

/**
 * Forecasts a sensor over a window: per cycle, reads the history known at the belief time,
 * forecasts in a worker thread, and stores the values as beliefs of a `forecaster` source named
 * after the method, so forecasts sit beside measurements and are filtered by source.
 * @param onCycle called after each stored cycle (progress for the CLI; a job gives its turn to
 *   other accounts there).
 */
export async function forecastSensor(
  db: Knex,
  pool: WorkerPool,
  args: ForecastJobArgs,
  onCycle: (done: number, total: number) => void | Promise<void> = () => {},
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
  const plan = cycles(args, Date.now());
  const done: ForecastCycle[] = [];
  let sourceId = 0;
  for (const cycle of plan) {
    // The history ends where the belief time's knowledge ends: the step it falls in is not known yet.
    const originMs = Math.min(floorTo(cycle.beliefTimeMs, stepMs), floorTo(cycle.startMs, stepMs));
    const historyStartMs = originMs - HISTORY_MS;
    const endMs = cycle.endMs;
    const history = await gridValues(db, sensor, { startMs: historyStartMs, endMs: originMs, stepMs }, cycle.beliefTimeMs, true);
    const regressorValues = await Promise.all(
      regressors.map((r) => gridValues(db, r!, { startMs: historyStartMs, endMs, stepMs }, cycle.beliefTimeMs, false)),
    );
    const steps = Math.ceil((endMs - originMs) / stepMs);
    const task: ForecastTask = { stepMs, historyStartMs, history, steps, ...site, regressors: regressorValues, method: args.method };
    const outcome: ForecastOutcome = await pool.run('forecast', task);
    sourceId = await storeForecast(db, args, sensor, { ...cycle, originMs, stepMs }, outcome);
    done.push({ ...cycle, outcome });
    await onCycle(done.length, plan.length);
  }
  return { sourceId, cycles: done };
}

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
      model: outcome.method,
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
    if (outcome.backtest)
      await saveForecastModel(trx, { sensorId: sensor.id, sourceId: source.id, method: outcome.method, backtest: outcome.backtest });
    return source.id;
  });
}

/** The handler of the `forecasting` queue; the job result names the source, the method and the backtest. */
export function forecastingHandler(db: Knex, pool: WorkerPool): JobHandler {
  return async (job, runtime) => {
    const args = job.args as ForecastJobArgs;
    const { sourceId, cycles: made } = await forecastSensor(db, pool, args, () => runtime.yieldTurn());
    const last = made[made.length - 1];
    return {
      data_source_id: sourceId,
      sensor_id: args.sensorId,
      start_ms: args.startMs,
      end_ms: args.endMs,
      cycles: made.map((c) => ({ belief_time_ms: c.beliefTimeMs, start_ms: c.startMs, end_ms: c.endMs, method: c.outcome.method })),
      method: last.outcome.method,
      backtest: last.outcome.backtest,
    };
  };
}
