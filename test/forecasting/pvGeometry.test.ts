import { getTimes } from 'suncalc';
import { describe, expect, it } from 'vitest';
import { forecastSeries } from '../../worker/src/forecasting/index.ts';
import {
  cosIncidence,
  erbs,
  extraterrestrialIrradiance,
  geometryForecast,
  haurwitzGhi,
  planeOfArray,
  pvOutputKw,
} from '../../worker/src/forecasting/pvGeometry.ts';

/*
 * Expected values are published, not output of the code under test:
 * - Haurwitz clear-sky GHI at apparent solar elevations 5°, 10°, 30°, 50°, 90°: pvlib's test suite
 *   (pvlib-python, pvlib/tests/test_clearsky.py, test_haurwitz), which implements Haurwitz (1945).
 * - Erbs decomposition: pvlib's test_irradiance.py test_erbs (GHI 1000 W/m² at zenith 10° on day 180:
 *   DNI 842.36, DHI 170.44; GHI 50 at zenith 85° on day 1: DNI 96.71, DHI 41.57), compared there
 *   rounded to whole W/m².
 * - Isotropic sky (Liu & Jordan 1963) on a 40° tilt, by hand (cos 40° = 0.766044): sky diffuse from
 *   DHI 100 is 100·(1 + cos 40°)/2 = 88.302; ground-reflected from GHI 900 at albedo 0.25 is
 *   900·0.25·(1 − cos 40°)/2 = 26.320.
 * - Solar constant 1366.1 W/m²; the Earth is nearest the Sun in early January (≈ +3.3 %), farthest
 *   in early July (≈ −3.3 %) (Spencer 1971; NREL).
 */
const sinDeg = (d: number) => Math.sin((d * Math.PI) / 180);
const KONSTANZ = { latitude: 47.66, longitude: 9.18 };
const SOUTH_30 = { peakKw: 1, tiltDeg: 30, azimuthDeg: 180 };

