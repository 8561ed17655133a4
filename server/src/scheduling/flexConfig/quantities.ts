import type { TimedSegment, VariableQuantity } from '../../contracts/flexModel.ts';
import type { SeriesSpec } from '../../contracts/jobSpec.ts';
import { conversion, readQuantity } from '../../domain/units.ts';
import type { RowReads } from '../../store/rowReads.ts';
import type { SensorInContext } from '../../store/sensors.ts';
import { asNumber, fail, referencedSensor } from './fields.ts';
import type { Horizon } from './horizon.ts';

/** Where a field is resolved: the resolution's reads of the sensors it names, and the schedule's window. */
export interface Resolving {
  rows: RowReads;
  horizon: Horizon;
}

/** How a variable quantity's values are read: into which unit, how a sensor converts, which overlap wins. */
export interface QuantityKind {
  /** A fixed value (also a segment's or a sensor's default) in the wanted unit; throws the field's 422. */
  read: (field: string, value: number | string) => number;
  /** The unit a sensor's data is converted into; throws the field's 422 when it cannot be. */
  sensorUnit: (field: string, sensor: SensorInContext) => string;
  /** Overlapping segments: the first listed wins, or the smallest (capacities), as in 1.0. */
  overlap: 'first' | 'min';
}

type Check = (n: number) => string | undefined;
export const nonNegative: Check = (n) => (n < 0 ? 'Must be greater than or equal to 0.' : undefined);
export const positive: Check = (n) => (n > 0 ? undefined : 'Must be greater than 0.');
const fraction: Check = (n) => (n > 0 && n <= 1 ? undefined : 'Must be greater than 0 and less than or equal to 1.');

function checked(field: string, n: number, check?: Check): number {
  const problem = check?.(n);
  if (problem) throw fail(field, problem);
  return n;
}

/** A physical quantity in `unit`; bare numbers are in `defaultUnit`. */
export const quantityIn = (unit: string, defaultUnit: string, overlap: 'first' | 'min', check?: Check): QuantityKind => ({
  read: (field, value) => {
    const n = readQuantity(value, unit, defaultUnit);
    if (typeof n !== 'number') throw fail(field, n.error);
    return checked(field, n, check);
  },
  sensorUnit: (field, s) => {
    if (!conversion(s.unit, unit, s.event_resolution_ms || 3600_000)) throw fail(field, `Cannot convert ${s.unit} to ${unit}`);
    return unit;
  },
  overlap,
});

/** A fixed price such as "100 EUR/MWh" or "10 EUR/kW", in its currency per MWh or per MW. */
export function fixedPrice(field: string, value: string, per: 'MWh' | 'MW'): number {
  const m = /^\s*[-+\d.eE]+\s*([A-Z]{3})\/(.+)$/.exec(value);
  if (!m) throw fail(field, `Cannot convert value \`${value}\` to a price per ${per}`);
  const n = readQuantity(value, `${m[1]}/${per}`, `${m[1]}/${per}`);
  if (typeof n !== 'number') throw fail(field, n.error);
  return n;
}

/** A price per MWh (energy) or per MW (capacity breaches), in the currency it is given in. */
export const priceIn = (per: 'MWh' | 'MW', check?: Check): QuantityKind => ({
  read: (field, value) => checked(field, fixedPrice(field, String(value), per), check),
  sensorUnit: (_field, s) => s.unit.replace(/\/.*/, `/${per}`),
  overlap: 'first',
});

/** A fixed fraction: 0.98 or "98%", in (0, 1]. */
export const fractionOf = (field: string, value: number | string) =>
  quantityIn('dimensionless', 'dimensionless', 'first', fraction).read(field, value);

/**
 * A capacity attribute in MW: a number, or a quantity such as "8 MW" (1.0's `production_capacity` and
 * `consumption_capacity` sensor attributes are written so); anything else counts as absent.
 */
export function capacityAttributeMw(v: unknown): number | undefined {
  if (typeof v !== 'string') return asNumber(v);
  const n = readQuantity(v, 'MW', 'MW');
  return typeof n === 'number' ? n : undefined;
}

/** A segment's window in milliseconds, from two of start, end and duration (the schema ensures two). */
export function segmentWindow(s: TimedSegment): [number, number] {
  if (s.start && s.end) return [s.start.toMillis(), s.end.toMillis()];
  if (s.start) return [s.start.toMillis(), s.start.plus(s.duration!.luxon).toMillis()];
  return [s.end!.minus(s.duration!.luxon).toMillis(), s.end!.toMillis()];
}

/**
 * A variable quantity (FlexMeasures 1.0) as a series spec: a fixed value, a sensor (with its
 * `default` for steps without data) or time segments. Segments that end before the schedule
 * starts or begin after its longest possible end are dropped, as 1.0 ignores them.
 * @returns the spec, or undefined when the field is absent.
 */
export async function seriesOf(
  { rows, horizon }: Resolving,
  field: string,
  value: VariableQuantity | undefined,
  kind: QuantityKind,
): Promise<SeriesSpec | undefined> {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    const segments = value.flatMap((segment, i) => {
      const v = kind.read(`${field}.${i}.value`, segment.value);
      const [startMs, endMs] = segmentWindow(segment);
      return endMs > horizon.startMs && startMs < horizon.maxEndMs ? [{ startMs, endMs, value: v }] : [];
    });
    return { segments, overlap: kind.overlap };
  }
  if (typeof value === 'object') {
    const s = await referencedSensor(rows, field, value.sensor);
    const unit = kind.sensorUnit(field, s);
    return { sensor: s.id, unit, ...(value.default !== undefined && { default: kind.read(`${field}.default`, value.default) }) };
  }
  return { fixed: kind.read(field, value) };
}

/** Segments with the value of the steps none covers (an attribute the field overrides); other specs as they are. */
export function uncoveredAt(spec: SeriesSpec | undefined, fallback: number | undefined): SeriesSpec | undefined {
  return spec && 'segments' in spec && fallback !== undefined ? { ...spec, default: fallback } : spec;
}
