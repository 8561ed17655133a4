import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { measuredEvents } from '../store/lastMeasurements.ts';
import type { Sensor } from '../store/sensors.ts';
import { signConvention } from './loadSign.ts';
import { siteSensors } from './assetKpis.ts';
import { periodMoney } from './periodMoney.ts';
import { gridMeters, ROLE_NAMES, roleSensors, type Role, type RoleSensor } from './siteRoles.ts';

export type PeriodKind = 'day' | 'week' | 'month' | 'year';

const KW_PER_UNIT: Record<string, number> = { W: 1e-3, kW: 1, MW: 1e3, GW: 1e6 };

/** The figures of one part of a period (an hour, a day or a month) that its chart shows. */
export interface PartEnergy {
  period: string;
  start: string;
  imported_kwh: number;
  exported_kwh: number;
  pv_kwh: number;
  consumed_kwh: number;
}

export interface PeriodEnergy extends PartEnergy {
  end: string;
  hours: number;
  self_consumption_percent: number | null;
  self_sufficiency_percent: number | null;
  battery_charged_kwh: number;
  battery_discharged_kwh: number;
  battery_throughput_kwh: number;
  battery_cycles: number | null;
  ev_kwh: number;
  ev_solar_kwh: number;
  ev_solar_percent: number | null;
}

/** Each role's measured energy in kWh, split into its consumed (+) and produced (−) parts. */
type Flows = Record<Role, { in: number; out: number }>;
const noFlows = (): Flows => Object.fromEntries(ROLE_NAMES.map((r) => [r, { in: 0, out: 0 }])) as Flows;
const HOUR_MS = 3_600_000;

/** The site's measured energy per hour (keyed by its start) over [from, to), each device read with its sign. */
async function hourlyFlows(db: Knex, devices: RoleSensor[], fromMs: number, toMs: number): Promise<Map<number, Flows>> {
  const hours = new Map<number, Flows>();
  for (const { sensor, role } of devices) {
    const stepHours = sensor.event_resolution_ms / HOUR_MS;
    const sign = signConvention(sensor) === 'consumption positive' ? 1 : -1;
    for (const e of await measuredEvents(db, sensor.id, fromMs, toMs)) {
      const kwh = sign * e.value * KW_PER_UNIT[sensor.unit] * stepHours;
      const hour = Math.floor(e.startMs / HOUR_MS) * HOUR_MS;
      const flows = hours.get(hour) ?? noFlows();
      hours.set(hour, flows);
      if (kwh > 0) flows[role].in += kwh;
      else flows[role].out -= kwh;
    }
  }
  return hours;
}

/**
 * The EV charge of an hour that the panels covered: PV serves the rest of the site first (what
 * the site used less the EV's charge), then the EVs; a battery's discharge is not solar, whatever
 * charged it.
 */
