import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTimes } from 'suncalc';
import { forecastSeries, type ForecastOutcome, type ForecastTask } from '../worker/src/forecasting/index.ts';
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
  let abs = 0;
  let naiveAbs = 0;
  let n = 0;
  let nightMax = 0;
  let nightSteps = 0;
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
      const value = out.values[h];
      if (night?.[origin + h]) {
        nightSteps++;
        nightMax = Math.max(nightMax, Math.abs(value ?? 0));
      }
      if (Number.isNaN(actual) || Number.isNaN(naive) || value === null) continue;
      abs += Math.abs(value - actual);
      naiveAbs += Math.abs(naive - actual);
      n++;
    }
  }
  // Each origin counts once, under the method its forecast used.
  const origins = Object.values(methods).reduce((a, b) => a + b, 0);
  return { season: season.name, origins, mae: abs / n, naiveMae: naiveAbs / n, skill: 1 - abs / naiveAbs, methods, nightMax, nightSteps };
}
