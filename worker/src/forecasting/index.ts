import { backtest, backtestMinimumSteps, firstMeasured, methodNamed, type Backtest } from './backtest.ts';
import { stepCalendar } from './calendar.ts';
import { GEOMETRY_HANDOVER_DAYS } from './constants.ts';
import type { MethodName, SeriesContext } from './methods.ts';
import { geometryForecast, type PvArray } from './pvGeometry.ts';
import { sunOverSteps } from './solar.ts';

export type { Backtest, HorizonScores, Scores } from './backtest.ts';
export type { MethodName } from './methods.ts';
export type { PvArray } from './pvGeometry.ts';

/** Input of the `forecast` task: a sensor's history on its own grid and what is known about the site. */
export interface ForecastTask {
  stepMs: number;
  /** Start of the first history step. */
  historyStartMs: number;
  /** Measured values per step up to the origin; NaN (or null) where nothing was measured. */
  history: ArrayLike<number | null>;
  /** How many steps to forecast from the end of the history. */
  steps: number;
  /** The site's time zone and country (ISO 3166, for public holidays; null: none). */
  timezone: string;
  country: string | null;
  /** The site's location, for the clear-sky shape of PV; null: no clear-sky method. */
  location: { latitude: number; longitude: number } | null;
  /** Regressor sensors on the same grid, history and forecast window together (history.length + steps values). */
  regressors: ArrayLike<number | null>[];
  /** Use this method instead of choosing one by backtest. */
  method?: MethodName;
  /** The PV array the sensor measures, as set up (with `location`): its forecast from geometry leads while history is short. */
  pv?: PvArray | null;
}

/** What the `forecast` task returns. */
export interface ForecastOutcome {
  method: MethodName;
  /** One value per forecast step; null where the method had nothing to go on. */
  values: (number | null)[];
  /** The backtest the method was chosen by; null when the history was too short to run one (or a method was named). */
  backtest: Backtest | null;
  /** Steps from the first measured one to the origin: the history there was (0: none). */
  historySteps: number;
  /** Steps of history a backtest needs at this horizon (see `backtestMinimumSteps`). */
  backtestMinimumSteps: number;
  /** The weight of the PV array's geometry forecast in `values` (0 without one; 1: geometry alone). */
  geometryWeight: number;
}

const DAY_MS = 86_400_000;

/**
 * The learned values blended with the geometry forecast, weighted by days of history (geometry
 * alone where the learned method had nothing to go on). @returns the values and the geometry's weight.
 */
function withGeometry(task: ForecastTask, learned: (number | null)[], historySteps: number): { values: (number | null)[]; weight: number } {
  if (!task.pv || !task.location) return { values: learned, weight: 0 };
  const originMs = task.historyStartMs + task.history.length * task.stepMs;
  const geometry = geometryForecast(originMs, task.stepMs, task.steps, task.location, task.pv);
  const weight = Math.max(0, 1 - (historySteps * task.stepMs) / DAY_MS / GEOMETRY_HANDOVER_DAYS);
  const values = learned.map((v, h) => (v === null ? geometry[h] : weight * geometry[h] + (1 - weight) * v));
  return { values, weight };
}

const toFloat = (xs: ArrayLike<number | null>, length: number) => {
  const out = new Float64Array(length).fill(Number.NaN);
  for (let i = 0; i < Math.min(length, xs.length); i++) {
    const v = xs[i];
    if (v !== null && Number.isFinite(v)) out[i] = v;
  }
  return out;
};

/**
 * Whether a series is made by the sun: at night (every step with the sun down for its whole
 * length) it stays within 1 % of its daytime peak, and by day it rises above that. Such a
 * series is forecast as exactly 0 at night, whatever a method says.
 */
function madeBySun(values: Float64Array, down: Uint8Array, historyEnd: number): boolean {
  let dayPeak = 0;
  for (let i = 0; i < historyEnd; i++) if (!down[i] && Math.abs(values[i]) > dayPeak) dayPeak = Math.abs(values[i]);
  if (!(dayPeak > 0)) return false;
  let night = 0;
  let quiet = 0;
  for (let i = 0; i < historyEnd; i++) {
    if (!down[i] || Number.isNaN(values[i])) continue;
    night++;
    if (Math.abs(values[i]) <= 0.01 * dayPeak) quiet++;
  }
  // A few stray night readings (a meter's standby draw, a timestamp off by a step) must not hide a PV series.
  return night > 0 && quiet >= 0.99 * night;
}

/**
 * Forecasts a sensor: backtests the methods on the sensor's own history, which settles on the
 * blend once there is history enough to score it (see `backtest`), unless a method is named;
 * fits it on the whole history and forecasts `steps` values on.
 * Forecasts of a series that never went negative are kept at or above zero; those of a series
 * the sun makes are 0 while the sun is down.
 */
export function forecastSeries(task: ForecastTask): ForecastOutcome {
  const historyEnd = task.history.length;
  const length = historyEnd + task.steps;
  const sun = task.location
    ? sunOverSteps(task.historyStartMs, task.stepMs, length, task.location.latitude, task.location.longitude)
    : null;
  const ctx: SeriesContext = {
    stepMs: task.stepMs,
    values: toFloat(task.history, length),
    calendar: stepCalendar(task.historyStartMs, task.stepMs, length, task.timezone, task.country),
    regressors: task.regressors.map((r) => toFloat(r, length)),
    clearSky: sun?.shape ?? null,
  };
  const first = firstMeasured(ctx.values, historyEnd);
  const historySteps = first < 0 ? 0 : historyEnd - first;
  const tested = task.method ? null : backtest(ctx, historyEnd, task.steps);
  const name: MethodName = task.method ?? tested?.chosen ?? 'seasonal-naive-day';
  const forecast = methodNamed(ctx, name).fit(ctx, historyEnd)(historyEnd, task.steps);
  let nonNegative = true;
  for (let i = 0; i < historyEnd && nonNegative; i++) if (ctx.values[i] < 0) nonNegative = false;
  // A set-up PV array is made by the sun whatever its short history shows.
  const night = sun && (task.pv || madeBySun(ctx.values, sun.down, historyEnd)) ? sun.down.subarray(historyEnd) : null;
  const learned = Array.from(forecast, (v) => (Number.isNaN(v) ? null : nonNegative ? Math.max(0, v) : v));
  const blended = withGeometry(task, learned, historySteps);
  return {
    method: name,
    values: blended.values.map((v, h) => (night?.[h] ? 0 : v)),
    backtest: tested,
    historySteps,
    backtestMinimumSteps: backtestMinimumSteps(task.stepMs, task.steps),
    geometryWeight: blended.weight,
  };
}
