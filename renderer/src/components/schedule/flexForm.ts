import type { FieldMessages } from '../../api/errors.ts';
import { localInputToIso, isoToLocalInput } from '../../lib/time.ts';

/**
 * The flex-model and flex-context as form state: every input is text, so that half-typed
 * values stay on screen; `toFlexModel`/`toFlexContext` turn it into the API's JSON and
 * report the same messages the API would.
 */
export interface FlexForm {
  storage: Record<StorageKey, string>;
  preferChargingSooner: boolean;
  targets: { datetime: string; value: string }[];
  process: Record<ProcessKey, string>;
  context: Record<ContextKey, string>;
  inflexible: number[];
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

const text = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * Form state from the flex-model and flex-context stored on the asset.
 * @param model the stored flex-model.
 * @param context the stored flex-context.
 * @param zone the site's time zone, for target times.
 * @returns the form state.
 */
export function formFromStored(model: Record<string, unknown>, context: Record<string, unknown>, zone: string): FlexForm {
  const storage = Object.fromEntries([...storageNumbers, ...storageTexts].map((k) => [k, text(model[k])])) as Record<StorageKey, string>;
  storage['soc-unit'] = text(model['soc-unit']) || 'kWh';
  const targets = Array.isArray(model['soc-targets'])
    ? (model['soc-targets'] as { datetime?: string; value?: unknown }[]).map((t) => ({
        datetime: t.datetime ? isoToLocalInput(Date.parse(t.datetime), zone) : '',
        value: text(t.value),
      }))
    : [];
  return {
    storage,
    preferChargingSooner: model['prefer-charging-sooner'] !== false,
    targets,
    process: {
      duration: text(model.duration),
      power: text(model.power),
      'process-type': text(model['process-type']) || 'INFLEXIBLE',
      'optimization-sense': text(model['optimization-sense']) || 'MIN',
    },
    context: Object.fromEntries([...contextSensors, ...contextTexts].map((k) => [k, text(context[k])])) as Record<ContextKey, string>,
    inflexible: Array.isArray(context['inflexible-device-sensors']) ? (context['inflexible-device-sensors'] as number[]) : [],
  };
}

const NOT_A_NUMBER = 'Not a valid number.';
const isNumber = (v: string) => v.trim() !== '' && Number.isFinite(Number(v));
/** A ratio in (0, 1] or a percentage in (0, 100]. */
function efficiencyError(v: string): string | undefined {
  const percent = /^\s*(-?[\d.]+)\s*%\s*$/.exec(v);
  const ratio = percent ? Number(percent[1]) / 100 : Number(v);
  if (!Number.isFinite(ratio)) return `Cannot convert value \`${v}\` to a ratio; use a number such as 0.95 or a percentage such as 95%.`;
  if (ratio <= 0 || ratio > 1) return 'Must be greater than 0 and less than or equal to 1.';
  return undefined;
}
/** A power or ratio with its unit, as the API reads quantity strings. */
const looksLikeQuantity = (v: string) => /^\s*-?\d+(\.\d+)?(e-?\d+)?\s*[^\d\s].*$/i.test(v) || isNumber(v);

/**
 * The storage flex-model of the form, checked field by field.
 * @returns the JSON to send, and messages per field (API field names) when something is wrong.
 */
export function toStorageFlexModel(form: FlexForm, zone: string): { json: Record<string, unknown>; errors: FieldMessages } {
  const json: Record<string, unknown> = {};
  const errors: FieldMessages = {};
  for (const key of storageNumbers) {
    const v = form.storage[key].trim();
    if (!v) continue;
    if (isNumber(v)) json[key] = Number(v);
    else errors[key] = [NOT_A_NUMBER];
  }
  json['soc-unit'] = form.storage['soc-unit'];
  for (const key of storageTexts) {
    const v = form.storage[key].trim();
    if (!v) continue;
    if (key.endsWith('efficiency')) {
      const problem = efficiencyError(v);
      if (problem) errors[key] = [problem];
    } else if (!looksLikeQuantity(v)) {
      errors[key] = [`Cannot convert value \`${v}\` to a power; write it with its unit, e.g. 25 kW.`];
    }
    // Ratios travel as numbers, everything else as the quantity text the user wrote.
    json[key] = key === 'roundtrip-efficiency' || key === 'storage-efficiency' ? (isNumber(v) ? Number(v) : v) : v;
  }
  json['prefer-charging-sooner'] = form.preferChargingSooner;
  const targets: unknown[] = [];
  form.targets.forEach((t, i) => {
    const datetime = localInputToIso(t.datetime, zone);
    if (!datetime) errors[`soc-targets.${i}.datetime`] = ['Missing data for required field.'];
    if (!isNumber(t.value)) errors[`soc-targets.${i}.value`] = [t.value.trim() ? NOT_A_NUMBER : 'Missing data for required field.'];
    targets.push({ value: Number(t.value), datetime });
  });
  if (targets.length) json['soc-targets'] = targets;
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

/** The flex-context of the form, checked field by field. */
export function toFlexContext(form: FlexForm): { json: Record<string, unknown>; errors: FieldMessages } {
  const json: Record<string, unknown> = {};
  const errors: FieldMessages = {};
  for (const key of contextSensors) if (form.context[key]) json[key] = Number(form.context[key]);
  for (const key of contextTexts) {
    const v = form.context[key].trim();
    if (!v) continue;
    if (!looksLikeQuantity(v)) errors[key] = [`Cannot convert value \`${v}\` to a power; write it with its unit, e.g. 100 kW.`];
    json[key] = v;
  }
  if (form.inflexible.length) json['inflexible-device-sensors'] = form.inflexible;
  return { json, errors };
}
