import { Duration } from 'luxon';
import { API, request, type RequestOptions } from '../../api/client.ts';
import * as wire from '../../api/contracts.ts';
import type { Sensor } from '../../api/types.ts';
import { parseAttributes } from '../../lib/attributes.ts';
import type { OverlayInput, OverlayQuantity } from '../charts/overlaySpec.ts';

/** Shaded where measured power is further off the plan than this share of the largest planned power. */
export const TOLERANCE_SHARE = 0.1;

/** Used when the power sensor is instantaneous (no resolution of its own). */
const DEFAULT_STEP_MS = 15 * 60_000;

/** What the chart is asked to show: sensor ids (SoC and price optional) and a window in epoch ms. */
export interface PlanActualQuery {
  power: number;
  soc?: number;
  price?: number;
  startMs: number;
  endMs: number;
  zone: string;
  /** Which way the chart draws power as positive, whatever the sensor stores; consumption unless chosen. */
  positive?: 'consumption' | 'production';
}

/** The sources that recorded a sensor's data, split into the scheduler's (the plan) and the measuring ones. */
async function sourcesOf(sensorId: number, signal?: AbortSignal): Promise<{ planned: number[]; measured: number[] }> {
  const { sources } = await request(`${API}/sources`, { query: { sensor_id: sensorId }, answer: wire.sourceList, signal });
  // Forecasts are neither plan nor measurement.
  return {
    planned: sources.filter((s) => s.type === 'scheduler').map((s) => s.id),
    measured: sources.filter((s) => s.type !== 'scheduler' && s.type !== 'forecaster').map((s) => s.id),
  };
}

/** A sensor's values on the grid, from the given sources only (none: nothing is asked). */
async function values(
  sensor: Sensor,
  grid: { startMs: number; stepMs: number; steps: number },
  sources: number[] | undefined,
  signal?: AbortSignal,
): Promise<(number | null)[] | undefined> {
  if (sources && !sources.length) return undefined;
  const answer = await request(`${API}/sensors/${sensor.id}/data`, {
    query: {
      start: new Date(grid.startMs).toISOString(),
      duration: Duration.fromMillis(grid.steps * grid.stepMs).toISO(),
      resolution: Duration.fromMillis(grid.stepMs).toISO(),
      unit: sensor.unit,
      source: sources?.join(','),
    },
    answer: wire.sensorDataAnswer,
    signal,
  });
  return answer.values.some((v) => v !== null) ? answer.values : undefined;
}

/** A sensor's plan and measurements as one quantity of the chart, each multiplied by `sign`. */
async function quantity(sensor: Sensor, grid: { startMs: number; stepMs: number; steps: number }, sign: number, signal?: AbortSignal) {
  const { planned, measured } = await sourcesOf(sensor.id, signal);
  const [plan, actual] = await Promise.all([values(sensor, grid, planned, signal), values(sensor, grid, measured, signal)]);
  const flip = (list: (number | null)[]) => list.map((v) => (v === null ? null : sign * v));
  const q: OverlayQuantity = {
    unit: sensor.unit,
    scheduled: plan ? [{ name: `${sensor.name} (scheduled)`, values: flip(plan) }] : [],
    measured: actual ? [{ name: `${sensor.name} (measured)`, values: flip(actual) }] : [],
  };
  return q;
}

/**
 * Reads, over the HTTP API only, what the plan-against-actual chart shows: the power sensor's
 * scheduled and measured values (shown the chosen way positive, whatever the sensor stores), the
 * same for a state-of-charge sensor, and a price sensor's prices, on the power sensor's grid.
 * Shaped for `useApi`: the query carries a `PlanActualQuery`.
 * @returns the chart's input, with the tolerance used for marking deviations.
 */
export async function readPlanActual(_path: string, options: RequestOptions): Promise<OverlayInput> {
  const q = options.query as unknown as PlanActualQuery;
  const { signal } = options;
  const sensor = (id: number) => request(`${API}/sensors/${id}`, { answer: wire.sensorAnswer, signal });
  const [power, soc, price] = await Promise.all([
    sensor(q.power),
    q.soc === undefined ? undefined : sensor(q.soc),
    q.price === undefined ? undefined : sensor(q.price),
  ]);
  const stepMs = Duration.fromISO(power.event_resolution).toMillis() || DEFAULT_STEP_MS;
  const grid = { startMs: q.startMs, stepMs, steps: Math.ceil((q.endMs - q.startMs) / stepMs) };
  // Stored power is production positive unless the sensor says otherwise; the axis shows the chosen way.
  const stored = parseAttributes(power.attributes).consumption_is_positive === true ? 'consumption' : 'production';
  const positive = q.positive ?? 'consumption';
  const sign = stored === positive ? 1 : -1;
  const [powerQ, socQ, prices] = await Promise.all([
    quantity(power, grid, sign, signal),
    soc && quantity(soc, grid, 1, signal),
    price && values(price, grid, undefined, signal),
  ]);
  const largest = Math.max(0, ...powerQ.scheduled.flatMap((s) => s.values.map((v) => Math.abs(v ?? 0))));
  return {
    ...grid,
    zone: q.zone,
    power: powerQ,
    positive,
    ...(socQ && { soc: socQ }),
    ...(price && prices && { prices: { unit: price.unit, series: [{ name: price.name, values: prices }] } }),
    ...(largest > 0 && { tolerance: largest * TOLERANCE_SHARE }),
  };
}
