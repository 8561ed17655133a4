import { dayAheadPrices, householdLoad, pvProduction, SITE } from './_forecastSeries.ts';
import { forecastSeries } from '../worker/src/forecasting/index.ts';

/**
 * Forecasting (issue 15): two days at 15 minutes from a year of history, for three synthetic
 * series, with the backtest that chooses the method included in the time. Prints the chosen
 * method's backtest MAE beside the better seasonal-naive method's, and the skill (target ≥ 20 %).
 * The synthetic series have no holiday effect, so the bench forecasts without a holiday calendar.
 */
const STEP = 900_000;
const START = Date.UTC(2025, 5, 1);
const HISTORY = 365 * 96;
const STEPS = 192;

console.log('series            | ms (forecast + backtest) | method      | MAE     | seasonal-naive MAE | skill');
for (const [make, location] of [
  [householdLoad, null],
  [pvProduction, SITE.location],
  [dayAheadPrices, null],
] as const) {
  const series = make(START, STEP, HISTORY);
  const started = performance.now();
  const outcome = forecastSeries({
    stepMs: STEP,
    historyStartMs: START,
    history: series.values,
    steps: STEPS,
    timezone: SITE.timezone,
    country: null,
    location,
    regressors: [],
  });
  const ms = performance.now() - started;
  const bt = outcome.backtest!;
  const mae = bt.methods[bt.chosen]!.mae;
  const naive = bt.methods[bt.baseline]!.mae;
  console.log(
    `${series.name.padEnd(17)} | ${ms.toFixed(0).padStart(24)} | ${bt.chosen.padEnd(11)} | ${mae.toFixed(3).padStart(7)} | ${naive.toFixed(3).padStart(18)} | ${(100 * bt.skill).toFixed(1)} %`,
  );
}
