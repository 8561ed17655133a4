import { formatTime, wallClockMs } from '../../lib/time.ts';
import { SCHEMA, timeAxis, type Spec } from './scheduleSpecs.ts';

/** One line of the chart: a name for the legend and a value per point (null where unknown). */
export interface OverlaySeries {
  name: string;
  values: (number | null)[];
}

/** A quantity drawn on one axis: its unit, and what was planned and what was measured. */
export interface OverlayQuantity {
  unit: string;
  scheduled: OverlaySeries[];
  measured: OverlaySeries[];
}

/**
 * What the overlay chart shows, on one grid of steps. Power and prices hold per step (drawn as
 * steps); a state of charge holds at step boundaries (one more value than steps, drawn as a line).
 */
export interface OverlayInput {
  startMs: number;
  stepMs: number;
  /** How many steps the window has: the time axis spans them all, whatever has data. */
  steps: number;
  zone: string;
  /** In `power.unit`, consumption positive unless `positive` says otherwise. */
  power: OverlayQuantity;
  positive?: 'consumption' | 'production';
  soc?: OverlayQuantity;
  prices?: { unit: string; series: OverlaySeries[] };
  /**
   * Steps where a measured power series leaves the scheduled one of the same index by more than
   * this (in `power.unit`) are shaded; undefined to mark nothing.
   */
  tolerance?: number;
}

/** A window of equal steps in a site's zone: what a chart's time axis and its step lines are drawn on. */
export type StepGrid = Pick<OverlayInput, 'startMs' | 'stepMs' | 'steps' | 'zone'>;

export interface Point {
  t: number;
  time: string;
  series: string;
  value: number;
  /** Runs of known values are numbered, so that a line breaks at a gap instead of bridging it. */
  segment: number;
}

const powerTitle = (unit: string, positive = 'consumption') => `Power (${unit}, ${positive} positive)`;

/** Colours by role, so that a plan and its measurement read as a pair: dark planned, light measured. */
const PALETTE = {
  power: ['#1f77b4', '#ff7f0e'],
  soc: ['#2ca02c', '#98df8a'],
  price: ['#9467bd', '#c5b0d5', '#8c564b'],
};

/**
 * The time axis over the whole window, from its data-free bounds: a plan or measurements that
 * cover part of it are drawn where they belong. The bounds go in as an expression (see the
 * server's charts): a numeric domain on a temporal field compiles to `datetime()` calls, which
 * Vega's expression interpreter cannot evaluate.
 */
export function windowAxis(input: StepGrid): Spec {
  const bounds = [wallClockMs(input.startMs, input.zone), wallClockMs(input.startMs + input.steps * input.stepMs, input.zone)];
  return { ...timeAxis(input.zone), scale: { type: 'utc', domain: { expr: JSON.stringify(bounds) } } };
}

/** A series' points on the grid, numbered by runs of known values; a step's value is held to its end when `perStep`. */
export function points(series: OverlaySeries, input: StepGrid, perStep: boolean): Point[] {
  const at = (i: number) => input.startMs + i * input.stepMs;
  const point = (i: number, value: number, segment: number): Point => ({
    t: wallClockMs(at(i), input.zone),
    time: formatTime(at(i), input.zone),
    series: series.name,
    value,
    segment,
  });
  const out: Point[] = [];
  let segment = 0;
  series.values.forEach((value, i) => {
    if (value === null) {
      segment++;
      return;
    }
    out.push(point(i, value, segment));
    // A step's value holds to the step's end: the next point closes it (unless the next step has its own).
    if (perStep && (i + 1 >= series.values.length || series.values[i + 1] === null)) out.push(point(i + 1, value, segment));
  });
  return out;
}

/** Steps where measured power differs from the plan by more than the tolerance. */
export function deviations(input: OverlayInput): { from: number; to: number }[] {
  const { tolerance } = input;
  if (tolerance === undefined) return [];
  const out: { from: number; to: number }[] = [];
  input.power.measured.forEach((measured, k) => {
    const planned = input.power.scheduled[k];
    if (!planned) return;
    measured.values.forEach((m, i) => {
      const s = planned.values[i];
      if (m === null || s === null || s === undefined || Math.abs(m - s) <= tolerance) return;
      out.push({ from: input.startMs + i * input.stepMs, to: input.startMs + (i + 1) * input.stepMs });
    });
  });
  return out;
}

/**
 * The lines of one quantity on its own y axis: planned solid, measured dashed, and invisible
 * points that carry the tooltips (and the aria labels the browser tests read).
 */
