import { household, nightSteps, realSeriesPresent, REAL_SERIES_DIR, scoreSeason, SEASONS } from './_realSeries.ts';
import { householdLoad, SITE } from './_forecastSeries.ts';
import { forecastSeries } from '../worker/src/forecasting/index.ts';

/**
 * Forecasting on real series (`npx tsx bench/forecast.ts`): a household's load and PV in Konstanz
 * (Open Power System Data, CC BY 4.0), forecast 48 hours ahead from every UTC midnight of four
 * seasons, each from the 112 days before it, as the server does. Prints per series and season the
 * MAE beside seasonal-naive-day's (the same hour on the last day before the origin, computed by
 * the bench), the skill, the methods chosen and, for PV, the largest forecast at night.
 * Then the time of one forecast (backtest included) from a year at 15 minutes, on synthetic load.
 */
const HORIZON = 48;

if (realSeriesPresent()) {
  const { load, pv } = household();
  const night = nightSteps(pv);
  console.log(`real series from ${REAL_SERIES_DIR}`);
  console.log('series          | season         | origins | MAE kW | naive MAE kW | skill   | night max | methods');
  for (const series of [load, pv]) {
    for (const season of SEASONS) {
      const s = scoreSeason(series, season, HORIZON, series === pv ? night : null);
      const methods = Object.entries(s.methods)
        .map(([m, n]) => `${m} ${n}`)
        .join(', ');
      console.log(
        `${series.name.padEnd(15)} | ${season.name.padEnd(14)} | ${String(s.origins).padStart(7)} | ${s.mae.toFixed(3).padStart(6)} | ` +
          `${s.naiveMae.toFixed(3).padStart(12)} | ${(100 * s.skill).toFixed(1).padStart(5)} % | ${series === pv ? String(s.nightMax).padStart(9) : '        -'} | ${methods}`,
      );
    }
  }
} else {
  console.log(`no real series at ${REAL_SERIES_DIR} (set FLEXSITE_REAL_SERIES): skill not measured`);
}

const STEP = 900_000;
const START = Date.UTC(2025, 5, 1);
const history = householdLoad(START, STEP, 365 * 96).values;
const started = performance.now();
const outcome = forecastSeries({
  stepMs: STEP,
  historyStartMs: START,
  history,
  steps: 192,
  timezone: SITE.timezone,
  country: null,
  location: SITE.location,
  regressors: [],
});
console.log(
  `one forecast, 192 steps from a year at 15 min (synthetic load): ${(performance.now() - started).toFixed(0)} ms, ${outcome.method}`,
);