function evSolarKwh(f: Flows): number {
  const net = (role: Role) => f[role].in - f[role].out;
  const pv = -net('pv');
  const ev = Math.max(0, net('ev'));
  const rest = Math.max(0, net('grid') + pv - net('battery') - ev);
  return Math.min(ev, Math.max(0, pv - rest));
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const percent = (part: number, whole: number) => (whole > 0 ? round((100 * part) / whole, 1) : null);

/** How a period or a part of one is named: the local date, the ISO week (2025-W13), the month, the year or the local hour. */
function periodName(start: DateTime, kind: PeriodKind | 'hour'): string {
  if (kind === 'day') return start.toISODate()!;
  if (kind === 'week') return start.toISOWeekDate()!.slice(0, 8);
  return start.toFormat({ month: 'yyyy-MM', year: 'yyyy', hour: 'HH:mm' }[kind]);
}

/** The energy figures of these hours. */
function energyOf(hours: Flows[], capacityKwh: number) {
  const sum = noFlows();
  let evSolar = 0;
  for (const f of hours) {
    for (const role of Object.keys(f) as Role[]) {
      sum[role].in += f[role].in;
      sum[role].out += f[role].out;
    }
    evSolar += evSolarKwh(f);
  }
  const pv = sum.pv.out - sum.pv.in;
  // Whatever the site used: from the grid and the panels, less what went out and what the batteries kept.
  const consumed = sum.grid.in - sum.grid.out + pv - (sum.battery.in - sum.battery.out);
  const throughput = sum.battery.in + sum.battery.out;
  return {
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
    ev_solar_kwh: round(evSolar),
    ev_solar_percent: percent(evSolar, sum.ev.in - sum.ev.out),
  };
}

/** Each period's parts: a day's hours, a week's or a month's days, a year's months. */
const PART: Record<PeriodKind, 'hour' | 'day' | 'month'> = { day: 'hour', week: 'day', month: 'day', year: 'month' };

/** The figures of one period and of each of its parts, from the measured power of each role. */
async function periodFigures(db: Knex, devices: RoleSensor[], start: DateTime, kind: PeriodKind) {
  const end = start.plus({ [kind + 's']: 1 });
  const flows = await hourlyFlows(db, devices, start.toMillis(), end.toMillis());
  const within = (from: DateTime, to: DateTime) =>
    [...flows].filter(([ms]) => ms >= from.toMillis() && ms < to.toMillis()).map(([, f]) => f);
  const capacityKwh = devices.reduce((sum, d) => sum + (d.capacityKwh ?? 0), 0);
  const parts: PartEnergy[] = [];
  for (let from = start; from < end; from = from.plus({ [PART[kind] + 's']: 1 })) {
    const e = energyOf(within(from, from.plus({ [PART[kind] + 's']: 1 })), capacityKwh);
    const { imported_kwh, exported_kwh, pv_kwh, consumed_kwh } = e;
    parts.push({ period: periodName(from, PART[kind]), start: from.toISO()!, imported_kwh, exported_kwh, pv_kwh, consumed_kwh });
  }
  const figures: PeriodEnergy = {
    period: periodName(start, kind),
    start: start.toISO()!,
    end: end.toISO()!,
    hours: end.diff(start, 'hours').hours,
    ...energyOf(within(start, end), capacityKwh),
  };
  return { figures, parts };
}

/** A calendar date (YYYY-MM-DD) as the start of that day in the zone; invalid for a date no calendar has (2025-02-30). */
export function localDate(text: string, zone = 'UTC'): DateTime {
  const [year, month, day] = text.split('-').map(Number);
  return DateTime.fromObject({ year, month, day }, { zone });
}

/** A period's energy figures, its money and its parts. */
async function period(db: Knex, site: { sensors: Sensor[]; devices: RoleSensor[]; zone: string }, start: DateTime, kind: PeriodKind) {
  const { figures, parts } = await periodFigures(db, site.devices, start, kind);
  const window = { startMs: start.toMillis(), endMs: start.plus({ [kind + 's']: 1 }).toMillis() };
  // The money's net grid flow is the one the imported and exported energy counts.
  const { currency, money } = await periodMoney(
    db,
    { sensorIds: site.sensors.map((s) => s.id), gridSensorIds: gridMeters(site.devices) },
    window,
  );
  return { currency, figures: { ...figures, money, parts } };
}

/**
 * Measured energy and money of a site (the asset and those below it) per period in the site's
 * zone: the period holding `start` (a local date, or now) and the one before it, each with its
 * parts. A day is a local day, so a daylight-saving day has 23 or 25 hours; weeks start on Monday.
 */
export async function energyPeriods(db: Knex, assetId: number, kind: PeriodKind, at: { date?: string; nowMs: number }) {
  const { sensors, zone } = await siteSensors(db, assetId);
  const day = at.date ? localDate(at.date, zone) : DateTime.fromMillis(at.nowMs, { zone });
  const start = day.startOf(kind);
  const site = { sensors, devices: await roleSensors(db, sensors), zone };
  const current = await period(db, site, start, kind);
  const previous = await period(db, site, start.minus({ [kind + 's']: 1 }), kind);
  return {
    asset_id: assetId,
    timezone: zone,
    // The plans' currency; the previous period's when the current one has no plan in force.
    currency: current.currency ?? previous.currency,
    period: kind,
    roles: site.devices.map((d) => ({ sensor_id: d.sensor.id, name: d.sensor.name, role: d.role })),
    current: current.figures,
    previous: previous.figures,
  };
}

export type EnergyPeriods = Awaited<ReturnType<typeof energyPeriods>>;

const MONEY_COLUMNS = ['cost', 'cost_without_flex', 'savings'] as const;

/** The two periods as CSV: a header, then one line per period (previous first), their money in the site's currency. */
export function energyCsv(answer: EnergyPeriods): string {
  const rows = [answer.previous, answer.current];
  const keys = (Object.keys(answer.current) as (keyof typeof answer.current)[]).filter((k) => k !== 'money' && k !== 'parts');
  const header = [...keys, 'currency', ...MONEY_COLUMNS];
  const line = (r: typeof answer.current) => [...keys.map((k) => r[k]), answer.currency, ...MONEY_COLUMNS.map((k) => r.money[k])];
  return [header, ...rows.map(line)].map((cells) => cells.map((c) => c ?? '').join(',')).join('\n') + '\n';
}