function quantityLayer(opts: {
  input: OverlayInput;
  quantity: OverlayQuantity;
  title: string;
  perStep: boolean;
  axis: Record<string, unknown>;
  color: Spec;
}): Spec | undefined {
  const { input, quantity, title, perStep, axis, color } = opts;
  const time = windowAxis(input);
  // Ticks read as numbers people write (`0`, `1.28`, `250`), not `0.000000` when a quantity is flat.
  const y = { field: 'value', type: 'quantitative', title, axis: { format: ',.3~f', ...axis } };
  const line = (rows: Point[], dashed: boolean): Spec => ({
    data: { values: rows },
    mark: { type: 'line', interpolate: perStep ? 'step-after' : 'linear', strokeWidth: 2, ...(dashed && { strokeDash: [5, 3] }) },
    encoding: { x: time, y, color, detail: { field: 'segment', type: 'nominal' } },
  });
  const planned = quantity.scheduled.flatMap((s) => points(s, input, perStep));
  const measured = quantity.measured.flatMap((s) => points(s, input, perStep));
  const all = [...planned, ...measured];
  // Layers without data are left out: an empty one makes Vega warn about its extent.
  if (!all.length) return undefined;
  return {
    layer: [
      ...(planned.length ? [line(planned, false)] : []),
      ...(measured.length ? [line(measured, true)] : []),
      {
        data: { values: all },
        mark: { type: 'point', filled: true, size: 30, opacity: 0 },
        encoding: {
          x: time,
          y,
          tooltip: [
            { field: 'series', title: 'Series' },
            { field: 'time', title: 'Time' },
            { field: 'value', title, format: ',.3~f' },
          ],
        },
      },
    ],
  };
}

/**
 * One chart of power, state of charge and price over time: power on the left axis (consumption
 * positive unless the input says otherwise, as the axis says), the state of charge on a scale of its own further left, prices on
 * the right. Where measurements are given, they are drawn dashed beside the plan, and the steps
 * where measured power leaves the plan by more than the tolerance are shaded.
 * @param input the series on one grid.
 * @returns the Vega-Lite spec with its data, or undefined when no series has a value to draw.
 */
export function overlaySpec(input: OverlayInput): Spec | undefined {
  const names = (q: { scheduled: OverlaySeries[]; measured: OverlaySeries[] } | undefined) =>
    q ? [...q.scheduled, ...q.measured].map((s) => s.name) : [];
  const domain: string[] = [];
  const range: string[] = [];
  const colour = (list: string[], palette: string[]) =>
    list.forEach((name, i) => {
      domain.push(name);
      range.push(palette[i % palette.length]);
    });
  colour(names(input.power), PALETTE.power);
  colour(names(input.soc), PALETTE.soc);
  colour(
    (input.prices?.series ?? []).map((s) => s.name),
    PALETTE.price,
  );

  const color = { field: 'series', type: 'nominal', title: null, scale: { domain, range } };
  const marked = deviations(input);
  const time = windowAxis(input);
  const layers = [
    marked.length
      ? {
          data: {
            values: marked.map((d) => ({
              t: wallClockMs(d.from, input.zone),
              t2: wallClockMs(d.to, input.zone),
              time: `${formatTime(d.from, input.zone)} – ${formatTime(d.to, input.zone)}`,
            })),
          },
          // No y encoding: the band spans the plot's height.
          mark: { type: 'rect', color: '#d62728', opacity: 0.15 },
          encoding: {
            x: time,
            x2: { field: 't2' },
            tooltip: [{ field: 'time', title: 'Measured power off the plan' }],
          },
        }
      : undefined,
    quantityLayer({
      input,
      quantity: input.power,
      title: powerTitle(input.power.unit, input.positive),
      perStep: true,
      axis: { orient: 'left' },
      color,
    }),
    input.soc &&
      quantityLayer({
        input,
        quantity: input.soc,
        title: `State of charge (${input.soc.unit})`,
        perStep: false,
        // Outside the power axis, its labels and its title.
        axis: { orient: 'left', offset: 62 },
        color,
      }),
    input.prices &&
      quantityLayer({
        input,
        quantity: { unit: input.prices.unit, scheduled: input.prices.series, measured: [] },
        title: `Price (${input.prices.unit})`,
        perStep: true,
        axis: { orient: 'right' },
        color,
      }),
  ].filter((l): l is Spec => l !== undefined);
  // Deviation bands alone are not a chart (and there are none without data).
  if (!layers.some((l) => 'layer' in l)) return undefined;

  return {
    $schema: SCHEMA,
    width: 'container',
    height: 260,
    layer: layers,
    resolve: { scale: { y: 'independent' } },
  };
}
