import { DateTime } from 'luxon';
import type { JobResult } from '../../api/types.ts';
import { readableUnit } from '../charts/scheduleSpecs.ts';
import type { OverlayInput } from '../charts/overlaySpec.ts';

/** A column of the schedule table: its heading (units and sign convention named) and a value per step. */
export interface ScheduleColumn {
  heading: string;
  values: (number | null)[];
  /** What the column holds, for formatting: money gets cents. */
  kind: 'power' | 'soc' | 'price' | 'cost';
}

const name = (names: Record<number, string>, id: number) => names[id] ?? `sensor ${id}`;

/** The price unit of a result: its currency per MWh (the scheduler's prices are per MWh). */
const priceUnit = (result: JobResult) => `${result.currency ?? ''}/MWh`.replace(/^\//, 'per ');

const stepsOf = (result: JobResult) => result.devices[0]?.power_mw.length ?? 0;

/** Whether the site has power besides the scheduled devices (then the cost follows site power, shown apart). */
function hasInflexible(result: JobResult): boolean {
  const site = result.site_power_mw ?? [];
  return site.some((p, j) => Math.abs(p - result.devices.reduce((sum, d) => sum + d.power_mw[j], 0)) > 1e-9);
}

/**
 * A scheduling result as table columns, step by step: each device's power (consumption positive)
 * and state of charge at the step's end, site power where other devices draw too, the prices and
 * the energy cost of the step as the job computed it (`cost_per_step`, whose sum is the plan cost).
 * @param result the job result.
 * @param names sensor names by id.
 * @returns the columns, each with one value per step.
 */
export function scheduleColumns(result: JobResult, names: Record<number, string>): ScheduleColumn[] {
  const power = readableUnit([...result.devices.flatMap((d) => d.power_mw), ...(result.site_power_mw ?? [])], 'W');
  const socFactor = result.soc_unit === 'kWh' ? 1000 : 1;
  const socUnit = result.soc_unit ?? 'MWh';
  const currency = result.currency ? ` (${result.currency})` : '';
  const columns: ScheduleColumn[] = result.devices.flatMap((d) => [
    {
      heading: `${name(names, d.sensor_id)} (${power.unit}, consumption positive)`,
      values: d.power_mw.map((v) => v * power.factor),
      kind: 'power' as const,
    },
    ...(d.soc_mwh?.length
      ? [
          {
            heading: `${name(names, d.sensor_id)}: SoC at step end (${socUnit})`,
            values: d.soc_mwh.slice(1).map((v) => v * socFactor),
            kind: 'soc' as const,
          },
        ]
      : []),
  ]);
  if (hasInflexible(result)) {
    columns.push({
      heading: `Site power (${power.unit}, consumption positive)`,
      values: (result.site_power_mw ?? []).map((v) => v * power.factor),
      kind: 'power',
    });
  }
  if (result.consumption_price?.length) {
    const label = result.production_price ? 'Consumption price' : 'Price';
    columns.push({ heading: `${label} (${priceUnit(result)})`, values: result.consumption_price, kind: 'price' });
  }
  if (result.production_price?.length) {
    columns.push({ heading: `Production price (${priceUnit(result)})`, values: result.production_price, kind: 'price' });
  }
  const steps = stepsOf(result);
  columns.push({
    heading: `Cost${currency}`,
    values: Array.from({ length: steps }, (_, j) => result.cost_per_step?.[j] ?? null),
    kind: 'cost',
  });
  return columns;
}

/** @returns the start of each step as ISO 8601 with the zone's offset. */
export const stepStarts = (result: JobResult, zone: string): string[] =>
  Array.from(
    { length: stepsOf(result) },
    (_, j) => DateTime.fromMillis(result.start_ms + j * result.step_ms, { zone }).toISO({ suppressMilliseconds: true }) ?? '',
  );

/** The sum of the step costs, as the plan's cost: rounded as the server rounds money (6 decimals). */
export function totalCost(result: JobResult): number | undefined {
  if (!result.cost_per_step?.length) return undefined;
  return Math.round(result.cost_per_step.reduce((a, b) => a + b, 0) * 1e6) / 1e6;
}

/**
 * The schedule as rows for a CSV file: a header naming units and the sign convention, then one
 * row per step with the start in the site's zone (ISO 8601 with offset) and full-precision values.
 */
export function scheduleCsvRows(result: JobResult, zone: string, names: Record<number, string>): (string | number | null)[][] {
  const columns = scheduleColumns(result, names);
  const starts = stepStarts(result, zone);
  return [[`Start (${zone})`, ...columns.map((c) => c.heading)], ...starts.map((start, j) => [start, ...columns.map((c) => c.values[j])])];
}

/**
 * A computed schedule for the overlay chart: each device's planned power and state of charge,
 * and the prices the scheduler used.
 */
export function scheduleOverlay(result: JobResult, zone: string, names: Record<number, string>): OverlayInput {
  const power = readableUnit(
    result.devices.flatMap((d) => d.power_mw),
    'W',
  );
  const socFactor = result.soc_unit === 'kWh' ? 1000 : 1;
  const withSoc = result.devices.filter((d) => d.soc_mwh?.length);
  const prices = [
    ...(result.consumption_price?.length
      ? [{ name: result.production_price ? 'consumption price' : 'price', values: result.consumption_price }]
      : []),
    ...(result.production_price?.length ? [{ name: 'production price', values: result.production_price }] : []),
  ];
  return {
    startMs: result.start_ms,
    stepMs: result.step_ms,
    steps: stepsOf(result),
    zone,
    power: {
      unit: power.unit,
      scheduled: result.devices.map((d) => ({
        name: name(names, d.sensor_id),
        values: d.power_mw.map((v) => v * power.factor),
      })),
      measured: [],
    },
    ...(withSoc.length > 0 && {
      soc: {
        unit: result.soc_unit ?? 'MWh',
        scheduled: withSoc.map((d) => ({ name: `${name(names, d.sensor_id)}: SoC`, values: (d.soc_mwh ?? []).map((v) => v * socFactor) })),
        measured: [],
      },
    }),
    ...(prices.length > 0 && { prices: { unit: priceUnit(result), series: prices } }),
  };
}
