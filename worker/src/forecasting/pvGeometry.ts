import { getPosition } from 'suncalc';
import { sunOverSteps } from './solar.ts';

/** A PV array as set up: its nameplate peak power and how its panels face. */
export interface PvArray {
  /** DC peak power at standard test conditions (1000 W/m², 25 °C cell), kW. */
  peakKw: number;
  /** Panel tilt from horizontal, degrees (0 flat, 90 vertical). */
  tiltDeg: number;
  /** Direction the panels face, degrees clockwise from north (180 south). */
  azimuthDeg: number;
}

const RAD = Math.PI / 180;
const DAY_MS = 86_400_000;

/**
 * The stated priors of the day-one forecast, none fitted to any site's data:
 * - CLEAR_SKY_INDEX: the weather is unknown on day one, so the forecast is the clear sky times the
 *   climatological ratio of measured to clear-sky irradiance. Central Europe receives about
 *   1,000 (north) to 1,200 (south) kWh/m² of global horizontal irradiance a year (DWD's 1991–2020
 *   radiation maps for Germany) where a clear sky gives 1,720 at 52° N and 1,860 at 47.7° N
 *   (Haurwitz summed over a year): about 0.6 either way. A sunnier climate is under-forecast by
 *   this prior until history takes over.
 * - PERFORMANCE_RATIO: losses other than cell temperature (inverter ~4 %, DC and AC wiring ~2 %,
 *   soiling and mismatch ~4 %, low-light ~3 %), the 0.85 a well-kept modern system reaches.
 * - NOCT 45 °C and −0.4 %/K: typical crystalline-silicon datasheet values; the cell runs at the
 *   ambient plus (NOCT − 20 °C) per 800 W/m² on the plane (the NOCT model).
 * - AMBIENT_C: 15 °C, a mid-latitude daytime mean; the temperature term moves output by a few per
 *   cent either way, less than the cloudiness prior's uncertainty.
 * - ALBEDO 0.2: the usual ground reflectance of grass and roofs.
 */
export const PV_PRIORS = {
  CLEAR_SKY_INDEX: 0.6,
  PERFORMANCE_RATIO: 0.85,
  NOCT_C: 45,
  TEMPERATURE_COEFFICIENT_PER_K: -0.004,
  AMBIENT_C: 15,
  ALBEDO: 0.2,
} as const;

/** Haurwitz (1945) clear-sky global horizontal irradiance, W/m²: 1098 cos z · exp(−0.059 / cos z); 0 with the sun down. */
export function haurwitzGhi(cosZenith: number): number {
  return cosZenith > 0 ? 1098 * cosZenith * Math.exp(-0.059 / cosZenith) : 0;
}

/** Irradiance outside the atmosphere, W/m², by Spencer's (1971) series for the Earth–Sun distance. */
export function extraterrestrialIrradiance(dayOfYear: number): number {
  const b = (2 * Math.PI * (dayOfYear - 1)) / 365;
  return 1366.1 * (1.00011 + 0.034221 * Math.cos(b) + 0.00128 * Math.sin(b) + 0.000719 * Math.cos(2 * b) + 0.000077 * Math.sin(2 * b));
}

/** Beyond this zenith the direct beam is taken as 0: dividing by a vanishing cos z would blow it up. */
const MAX_BEAM_ZENITH_DEG = 87;
/** The least cos z the clearness index divides by (about 86.3°), for the same reason. */
const MIN_COS_ZENITH = 0.065;

/**
 * Erbs, Klein & Duffie (1982): splits global horizontal irradiance into direct normal and diffuse
 * horizontal by the clearness index kt (global over extraterrestrial horizontal).
 */
export function erbs(ghi: number, cosZenith: number, dayOfYear: number): { dni: number; dhi: number } {
  if (!(ghi > 0) || cosZenith <= 0) return { dni: 0, dhi: 0 };
  const kt = Math.min(1, ghi / (extraterrestrialIrradiance(dayOfYear) * Math.max(cosZenith, MIN_COS_ZENITH)));
  const diffuseFraction =
    kt <= 0.22 ? 1 - 0.09 * kt : kt <= 0.8 ? 0.9511 - 0.1604 * kt + 4.388 * kt ** 2 - 16.638 * kt ** 3 + 12.336 * kt ** 4 : 0.165;
  const dhi = diffuseFraction * ghi;
  const beamVisible = cosZenith > Math.cos(MAX_BEAM_ZENITH_DEG * RAD);
  return { dni: beamVisible ? (ghi - dhi) / cosZenith : 0, dhi };
}

