import { getPosition, getTimes } from 'suncalc';
import { describe, expect, it } from 'vitest';
import { forecastSeries } from '../../worker/src/forecasting/index.ts';
import { solarAltitudeDeg, sunOverSteps } from '../../worker/src/forecasting/solar.ts';

/*
 * Expected values are published facts, not output of the code under test:
 * - Declination of the sun at the solstices is ±23.44° (obliquity of the ecliptic, Astronomical
 *   Almanac); at solar noon the sun's altitude is 90° − latitude + declination, at solar midnight
 *   declination + latitude − 90° (geometric; refraction adds under 0.03° above 20°).
 *   2026 June solstice: 21 June 08:24 UTC; 2025 December solstice: 21 December 15:03 UTC.
 * - Greenwich (51.4769° N, 0°): solar noon 12:01:44 UTC on 21 June 2026 (equation of time −1.7 min)
 *   and 11:58:xx UTC on 21 December 2025 (+1.9 min) — NOAA Solar Calculator.
 * - Sunrise/sunset (upper limb, with refraction), NOAA Solar Calculator / timeanddate.com:
 *   London 21 June 2026 04:43 / 21:21 BST (03:43 / 20:21 UTC); 21 December 2025 08:04 / 15:53 GMT;
 *   New York (40.7128° N, 74.0060° W) 21 June 2026 05:25 / 20:31 EDT (09:25 / 00:31 UTC next day).
 */
const GREENWICH = { lat: 51.4769, lon: 0 };
const NEW_YORK = { lat: 40.7128, lon: -74.006 };
const minutes = (a: number, b: number) => Math.abs(a - b) / 60_000;

