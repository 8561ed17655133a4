import type { Knex } from 'knex';
import { fieldTree, mergeFieldTrees, unprocessable } from '../errors.ts';
import { isEnergyUnit, readQuantity } from '../domain/units.ts';
import { getSensor } from '../store/sensors.ts';

/**
 * The value rules of a trigger, applied to flex configuration when it is stored: a stored value
 * that a later trigger would refuse makes every trigger of the asset (and of its children, which
 * inherit its flex-context) fail, so it is refused when written instead. The schema has checked
 * the shapes; this checks the numbers: finite, in their field's unit, non-negative where the
 * reference requires it, fractions in (0, 1], prices in one known currency (that of the price
 * sensors named) and within a bound. (Segments with start before end are the schema's.)
 */

/** Beyond this (currency per MWh or per MW) a price swamps every other cost in the solver's numbers. */
export const MAX_PRICE = 1e9;

type Rule =
  | { kind: 'quantity'; unit: 'MWh' | 'MW'; nonNegative: boolean }
  | { kind: 'fraction' }
  /** `perEnergyToo`: a price per MWh is read as well (commitments, which 1.0 converts by the step length). */
  | { kind: 'price'; per: 'MWh' | 'MW'; nonNegative: boolean; perEnergyToo?: boolean };

const energy: Rule = { kind: 'quantity', unit: 'MWh', nonNegative: true };
const capacity: Rule = { kind: 'quantity', unit: 'MW', nonNegative: true };
const flow: Rule = { kind: 'quantity', unit: 'MW', nonNegative: false };
const fraction: Rule = { kind: 'fraction' };
const price: Rule = { kind: 'price', per: 'MWh', nonNegative: false };
const breachPerMwh: Rule = { kind: 'price', per: 'MWh', nonNegative: true };
const breachPerMw: Rule = { kind: 'price', per: 'MW', nonNegative: true };
const commitmentPrice: Rule = { kind: 'price', per: 'MW', nonNegative: false, perEnergyToo: true };

const rules: Record<string, Rule> = {
  'soc-at-start': energy,
  'soc-min': energy,
  'soc-max': energy,
  'soc-targets': energy,
  'soc-minima': energy,
  'soc-maxima': energy,
  'roundtrip-efficiency': fraction,
  'storage-efficiency': fraction,
  'charging-efficiency': fraction,
  'discharging-efficiency': fraction,
  'power-capacity': capacity,
  'consumption-capacity': capacity,
  'production-capacity': capacity,
  'soc-gain': flow,
  'soc-usage': flow,
  'consumption-price': price,
  'production-price': price,
  'site-power-capacity': capacity,
  'site-consumption-capacity': capacity,
  'site-production-capacity': capacity,
  'soc-minima-breach-price': breachPerMwh,
  'soc-maxima-breach-price': breachPerMwh,
  'consumption-breach-price': breachPerMw,
  'production-breach-price': breachPerMw,
  'site-consumption-breach-price': breachPerMw,
  'site-production-breach-price': breachPerMw,
  'site-peak-consumption': capacity,
  'site-peak-consumption-price': breachPerMw,
  'site-peak-production': capacity,
  'site-peak-production-price': breachPerMw,
};

/** Currencies ISO 4217 knows, as the runtime lists them. */
const currencies = new Set(Intl.supportedValuesOf('currency'));

/** A value problem: the field path under the body field and its message. */
interface Problem {
  path: (string | number)[];
  message: string;
}

/** Reads one fixed value by its rule; returns a problem message, or the currency of a price. */
function readValue(rule: Rule, value: unknown, socUnit: 'MWh' | 'kWh'): { problem: string } | { currency?: string } {
  if (typeof value !== 'number' && typeof value !== 'string') return {};
  if (rule.kind === 'price') {
    const m = typeof value === 'string' ? /^\s*\S+\s*([A-Za-z]{3})\/(\w+)\s*$/.exec(value) : null;
    if (!m) return { problem: `Cannot convert value \`${String(value)}\` to a price per ${rule.per}` };
    const currency = m[1];
    if (!currencies.has(currency)) return { problem: `${currency} is not a known currency.` };
    const per = rule.perEnergyToo && isEnergyUnit(m[2]) ? 'MWh' : rule.per;
    const n = readQuantity(value, `${currency}/${per}`, `${currency}/${per}`);
    if (typeof n !== 'number') return { problem: n.error };
    if (rule.nonNegative && n < 0) return { problem: 'Must be greater than or equal to 0.' };
    if (Math.abs(n) > MAX_PRICE) return { problem: `Must be at most ${MAX_PRICE} ${currency}/${per} in size.` };
    return { currency };
  }
  if (rule.kind === 'fraction') {
    const n = readQuantity(value, 'dimensionless', 'dimensionless');
    if (typeof n !== 'number') return { problem: n.error };
    return n > 0 && n <= 1 ? {} : { problem: 'Must be greater than 0 and less than or equal to 1.' };
  }
  const n = readQuantity(value, rule.unit, rule.unit === 'MWh' ? socUnit : 'MW');
  if (typeof n !== 'number') return { problem: n.error };
  return rule.nonNegative && n < 0 ? { problem: 'Must be greater than or equal to 0.' } : {};
}

