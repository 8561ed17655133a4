import type { z } from 'zod';
import type * as cockpit from '../../../../server/src/contracts/cockpit.ts';
import { formatTime, wallClockMs } from '../../lib/time.ts';
import { points, windowAxis, type OverlaySeries, type Point, type StepGrid } from './overlaySpec.ts';
import { SCHEMA, type Spec } from './scheduleSpecs.ts';

/** `GET /assets/<id>/plan-ahead`. */
export type PlanAhead = z.infer<typeof cockpit.planAhead>;

interface Stretch {
  start: string;
  end: string;
}

const H = 3_600_000;
const BAND_COLOURS = { 'No plan': '#999', 'Degraded plan': '#ff7f0e' };
/** Plans in blues and greens, forecasts in the colours of sun and house, so that the two read apart. */
const PLANNED_COLOURS = ['#1f77b4', '#2ca02c', '#17becf', '#9467bd'];
const FORECAST_COLOURS = { pv: '#e6a700', load: '#8c564b' };
/** A target as the plan in force has it: reached, missed, or held by no plan yet (`met` null). */
const REACHED: Record<string, string> = { true: 'met', false: 'missed', null: 'not planned yet' };
const TARGET_COLOURS: Record<string, string> = { met: '#2ca02c', missed: '#d62728', 'not planned yet': '#777' };
const ms = (iso: string) => Date.parse(iso);

/** The answer's window on the finest step any of its series has (an hour when it has none). */
export function gridOf(plan: PlanAhead): StepGrid {
  const spans: Stretch[] = [...plan.devices.flatMap((d) => d.steps), ...plan.prices, ...plan.forecasts.flatMap((f) => f.values)];
  const stepMs = Math.min(H, ...spans.map((s) => ms(s.end) - ms(s.start)));
  const startMs = ms(plan.start);
  return { startMs, stepMs, steps: Math.round((ms(plan.end) - startMs) / stepMs), zone: plan.timezone };
}

/** A value per grid step from stretches that each hold one; null where none does (unknown, not zero). */
function onGrid<T extends Stretch>(grid: StepGrid, items: T[], value: (item: T) => number): (number | null)[] {
  const values: (number | null)[] = Array.from({ length: grid.steps }, () => null);
  for (const item of items) {
    for (let t = ms(item.start); t < ms(item.end); t += grid.stepMs) {
      const i = Math.round((t - grid.startMs) / grid.stepMs);
      if (i >= 0 && i < grid.steps) values[i] = value(item);
    }
  }
  return values;
}

/** Stretches merged where they touch. */
function merged(stretches: { from: number; to: number }[]): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (const s of [...stretches].sort((a, b) => a.from - b.from)) {
    const last = out[out.length - 1];
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to);
    else out.push({ ...s });
  }
  return out;
}

/** Where no plan is in force for any device, and where the plan in force is degraded (fallback, warnings). */
export function bands(plan: PlanAhead): { kind: 'No plan' | 'Degraded plan'; from: number; to: number }[] {
  const degraded = new Set(plan.plans.filter((p) => p.degraded).map((p) => p.job_id));
  const noPlan = plan.no_prices.map((g) => ({ from: ms(g.start), to: ms(g.end) }));
  const bad = plan.devices.flatMap((d) => d.steps.filter((s) => degraded.has(s.job_id)).map((s) => ({ from: ms(s.start), to: ms(s.end) })));
  return [
    ...merged(noPlan).map((b) => ({ kind: 'No plan' as const, ...b })),
    ...merged(bad).map((b) => ({ kind: 'Degraded plan' as const, ...b })),
  ];
}

