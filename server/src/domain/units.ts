import type { Unit } from 'mathjs';
// mathjs' one-file bundle rather than its 1,262 ES modules: loading those through the tsx loader
// took about 4 s of CPU at every start of the server and of each CLI command; the bundle takes 0.5 s.
// Its own instance (all functions, default configuration), not a second one made with
// `create(all)`, which cost another ~4 MB resident for the same functions. Only this module uses
// mathjs, so the currencies it adds to the unit system reach no other code.
import math from 'mathjs/lib/browser/math.js';

/**
 * Unit handling on top of mathjs' unit system: SI prefixes, energy, power, volume, flow,
 * temperature, plus every three-letter currency code as its own base unit (EUR/MWh) and the
 * dimensionless `%`, `‰` and `dimensionless`.
 */
const dimensionless: Record<string, number> = { '': 1, dimensionless: 1, '%': 0.01, percent: 0.01, '‰': 0.001 };

/** Rewrites the short scientific notation clients send into mathjs syntax. */
function normalise(unit: string): string {
  return unit
    .trim()
    .replace(/³/g, '^3')
    .replace(/²/g, '^2')
    .replace(/°C/g, 'degC')
    .replace(/°F/g, 'degF')
    .replace(/\*\*/g, '^')
    .replace(/·/g, ' ');
}

/** Currencies become base units on first sight, so `EUR/MWh` and `KRW/kWh` parse but never inter-convert. */
function ensureCurrencies(unit: string): void {
  for (const code of unit.match(/\b[A-Z]{3}\b/g) ?? []) {
    if (!math.Unit.isValuelessUnit(code)) math.createUnit(code);
  }
}

// Every upload's unit is checked and converted: parsing it costs more than the rest of the check.
// Parsed units are only compared, never changed; the bound keeps odd unit strings from piling up.
const PARSED_BOUND = 1000;
const parsed = new Map<string, Unit | undefined>();

function parse(unit: string): Unit | undefined {
  if (parsed.has(unit)) return parsed.get(unit);
  const text = normalise(unit);
  let result: Unit | undefined;
  try {
    ensureCurrencies(text);
    result = math.unit(text);
  } catch {
    result = undefined;
  }
  if (parsed.size >= PARSED_BOUND) parsed.clear();
  parsed.set(unit, result);
  return result;
}

/** @returns whether the unit can be handled at all. */
export function isValidUnit(unit: string): boolean {
  // Stored sensors may say '' for dimensionless, but a request has to name its unit.
  if (unit.trim() === '') return false;
  return unit.trim() in dimensionless || parse(unit) !== undefined;
}

/** A linear conversion `to = scale · from + offset` (offsets only occur for temperatures). */
export interface Conversion {
  scale: number;
  offset: number;
}

/**
 * Works out how to convert values from one unit to another, including stock ↔ flow conversions
 * over one event of `resolutionMs` (kWh per 15 minutes ↔ kW: ×4).
 * @param from the unit of the values.
 * @param to the wanted unit.
 * @param resolutionMs the event length; stock ↔ flow needs it non-zero.
 * @returns the conversion, or undefined when the units are not convertible.
 */
export function conversion(from: string, to: string, resolutionMs: number): Conversion | undefined {
  if (from.trim() === to.trim()) return { scale: 1, offset: 0 };
  const df = dimensionless[from.trim()];
  const dt = dimensionless[to.trim()];
  if (df !== undefined || dt !== undefined) {
    return df !== undefined && dt !== undefined ? { scale: df / dt, offset: 0 } : undefined;
  }
  const a = parse(from);
  const b = parse(to);
  if (!a || !b) return undefined;
  const convert = (x: number): number | undefined => {
    const value = math.unit(x, normalise(from));
    if (value.equalBase(b)) return value.toNumber(normalise(to));
    if (!resolutionMs) return undefined;
    const step = math.unit(resolutionMs / 3_600_000, 'h');
    const perStep = math.divide(value, step) as Unit; // stock → flow
    if (perStep.equalBase(b)) return perStep.toNumber(normalise(to));
    const overStep = math.multiply(value, step) as Unit; // flow → stock
    if (overStep.equalBase(b)) return overStep.toNumber(normalise(to));
    return undefined;
  };
  const zero = convert(0);
  const one = convert(1);
  if (zero === undefined || one === undefined) return undefined;
  return { scale: one - zero, offset: zero };
}

/** @returns whether values in `unit` are a power (convertible to MW). */
export function isPowerUnit(unit: string): boolean {
  const u = parse(unit);
  return Boolean(u && u.equalBase(math.unit('MW')));
}

/** @returns whether values in `unit` are an energy (convertible to MWh). */
export function isEnergyUnit(unit: string): boolean {
  const u = parse(unit);
  return Boolean(u && u.equalBase(math.unit('MWh')));
}

// Parsed once: parsing a unit costs more than comparing two.
const stockBases = [math.unit('MWh'), math.unit('m^3')];

/**
 * @returns whether values in `unit` are amounts per event (energy, volume) rather than rates:
 * such amounts add up when events are merged and split when events are divided.
 */
export function isStockUnit(unit: string): boolean {
  const u = parse(unit);
  return Boolean(u && stockBases.some((base) => u.equalBase(base)));
}

/** @returns whether `unit` is a currency per energy unit, e.g. EUR/MWh. */
export function isEnergyPriceUnit(unit: string): boolean {
  const m = /^([A-Z]{3})\/(.+)$/.exec(unit.trim());
  return Boolean(m && isEnergyUnit(m[2]));
}

/**
 * Reads a quantity given as a bare number (in `defaultUnit`) or as text with a unit ("25kW",
 * "2 MW", "90%", "0.2 EUR/kWh") and expresses it in `targetUnit`.
 * @param value the quantity as sent.
 * @param targetUnit the unit wanted.
 * @param defaultUnit the unit of a bare number (and of text without a unit).
 * @param resolutionMs event length for stock ↔ flow conversions (0 when not applicable).
 * @returns the number in `targetUnit`, or an error message.
 */
export function readQuantity(
  value: number | string,
  targetUnit: string,
  defaultUnit: string,
  resolutionMs = 0,
): number | { error: string } {
  let amount: number;
  let unit: string;
  if (typeof value === 'number') {
    amount = value;
    unit = defaultUnit;
  } else {
    const m = /^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$/.exec(value);
    if (!m) return { error: `Cannot convert value \`${value}\` to '${targetUnit}'` };
    amount = Number(m[1]);
    unit = m[2] === '' ? defaultUnit : m[2];
  }
  const c = Number.isFinite(amount) ? conversion(unit, targetUnit, resolutionMs) : undefined;
  const converted = c ? amount * c.scale + c.offset : NaN;
  // A huge quantity can overflow on the way into the target unit.
  if (!Number.isFinite(converted)) return { error: `Cannot convert value \`${value}\` to '${targetUnit}'` };
  return converted;
}
