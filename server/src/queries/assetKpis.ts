import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { conversion } from '../domain/units.ts';
import { resampleToGrid } from '../domain/resample.ts';
import { consumptionSign } from '../scheduling/buildProblem.ts';
import { siteStepCost, sumAt } from '../scheduling/money.ts';
import { descendantIds } from '../store/assets.ts';
import { mostRecentBeliefs } from '../store/beliefs.ts';
import { scheduleMoneyIn, type ScheduleMoney } from '../store/scheduleMoney.ts';
import { forbidden } from '../errors.ts';
import { sensorStats } from '../store/sensorStats.ts';
import { getSensor, listSensors, type SensorInContext } from '../store/sensors.ts';
import { MEASURING_SOURCE_TYPES } from '../store/lastMeasurements.ts';

/** Money figures of a period, in the schedules' currency. */
export interface KpiFigures {
  /** Energy cost of the plans. */
  plan_cost: number;
  /** What the same steps cost doing nothing (batteries idle, EVs charging at once). */
  baseline_cost: number;
  planned_savings: number;
  /** Cost with the devices' measured power, over the steps measured; null when none is. */
  realised_cost: number | null;
  /** Baseline cost of the measured steps minus their realised cost; null when none is measured. */
  realised_savings: number | null;
  steps: number;
  measured_steps: number;
}

export interface AssetKpis {
  asset_id: number;
  currency: string | null;
  timezone: string;
  total: KpiFigures;
  days: (KpiFigures & { period: string })[];
  months: (KpiFigures & { period: string })[];
}

