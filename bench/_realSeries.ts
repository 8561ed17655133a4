import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTimes } from 'suncalc';
import { forecastSeries, type ForecastOutcome, type ForecastTask } from '../worker/src/forecasting/index.ts';
import { geometryForecast } from '../worker/src/forecasting/pvGeometry.ts';
import { DAY } from './_time.ts';

/**
 * Real measured series for the forecasting bench and its tests: a household's load and PV in
 * Konstanz (Open Power System Data, CC BY 4.0; see the README beside the CSV). The extract is kept
 * outside the repository, in the workplace's shared data folder, or where FLEXSITE_REAL_SERIES points.
 */
export const REAL_SERIES_DIR =
  process.env.FLEXSITE_REAL_SERIES ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/data/opsd-household');
const CSV = 'residential1_60min.csv';

export const KONSTANZ = { timezone: 'Europe/Berlin', country: 'DE', location: { latitude: 47.66, longitude: 9.18 } };

export interface RealSeries {
  name: string;
  stepMs: number;
  startMs: number;
  /** NaN where nothing was measured. */
  values: Float64Array;
}

/** @returns whether the extract is where REAL_SERIES_DIR says. */
export const realSeriesPresent = () => existsSync(join(REAL_SERIES_DIR, CSV));

/** The load and PV columns of the extract, on its hourly grid. */
export function household(): { load: RealSeries; pv: RealSeries } {
  const lines = readFileSync(join(REAL_SERIES_DIR, CSV), 'utf8').trim().split('\n').slice(1);
  const startMs = Date.parse(lines[0].split(',')[0].replace('Z', ':00Z'));
  const column = (c: number) => Float64Array.from(lines, (l) => (l.split(',')[c] === '' ? Number.NaN : Number(l.split(',')[c])));
  const stepMs = 3600_000;
  return {
    load: { name: 'household load', stepMs, startMs, values: column(1) },
    pv: { name: 'household PV', stepMs, startMs, values: column(2) },
  };
}

/**
 * Per step of a series at the site: 1 where the step lies wholly after the day's sunset or before
 * its sunrise, by suncalc's almanac times (not by the forecaster's own solar module).
 */
export function nightSteps(series: RealSeries): Uint8Array {
  const out = new Uint8Array(series.values.length);
  const { latitude, longitude } = KONSTANZ.location;
  for (let i = 0; i < out.length; i++) {
    const start = series.startMs + i * series.stepMs;
    const noon = Math.floor(start / DAY) * DAY + DAY / 2;
    const { sunrise, sunset } = getTimes(new Date(noon), latitude, longitude);
    out[i] = start + series.stepMs <= sunrise!.getTime() || start >= sunset!.getTime() ? 1 : 0;
  }
  return out;
}

/** A season to measure in: the forecast origins are the UTC midnights in [fromMs, toMs). */
export interface Season {
  name: string;
  fromMs: number;
  toMs: number;
}

export const SEASONS: Season[] = [
  { name: 'autumn 2015', fromMs: Date.UTC(2015, 8, 1), toMs: Date.UTC(2015, 11, 1) },
  { name: 'winter 2015/16', fromMs: Date.UTC(2015, 11, 1), toMs: Date.UTC(2016, 2, 1) },
  { name: 'spring 2016', fromMs: Date.UTC(2016, 2, 1), toMs: Date.UTC(2016, 5, 1) },
  { name: 'summer 2016', fromMs: Date.UTC(2016, 5, 1), toMs: Date.UTC(2016, 7, 30) },
];

/** What forecasting a season from daily origins gave, beside seasonal-naive-day over the same steps. */
export interface SeasonScore {
  season: string;
  origins: number;
  mae: number;
  naiveMae: number;
  /** 1 − MAE / seasonal-naive MAE. */
  skill: number;
  /** Methods chosen, and how often. */
  methods: Record<string, number>;
  /** The largest forecast while the sun was down for the whole step (PV: must be 0). */
  nightMax: number;
  nightSteps: number;
}

/**
 * Sums of a forecast's and its baseline's absolute errors over the steps where the forecast, the
 * baseline and the measurement all exist, and the largest forecast at night: what both scorings count.
 */
class Errors {
  model = 0;
  baseline = 0;
  n = 0;
  nightSteps = 0;
  nightMax = 0;

  add(value: number | null, baseline: number, actual: number): void {
    if (Number.isNaN(actual) || Number.isNaN(baseline) || value === null) return;
    this.model += Math.abs(value - actual);
    this.baseline += Math.abs(baseline - actual);
    this.n++;
  }

  night(value: number | null): void {
    this.nightSteps++;
    this.nightMax = Math.max(this.nightMax, Math.abs(value ?? 0));
  }
}

/** History given to each forecast, as the server reads it. */
const HISTORY_DAYS = 112;

/**
 * Forecasts `horizonSteps` from every UTC midnight of a season, each from the 112 days of history
 * before it (as the server would), and scores against what was measured. The baseline is computed
 * here, not by the code under test: the value at the same time on the last day before the origin.
 * @param night per step of the series, 1 where the sun is down the whole step (for `nightMax`), or null.
 */
