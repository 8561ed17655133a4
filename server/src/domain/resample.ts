/** An event value as the belief store returns it. */
export interface EventValue {
  eventStartMs: number;
  value: number;
}

/** The regular grid `[startMs, endMs)` in steps of `stepMs`, and what the events are. */
export interface GridSpec {
  startMs: number;
  endMs: number;
  stepMs: number;
  /** Length of each event; 0 for instantaneous sensors (state readings). */
  eventResolutionMs: number;
  /**
   * Values are amounts per event (kWh, m³) rather than rates (kW, EUR/MWh): they are scaled by
   * the ratio of step to event length, so that sums are preserved.
   */
  stock?: boolean;
}

/** @returns how many steps of the grid start before its end. */
export function gridLength(spec: Pick<GridSpec, 'startMs' | 'endMs' | 'stepMs'>): number {
  return spec.endMs > spec.startMs ? Math.ceil((spec.endMs - spec.startMs) / spec.stepMs) : 0;
}

/**
 * Puts events on a regular grid, one value per step, null where nothing is known.
 * - Instantaneous events: the first event in each step.
 * - Steps at least as long as the events (same or downsampling): the mean of the events that
 *   start in the step (of those present: gaps do not count as zero).
 * - Steps shorter than the events (upsampling): the value of the event that covers the step's start.
 * @param events event values sorted by start (as `mostRecentBeliefs` returns them).
 * @param spec the grid and the nature of the events.
 * @returns the values, `gridLength(spec)` of them.
 */
export function resampleToGrid(events: readonly EventValue[], spec: GridSpec): (number | null)[] {
  const grid = resampleSeries(
    {
      length: events.length,
      eventStartMs: Float64Array.from(events, (e) => e.eventStartMs),
      value: Float64Array.from(events, (e) => e.value),
    },
    spec,
  );
  return Array.from(grid, (v) => (Number.isNaN(v) ? null : v));
}

/** Event starts and values as columns, sorted by start. */
export interface EventSeries {
  length: number;
  eventStartMs: ArrayLike<number>;
  value: ArrayLike<number>;
}

/**
 * `resampleToGrid` over columns, without an object per event.
 * @returns the values, `gridLength(spec)` of them, NaN where nothing is known.
 */
export function resampleSeries(events: EventSeries, spec: GridSpec): Float64Array {
  const { startMs, stepMs, eventResolutionMs: res } = spec;
  const { eventStartMs: starts, value } = events;
  const n = gridLength(spec);
  const out = new Float64Array(n).fill(NaN);
  if (stepMs <= 0) throw new RangeError('The grid step must be positive.');
  // Amounts scale with the share of an event a step holds; rates do not.
  const scale = spec.stock && res > 0 ? stepMs / res : 1;
  let j = 0;
  for (let i = 0; i < n; i++) {
    const from = startMs + i * stepMs;
    const to = from + stepMs;
    if (res === 0 || stepMs >= res) {
      while (j < events.length && starts[j] < from) j++;
      let sum = 0;
      let count = 0;
      for (let k = j; k < events.length && starts[k] < to; k++) {
        if (res === 0) {
          sum = value[k];
          count = 1;
          break;
        }
        sum += value[k];
        count++;
      }
      if (count) out[i] = (sum / count) * scale;
    } else {
      // The last event starting at or before the step's start, if it lasts beyond it.
      while (j < events.length && starts[j] <= from) j++;
      if (j > 0 && starts[j - 1] + res > from) out[i] = value[j - 1] * scale;
    }
  }
  return out;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The step used for an instantaneous sensor when a download names none: finer for short
 * windows, coarser for long ones.
 * @param windowMs the length of the requested window.
 * @returns the step in milliseconds.
 */
export function defaultInstantaneousStep(windowMs: number): number {
  if (windowMs > 16 * 7 * DAY) return 7 * DAY;
  if (windowMs > 14 * DAY) return DAY;
  if (windowMs > 48 * HOUR) return HOUR;
  if (windowMs > 8 * HOUR) return 15 * MINUTE;
  return 5 * MINUTE;
}
