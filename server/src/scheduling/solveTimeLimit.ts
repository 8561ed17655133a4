/**
 * How long the solver may take for one schedule, in proportion to its size: a warm solve of 192
 * steps of one device takes 30–40 ms, so 10 ms per step and device leaves ample room for harder
 * problems (binaries, many constraints) while a problem that will not solve, such as an
 * impossible efficiency, holds its thread for seconds rather than the two minutes a fixed limit
 * gave it.
 */
const SECONDS_PER_STEP_AND_DEVICE = 0.01;
/** Small problems still get time for a slow machine under load (a cold thread, a busy CPU). */
const FLOOR_SECONDS = 10;
/** The largest problems (2520 steps of many devices) stop here: the job fails with the limit reached. */
const CAP_SECONDS = 120;

/** The solver's time limit for a problem of `steps` steps of `devices` devices, in seconds. */
export function solveTimeLimitSeconds(steps: number, devices: number): number {
  return Math.min(CAP_SECONDS, Math.max(FLOOR_SECONDS, steps * Math.max(1, devices) * SECONDS_PER_STEP_AND_DEVICE));
}
