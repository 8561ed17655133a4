import { household, realSeriesPresent, REAL_SERIES_DIR, type RealSeries } from '../../bench/_realSeries.ts';

/**
 * The simulated house's load and PV: the real household of the OPSD extract (Konstanz, hourly
 * average power), read where the forecasting bench reads it. Each quarter hour takes the power
 * of its hour, so a day's energy is the household's.
 */

export interface Household {
  load: RealSeries;
  pv: RealSeries;
}

/** Why the simulation cannot run here, or undefined when the series is present. */
export function householdMissing(): string | undefined {
  if (realSeriesPresent()) return undefined;
  return `the household series is not at ${REAL_SERIES_DIR} (set FLEXSITE_REAL_SERIES to the folder of residential1_60min.csv)`;
}

export const readHousehold = (): Household => household();

/** The house's load and PV (kW) in the quarter hour starting at `tMs`. */
export function householdKw(series: Household, tMs: number): { loadKw: number; pvKw: number } {
  const at = (s: RealSeries) => {
    const v = s.values[Math.floor((tMs - s.startMs) / s.stepMs)];
    if (v === undefined || Number.isNaN(v)) throw new Error(`no ${s.name} at ${new Date(tMs).toISOString()}`);
    return v;
  };
  return { loadKw: at(series.load), pvKw: at(series.pv) };
}
