import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { weekdays, type RecurringSocTargetInput } from '../contracts/devices.ts';
import { fieldTree, mergeFieldTrees, unprocessable } from '../errors.ts';
import { isPowerUnit, readQuantity } from '../domain/units.ts';
import type { Config } from '../config.ts';
import { getAsset, type Asset } from '../store/assets.ts';
import type { SensorInContext } from '../store/sensors.ts';
import { horizonOf, type TriggerInput } from './flexConfig/horizon.ts';
import type { RecurringSocTarget } from '../store/recurringSocTargets.ts';
import { listRecurringSocTargets } from '../store/recurringSocTargets.ts';
import { listSensors } from '../store/sensors.ts';
import { storedValueProblem } from './storedValues.ts';

/**
 * Recurring state-of-charge targets ("80 % by 07:00 on weekdays"): checked when written by the
 * value rules of a stored soc-target, and turned into the soc-targets of one schedule by each
 * automation run, in the target's time zone, a percentage taken of the device's capacity.
 */

const NUMBER = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?';
const PERCENT = new RegExp(`^\\s*(${NUMBER})\\s*%\\s*$`);
const QUANTITY = new RegExp(`^\\s*(${NUMBER})\\s*(.*?)\\s*$`);

/** The percentage a value gives, or undefined for an energy. */
export const percentOf = (value: string): number | undefined => {
  const m = PERCENT.exec(value);
  return m ? Number(m[1]) : undefined;
};

/**
 * A share of a quantity in the quantity's own form: 80 % of "60 kWh" is "48 kWh", of 0.06 (in
 * the SoC unit) 0.048. Kept in the unit it was given in, so that no one sees kWh turned into MWh.
 */
export function shareOf(quantity: string | number, percent: number): string | number {
  // Twelve significant digits: 0.06 · 0.8 is 0.048, not 0.048000000000000004.
  const scaled = (n: number) => Number(((n * percent) / 100).toPrecision(12));
  if (typeof quantity === 'number') return scaled(quantity);
  const m = QUANTITY.exec(quantity);
  if (!m) return quantity;
  return m[2] ? `${scaled(Number(m[1]))} ${m[2]}` : scaled(Number(m[1]));
}

/** What a device's targets are measured against: its capacity (stored soc-max) and the unit of bare numbers. */
export interface DeviceCapacity {
  capacity: string | number | undefined;
  socUnit: 'MWh' | 'kWh';
}

/**
 * The capacity of the device an asset stands for: the soc-max of its stored flex-model, in its
 * soc-unit, else kWh where its power sensor is in kW (as a trigger reads bare numbers).
 */
export async function deviceCapacity(db: Knex, asset: Asset): Promise<DeviceCapacity> {
  const model = asset.flex_model;
  const socMax = model['soc-max'];
  const capacity = typeof socMax === 'string' || typeof socMax === 'number' ? socMax : undefined;
  if (model['soc-unit'] === 'kWh' || model['soc-unit'] === 'MWh') return { capacity, socUnit: model['soc-unit'] };
  const power = (await listSensors(db, { assetId: asset.id })).filter((s) => isPowerUnit(s.unit));
  return { capacity, socUnit: power.some((s) => s.unit === 'kW') ? 'kWh' : 'MWh' };
}

const inMwh = (value: string | number, socUnit: 'MWh' | 'kWh') => readQuantity(value, 'MWh', socUnit);

/**
 * Checks recurring targets before they are stored.
 * @param bodyField where the list sits in the request body.
 * @throws the 422 naming every bad target; nothing is stored.
 */
export function checkRecurringTargets(targets: RecurringSocTargetInput[], device: DeviceCapacity, bodyField: string): void {
  const fields: Record<string, unknown> = {};
  const problem = (i: number, field: string, message: string) => mergeFieldTrees(fields, fieldTree([bodyField, i, field], [message]));
  const capacityMwh = device.capacity === undefined ? undefined : inMwh(device.capacity, device.socUnit);
  const taken = new Set<string>();
  targets.forEach((t, i) => {
    const percent = percentOf(t.value);
    if (percent !== undefined) {
      if (!(percent > 0 && percent <= 100)) problem(i, 'value', 'Must be greater than 0 % and at most 100 %.');
      else if (capacityMwh === undefined) {
        problem(i, 'value', "A percentage needs the device's capacity: store soc-max in its flex-model, or give an energy.");
      }
    } else {
      const energy = storedValueProblem('soc-targets', t.value, device.socUnit);
      const mwh = inMwh(t.value, device.socUnit);
      if (energy) problem(i, 'value', energy);
      else if (typeof capacityMwh === 'number' && typeof mwh === 'number' && mwh > capacityMwh + 1e-12) {
        problem(i, 'value', `Must not exceed the capacity (${String(device.capacity)}).`);
      }
    }
    // Two targets at one instant ask for two states of charge at once.
    const clash = t.days.find((d) => taken.has(`${d} ${t.time} ${t.timezone}`));
    if (clash) problem(i, 'days', `Another target is already set for ${clash} at ${t.time}.`);
    for (const d of t.days) taken.add(`${d} ${t.time} ${t.timezone}`);
  });
  if (Object.keys(fields).length) throw unprocessable('json', fields);
}

/** A flex-model SoC target at an instant. */
export interface SocTargetAt {
  value: string | number;
  datetime: string;
}

/**
 * Most occurrences one run expands. Runs are refused beyond the longest schedule before they get
 * here (26 days of 15 minutes by default: 7 targets a day for a week of 50 weekly targets); this
 * bounds what an operator's longer horizon could make a run of the main thread expand.
 */
