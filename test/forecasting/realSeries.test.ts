import { beforeAll, describe, expect, it } from 'vitest';
import {
  household,
  nightSteps,
  realSeriesPresent,
  REAL_SERIES_DIR,
  scoreSeason,
  SEASONS,
  type RealSeries,
} from '../../bench/_realSeries.ts';

/*
 * Forecasts of a real household's load and PV (Open Power System Data, CC BY 4.0; see the README
 * beside the CSV in REAL_SERIES_DIR), made from every UTC midnight of four seasons, 48 hours ahead,
 * each from the 112 days before it, and scored against what was measured. The baseline,
 * seasonal-naive-day (the same hour on the last day before the origin), is computed by the
 * harness, not by the forecaster.
 */
const HORIZON = 48;

describe.skipIf(!realSeriesPresent())(`forecasts of real series (${REAL_SERIES_DIR})`, () => {
  // Read in beforeAll: a skipped describe still runs its body, and the file may be absent.
  let load: RealSeries, pv: RealSeries, night: Uint8Array;
  beforeAll(() => {
    ({ load, pv } = household());
    night = nightSteps(pv);
  });

  for (const season of SEASONS) {
    it(`beat seasonal-naive-day in ${season.name}: load and PV skill ≥ 0, PV exactly 0 at night`, { timeout: 300_000 }, () => {
      const days = Math.round((season.toMs - season.fromMs) / 86_400_000);
      const l = scoreSeason(load, season, HORIZON, null);
      const p = scoreSeason(pv, season, HORIZON, night);
      // Daily origins: every day of the season that has 112 days of history before it.
      expect(l.origins).toBeGreaterThanOrEqual(days - 21);
      expect(p.origins).toBe(l.origins);
      expect(l.skill).toBeGreaterThanOrEqual(0);
      expect(p.skill).toBeGreaterThanOrEqual(0);
      expect(p.nightSteps).toBeGreaterThan(10 * p.origins);
      expect(p.nightMax).toBe(0);
    });
  }
});
