import { getPosition } from 'suncalc';

/** What the sun does over each step of a grid at one place. */
export interface SunOverSteps {
  /** Mean of sin(solar altitude), clipped at zero, over the step: the shape of a clear day's PV output. */
  shape: Float64Array;
  /** 1 where the sun is below the horizon for the whole step (nothing can be produced), else 0. */
  down: Uint8Array;
}

const RAD = Math.PI / 180;
/**
 * The sun is down once its upper limb is below the horizon: its centre's apparent altitude below
 * minus its semi-diameter (16′), the definition almanacs use for sunrise and sunset.
 */
const DOWN_BELOW_DEG = -16 / 60;
/** Samples per step: enough that an hour's mean follows the curve, and that a step touching sunrise is not taken for night. */
const SAMPLES = 4;

/**
 * The sun's apparent (refraction-corrected) altitude in degrees. suncalc 2.x gives degrees, not
 * the radians of suncalc 1.x: this wrapper is where that is decided, once.
 */
export function solarAltitudeDeg(ms: number, latitude: number, longitude: number): number {
  return getPosition(new Date(ms), latitude, longitude).altitude;
}

/** A grid of steps the sun was worked out over, kept for the next forecast at the same place and step. */
interface KeptGrid extends SunOverSteps {
  startMs: number;
}
/** Per place and step length (a thread serves few sites; more than MAX_KEPT and it starts afresh). */
const kept = new Map<string, KeptGrid>();
const MAX_KEPT = 16;

/**
 * The clear-sky shape and the night mask for `count` steps from `startMs`, each step sampled at
 * its start, end and SAMPLES midpoints. A step's values depend on its start alone, and forecasts
 * an hour apart cover the same steps but the last hour's: the steps the last grid at this place
 * had are taken from it (the sun's position was a quarter of a forecast's time). The sample times
 * are exact in floating point for whole-millisecond starts and steps (multiples of 1/8 ms), so a
 * kept step is bit for bit what computing it again would give; other grids are computed afresh.
 */
export function sunOverSteps(startMs: number, stepMs: number, count: number, latitude: number, longitude: number): SunOverSteps {
  const out = { shape: new Float64Array(count), down: new Uint8Array(count) };
  const grid = { startMs, stepMs, latitude, longitude };
  const exact = Number.isInteger(startMs) && Number.isInteger(stepMs);
  const key = `${latitude},${longitude},${stepMs}`;
  const last = exact ? kept.get(key) : undefined;
  const shift = last ? (startMs - last.startMs) / stepMs : Number.NaN;
  if (last && Number.isInteger(shift)) {
    // Steps [from, to) of this grid are steps [from + shift, to + shift) of the last one.
    const from = Math.min(count, Math.max(0, -shift));
    const to = Math.max(from, Math.min(count, last.shape.length - shift));
    out.shape.set(last.shape.subarray(from + shift, to + shift), from);
    out.down.set(last.down.subarray(from + shift, to + shift), from);
    computeSteps(out, grid, 0, from);
    computeSteps(out, grid, to, count);
  } else computeSteps(out, grid, 0, count);
  if (exact) {
    if (kept.size >= MAX_KEPT && !kept.has(key)) kept.clear();
    // Copies: a caller may change what it was given.
    kept.set(key, { startMs, shape: out.shape.slice(), down: out.down.slice() });
  }
  return out;
}

/** Fills steps [first, end) of a grid's shape and night mask; each sample edge is computed once. */
function computeSteps(
  out: SunOverSteps,
  grid: { startMs: number; stepMs: number; latitude: number; longitude: number },
  first: number,
  end: number,
): void {
  if (end <= first) return;
  const { startMs, latitude, longitude } = grid;
  const sub = grid.stepMs / SAMPLES;
  // Altitudes at the sample edges: start of step i is the end of step i-1.
  const edge = (k: number) => solarAltitudeDeg(startMs + k * sub, latitude, longitude);
  let previousEdge = edge(first * SAMPLES);
  for (let i = first; i < end; i++) {
    let sum = 0;
    let highest = previousEdge;
    for (let s = 0; s < SAMPLES; s++) {
      const mid = solarAltitudeDeg(startMs + (i * SAMPLES + s + 0.5) * sub, latitude, longitude);
      sum += Math.max(0, Math.sin(mid * RAD));
      highest = Math.max(highest, mid);
    }
    const endEdge = edge((i + 1) * SAMPLES);
    highest = Math.max(highest, endEdge);
    previousEdge = endEdge;
    out.shape[i] = sum / SAMPLES;
    out.down[i] = highest < DOWN_BELOW_DEG ? 1 : 0;
  }
}