/** Cosine of the angle of incidence of the beam on a plane of the given tilt and azimuth (sun azimuth clockwise from north). */
export function cosIncidence(zenithDeg: number, sunAzimuthDeg: number, tiltDeg: number, planeAzimuthDeg: number): number {
  const z = zenithDeg * RAD;
  const t = tiltDeg * RAD;
  return Math.cos(z) * Math.cos(t) + Math.sin(z) * Math.sin(t) * Math.cos((sunAzimuthDeg - planeAzimuthDeg) * RAD);
}

/**
 * Irradiance on the tilted plane, W/m², with an isotropic sky (Liu & Jordan): the beam where it
 * strikes the front, the sky's diffuse light in the share of the sky the plane sees, and light
 * reflected by the ground in the share of the ground it sees.
 */
export function planeOfArray(i: { dni: number; dhi: number; ghi: number; cosIncidence: number; tiltDeg: number; albedo: number }): number {
  const cosTilt = Math.cos(i.tiltDeg * RAD);
  return i.dni * Math.max(0, i.cosIncidence) + (i.dhi * (1 + cosTilt)) / 2 + (i.ghi * i.albedo * (1 - cosTilt)) / 2;
}

/** AC output, kW, from plane-of-array irradiance: peak × POA/1000 × temperature factor (NOCT model) × performance ratio. */
export function pvOutputKw(poa: number, peakKw: number, ambientC = PV_PRIORS.AMBIENT_C): number {
  const cellC = ambientC + ((PV_PRIORS.NOCT_C - 20) * poa) / 800;
  const temperature = 1 + PV_PRIORS.TEMPERATURE_COEFFICIENT_PER_K * (cellC - 25);
  return Math.max(0, peakKw * (poa / 1000) * temperature * PV_PRIORS.PERFORMANCE_RATIO);
}

/** UTC day of the year, 1 on 1 January. */
const dayOfYear = (ms: number) => Math.floor((ms - Date.UTC(new Date(ms).getUTCFullYear(), 0, 1)) / DAY_MS) + 1;

/** Clear-sky AC output at one instant, kW. */
export function clearSkyKw(ms: number, latitude: number, longitude: number, array: PvArray): number {
  const sun = getPosition(new Date(ms), latitude, longitude);
  const cosZenith = Math.sin(sun.altitude * RAD);
  const ghi = haurwitzGhi(cosZenith);
  if (ghi === 0) return 0;
  const { dni, dhi } = erbs(ghi, cosZenith, dayOfYear(ms));
  const cosAoi = cosIncidence(90 - sun.altitude, sun.azimuth, array.tiltDeg, array.azimuthDeg);
  const poa = planeOfArray({ dni, dhi, ghi, cosIncidence: cosAoi, tiltDeg: array.tiltDeg, albedo: PV_PRIORS.ALBEDO });
  return pvOutputKw(poa, array.peakKw);
}

/** Samples per step, as the clear-sky shape takes them: an hour's mean follows the curve. */
const SAMPLES = 4;

/**
 * The day-one PV forecast for `count` steps from `startMs`: each step's mean clear-sky output
 * (from SAMPLES midpoints) times the cloudiness prior, and exactly 0 on every step the sun is down
 * for its whole length (the forecaster's night mask).
 * @param clearSkyIndex the share of the clear sky expected; the stated prior unless a caller knows better.
 */
export function geometryForecast(
  startMs: number,
  stepMs: number,
  count: number,
  location: { latitude: number; longitude: number },
  array: PvArray,
  clearSkyIndex: number = PV_PRIORS.CLEAR_SKY_INDEX,
): Float64Array {
  const { down } = sunOverSteps(startMs, stepMs, count, location.latitude, location.longitude);
  const out = new Float64Array(count);
  const sub = stepMs / SAMPLES;
  for (let i = 0; i < count; i++) {
    if (down[i]) continue;
    let sum = 0;
    for (let s = 0; s < SAMPLES; s++)
      sum += clearSkyKw(startMs + (i * SAMPLES + s + 0.5) * sub, location.latitude, location.longitude, array);
    out[i] = (sum / SAMPLES) * clearSkyIndex;
  }
  return out;
}
