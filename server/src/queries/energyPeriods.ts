import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { readQuantity } from '../domain/units.ts';
import { getAsset, getAssetType } from '../store/assets.ts';
import { measuredValues } from '../store/lastMeasurements.ts';
import type { Sensor } from '../store/sensors.ts';
import { signConvention } from './loadSign.ts';
import { siteSensors } from './assetKpis.ts';

export type PeriodKind = 'day' | 'week' | 'month' | 'year';

/** A device's role on the site, by the type its set-up gave its asset. */
type Role = 'grid' | 'pv' | 'battery' | 'ev' | 'load';
const ROLES: Record<string, Role> = {
  'grid meter': 'grid',
  solar: 'pv',
  battery: 'battery',
  'one-way_evse': 'ev',
  'two-way_evse': 'ev',
  'house load': 'load',
};
const KW_PER_UNIT: Record<string, number> = { W: 1e-3, kW: 1, MW: 1e3, GW: 1e6 };

export interface PeriodEnergy {
  period: string;
  start: string;
  end: string;
  hours: number;
  imported_kwh: number;
  exported_kwh: number;
  pv_kwh: number;
  consumed_kwh: number;
  self_consumption_percent: number | null;
  self_sufficiency_percent: number | null;
  battery_charged_kwh: number;
  battery_discharged_kwh: number;
  battery_throughput_kwh: number;
  battery_cycles: number | null;
  ev_kwh: number;
}

/** A power sensor's measured energy over [from, to) in kWh, split into its consumed (+) and produced (−) parts. */
async function energy(db: Knex, sensor: Sensor, fromMs: number, toMs: number): Promise<{ in: number; out: number }> {
  const hours = sensor.event_resolution_ms / 3_600_000;
  const sign = signConvention(sensor) === 'consumption positive' ? 1 : -1;
  let [consumed, produced] = [0, 0];
  for (const v of await measuredValues(db, sensor.id, fromMs, toMs)) {
    const kwh = sign * v * KW_PER_UNIT[sensor.unit] * hours;
    if (kwh > 0) consumed += kwh;
    else produced -= kwh;
  }
  return { in: consumed, out: produced };
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const percent = (part: number, whole: number) => (whole > 0 ? round((100 * part) / whole, 1) : null);

/** The site's measured power sensors with their role and, for batteries, the capacity in kWh. */
export async function roleSensors(db: Knex, sensors: Sensor[]) {
  const out: { sensor: Sensor; role: Role; capacityKwh: number | null }[] = [];
  for (const sensor of sensors) {
    if (signConvention(sensor) === null || sensor.event_resolution_ms <= 0) continue;
    const asset = (await getAsset(db, sensor.generic_asset_id))!;
    const role = ROLES[(await getAssetType(db, asset.generic_asset_type_id))?.name ?? ''];
    if (!role) continue;
    const capacity = asset.flex_model['soc-max'];
    const mwh = role === 'battery' && capacity !== undefined ? readQuantity(capacity as string, 'MWh', 'kWh') : null;
    out.push({ sensor, role, capacityKwh: typeof mwh === 'number' ? mwh * 1000 : null });
  }
  return out;
}

/** The figures of one period from the measured power of each role. */
async function periodFigures(
  db: Knex,
  devices: Awaited<ReturnType<typeof roleSensors>>,
  start: DateTime,
  kind: PeriodKind,
): Promise<PeriodEnergy> {
  const end = start.plus({ [kind + 's']: 1 });
  const sum: Record<Role, { in: number; out: number }> = Object.fromEntries(
    (['grid', 'pv', 'battery', 'ev', 'load'] as const).map((r) => [r, { in: 0, out: 0 }]),
  ) as Record<Role, { in: number; out: number }>;
  let capacityKwh = 0;
  for (const d of devices) {
    const e = await energy(db, d.sensor, start.toMillis(), end.toMillis());
    sum[d.role].in += e.in;
    sum[d.role].out += e.out;
    capacityKwh += d.capacityKwh ?? 0;
  }
  const pv = sum.pv.out - sum.pv.in;
  // Whatever the site used: from the grid and the panels, less what went out and what the batteries kept.
  const consumed = sum.grid.in - sum.grid.out + pv - (sum.battery.in - sum.battery.out);
  const throughput = sum.battery.in + sum.battery.out;
  return {
    period:
      kind === 'day'
        ? start.toISODate()!
        : kind === 'week'
          ? start.toISOWeekDate()!.slice(0, 8)
          : start.toFormat(kind === 'month' ? 'yyyy-MM' : 'yyyy'),
    start: start.toISO()!,
    end: end.toISO()!,
    hours: end.diff(start, 'hours').hours,
    imported_kwh: round(sum.grid.in),
    exported_kwh: round(sum.grid.out),
    pv_kwh: round(pv),
    consumed_kwh: round(consumed),
    self_consumption_percent: percent(pv - sum.grid.out, pv),
    self_sufficiency_percent: percent(consumed - sum.grid.in, consumed),
    battery_charged_kwh: round(sum.battery.in),
    battery_discharged_kwh: round(sum.battery.out),
    battery_throughput_kwh: round(throughput),
    // A full cycle charges and discharges the whole capacity once.
    battery_cycles: capacityKwh > 0 ? round(throughput / 2 / capacityKwh, 2) : null,
    ev_kwh: round(sum.ev.in),
  };
}

/** A calendar date (YYYY-MM-DD) as the start of that day in the zone; invalid for a date no calendar has (2025-02-30). */
export function localDate(text: string, zone = 'UTC'): DateTime {
  const [year, month, day] = text.split('-').map(Number);
  return DateTime.fromObject({ year, month, day }, { zone });
}

/**
 * Measured energy of a site (the asset and those below it) per period in the site's zone: the
 * period holding `start` (a local date, or now) and the one before it. A day is a local day, so a
 * daylight-saving day has 23 or 25 hours; weeks start on Monday.
 */
export async function energyPeriods(db: Knex, assetId: number, kind: PeriodKind, at: { date?: string; nowMs: number }) {
  const { sensors, zone } = await siteSensors(db, assetId);
  const day = at.date ? localDate(at.date, zone) : DateTime.fromMillis(at.nowMs, { zone });
  const start = day.startOf(kind);
  const devices = await roleSensors(db, sensors);
  return {
    asset_id: assetId,
    timezone: zone,
    period: kind,
    roles: devices.map((d) => ({ sensor_id: d.sensor.id, name: d.sensor.name, role: d.role })),
    current: await periodFigures(db, devices, start, kind),
    previous: await periodFigures(db, devices, start.minus({ [kind + 's']: 1 }), kind),
  };
}

export type EnergyPeriods = Awaited<ReturnType<typeof energyPeriods>>;

/** The two periods as CSV: a header, then one line per period (previous first). */
export function energyCsv(figures: EnergyPeriods): string {
  const rows = [figures.previous, figures.current];
  const keys = Object.keys(figures.current) as (keyof PeriodEnergy)[];
  return [keys.join(','), ...rows.map((r) => keys.map((k) => r[k] ?? '').join(','))].join('\n') + '\n';
}
