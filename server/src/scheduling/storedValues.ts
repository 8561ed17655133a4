import type { Knex } from 'knex';
import { fieldTree, mergeFieldTrees, unprocessable } from '../errors.ts';
import { storedInstantMs } from '../domain/time.ts';
import { isEnergyUnit, readQuantity } from '../domain/units.ts';
import { RowReads } from '../store/rowReads.ts';
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
/** Beyond this (MW or MWh: a petawatt) a power or energy is no device's, and breaks the solver's numbers. */
export const MAX_QUANTITY = 1e9;

type Rule =
  | { kind: 'quantity'; unit: 'MWh' | 'MW'; nonNegative: boolean }
  /** `clipped`: above 1 is read as 1 (1.0's storage efficiency on a trigger), so only (0, ∞) is checked. */
  | { kind: 'fraction'; clipped?: boolean }
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
  'soc-at-arrival': energy,
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
    if (rule.clipped) return n > 0 ? {} : { problem: 'Must be greater than 0.' };
    return n > 0 && n <= 1 ? {} : { problem: 'Must be greater than 0 and less than or equal to 1.' };
  }
  const n = readQuantity(value, rule.unit, rule.unit === 'MWh' ? socUnit : 'MW');
  if (typeof n !== 'number') return { problem: n.error };
  if (rule.nonNegative && n < 0) return { problem: 'Must be greater than or equal to 0.' };
  return Math.abs(n) > MAX_QUANTITY ? { problem: `Must be at most ${MAX_QUANTITY} ${rule.unit} in size.` } : {};
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
function walkField(rule: Rule, value: unknown, path: (string | number)[], { socUnit, out }: { socUnit: 'MWh' | 'kWh'; out: Walked }): void {
  const check = (v: unknown, at: (string | number)[]) => {
    const read = readValue(rule, v, socUnit);
    if ('problem' in read) out.problems.push({ path: at, message: read.problem });
    else if (read.currency) out.currencies.set(at.join('.'), read.currency);
  };
  if (Array.isArray(value)) {
    value.forEach((item, i) => walkField(rule, item, [...path, i], { socUnit, out }));
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

/** The currency of a price sensor's unit (`EUR/MWh` → `EUR`), if it is a price. */
const sensorCurrency = async (rows: RowReads, id: number) => {
  const unit = (await rows.sensor(id))?.unit;
  return (unit && /^([A-Za-z]{3})\//.exec(unit)?.[1]) || undefined;
};

/**
 * Adds the currencies of the price sensors a flex-context names (by field), and of a fallback one
 * (0.18's `market_id`) when it names none.
 * @returns the fields whose currency is a sensor's.
 */
async function priceSensorCurrencies(
  rows: RowReads,
  config: Record<string, unknown>,
  currencies: Map<string, string>,
  fallback?: { field: string; sensorId: number },
): Promise<Set<string>> {
  const fromSensors = new Set<string>();
  for (const key of ['consumption-price-sensor', 'production-price-sensor', 'consumption-price', 'production-price']) {
    const v = config[key];
    const id = typeof v === 'number' ? v : v && typeof v === 'object' && !Array.isArray(v) ? (v as { sensor?: unknown }).sensor : undefined;
    if (typeof id !== 'number') continue;
    const currency = await sensorCurrency(rows, id);
    if (currency) currencies.set(key, currency);
    if (currency) fromSensors.add(key);
  }
  const priced = ['consumption-price', 'consumption-price-sensor'].some((k) => config[k] !== undefined);
  if (fallback && !priced) {
    const currency = await sensorCurrency(rows, fallback.sensorId);
    if (currency) currencies.set(fallback.field, currency);
    if (currency) fromSensors.add(fallback.field);
  }
  return fromSensors;
}

/**
 * One problem when prices are in more than one currency: on the first price whose currency is not
 * that of the first price sensor named (or, without one, of the first price), naming both. The
 * solver adds prices up as numbers, so a schedule over mixed currencies would be meaningless.
 */
function currencyProblem(currencies: Map<string, string>, sensorFields: Set<string>): Problem | undefined {
  const entries = [...currencies.entries()];
  const [refField, refCurrency] = entries.find(([field]) => sensorFields.has(field)) ?? entries[0] ?? [];
  const odd = entries.find(([, currency]) => currency !== refCurrency);
  if (!odd || refField === undefined) return undefined;
  return {
    path: odd[0].split('.'),
    message: `Prices must share one currency: this one is in ${odd[1]}, ${refField} in ${refCurrency}.`,
  };
}

/** The 422 naming every problem, under the body field. */
function refuse(problems: Problem[], under: string[]): never {
  const fields: Record<string, unknown> = {};
  for (const p of problems) mergeFieldTrees(fields, fieldTree([...under, ...p.path.map(String)], [p.message]));
  throw unprocessable('json', fields);
}

type Walked = { problems: Problem[]; currencies: Map<string, string> };

/** 1.0 clips a trigger's storage efficiency above 100% to 100%; 0.18, and stored configuration, refuse it. */
const clippedStorageEfficiency: Rule = { kind: 'fraction', clipped: true };

/** Walks a flex-model's or flex-context's fields by their rules. */
function walkConfig(
  config: Record<string, unknown>,
  out: Walked = { problems: [], currencies: new Map() },
  clipStorageEfficiency = false,
): Walked {
  const socUnit = config['soc-unit'] === 'kWh' ? 'kWh' : 'MWh';
  for (const [key, value] of Object.entries(config)) {
    const rule = clipStorageEfficiency && key === 'storage-efficiency' ? clippedStorageEfficiency : rules[key];
    if (rule) walkField(rule, value, [key], { socUnit, out });
    else if (key === 'commitments' && Array.isArray(value)) {
      value.forEach((c: Record<string, unknown>, i) => {
        for (const side of ['up-price', 'down-price']) {
          if (c?.[side] !== undefined) walkField(commitmentPrice, c[side], [key, i, side], { socUnit, out });
        }
      });
    }
  }
  return out;
}

/**
 * Checks the values of a stored flex-model or flex-context.
 * @param bodyField where the config sits in the request body (`flex_model`, `flex_context`, or
 *   `attributes.flex-context` for 0.18's attribute).
 * @throws the 422 naming every bad value; nothing is stored.
 */
export async function checkStoredValues(db: Knex, config: unknown, bodyField: string): Promise<void> {
  if (!config || typeof config !== 'object' || Array.isArray(config)) return;
  const fields = Object.fromEntries(Object.entries(config));
  const out = walkConfig(fields);
  const fromSensors = await priceSensorCurrencies(new RowReads(db), fields, out.currencies);
  const mixed = currencyProblem(out.currencies, fromSensors);
  if (mixed) out.problems.push(mixed);
  if (out.problems.length) refuse(out.problems, bodyField.split('.'));
}

/** What a trigger brings: each device's flex-model and the flex-context, each over the stored ones. */
export interface TriggerValues {
  models: Record<string, unknown>[];
  context: Record<string, unknown>;
  /** 0.18's `market_id` attribute, the price sensor used when none is named. */
  marketSensorId?: number;
  /** The 1.0 dialect clips a storage efficiency above 100%. */
  clipStorageEfficiency: boolean;
}

/**
 * A trigger's values by the rules stored configuration gets, so that every path (API, legacy UDI
 * events, automations) refuses the same values; and its prices must share the currency of its
 * price sensors (`10 USD/MWh` beside an EUR price sensor, or prices in two currencies).
 * @throws the 422 naming every bad field, before anything is queued.
 */
export async function checkTriggerValues(rows: RowReads, trigger: TriggerValues): Promise<void> {
  const out = walkConfig(trigger.context);
  for (const model of trigger.models) walkConfig(model, out, trigger.clipStorageEfficiency);
  const market = trigger.marketSensorId === undefined ? undefined : { field: 'market_id', sensorId: trigger.marketSensorId };
  const fromSensors = await priceSensorCurrencies(rows, trigger.context, out.currencies, market);
  const mixed = currencyProblem(out.currencies, fromSensors);
  if (mixed) out.problems.push(mixed);
  if (out.problems.length) refuse(out.problems, []);
}

/**
 * 0.18's attribute-style flex configuration (asset and sensor attributes), by the rule of the
 * flex-model field it stands for. The scheduler reads most of these as plain numbers (a text is
 * ignored there, so it is refused here); `charging-efficiency` and `discharging-efficiency` may
 * also be texts such as `90%`.
 */
const attributeRules: Record<string, { rule: Rule; numberOnly: boolean }> = {
  min_soc_in_mwh: { rule: energy, numberOnly: true },
  max_soc_in_mwh: { rule: energy, numberOnly: true },
  soc_in_mwh: { rule: energy, numberOnly: true },
  roundtrip_efficiency: { rule: fraction, numberOnly: true },
  storage_efficiency: { rule: fraction, numberOnly: true },
  'charging-efficiency': { rule: fraction, numberOnly: false },
  'discharging-efficiency': { rule: fraction, numberOnly: false },
  capacity_in_mw: { rule: capacity, numberOnly: true },
  consumption_capacity: { rule: capacity, numberOnly: true },
  production_capacity: { rule: capacity, numberOnly: true },
  consumption_capacity_in_mw: { rule: capacity, numberOnly: true },
  production_capacity_in_mw: { rule: capacity, numberOnly: true },
};

/**
 * Checks 0.18's attribute-style flex configuration written to an asset or a sensor with the value
 * rules of the flex-model fields they stand for; `market_id` must name a price sensor, and
 * `soc_datetime` a time; `flex-model` and `flex-context` attributes are checked as stored
 * configuration is.
 * @param under where the attributes sit in the body: `attributes`, or the top level (API 2.0's assets).
 * @throws the 422 naming every bad attribute; nothing is stored.
 */
export async function checkStoredAttributes(
  db: Knex,
  attributes: Record<string, unknown> | undefined,
  under: string[] = ['attributes'],
): Promise<void> {
  if (!attributes) return;
  const problems: Problem[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    const known = attributeRules[key];
    if (!known || value === null) continue;
    if (known.numberOnly && (typeof value !== 'number' || !Number.isFinite(value))) {
      problems.push({ path: [key], message: 'Must be a number.' });
      continue;
    }
    const read = readValue(known.rule, value, 'MWh');
    if ('problem' in read) problems.push({ path: [key], message: read.problem });
  }
  const [min, max] = [attributes.min_soc_in_mwh, attributes.max_soc_in_mwh];
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    problems.push({ path: ['min_soc_in_mwh'], message: 'Must not be above max_soc_in_mwh.' });
  }
  const market = attributes.market_id;
  if (market !== undefined && market !== null) {
    const priced = typeof market === 'number' && Number.isInteger(market) && market > 0 && (await sensorCurrency(new RowReads(db), market));
    if (!priced) problems.push({ path: ['market_id'], message: 'Must be the id of a price sensor (a unit such as EUR/MWh).' });
  }
  const socTime = attributes.soc_datetime;
  if (socTime !== undefined && socTime !== null && storedInstantMs(socTime) === undefined) {
    problems.push({ path: ['soc_datetime'], message: 'Must be an ISO 8601 time with a UTC offset, such as 2015-01-01T00:00+01.' });
  }
  if (problems.length) refuse(problems, under);
  await checkStoredValues(db, attributes['flex-model'], 'attributes.flex-model');
  await checkStoredValues(db, attributes['flex-context'], 'attributes.flex-context');
}

/** A tariff's prices, in `unit` or else each in the unit of the price sensor it is written to. */
export interface TariffPrices {
  consumption_price_sensor: number;
  unit?: string;
  price: number;
  periods: { price: number }[];
  production_price_sensor?: number;
  feed_in_price?: number;
}

/**
 * Checks a tariff by the price rule of a flex-context: its sensors must be prices (a known currency
 * per energy unit), its prices finite and within MAX_PRICE per MWh, so that what it writes ahead
 * is a price every schedule and statistic can read.
 * @throws the 422 naming every bad field; nothing is stored.
 */
export async function checkTariffValues(db: Knex, tariff: TariffPrices): Promise<void> {
  const problems: Problem[] = [];
  const sides = [
    {
      sensorField: 'consumption_price_sensor',
      sensorId: tariff.consumption_price_sensor,
      prices: [['price'], ...tariff.periods.map((_, i) => ['periods', i, 'price'])],
    },
    ...(tariff.production_price_sensor === undefined
      ? []
      : [{ sensorField: 'production_price_sensor', sensorId: tariff.production_price_sensor, prices: [['feed_in_price']] }]),
  ];
  for (const side of sides) {
    const unit = (await getSensor(db, side.sensorId))?.unit ?? '';
    if (!/^[A-Za-z]{3}\/\w+$/.test(unit) || !isEnergyUnit(unit.slice(4)) || !currencies.has(unit.slice(0, 3))) {
      problems.push({ path: [side.sensorField], message: 'Must be a price sensor (a currency per energy unit, such as EUR/MWh).' });
      continue;
    }
    // Prices entered per kWh are written to a sensor per MWh (and the other way round), in its currency.
    const entered = tariff.unit ?? unit;
    if (entered.slice(0, 4) !== unit.slice(0, 4) || !isEnergyUnit(entered.slice(4))) {
      problems.push({
        path: ['unit'],
        message: `Must be a price in ${unit.slice(0, 3)} per energy unit (the price sensor's currency), such as ${unit.slice(0, 3)}/kWh.`,
      });
      continue;
    }
    for (const path of side.prices) {
      const value = path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], tariff);
      const read = readValue(price, `${String(value)} ${entered}`, 'MWh');
      if ('problem' in read) problems.push({ path, message: read.problem });
    }
  }
  if (problems.length) refuse(problems, []);
}