/**
 * Checks one value of a flex-model field by that field's rule, for stored configuration kept
 * outside the flex-model (a device's recurring SoC targets).
 * @returns the problem, or undefined when the value passes (or the field has no rule).
 */
export function storedValueProblem(field: string, value: unknown, socUnit: 'MWh' | 'kWh'): string | undefined {
  const rule = rules[field];
  const read = rule ? readValue(rule, value, socUnit) : {};
  return 'problem' in read ? read.problem : undefined;
}

/**
 * Walks one field's value: a fixed value, a `{sensor, default}` reference, a list of segments or
 * SoC constraints (each with a `value` and a window), or a list of those (soc-gain, soc-usage).
 */
function walkField(
  rule: Rule,
  value: unknown,
  path: (string | number)[],
  socUnit: 'MWh' | 'kWh',
  out: { problems: Problem[]; currencies: Map<string, string> },
): void {
  const check = (v: unknown, at: (string | number)[]) => {
    const read = readValue(rule, v, socUnit);
    if ('problem' in read) out.problems.push({ path: at, message: read.problem });
    else if (read.currency) out.currencies.set(at.join('.'), read.currency);
  };
  if (Array.isArray(value)) {
    value.forEach((item, i) => walkField(rule, item, [...path, i], socUnit, out));
    return;
  }
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if ('sensor' in obj) {
      if (obj.default !== undefined) check(obj.default, [...path, 'default']);
      return;
    }
    if ('value' in obj) check(obj.value, [...path, 'value']);
    return;
  }
  check(value, path);
}

/**
 * Checks the values of a stored flex-model or flex-context.
 * @param bodyField where the config sits in the request body (`flex_model`, `flex_context`).
 * @throws the 422 naming every bad value; nothing is stored.
 */
export async function checkStoredValues(db: Knex, config: Record<string, unknown> | undefined, bodyField: string): Promise<void> {
  if (!config) return;
  const out = { problems: [] as Problem[], currencies: new Map<string, string>() };
  const socUnit = config['soc-unit'] === 'kWh' ? 'kWh' : 'MWh';
  for (const [key, value] of Object.entries(config)) {
    const rule = rules[key];
    if (rule) walkField(rule, value, [key], socUnit, out);
    else if (key === 'commitments' && Array.isArray(value)) {
      value.forEach((c: Record<string, unknown>, i) => {
        for (const side of ['up-price', 'down-price']) {
          if (c?.[side] !== undefined) walkField(commitmentPrice, c[side], [key, i, side], socUnit, out);
        }
      });
    }
  }
  // The currency of the price sensors named: fixed prices must be in the same one.
  for (const key of ['consumption-price-sensor', 'production-price-sensor', 'consumption-price', 'production-price']) {
    const v = config[key];
    const id = typeof v === 'number' ? v : v && typeof v === 'object' && !Array.isArray(v) ? (v as { sensor?: unknown }).sensor : undefined;
    if (typeof id !== 'number') continue;
    const unit = (await getSensor(db, id))?.unit;
    const currency = unit && /^([A-Za-z]{3})\//.exec(unit)?.[1];
    if (currency) out.currencies.set(key, currency);
  }
  const distinct = [...new Set(out.currencies.values())];
  if (distinct.length > 1) {
    const [first] = out.currencies.keys();
    out.problems.push({ path: first.split('.'), message: `Prices must share one currency; found ${distinct.join(', ')}.` });
  }
  if (!out.problems.length) return;
  const fields: Record<string, unknown> = {};
  for (const p of out.problems) mergeFieldTrees(fields, fieldTree([bodyField, ...p.path.map(String)], [p.message]));
  throw unprocessable('json', fields);
}
