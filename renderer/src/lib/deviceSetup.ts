import type { Weekday } from '../../../server/src/contracts/devices.ts';

/**
 * The device set-up form's values and the request body they make: numbers entered in kW, kWh
 * and % travel with their units ("5 kW"), so the server stores what the form showed.
 */

export type DeviceKind = 'battery' | 'ev-charger' | 'pv' | 'process' | 'house-load' | 'grid-meter';

export interface DeviceForm {
  kind: DeviceKind;
  name: string;
  timezone: string;
  /** Minutes per power-sensor value. */
  resolution: string;
  power: string;
  capacity: string;
  /** Reserve, % of the capacity. */
  reserve: string;
  charging: string;
  discharging: string;
  /** A car's assumed arrival SoC, % of the capacity: planned from while it reports none. */
  arrival: string;
  bidirectional: boolean;
  hours: string;
  /** Solar panels' tilt from horizontal and the direction they face (degrees from north), for a forecast from the first day. */
  tilt: string;
  azimuth: string;
  processType: 'SHIFTABLE' | 'BREAKABLE' | 'INFLEXIBLE';
}

/** One recurring target as entered: a percentage by a time on some days. */
export interface TargetRow {
  percent: string;
  time: string;
  days: Weekday[];
  /** A stored target's own zone, kept when it is edited; new ones take the device's. */
  timezone?: string;
}

export const dayNames: Record<Weekday, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
export const workingDays: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri'];

/** "weekdays", "every day", "the weekend" or the days listed. */
export function describeDays(days: Weekday[]): string {
  const key = [...days].sort((a, b) => Object.keys(dayNames).indexOf(a) - Object.keys(dayNames).indexOf(b)).join(',');
  if (key === workingDays.join(',')) return 'weekdays';
  if (key === Object.keys(dayNames).join(',')) return 'every day';
  if (key === 'sat,sun') return 'the weekend';
  return key
    .split(',')
    .map((d) => dayNames[d as Weekday])
    .join(', ');
}

/** Whether the device only measures: the house load or the grid meter, which have no power rating to enter. */
export const isMeter = (kind: DeviceKind) => kind === 'house-load' || kind === 'grid-meter';

/** Whether the device stores energy: a battery or a car. */
export const storesEnergy = (kind: DeviceKind) => kind === 'battery' || kind === 'ev-charger';

/** The body of `POST /assets/<site>/devices`. */
export function deviceSetupBody(form: DeviceForm, targets: TargetRow[]): Record<string, unknown> {
  const common = { kind: form.kind, name: form.name, timezone: form.timezone, resolution: `PT${form.resolution}M` };
  if (isMeter(form.kind)) return common;
  const kw = `${form.power.trim()} kW`;
  if (form.kind === 'pv') {
    const degrees = (v: string) => (v.trim() === '' ? undefined : Number(v));
    return { ...common, power: kw, tilt: degrees(form.tilt), azimuth: degrees(form.azimuth) };
  }
  if (form.kind === 'process') {
    return { ...common, power: kw, duration: `PT${Math.round(Number(form.hours) * 60)}M`, process_type: form.processType };
  }
  const percent = (v: string) => `${v.trim()}%`;
  const discharges = form.kind === 'battery' || form.bidirectional;
  return {
    ...common,
    power: kw,
    capacity: `${form.capacity.trim()} kWh`,
    ...(form.reserve.trim() && { soc_min: percent(form.reserve) }),
    ...(form.charging.trim() && { charging_efficiency: percent(form.charging) }),
    ...(discharges && form.discharging.trim() && { discharging_efficiency: percent(form.discharging) }),
    ...(form.kind === 'ev-charger' && {
      bidirectional: form.bidirectional,
      ...(form.arrival.trim() && { arrival_soc: percent(form.arrival) }),
      soc_targets: targets.map((t) => ({ days: t.days, time: t.time, value: percent(t.percent) })),
    }),
  };
}
