import type { FieldMessages } from '../../api/errors.ts';
import { localInputToIso, isoToLocalInput } from '../../lib/time.ts';

/**
 * The flex-model and flex-context as form state: every input is text, so that half-typed
 * values stay on screen; `toFlexModel`/`toFlexContext` turn it into the API's JSON and
 * report the same messages the API would.
 */
export interface FlexForm {
  storage: Record<StorageKey, string>;
  /** The state-of-charge sensor (id, or ''): soc-at-start is read from it when left empty, and the schedule's SoC written to it. */
  socSensor: string;
  preferChargingSooner: boolean;
  targets: { datetime: string; value: string }[];
  process: Record<ProcessKey, string>;
  context: Record<ContextKey, string>;
  inflexible: number[];
  /** Relax flags ('', 'true', 'false': absent means the server's default) and breach prices. */
  advanced: Record<AdvancedKey, string>;
  /** A car's SoC as it is plugged in now, in % of soc-max: sent as soc-at-start in the SoC unit. */
  pluggedIn: string;
}

export const storageNumbers = ['soc-at-start', 'soc-min', 'soc-max'] as const;
export const storageTexts = [
  'power-capacity',
  'consumption-capacity',
  'production-capacity',
  'roundtrip-efficiency',
  'charging-efficiency',
  'discharging-efficiency',
  'storage-efficiency',
] as const;
export type StorageKey = (typeof storageNumbers)[number] | (typeof storageTexts)[number] | 'soc-unit';
export type ProcessKey = 'duration' | 'power' | 'process-type' | 'optimization-sense';
export const contextSensors = ['consumption-price-sensor', 'production-price-sensor'] as const;
export const contextTexts = ['site-power-capacity', 'site-consumption-capacity', 'site-production-capacity'] as const;
export type ContextKey = (typeof contextSensors)[number] | (typeof contextTexts)[number];
export const relaxFlags = [
  'relax-constraints',
  'relax-soc-constraints',
  'relax-capacity-constraints',
  'relax-site-capacity-constraints',
] as const;
/** Breach prices: per MWh of SoC breach, per MW of capacity breach. */
export const breachPrices = [
  'soc-minima-breach-price',
  'soc-maxima-breach-price',
  'consumption-breach-price',
  'production-breach-price',
  'site-consumption-breach-price',
  'site-production-breach-price',
] as const;
export type AdvancedKey = (typeof relaxFlags)[number] | (typeof breachPrices)[number];

const text = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The currency of prices where no price sensor names one: FlexMeasures' own default. */
export const DEFAULT_CURRENCY = 'EUR';

/** The unit the form shows beside power fields: a bare number typed there is taken in it. */
export const POWER_UNIT = 'kW';
const powerKeys = new Set<string>(['power-capacity', 'consumption-capacity', 'production-capacity', ...contextTexts]);
/**
 * A stored power as the form shows it: the API reads a bare number as MW, so a stored one is
 * shown with that unit written out, never as a number the operator would take for kW.
 */
const storedPower = (v: unknown): string => (typeof v === 'number' ? `${v} MW` : text(v));
/**
 * A sensor reference or time segments, as a stored value is shown in a text field (JSON): sent
 * back as the structure it is, not as text.
 */
