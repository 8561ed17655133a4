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

/**
 * The clear-sky shape and the night mask for `count` steps from `startMs`, each step sampled at
 * its start, end and SAMPLES midpoints.
 */
export function sunOverSteps(startMs: number, stepMs: number, count: number, latitude: number, longitude: number): SunOverSteps {
  const shape = new Float64Array(count);
  const down = new Uint8Array(count);
  const sub = stepMs / SAMPLES;
  // Altitudes at the sample edges: start of step i is the end of step i-1, so each edge is computed once.
  const edge = (k: number) => solarAltitudeDeg(startMs + k * sub, latitude, longitude);
  let previousEdge = edge(0);
  for (let i = 0; i < count; i++) {
    let sum = 0;
    let highest = previousEdge;
    for (let s = 0; s < SAMPLES; s++) {
      const mid = solarAltitudeDeg(startMs + (i * SAMPLES + s + 0.5) * sub, latitude, longitude);
      sum += Math.max(0, Math.sin(mid * RAD));
      highest = Math.max(highest, mid);
    }
    const end = edge((i + 1) * SAMPLES);
    highest = Math.max(highest, end);
    previousEdge = end;
    shape[i] = sum / SAMPLES;
    down[i] = highest < DOWN_BELOW_DEG ? 1 : 0;
  }
  return { shape, down };
}
