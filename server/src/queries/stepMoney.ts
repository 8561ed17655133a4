import type { Knex } from 'knex';
import { conversion } from '../domain/units.ts';
import { resampleToGrid } from '../domain/resample.ts';
import { consumptionSign } from '../scheduling/buildProblem.ts';
import { stepCost } from '../../../worker/src/tasks.ts';
import type { MoneySeries } from '../store/scheduleMoney.ts';
import { mostRecentBeliefs } from '../store/beliefs.ts';
import { getSensor } from '../store/sensors.ts';
import { MEASURING_SOURCE_TYPES } from '../store/lastMeasurements.ts';
import type { StepInForce } from './planInForce.ts';

/** A part of a site's flow in one step (a device, or the rest of the site): its money and energy. */
export interface PartMoney {
  plan: number;
  baseline: number;
  /** As measured, at the price of the site's measured net flow; null where the step's devices or grid meters were not all measured. */
  realised: number | null;
  /** Doing nothing with the rest of the site as measured, at that flow's price; null as `realised`. */
  realisedBaseline: number | null;
  /** Energy as planned (MWh, consumption positive). */
  plannedMwh: number;
  /** Energy as measured (MWh, consumption positive); null where unknown. */
  measuredMwh: number | null;
}

/** One step as counted: its parts by device sensor (null: the rest of the site). */
export interface StepMoney {
  startMs: number;
  endMs: number;
  /** A device's plan in force here came from the fallback scheduler. */
  fallback: boolean;
  /** The plans in force, by job id. */
  jobs: string[];
  parts: Map<number | null, PartMoney>;
}

/** A device's measured power on a grid of `stepMs` from `startMs` (MW, consumption positive), null where unknown. */
async function measuredMw(
  db: Knex,
  sensorId: number,
  grid: { startMs: number; endMs: number; stepMs: number },
): Promise<(number | null)[]> {
  const sensor = (await getSensor(db, sensorId))!;
  const events = await mostRecentBeliefs(db, { sensorId, startMs: grid.startMs, endMs: grid.endMs, sourceTypes: MEASURING_SOURCE_TYPES });
  const c = conversion(sensor.unit, 'MW', sensor.event_resolution_ms || grid.stepMs) ?? { scale: 1, offset: 0 };
  const sign = consumptionSign(sensor);
  return resampleToGrid(events, { ...grid, eventResolutionMs: sensor.event_resolution_ms }).map((v) =>
    v === null ? null : sign * (v * c.scale + c.offset),
  );
}

/** A sensor's measured power (MW, consumption positive) in the step of `stepMs` starting at `t`; null where unknown. */
export type Measured = (sensorId: number, stepMs: number, t: number) => number | null;

/**
 * Measured power per device and step length, read once per window: each device on its plan's
 * steps, and each of `siteSensorIds` (a grid meter) on the steps of each step's plan.
 */
export async function measurements(db: Knex, steps: StepInForce[], endMs: number, siteSensorIds: number[] = []): Promise<Measured> {
  const grids = new Map<string, { startMs: number; stepMs: number; values: (number | null)[] }>();
  for (const step of steps) {
    const wanted = [
      ...step.devices.map((d) => ({ sensorId: d.sensorId, stepMs: d.plan.stepMs })),
      ...siteSensorIds.map((sensorId) => ({ sensorId, stepMs: step.plan.stepMs })),
    ];
    for (const { sensorId, stepMs } of wanted) {
      const key = `${sensorId}/${stepMs}`;
      if (grids.has(key)) continue;
      const startMs = Math.floor(step.startMs / stepMs) * stepMs;
      grids.set(key, { startMs, stepMs, values: await measuredMw(db, sensorId, { startMs, endMs, stepMs }) });
    }
  }
  return (sensorId, stepMs, t) => {
    const grid = grids.get(`${sensorId}/${stepMs}`)!;
    return grid.values[Math.round((t - grid.startMs) / stepMs)] ?? null;
  };
}

/**
 * What a MW of a step's flow costs: the site buys at the consumption price and sells at the
 * production price, by the sign of its net flow. The cost is linear in the flow at that price,
 * so every part of the flow counted at it adds up to the site's cost.
 */