function structured(v: string): unknown {
  if (!/^\s*[[{]/.test(v)) return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}

/** Efficiencies are shown and typed in %: a stored ratio (0.95) reads 95, a stored "95%" reads 95. */
export const EFFICIENCY_UNIT = '%';
const efficiencyKeys = new Set<string>(['roundtrip-efficiency', 'charging-efficiency', 'discharging-efficiency', 'storage-efficiency']);
const asPercent = (ratio: number) => String(Number((ratio * 100).toPrecision(12)));
function storedEfficiency(v: unknown): string {
  if (typeof v === 'number') return asPercent(v);
  const percent = typeof v === 'string' ? /^\s*(-?[\d.]+)\s*%\s*$/.exec(v) : null;
  if (percent) return percent[1];
  if (typeof v === 'string' && isNumber(v)) return asPercent(Number(v));
  return text(v);
}

/**
 * An efficiency typed in the form, in the % shown beside it: a bare 95 is 95 %. A bare number
 * below 1 is refused rather than read as a fraction of a percent: it is a ratio typed by habit.
 * @returns the value to send (`95%`), or the message why it cannot be read.
 */
function typedEfficiency(v: string): { value: string } | { error: string } {
  const percent = /^\s*(-?[\d.]+)\s*%?\s*$/.exec(v);
  const n = percent ? Number(percent[1]) : NaN;
  if (!Number.isFinite(n)) return { error: `Cannot read \`${v}\` as a percentage; write e.g. 95 for 95 %.` };
  if (n <= 0 || n > 100) return { error: 'Must be greater than 0 % and at most 100 %.' };
  if (n < 1) return { error: `Efficiencies are in %: write ${asPercent(n)} for ${asPercent(n)} %.` };
  return { value: `${n}%` };
}

/** A power typed in the form: a bare number is in the unit shown beside the field. */
const typedPower = (v: string): string => (isNumber(v) ? `${v.trim()} ${POWER_UNIT}` : v);

/** Every flex-model key the storage form shows and sends; a save keeps the stored ones it does not. */
export const STORAGE_MODEL_KEYS: readonly string[] = [
  ...storageNumbers,
  ...storageTexts,
  'soc-unit',
  'soc-targets',
  'prefer-charging-sooner',
  'state-of-charge',
];
/** Every flex-model key the process form shows and sends. */
export const PROCESS_MODEL_KEYS: readonly string[] = ['duration', 'power', 'process-type', 'optimization-sense'];
/** Every flex-context key the form shows and sends. */
export const FORM_CONTEXT_KEYS: readonly string[] = [
  ...contextSensors,
  ...contextTexts,
  'inflexible-device-sensors',
  ...relaxFlags,
  ...breachPrices,
];

/**
 * What "Save as this asset's defaults" stores: the form's values over what is stored, so that
 * keys the form does not show (relax flags, breach prices, commitments, …) are kept, and the
 * keys it shows are as the form has them (cleared ones removed).
 * @param stored the stored flex-model or flex-context.
 * @param fromForm what the form sends.
 * @param formKeys the keys the form shows.
 */
export function mergeStored(stored: Record<string, unknown>, fromForm: Record<string, unknown>, formKeys: readonly string[]) {
  const kept = Object.fromEntries(Object.entries(stored).filter(([k]) => !formKeys.includes(k)));
  return { ...kept, ...fromForm };
}

/**
 * Form state from the flex-model and flex-context stored on the asset.
 * @param model the stored flex-model.
 * @param context the stored flex-context.
 * @param zone the site's time zone, for target times.
 * @returns the form state.
 */
export function formFromStored(model: Record<string, unknown>, context: Record<string, unknown>, zone: string): FlexForm {
  const storage = Object.fromEntries(
    [...storageNumbers, ...storageTexts].map((k) => [
      k,
      powerKeys.has(k) ? storedPower(model[k]) : efficiencyKeys.has(k) ? storedEfficiency(model[k]) : text(model[k]),
    ]),
  ) as Record<StorageKey, string>;
  storage['soc-unit'] = text(model['soc-unit']) || 'kWh';
  const targets = Array.isArray(model['soc-targets'])
    ? (model['soc-targets'] as { datetime?: string; value?: unknown }[]).map((t) => ({
        datetime: t.datetime ? isoToLocalInput(Date.parse(t.datetime), zone) : '',
        value: text(t.value),
      }))
    : [];
  const socRef = model['state-of-charge'] as { sensor?: unknown } | undefined;
  return {
    storage,
    socSensor: socRef && typeof socRef === 'object' && Number.isSafeInteger(socRef.sensor) ? String(socRef.sensor) : '',
    preferChargingSooner: model['prefer-charging-sooner'] !== false,
    targets,
    process: {
      duration: text(model.duration),
      power: text(model.power),
      'process-type': text(model['process-type']) || 'INFLEXIBLE',
      'optimization-sense': text(model['optimization-sense']) || 'MIN',
    },
    context: Object.fromEntries(
      [...contextSensors, ...contextTexts].map((k) => [k, powerKeys.has(k) ? storedPower(context[k]) : text(context[k])]),
    ) as Record<ContextKey, string>,
    inflexible: Array.isArray(context['inflexible-device-sensors']) ? (context['inflexible-device-sensors'] as number[]) : [],
    advanced: Object.fromEntries(
      [...relaxFlags, ...breachPrices].map((k) => [k, typeof context[k] === 'boolean' ? String(context[k]) : text(context[k])]),
    ) as Record<AdvancedKey, string>,
    pluggedIn: '',
  };
}

const NOT_A_NUMBER = 'Not a valid number.';
const NEGATIVE = 'Must be greater than or equal to 0.';
const isNumber = (v: string) => v.trim() !== '' && Number.isFinite(Number(v));
/** A number and the unit written after it, as the API splits a quantity string. */
const QUANTITY = /^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$/;
/** A power with its unit, as the API reads quantity strings. */
const looksLikeQuantity = (v: string) => /^\s*-?\d+(\.\d+)?(e-?\d+)?\s*[^\d\s].*$/i.test(v) || isNumber(v);
/** The energy units a SoC is written in, in MWh: the ones the form and the device set-up write. */
const ENERGY_MWH: Record<string, number> = { Wh: 1e-6, kWh: 1e-3, MWh: 1, GWh: 1e3 };
const tidy = (x: number) => Number(x.toPrecision(12));

/**
 * An energy as the API reads it: a bare number in the SoC unit, or a number with its unit
 * ("1 kWh", as the device set-up stores it).
 * @returns MWh, or the message why it cannot be read.
 */
export function energyMwh(v: string, socUnit: string): number | { error: string } {
  const m = QUANTITY.exec(v);
  const factor = m ? ENERGY_MWH[m[2] || socUnit] : undefined;
  if (!m || factor === undefined) {
    return { error: `Cannot convert value \`${v.trim()}\` to an energy; write a number in ${socUnit}, or one with its unit, e.g. 10 kWh.` };
  }
  const mwh = Number(m[1]) * factor;
  return mwh < 0 ? { error: NEGATIVE } : mwh;
}

/** An energy in the SoC unit, as the form writes what it works out (a plugged-in SoC). */
const inSocUnit = (mwh: number, socUnit: string) => `${tidy(mwh / ENERGY_MWH[socUnit])} ${socUnit}`;

/**
 * Puts the filled text fields into the JSON: structured input (JSON, e.g. a sensor reference) as
 * it is, anything else as `read` makes of it (adding its messages to the errors).
 */
function readTexts<K extends string>(
  keys: readonly K[],
  values: Record<K, string>,
  json: Record<string, unknown>,
  read: (key: K, v: string) => unknown,
): void {
  for (const key of keys) {
    const v = values[key].trim();
    if (!v) continue;
    const given = structured(v);
    json[key] = given !== undefined ? given : read(key, v);
  }
}

/** A power field's value as the API reads it, with a message where it is no quantity or below zero (a capacity). */
function readPower(errors: FieldMessages, key: string, v: string, example: string): unknown {
  if (!looksLikeQuantity(v)) errors[key] = [`Cannot convert value \`${v}\` to a power; write it with its unit, e.g. ${example}.`];
  else if (Number(QUANTITY.exec(v)?.[1]) < 0) errors[key] = [NEGATIVE];
  return typedPower(v);
}

/** The form's SoC fields read into MWh (where readable), problems added to `errors`. */
function readSoc(
  form: FlexForm,
  json: Record<string, unknown>,
  errors: FieldMessages,
): Partial<Record<(typeof storageNumbers)[number], number>> {
  const socUnit = form.storage['soc-unit'];
  const mwh: Partial<Record<(typeof storageNumbers)[number], number>> = {};
  for (const key of storageNumbers) {
    const v = form.storage[key].trim();
    if (!v) continue;
    const read = energyMwh(v, socUnit);
    if (typeof read === 'number') mwh[key] = read;
    else errors[key] = [read.error];
    // Sent as typed: a bare number in the SoC unit, a quantity with its own unit.
    json[key] = isNumber(v) ? Number(v) : v;
  }
  return mwh;
}

/**
 * A car's SoC plugged in now, in % of soc-max, as soc-at-start in the SoC unit (the flex-model has
 * no percentages of energies).
 */
function readPluggedIn(form: FlexForm, socMaxMwh: number | undefined, json: Record<string, unknown>, errors: FieldMessages): void {
  const v = form.pluggedIn.trim().replace(/%$/, '').trim();
  if (!v) return;
  const percent = Number(v);
  if (!isNumber(v) || percent < 0 || percent > 100) errors['plugged-in'] = ['Write the SoC in %, from 0 to 100, e.g. 30.'];
  else if (form.storage['soc-at-start'].trim()) errors['plugged-in'] = ['Give either this or the SoC at start, not both.'];
  else if (socMaxMwh === undefined) errors['plugged-in'] = ["A percentage needs the SoC maximum (the car's capacity)."];
  else json['soc-at-start'] = inSocUnit((socMaxMwh * percent) / 100, form.storage['soc-unit']);
}

/**
 * What the job would refuse as infeasible, refused here: the SoC limits cross, or the SoC at the
 * start or a target lies above the maximum (soc-min and soc-max are hard in every dialect).
 */
function checkSocBounds(soc: Partial<Record<(typeof storageNumbers)[number], number>>, form: FlexForm, errors: FieldMessages): void {
  const max = soc['soc-max'];
  if (max === undefined) return;
  const shown = `${form.storage['soc-max'].trim()}${isNumber(form.storage['soc-max']) ? ` ${form.storage['soc-unit']}` : ''}`;
  const above = `Must not exceed the SoC maximum (${shown}).`;
  if (soc['soc-min'] !== undefined && soc['soc-min'] > max) errors['soc-min'] = [above];
  if (soc['soc-at-start'] !== undefined && soc['soc-at-start'] > max) errors['soc-at-start'] = [above];
  form.targets.forEach((t, i) => {
    const target = t.value.trim() ? energyMwh(t.value, form.storage['soc-unit']) : undefined;
    if (typeof target === 'number' && target > max) errors[`soc-targets.${i}.value`] = [above];
  });
}

/**
 * The storage flex-model of the form, checked field by field, every problem at once.
 * @returns the JSON to send, and messages per field (API field names) when something is wrong.
 */
export function toStorageFlexModel(form: FlexForm, zone: string): { json: Record<string, unknown>; errors: FieldMessages } {
  const json: Record<string, unknown> = {};
  const errors: FieldMessages = {};
  const soc = readSoc(form, json, errors);
  json['soc-unit'] = form.storage['soc-unit'];
  readPluggedIn(form, soc['soc-max'], json, errors);
  readTexts(storageTexts, form.storage, json, (key, v) => {
    if (!efficiencyKeys.has(key)) return readPower(errors, key, v, '25 kW');
    const typed = typedEfficiency(v);
    if ('error' in typed) errors[key] = [typed.error];
    return 'value' in typed ? typed.value : v;
  });
  if (form.socSensor) json['state-of-charge'] = { sensor: Number(form.socSensor) };
  json['prefer-charging-sooner'] = form.preferChargingSooner;
  const targets: unknown[] = [];
  form.targets.forEach((t, i) => {
    const datetime = localInputToIso(t.datetime, zone);
    if (!datetime) errors[`soc-targets.${i}.datetime`] = ['Missing data for required field.'];
    const value = t.value.trim();
    const read = value ? energyMwh(value, form.storage['soc-unit']) : { error: 'Missing data for required field.' };
    if (typeof read !== 'number') errors[`soc-targets.${i}.value`] = [read.error];
    targets.push({ value: isNumber(value) ? Number(value) : value, datetime });
  });
  if (targets.length) json['soc-targets'] = targets;
  checkSocBounds(soc, form, errors);
  return { json, errors };
}

/** The process flex-model of the form, checked field by field. */
export function toProcessFlexModel(form: FlexForm): { json: Record<string, unknown>; errors: FieldMessages } {
  const errors: FieldMessages = {};
  const { duration, power } = form.process;
  if (!duration.trim()) errors.duration = ['Missing data for required field.'];
  if (!power.trim()) errors.power = ['Missing data for required field.'];
  else if (!isNumber(power)) errors.power = [NOT_A_NUMBER];
  else if (Number(power) < 0) errors.power = ['Must be greater than or equal to 0.'];
  return {
    json: {
      duration: duration.trim(),
      power: Number(power),
      'process-type': form.process['process-type'],
      'optimization-sense': form.process['optimization-sense'],
    },
    errors,
  };
}

/** The unit a breach price is per: MWh of SoC breach, MW of capacity breach. */
export const breachPriceUnit = (key: AdvancedKey) => (key.startsWith('soc') ? 'MWh' : 'MW');

/**
 * The flex-context of the form, checked field by field.
 * @param currency the currency shown beside price fields (the price sensor's): a bare price is in it.
 */
export function toFlexContext(form: FlexForm, currency = DEFAULT_CURRENCY): { json: Record<string, unknown>; errors: FieldMessages } {
  const json: Record<string, unknown> = {};
  const errors: FieldMessages = {};
  for (const key of contextSensors) if (form.context[key]) json[key] = Number(form.context[key]);
  readTexts(contextTexts, form.context, json, (key, v) => readPower(errors, key, v, '100 kW'));
  if (form.inflexible.length) json['inflexible-device-sensors'] = form.inflexible;
  for (const key of relaxFlags) if (form.advanced[key]) json[key] = form.advanced[key] === 'true';
  readTexts(breachPrices, form.advanced, json, (key, v) => {
    // A bare number is in the currency and unit shown beside the field.
    if (isNumber(v) && Number(v) >= 0) return `${v} ${currency}/${breachPriceUnit(key)}`;
    if (!/^\s*\d+(\.\d+)?\s*[A-Z]{3}\/(k|M)?Wh?\s*$/.test(v))
      errors[key] = [`Write a price in ${currency}/${breachPriceUnit(key)}, e.g. ${key.startsWith('soc') ? '1000' : '100'}.`];
    return v;
  });
  return { json, errors };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The form after what the asset stores changed (the settings editor saved, or this form's
 * defaults were stored): every field the operator left as it was stored takes the new stored
 * value, every field they changed keeps what they typed. So the stored settings are the one
 * state both editors start from, and a later "Save as this asset's defaults" cannot write back
 * values the settings editor has since replaced.
 * @param form the form as it is now.
 * @param before the form as the earlier stored settings gave it.
 * @param after the form as the stored settings now give it.
 */
export function rebaseForm<T>(form: T, before: T, after: T): T {
  if (isRecord(form) && isRecord(before) && isRecord(after)) {
    return Object.fromEntries(Object.keys(after).map((k) => [k, rebaseForm(form[k], before[k], after[k])])) as T;
  }
  return same(form, before) ? after : form;
}