/** One step as counted: its start, and its costs (realised null where the devices were not all measured). */
interface StepMoney {
  startMs: number;
  plan: number;
  baseline: number;
  realised: number | null;
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/**
 * A device's measured power on a schedule's grid (MW, consumption positive), null where unknown.
 */
async function measuredMw(db: Knex, sensorId: number, m: ScheduleMoney): Promise<(number | null)[]> {
  const sensor = (await getSensor(db, sensorId))!;
  const events = await mostRecentBeliefs(db, { sensorId, startMs: m.startMs, endMs: m.endMs, sourceTypes: MEASURING_SOURCE_TYPES });
  const c = conversion(sensor.unit, 'MW', sensor.event_resolution_ms || m.stepMs) ?? { scale: 1, offset: 0 };
  const sign = consumptionSign(sensor);
  const grid = { startMs: m.startMs, endMs: m.endMs, stepMs: m.stepMs, eventResolutionMs: sensor.event_resolution_ms };
  return resampleToGrid(events, grid).map((v) => (v === null ? null : sign * (v * c.scale + c.offset)));
}

/** Every step of a schedule inside the window, with its planned, baseline and realised cost. */
async function stepsOf(db: Knex, m: ScheduleMoney, startMs: number, endMs: number): Promise<StepMoney[]> {
  const measured = await Promise.all(m.series.devices.map((d) => measuredMw(db, d.sensorId, m)));
  const steps: StepMoney[] = [];
  m.series.consumptionPrice.forEach((_, j) => {
    const t = m.startMs + j * m.stepMs;
    if (t < startMs || t >= endMs) return;
    const known = measured.every((series) => series[j] !== null);
    steps.push({
      startMs: t,
      plan: siteStepCost(m.series, j, sumAt(m.series.devices, 'powerMw', j)),
      baseline: siteStepCost(m.series, j, sumAt(m.series.devices, 'baselineMw', j)),
      realised: known
        ? siteStepCost(
            m.series,
            j,
            measured.reduce((sum, series) => sum + series[j]!, 0),
          )
        : null,
    });
  });
  return steps;
}

function figures(steps: StepMoney[]): KpiFigures {
  const measured = steps.filter((s) => s.realised !== null);
  const sum = (list: StepMoney[], f: (s: StepMoney) => number) => round6(list.reduce((a, s) => a + f(s), 0));
  const plan = sum(steps, (s) => s.plan);
  const baseline = sum(steps, (s) => s.baseline);
  const realised = measured.length ? sum(measured, (s) => s.realised!) : null;
  return {
    plan_cost: plan,
    baseline_cost: baseline,
    planned_savings: round6(baseline - plan),
    realised_cost: realised,
    realised_savings: realised === null ? null : round6(sum(measured, (s) => s.baseline) - realised),
    steps: steps.length,
    measured_steps: measured.length,
  };
}

function byPeriod(steps: StepMoney[], zone: string, format: string): (KpiFigures & { period: string })[] {
  const groups = new Map<string, StepMoney[]>();
  for (const s of steps) {
    const period = DateTime.fromMillis(s.startMs, { zone }).toFormat(format);
    groups.set(period, [...(groups.get(period) ?? []), s]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([period, list]) => ({ period, ...figures(list) }));
}

/**
 * The money figures of the schedules of an asset and the assets below it, per day and month of
 * the window. Where schedules overlap, each device step counts once, as the most recent plan
 * (latest belief time) has it: a rolling re-plan replaces what it re-plans.
 * @returns the figures; days and months in the time zone of the schedules' device.
 */
export async function assetKpis(db: Knex, assetId: number, startMs: number, endMs: number): Promise<AssetKpis> {
  const assetIds = await descendantIds(db, assetId);
  const sensors = (await Promise.all(assetIds.map((id) => listSensors(db, { assetId: id })))).flat();
  const schedules = await scheduleMoneyIn(
    db,
    sensors.map((s) => s.id),
    startMs,
    endMs,
  );
  const latest = new Map<string, StepMoney>();
  for (const m of schedules) {
    for (const step of await stepsOf(db, m, startMs, endMs)) latest.set(`${m.sensorId}@${step.startMs}`, step);
  }
  const steps = [...latest.values()].sort((a, b) => a.startMs - b.startMs);
  const currencies = new Set(schedules.map((m) => m.currency));
  const zone = sensors.find((s) => s.id === schedules[0]?.sensorId)?.timezone ?? 'UTC';
  return {
    asset_id: assetId,
    // One currency, or null when unknown (fixed prices) or mixed.
    currency: currencies.size === 1 ? [...currencies][0] : null,
    timezone: zone,
    total: figures(steps),
    days: byPeriod(steps, zone, 'yyyy-MM-dd'),
    months: byPeriod(steps, zone, 'yyyy-MM'),
  };
}

/** One of FlexMeasures 1.0's sensor KPIs: a daily sensor's values over the window, reduced by a function. */
export interface SensorKpi {
  title: string;
  unit: string;
  sensor: number;
  downsample_value: number;
  downsample_function: 'sum' | 'min' | 'max' | 'mean';
}

/**
 * The asset's `sensors_to_show_as_kpis` over the window, as 1.0 computes them: the statistics of
 * the first source with data (0 without any), by the KPI's function, else the mean for a `%`
 * sensor and the sum for others; rounded to 2 decimals. Sensors deleted since are left out.
 * @param mayRead whether the caller may read a sensor (checked when the list was stored, and again
 *   here: a KPI must not show what its reader cannot see).
 */
export async function sensorKpis(
  db: Knex,
  asset: { attributes: Record<string, unknown> },
  window: { startMs: number; endMs: number },
  mayRead: (sensor: SensorInContext) => boolean,
): Promise<SensorKpi[]> {
  const kpis = (asset.attributes.sensors_to_show_as_kpis ?? []) as {
    title: string;
    sensor: number;
    function?: SensorKpi['downsample_function'];
  }[];
  const out: SensorKpi[] = [];
  for (const kpi of kpis) {
    const sensor = await getSensor(db, kpi.sensor);
    if (!sensor) continue;
    if (!mayRead(sensor)) throw forbidden();
    const fn = kpi.function ?? (sensor.unit === '%' ? 'mean' : 'sum');
    const [first] = await sensorStats(db, sensor.id, window);
    const value = first ? first[fn] : 0;
    out.push({
      title: kpi.title,
      unit: sensor.unit,
      sensor: sensor.id,
      downsample_value: Math.round(value * 100) / 100,
      downsample_function: fn,
    });
  }
  return out;
}