export const costPerMw = (series: MoneySeries, index: number, netMw: number) =>
  netMw >= 0 ? stepCost(series, index, 1) : -stepCost(series, index, -1);

/** The sum of these values, null when any is unknown. */
const sumKnown = (values: (number | null)[]) => (values.some((v) => v === null) ? null : values.reduce((a: number, v) => a + v!, 0));

/**
 * A step's flows as measured (MW, consumption positive): the site's net grid flow (its grid
 * meters; without any, the rest of the site as the plan forecast it plus the devices' measured
 * power), the rest of the site (that flow less the devices) and that flow with the devices doing
 * nothing instead (batteries idle, EVs charging at once). Null when the step's devices or grid
 * meters were not all measured.
 */
export function measuredFlows(step: StepInForce, measured: Measured, gridSensorIds: number[]) {
  const devicesMw = sumKnown(step.devices.map((d) => measured(d.sensorId, d.plan.stepMs, step.startMs)));
  if (devicesMw === null) return null;
  const { series, stepMs } = step.plan;
  const gridMw = gridSensorIds.length
    ? sumKnown(gridSensorIds.map((id) => measured(id, stepMs, step.startMs)))
    : series.inflexibleMw[step.index] + devicesMw;
  if (gridMw === null) return null;
  const baselineMw = step.devices.reduce((sum, d) => sum + d.plan.series.devices[d.device].baselineMw[d.index], 0);
  return { gridMw, restMw: gridMw - devicesMw, withoutMw: gridMw - devicesMw + baselineMw };
}

/**
 * The money of each step with plans in force: per device and for the rest of the site, planned,
 * doing nothing (batteries idle, EVs charging at once) and as measured. As planned, the rest of the
 * site is its load without the devices as the newest plan in force forecast it; as measured, it is
 * the grid meters less the devices where the site has grid meters (`measuredFlows`, as the period's
 * money counts it), else that forecast.
 * @param gridSensorIds the site's grid meters' power sensors.
 */
export async function stepMoney(db: Knex, steps: StepInForce[], endMs: number, gridSensorIds: number[]): Promise<StepMoney[]> {
  const measured = await measurements(db, steps, endMs, gridSensorIds);
  return steps.map((step) => {
    const { series } = step.plan;
    const rest = series.inflexibleMw[step.index];
    const devices = step.devices.map((d) => {
      const s = d.plan.series.devices[d.device];
      return {
        sensorId: d.sensorId,
        planMw: s.powerMw[d.index],
        baselineMw: s.baselineMw[d.index],
        measuredMw: measured(d.sensorId, d.plan.stepMs, step.startMs),
      };
    });
    const flows = measuredFlows(step, measured, gridSensorIds);
    const net = (key: 'planMw' | 'baselineMw') => devices.reduce((sum, d) => sum + d[key], rest);
    const price = {
      plan: costPerMw(series, step.index, net('planMw')),
      baseline: costPerMw(series, step.index, net('baselineMw')),
      realised: flows && costPerMw(series, step.index, flows.gridMw),
      realisedBaseline: flows && costPerMw(series, step.index, flows.withoutMw),
    };
    const part = (planMw: number, baselineMw: number, measuredMw: number | null, measuredBaselineMw: number): PartMoney => ({
      plan: planMw * price.plan,
      baseline: baselineMw * price.baseline,
      realised: price.realised === null ? null : measuredMw! * price.realised,
      realisedBaseline: price.realisedBaseline === null ? null : measuredBaselineMw * price.realisedBaseline,
      plannedMwh: planMw * series.stepHours,
      measuredMwh: measuredMw === null ? null : measuredMw * series.stepHours,
    });
    const parts = new Map<number | null, PartMoney>(
      devices.map((d) => [d.sensorId, part(d.planMw, d.baselineMw, d.measuredMw, d.baselineMw)]),
    );
    const measuredRest = flows?.restMw ?? rest;
    parts.set(null, part(rest, rest, measuredRest, measuredRest));
    return {
      startMs: step.startMs,
      endMs: step.startMs + step.plan.stepMs,
      fallback: step.devices.some((d) => d.plan.fallback),
      jobs: [...new Set(step.devices.map((d) => d.plan.jobId))],
      parts,
    };
  });
}