const MAX_OCCURRENCES = 5000;

/**
 * The occurrences of recurring targets after `startMs` and up to `endMs`, as flex-model
 * soc-targets: each local time read on its own day in its zone (so 07:00 stays 07:00 across a
 * DST change), a percentage converted against the capacity.
 * @returns the targets in time order, or a problem (a percentage without a capacity, too many occurrences).
 */
export function socTargetsWithin(
  targets: Pick<RecurringSocTarget, 'days' | 'time' | 'timezone' | 'value'>[],
  device: DeviceCapacity,
  startMs: number,
  endMs: number,
): SocTargetAt[] | string {
  const found: { ms: number; target: SocTargetAt }[] = [];
  for (const t of targets) {
    const percent = percentOf(t.value);
    if (percent !== undefined && device.capacity === undefined) {
      return `The recurring target "${t.value} by ${t.time}" needs the device's capacity (soc-max in its stored flex-model).`;
    }
    const value = percent === undefined ? t.value : shareOf(device.capacity!, percent);
    const [hour, minute] = t.time.split(':').map(Number);
    const last = DateTime.fromMillis(endMs, { zone: t.timezone });
    for (let day = DateTime.fromMillis(startMs, { zone: t.timezone }).startOf('day'); day <= last; day = day.plus({ days: 1 })) {
      if (!t.days.includes(weekdays[day.weekday - 1])) continue;
      const at = day.set({ hour, minute });
      if (at.toMillis() > startMs && at.toMillis() <= endMs) {
        if (found.length >= MAX_OCCURRENCES) return `The recurring targets occur more than ${MAX_OCCURRENCES} times in this window.`;
        found.push({ ms: at.toMillis(), target: { value, datetime: at.toISO({ suppressMilliseconds: true })! } });
      }
    }
  }
  return found.sort((a, b) => a.ms - b.ms).map((f) => f.target);
}

/** A device's recurring targets as stored, with what they are measured against (none without targets). */
export interface RecurringRead {
  assetId: number;
  recurring: RecurringSocTarget[];
  device?: DeviceCapacity;
}

/** Reads what `plannedWithin` expands: the asset's recurring targets, and its capacity when it has some. */
export async function readRecurring(db: Knex, asset: Asset): Promise<RecurringRead> {
  const recurring = await listRecurringSocTargets(db, asset.id);
  return { assetId: asset.id, recurring, ...(recurring.length > 0 && { device: await deviceCapacity(db, asset) }) };
}

/**
 * The soc-targets a schedule of the asset's device plans for, automations and Compute alike: those
 * listed (a trigger's own, else the stored ones), followed by the occurrences of the device's
 * recurring targets in the window (a flex-model given replaces a stored field, it does not add to
 * it, so the list carries both).
 * @param read the device's recurring targets (see `readRecurring`).
 * @param listed the soc-targets listed for this schedule, if any.
 * @returns the flex-model fields to schedule with (none without recurring targets) and the
 *   occurrences added; or the problem why they cannot be read.
 */
export function plannedWithin(
  { assetId, recurring, device }: RecurringRead,
  listed: unknown,
  window: { startMs: number; endMs: number },
): { flexModel: Record<string, unknown>; added: SocTargetAt[] } | { problem: string } {
  if (!recurring.length || !device) return { flexModel: {}, added: [] };
  if (listed !== undefined && !Array.isArray(listed)) {
    return { problem: `Asset ${assetId} has recurring SoC targets and soc-targets from a sensor; keep one of the two.` };
  }
  const added = socTargetsWithin(recurring, device, window.startMs, window.endMs);
  if (typeof added === 'string') return { problem: added };
  return { flexModel: added.length ? { 'soc-targets': [...((listed as unknown[] | undefined) ?? []), ...added] } : {}, added };
}

/** `plannedWithin` of the targets read now. */
export async function plannedSocTargets(
  db: Knex,
  asset: Asset,
  listed: unknown,
  window: { startMs: number; endMs: number },
): Promise<ReturnType<typeof plannedWithin>> {
  return plannedWithin(await readRecurring(db, asset), listed, window);
}

/**
 * A device's flex-model for a trigger, with the device's recurring SoC targets in the schedule's
 * window added: Compute plans for the car's "80 % by 07:00" as an automation run does.
 * @param listed the soc-targets the schedule lists otherwise (the trigger's own, else the stored ones).
 * @param at where the flex-model sits in the body, for the 422 (`[]` for a sensor trigger).
 */
export async function withRecurringTargets(
  db: Knex,
  config: Pick<Config, 'maxPlanningHorizon' | 'planningHorizonMs'>,
  trigger: { window: Pick<TriggerInput, 'start' | 'duration' | 'resolution'>; sensor: SensorInContext; at: (string | number)[] },
  flexModel: Record<string, unknown>,
  listed: unknown,
): Promise<Record<string, unknown>> {
  const { window, sensor, at } = trigger;
  const asset = await getAsset(db, sensor.generic_asset_id);
  // An instantaneous sensor has no schedule to plan targets in (the trigger refuses it).
  if (!asset || sensor.event_resolution_ms <= 0) return flexModel;
  const planned = await plannedSocTargets(db, asset, listed, horizonOf(config, window, sensor.event_resolution_ms));
  if ('problem' in planned) throw unprocessable('json', fieldTree([...at, 'soc-targets'], [planned.problem]));
  return { ...flexModel, ...planned.flexModel };
}