export function scoreSeason(
  series: RealSeries,
  season: Season,
  horizonSteps: number,
  night: Uint8Array | null,
  forecast: (task: ForecastTask) => ForecastOutcome = forecastSeries,
): SeasonScore {
  const day = Math.round(DAY / series.stepMs);
  const errors = new Errors();
  const methods: Record<string, number> = {};
  for (let t = season.fromMs; t < season.toMs; t += DAY) {
    const origin = Math.round((t - series.startMs) / series.stepMs);
    const historyStart = origin - HISTORY_DAYS * day;
    if (historyStart < 0 || origin + horizonSteps > series.values.length) continue;
    const out = forecast({
      stepMs: series.stepMs,
      historyStartMs: series.startMs + historyStart * series.stepMs,
      history: Array.from(series.values.subarray(historyStart, origin), (v) => (Number.isNaN(v) ? null : v)),
      steps: horizonSteps,
      ...KONSTANZ,
      regressors: [],
    });
    methods[out.method] = (methods[out.method] ?? 0) + 1;
    for (let h = 0; h < horizonSteps; h++) {
      const actual = series.values[origin + h];
      const naive = series.values[origin + h - day * Math.ceil((h + 1) / day)];
      if (night?.[origin + h]) errors.night(out.values[h]);
      errors.add(out.values[h], naive, actual);
    }
  }
  // Each origin counts once, under the method its forecast used.
  const origins = Object.values(methods).reduce((a, b) => a + b, 0);
  const { model, baseline, n, nightMax, nightSteps } = errors;
  return {
    season: season.name,
    origins,
    mae: model / n,
    naiveMae: baseline / n,
    skill: 1 - model / baseline,
    methods,
    nightMax,
    nightSteps,
  };
}

/** The first weeks of each season the PV series covers, for the day-one forecast (no learned model yet). */
export const SEASON_STARTS: { name: string; fromMs: number }[] = [
  { name: 'summer 2015', fromMs: Date.UTC(2015, 5, 1) },
  { name: 'autumn 2015', fromMs: Date.UTC(2015, 8, 1) },
  { name: 'winter 2015/16', fromMs: Date.UTC(2015, 11, 1) },
  { name: 'spring 2016', fromMs: Date.UTC(2016, 2, 1) },
  { name: 'summer 2016', fromMs: Date.UTC(2016, 5, 1) },
];

/**
 * The household's array is not published. Stated prior for its geometry: a south-facing roof at
 * 30°, the most common German rooftop. Its peak is sized from measurements outside the test
 * window only (`dayOnePeakKw`).
 */
export const HOUSEHOLD_ARRAY = { tiltDeg: 30, azimuthDeg: 180 };

/** Days the peak is sized from, and the days scored. */
const SIZING_DAYS = 28;
export const DAY_ONE_DAYS = 14;

/**
 * The array's peak, kWp, as an installer would read it off a sunny hour: the largest hourly output
 * measured in the SIZING_DAYS before the test window, over the largest a clear sky gives 1 kWp of the
 * stated geometry in those days. The first season has nothing before it: there the SIZING_DAYS
 * right after its window are used. Never a value inside the window.
 */
export function dayOnePeakKw(pv: RealSeries, windowFromMs: number): { peakKw: number; sizedFrom: string } {
  const windowEndMs = windowFromMs + DAY_ONE_DAYS * DAY;
  const fromMs = windowFromMs - SIZING_DAYS * DAY >= pv.startMs ? windowFromMs - SIZING_DAYS * DAY : windowEndMs;
  const first = Math.round((fromMs - pv.startMs) / pv.stepMs);
  const count = Math.round((SIZING_DAYS * DAY) / pv.stepMs);
  const clear = geometryForecast(fromMs, pv.stepMs, count, KONSTANZ.location, { peakKw: 1, ...HOUSEHOLD_ARRAY }, 1);
  let measured = 0;
  let perKwp = 0;
  for (let i = 0; i < count; i++) {
    if (!Number.isNaN(pv.values[first + i])) measured = Math.max(measured, pv.values[first + i]);
    perKwp = Math.max(perKwp, clear[i]);
  }
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { peakKw: measured / perKwp, sizedFrom: `${day(fromMs)} – ${day(fromMs + (SIZING_DAYS - 1) * DAY)}` };
}

/** What the day-one PV forecast gave over a season's first days, beside the day before's values. */
export interface DayOneScore {
  season: string;
  peakKw: number;
  sizedFrom: string;
  /** Days scored (a day with no day before it in the series is not). */
  days: number;
  mae: number;
  persistenceMae: number;
  /** 1 − MAE / persistence MAE. */
  skill: number;
  /** Steps wholly between the almanac's sunset and sunrise, and the largest forecast there (must be 0). */
  nightSteps: number;
  nightMax: number;
}

/**
 * Forecasts each of the first DAY_ONE_DAYS days of a season from its UTC midnight, 24 hours ahead,
 * by geometry alone (no history), and scores it against what was measured. The baseline is computed
 * here: each hour's value on the day before.
 */
export function scoreDayOne(pv: RealSeries, season: { name: string; fromMs: number }, night: Uint8Array): DayOneScore {
  const { peakKw, sizedFrom } = dayOnePeakKw(pv, season.fromMs);
  const day = Math.round(DAY / pv.stepMs);
  const errors = new Errors();
  let days = 0;
  for (let d = 0; d < DAY_ONE_DAYS; d++) {
    const originMs = season.fromMs + d * DAY;
    const origin = Math.round((originMs - pv.startMs) / pv.stepMs);
    const forecast = geometryForecast(originMs, pv.stepMs, day, KONSTANZ.location, { peakKw, ...HOUSEHOLD_ARRAY });
    for (let h = 0; h < day; h++) if (night[origin + h]) errors.night(forecast[h]);
    if (origin - day < 0) continue;
    days++;
    for (let h = 0; h < day; h++) errors.add(forecast[h], pv.values[origin + h - day], pv.values[origin + h]);
  }
  // Every hour of a scored day counts in the mean, as the docs' figures were computed.
  const n = days * day;
  const { model, baseline, nightSteps, nightMax } = errors;
  return {
    season: season.name,
    peakKw,
    sizedFrom,
    days,
    mae: model / n,
    persistenceMae: baseline / n,
    skill: 1 - model / baseline,
    nightSteps,
    nightMax,
  };
}