/** The bands and the "now" line every panel draws behind and over its lines. */
function marks(plan: PlanAhead, grid: StepGrid): { behind: Spec[]; over: Spec[] } {
  const x = windowAxis(grid);
  const zone = plan.timezone;
  const rows = bands(plan).map((b) => ({
    kind: b.kind,
    t: wallClockMs(b.from, zone),
    t2: wallClockMs(b.to, zone),
    time: `${formatTime(b.from, zone)} – ${formatTime(b.to, zone)}`,
  }));
  // Only the kinds present: a legend entry for a degraded plan that is not there would alarm for nothing.
  const kinds = [...new Set(rows.map((r) => r.kind))];
  const behind = rows.length
    ? [
        {
          data: { values: rows },
          // No y encoding: the band spans the panel's height.
          mark: { type: 'rect', opacity: 0.18 },
          encoding: {
            x,
            x2: { field: 't2' },
            fill: {
              field: 'kind',
              type: 'nominal',
              title: null,
              scale: { domain: kinds, range: kinds.map((k) => BAND_COLOURS[k]) },
            },
            tooltip: [
              { field: 'kind', title: 'Plan' },
              { field: 'time', title: 'Time' },
            ],
          },
        },
      ]
    : [];
  const nowMs = ms(plan.now);
  const now = { t: wallClockMs(nowMs, zone), time: formatTime(nowMs, zone) };
  const over = [
    {
      data: { values: [now] },
      mark: { type: 'rule', color: '#d62728', strokeWidth: 2, strokeDash: [4, 2] },
      encoding: { x, tooltip: [{ field: 'time', title: 'Now' }] },
    },
  ];
  return { behind, over };
}

/** One point per known grid step, carrying the tooltip (and the aria label the browser tests read). */
function stepPoints(series: OverlaySeries, grid: StepGrid): Point[] {
  return series.values.flatMap((value, i) => {
    const at = grid.startMs + i * grid.stepMs;
    return value === null
      ? []
      : [{ t: wallClockMs(at, grid.zone), time: formatTime(at, grid.zone), series: series.name, value, segment: 0 }];
  });
}

/** Lines of series on a panel's y axis (broken where unknown) and their invisible tooltip points, titled `field`. */
function lines(opts: {
  grid: StepGrid;
  rows: Point[];
  tips: Point[];
  yTitle: string;
  field: string;
  perStep: boolean;
  dashed?: boolean;
  /** The series' colours, when set by role. */
  colours?: { domain: string[]; range: string[] };
}): Spec[] {
  const { grid, rows, tips, yTitle, field, perStep, dashed, colours } = opts;
  if (!rows.length) return [];
  const x = windowAxis(grid);
  const y = { field: 'value', type: 'quantitative', title: yTitle, axis: { format: ',.3~f' } };
  return [
    {
      data: { values: rows },
      mark: { type: 'line', interpolate: perStep ? 'step-after' : 'linear', strokeWidth: 2, ...(dashed && { strokeDash: [5, 3] }) },
      encoding: {
        x,
        y,
        color: { field: 'series', type: 'nominal', title: null, ...(colours && { scale: colours }) },
        detail: { field: 'segment', type: 'nominal' },
      },
    },
    {
      data: { values: tips },
      mark: { type: 'point', filled: true, size: 30, opacity: 0 },
      encoding: {
        x,
        y,
        tooltip: [
          { field: 'series', title: 'Series' },
          { field: 'time', title: 'Time' },
          { field: 'value', title: field, format: ',.3~f' },
        ],
      },
    },
  ];
}

const POWER_AXIS = 'Power (kW, consumption positive)';

/** Planned power per device (solid) and the PV and load forecasts (dashed), kW consumption positive. */
function powerLayers(plan: PlanAhead, grid: StepGrid): Spec[] {
  const planned = plan.devices.map((d) => ({ name: `${d.asset} planned`, values: onGrid(grid, d.steps, (s) => s.power_kw) }));
  const forecast = plan.forecasts.map((f) => ({
    name: `${f.role === 'pv' ? 'PV' : 'Load'} forecast (${f.name})`,
    values: onGrid(grid, f.values, (v) => v.power_kw),
  }));
  const colours = {
    domain: [...planned, ...forecast].map((s) => s.name),
    range: [...planned.map((_, i) => PLANNED_COLOURS[i % PLANNED_COLOURS.length]), ...plan.forecasts.map((f) => FORECAST_COLOURS[f.role])],
  };
  const group = (series: OverlaySeries[], field: string, dashed: boolean) =>
    lines({
      grid,
      rows: series.flatMap((s) => points(s, grid, true)),
      tips: series.flatMap((s) => stepPoints(s, grid)),
      yTitle: POWER_AXIS,
      field,
      perStep: true,
      dashed,
      colours,
    });
  return [...group(planned, 'Planned power (kW)', false), ...group(forecast, 'Forecast power (kW)', true)];
}

