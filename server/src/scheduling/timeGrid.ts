import type { DateTime } from 'luxon';
import type { JobWarning } from '../contracts/responses.ts';

/**
 * The one time grid of a schedule: its steps start at whole multiples of the step, so that every
 * plan of a sensor lies on the same instants (plans never interleave) and SoC targets on the
 * grid are step ends. Steps that divide an hour count from the epoch (UTC, as sensors' events
 * and market prices do); longer steps (a day) count from the start's own local midnight.
 */

const HOUR = 3_600_000;

/** The grid point at or before `start`, in the start's zone. */
export function floorToGrid(start: DateTime, stepMs: number): DateTime {
  const offsetMs = stepMs <= HOUR && HOUR % stepMs === 0 ? 0 : start.offset * 60_000;
  const ms = start.toMillis();
  const floored = Math.floor((ms + offsetMs) / stepMs) * stepMs - offsetMs;
  return floored === ms ? start : start.minus(ms - floored);
}

/**
 * A trigger's start moved onto the grid.
 * @returns the input with its start floored, and the requested start when it moved (for the warning).
 */
export function startOnGrid<T extends { start: DateTime }>(input: T, stepMs: number): { input: T; requestedStartMs?: number } {
  const start = floorToGrid(input.start, stepMs);
  if (start === input.start) return { input };
  return { input: { ...input, start }, requestedStartMs: input.start.toMillis() };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The warning of a job whose requested start lay between grid points. */
export function startFloored(spec: { startMs: number; requestedStartMs?: number }): JobWarning[] {
  if (spec.requestedStartMs === undefined) return [];
  const minutes = Math.round((spec.requestedStartMs - spec.startMs) / 60_000);
  return [
    {
      code: 'start-floored',
      field: 'start',
      message: `The requested start ${iso(spec.requestedStartMs)} lies between the sensor's time steps; the schedule starts ${minutes} min earlier, at ${iso(spec.startMs)}.`,
      periods: [{ start: iso(spec.startMs), end: iso(spec.requestedStartMs) }],
    },
  ];
}