describe('PV geometry model', () => {
  it('gives Haurwitz clear-sky GHI as published, and 0 with the sun down', () => {
    const published: [number, number][] = [
      [5, 48.6298687941956],
      [10, 135.741748091813],
      [30, 487.894132885425],
      [50, 778.766689344363],
      [90, 1035.0920325345],
    ];
    for (const [elevation, ghi] of published) expect(haurwitzGhi(sinDeg(elevation))).toBeCloseTo(ghi, 6);
    expect(haurwitzGhi(sinDeg(-0.05))).toBe(0);
    expect(haurwitzGhi(sinDeg(-20))).toBe(0);
  });

  it('splits GHI into beam and diffuse as Erbs et al. do', () => {
    const clear = erbs(1000, Math.cos((10 * Math.PI) / 180), 180);
    expect(Math.abs(clear.dni - 842.36)).toBeLessThan(0.5);
    expect(Math.abs(clear.dhi - 170.44)).toBeLessThan(0.5);
    const low = erbs(50, Math.cos((85 * Math.PI) / 180), 1);
    expect(Math.abs(low.dni - 96.71)).toBeLessThan(0.5);
    expect(Math.abs(low.dhi - 41.57)).toBeLessThan(0.5);
    expect(erbs(0, 0.5, 1)).toEqual({ dni: 0, dhi: 0 });
  });

  it('puts the Earth–Sun distance where the almanac does', () => {
    expect(extraterrestrialIrradiance(3) / 1366.1).toBeCloseTo(1.033, 2);
    expect(extraterrestrialIrradiance(185) / 1366.1).toBeCloseTo(0.967, 2);
  });

  it('adds beam, isotropic sky diffuse and ground reflection on the tilted plane', () => {
    // Sky diffuse alone (no beam, no ground): 88.302; ground alone: 26.320.
    expect(planeOfArray({ dni: 0, dhi: 100, ghi: 0, cosIncidence: 1, tiltDeg: 40, albedo: 0.25 })).toBeCloseTo(88.30222, 4);
    expect(planeOfArray({ dni: 0, dhi: 0, ghi: 900, cosIncidence: 1, tiltDeg: 40, albedo: 0.25 })).toBeCloseTo(26.32, 3);
    // A beam from behind the plane adds nothing.
    expect(planeOfArray({ dni: 800, dhi: 0, ghi: 0, cosIncidence: -0.3, tiltDeg: 40, albedo: 0.25 })).toBe(0);
    // The sun straight along the plane's normal (zenith = tilt, same azimuth): incidence 0°.
    expect(cosIncidence(35, 200, 35, 200)).toBeCloseTo(1, 12);
    // Sun on the horizon due east, plane flat: the beam grazes it.
    expect(cosIncidence(90, 90, 0, 180)).toBeCloseTo(0, 12);
  });

  it('derates by cell temperature (NOCT model) and the performance ratio', () => {
    // 1000 W/m² at 15 °C ambient: cell 15 + 25·1000/800 = 46.25 °C; factor 1 − 0.004·21.25 = 0.915;
    // × PR 0.85 = 0.77775 kW per kWp.
    expect(pvOutputKw(1000, 1)).toBeCloseTo(0.77775, 6);
    expect(pvOutputKw(1000, 8)).toBeCloseTo(6.222, 6);
    expect(pvOutputKw(0, 5)).toBe(0);
  });

  it('forecasts exactly 0 on every hour wholly between the almanac’s sunset and sunrise, and output by day', () => {
    const start = Date.UTC(2016, 5, 20);
    const kw = geometryForecast(start, 3600_000, 48, KONSTANZ, SOUTH_30);
    let night = 0;
    for (let i = 0; i < kw.length; i++) {
      const from = start + i * 3600_000;
      const noon = Math.floor(from / 86_400_000) * 86_400_000 + 43_200_000;
      const { sunrise, sunset } = getTimes(new Date(noon), KONSTANZ.latitude, KONSTANZ.longitude);
      if (from + 3600_000 <= sunrise!.getTime() || from >= sunset!.getTime()) {
        night++;
        expect(kw[i]).toBe(0);
      }
    }
    expect(night).toBeGreaterThanOrEqual(14);
    // Solar noon in Konstanz is about 11:25 UTC; the 11:00–12:00 hour on a 30° south plane gets
    // roughly 1,000 W/m² of clear sky, so 1 kWp makes 0.6 × ~0.78 ≈ 0.4–0.5 kW at the stated prior.
    expect(kw[11]).toBeGreaterThan(0.4);
    expect(kw[11]).toBeLessThan(0.55);
    expect(kw[11]).toBeGreaterThan(kw[8]);
    expect(kw[11]).toBeGreaterThan(kw[15]);
  });

  it('hands over from geometry to the learned forecast linearly over 28 days of history', () => {
    const stepMs = 3600_000;
    const task = (days: number) => ({
      stepMs,
      historyStartMs: Date.UTC(2016, 5, 1) - days * 86_400_000,
      // A flat 1 kW by day and 0 at night would do; only the weight is asserted here.
      history: Array.from({ length: days * 24 }, (_, i) => (i % 24 >= 6 && i % 24 < 18 ? 1 : 0)),
      steps: 24,
      timezone: 'Europe/Berlin',
      country: null,
      location: KONSTANZ,
      regressors: [],
      pv: { peakKw: 5, tiltDeg: 30, azimuthDeg: 180 },
    });
    // Weight 1 − days/28: none of history → 1, a week → 0.75, two weeks → 0.5, four weeks and on → 0.
    expect(forecastSeries(task(0)).geometryWeight).toBe(1);
    expect(forecastSeries(task(7)).geometryWeight).toBe(0.75);
    expect(forecastSeries(task(14)).geometryWeight).toBe(0.5);
    expect(forecastSeries(task(40)).geometryWeight).toBe(0);
    expect(forecastSeries({ ...task(14), pv: null }).geometryWeight).toBe(0);
  });
});