/** Each device's planned state of charge at step boundaries (a jump where another plan takes over) and its targets. */
function socLayers(plan: PlanAhead, grid: StepGrid): Spec[] {
  const zone = plan.timezone;
  const point = (name: string, atMs: number, value: number, segment: number) => ({
    t: wallClockMs(atMs, zone),
    time: formatTime(atMs, zone),
    series: name,
    value,
    segment,
  });
  const rows = plan.devices.flatMap((d) => {
    let segment = 0;
    let last: { endMs: number; soc: number | null } | undefined;
    return d.steps.flatMap((s) => {
      if (s.soc_start_kwh === null || s.soc_end_kwh === null) return [];
      if (!last || last.endMs !== ms(s.start) || last.soc !== s.soc_start_kwh) segment++;
      last = { endMs: ms(s.end), soc: s.soc_end_kwh };
      const name = `${d.asset} planned SoC`;
      return [point(name, ms(s.start), s.soc_start_kwh, segment), point(name, ms(s.end), s.soc_end_kwh, segment)];
    });
  });
  const yTitle = 'State of charge (kWh)';
  const targets = plan.devices.flatMap((d) =>
    d.targets.map((t) => ({ ...point(`${d.asset} target`, ms(t.at), t.soc_kwh, 0), reached: REACHED[String(t.met)] })),
  );
  // Only the outcomes present in the legend.
  const reached = [...new Set(targets.map((t) => t.reached))];
  const targetLayer = {
    data: { values: targets },
    mark: { type: 'point', shape: 'diamond', size: 140, filled: true },
    encoding: {
      x: windowAxis(grid),
      y: { field: 'value', type: 'quantitative' },
      fill: {
        field: 'reached',
        type: 'nominal',
        title: 'Target',
        scale: { domain: reached, range: reached.map((r) => TARGET_COLOURS[r]) },
      },
      tooltip: [
        { field: 'series', title: 'Series' },
        { field: 'time', title: 'Target at' },
        { field: 'value', title: 'Target (kWh)', format: ',.3~f' },
        { field: 'reached', title: 'The plan' },
      ],
    },
  };
  // A boundary two steps share is one point; where another plan takes over with another state, both show.
  const tips = rows.filter((r, i) => i === 0 || r.t !== rows[i - 1].t || r.series !== rows[i - 1].series || r.value !== rows[i - 1].value);
  return [...lines({ grid, rows, tips, yTitle, field: 'Planned SoC (kWh)', perStep: false }), ...(targets.length ? [targetLayer] : [])];
}

/** The prices the plans in force were made against; the production price only where it differs. */
function priceLayers(plan: PlanAhead, grid: StepGrid): Spec[] {
  const unit = `${plan.currency ?? 'currency'}/MWh`;
  const series = [{ name: 'Consumption price', values: onGrid(grid, plan.prices, (p) => p.consumption) }];
  if (plan.prices.some((p) => p.production !== p.consumption))
    series.push({ name: 'Production price', values: onGrid(grid, plan.prices, (p) => p.production) });
  return lines({
    grid,
    rows: series.flatMap((s) => points(s, grid, true)),
    tips: series.flatMap((s) => stepPoints(s, grid)),
    yTitle: `Price (${unit})`,
    field: `Price (${unit})`,
    perStep: true,
  });
}

/**
 * The next hours of a site's plan as three panels on one time axis: power (the devices' plans and
 * the forecasts), state of charge with targets, and prices; each shades where no plan is in force
 * and where the plan is degraded, and draws a line at now.
 * @returns the spec, or undefined when there is nothing planned nor forecast to draw.
 */
export function planAheadSpec(plan: PlanAhead): Spec | undefined {
  const grid = gridOf(plan);
  const { behind, over } = marks(plan, grid);
  const panel = (title: string, layers: Spec[], height: number) =>
    layers.length
      ? [{ title, width: 'container', height, layer: [...behind, ...layers, ...over], resolve: { scale: { fill: 'independent' } } }]
      : [];
  const power = panel('Planned power and forecasts', powerLayers(plan, grid), 200);
  if (!power.length) return undefined;
  return {
    $schema: SCHEMA,
    vconcat: [...power, ...panel('State of charge', socLayers(plan, grid), 150), ...panel('Prices', priceLayers(plan, grid), 120)],
    resolve: { scale: { color: 'independent', fill: 'independent' } },
  };
}