describe('solar geometry', () => {
  it('gives the sun’s altitude at solar noon and midnight of the solstices, in degrees', () => {
    const juneNoon = solarAltitudeDeg(Date.parse('2026-06-21T12:01:44Z'), GREENWICH.lat, GREENWICH.lon);
    expect(juneNoon).toBeCloseTo(90 - 51.4769 + 23.44, 0); // 61.96°
    expect(Math.abs(juneNoon - 61.96)).toBeLessThan(0.1);
    const juneMidnight = solarAltitudeDeg(Date.parse('2026-06-21T00:01:44Z'), GREENWICH.lat, GREENWICH.lon);
    // Below the horizon suncalc still adds the horizon's refraction (0.48° here): within 0.6° of −15.08°.
    expect(Math.abs(juneMidnight - (23.44 + 51.4769 - 90))).toBeLessThan(0.6);
    const decemberNoon = solarAltitudeDeg(Date.parse('2025-12-21T11:58:10Z'), GREENWICH.lat, GREENWICH.lon);
    expect(Math.abs(decemberNoon - (90 - 51.4769 - 23.44))).toBeLessThan(0.1); // 15.08°
  });

  it('puts sunrise and sunset where the almanac does: the sun’s upper limb on the horizon', () => {
    const cases = [
      { place: GREENWICH, day: '2026-06-21', rise: '2026-06-21T03:43Z', set: '2026-06-21T20:21Z' },
      { place: GREENWICH, day: '2025-12-21', rise: '2025-12-21T08:04Z', set: '2025-12-21T15:53Z' },
      { place: NEW_YORK, day: '2026-06-21', rise: '2026-06-21T09:25Z', set: '2026-06-22T00:31Z' },
    ];
    for (const c of cases) {
      // Scan a minute grid with the code under test: the sun is up from the first minute its mask says so.
      const from = Date.parse(`${c.day}T00:00Z`) + (c.place === NEW_YORK ? 5 * 3600_000 : 0);
      const { down } = sunOverSteps(from, 60_000, 24 * 60, c.place.lat, c.place.lon);
      const up = [...down].map((d, i) => ({ d, t: from + i * 60_000 }));
      const firstUp = up.find((m) => !m.d)!.t;
      const lastUp = up.filter((m) => !m.d).at(-1)!.t + 60_000;
      expect(minutes(firstUp, Date.parse(c.rise))).toBeLessThanOrEqual(2);
      expect(minutes(lastUp, Date.parse(c.set))).toBeLessThanOrEqual(2);
      // suncalc's own rise/set agree too (the mask and the library define the horizon alike).
      const times = getTimes(new Date(`${c.day}T12:00Z`), c.place.lat, c.place.lon);
      expect(minutes(times.sunrise!.getTime(), Date.parse(c.rise))).toBeLessThanOrEqual(2);
    }
  });

  it('makes a clear-sky shape of 0 at night and of sin(altitude) by day, smooth from step to step', () => {
    const start = Date.parse('2026-06-21T00:00Z');
    const { shape } = sunOverSteps(start, 900_000, 96, GREENWICH.lat, GREENWICH.lon);
    expect(shape[0]).toBe(0); // midnight: the sun is 15° below the horizon
    expect(Math.max(...shape)).toBeCloseTo(Math.sin((61.96 * Math.PI) / 180), 2);
    for (let i = 1; i < shape.length; i++) expect(Math.abs(shape[i] - shape[i - 1])).toBeLessThan(0.06);
  });

  it('gives each step what the sun gives there, whatever grid at the place came before', () => {
    // Expected straight from suncalc: the mean of max(0, sin altitude) at the step's four
    // midpoints, and down when the altitude at those and at both ends is below −16′.
    const step = 900_000;
    const expectStep = (grid: { shape: Float64Array; down: Uint8Array }, i: number, t: number, place: typeof GREENWICH) => {
      const altitude = (ms: number) => getPosition(new Date(ms), place.lat, place.lon).altitude;
      let sum = 0;
      let highest = Math.max(altitude(t), altitude(t + step));
      for (let s = 0; s < 4; s++) {
        const mid = altitude(t + (s + 0.5) * (step / 4));
        sum += Math.max(0, Math.sin(mid * (Math.PI / 180)));
        highest = Math.max(highest, mid);
      }
      expect(grid.shape[i]).toBe(sum / 4);
      expect(grid.down[i]).toBe(highest < -16 / 60 ? 1 : 0);
    };
    const start = Date.parse('2026-03-28T00:00Z');
    const first = sunOverSteps(start, step, 300, GREENWICH.lat, GREENWICH.lon);
    // What a caller does with its arrays must not reach the next grid.
    first.shape.fill(7);
    first.down.fill(1);
    const grids = [
      { from: start + 3600_000, place: GREENWICH }, // an hour on: the hourly forecast
      { from: start - 2 * 3600_000, place: GREENWICH }, // earlier
      { from: start, place: NEW_YORK }, // another place
      { from: start + 3600_000 + 7 * 60_000, place: GREENWICH }, // steps not on the last grid's
      { from: start + 400 * step, place: GREENWICH }, // no overlap
    ];
    for (const g of grids) {
      const grid = sunOverSteps(g.from, step, 300, g.place.lat, g.place.lon);
      for (let i = 0; i < 300; i += 7) expectStep(grid, i, g.from + i * step, g.place);
      expectStep(grid, 299, g.from + 299 * step, g.place);
    }
  });
});

describe('PV forecasts at night', () => {
  it('are exactly 0 while the sun is below the horizon, even where a method says otherwise', () => {
    // A PV-like series: the clear-sky shape scaled, plus a small offset by day only, so that a
    // linear method fitted on it has a non-zero intercept and would forecast something at night.
    const step = 900_000;
    const start = Date.parse('2026-03-01T00:00Z');
    const days = 40;
    const { shape, down } = sunOverSteps(start, step, (days + 2) * 96, GREENWICH.lat, GREENWICH.lon);
    const history = Array.from({ length: days * 96 }, (_, i) => (down[i] ? 0 : 4 * shape[i] * (0.6 + 0.4 * Math.sin(i / 97)) + 0.05));
    for (const method of ['regression', 'clear-sky', 'seasonal-naive-day', undefined] as const) {
      const out = forecastSeries({
        stepMs: step,
        historyStartMs: start,
        history,
        steps: 192,
        timezone: 'Europe/London',
        country: null,
        location: { latitude: GREENWICH.lat, longitude: GREENWICH.lon },
        regressors: [],
        method,
      });
      const nightSteps = out.values.filter((_, h) => down[days * 96 + h]);
      expect(nightSteps.length).toBeGreaterThan(40);
      expect(new Set(nightSteps)).toEqual(new Set([0]));
      expect(Math.max(...out.values.map((v) => v ?? 0))).toBeGreaterThan(1);
    }
  });
});
