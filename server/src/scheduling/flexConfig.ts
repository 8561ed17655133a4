import type { DateTime } from 'luxon';
import type { Knex } from 'knex';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import { fieldTree, unprocessable } from '../errors.ts';
import {
  flexContext,
  processFlexModel,
  socConstraint,
  storageFlexModel,
  type Commitment,
  type FlexContext,
  type StorageFlexModel,
  type TimedSegment,
  type VariableQuantity,
} from '../contracts/flexModel.ts';
import { formatStart, formatTimedelta, storedInstantMs, type IsoDuration } from '../domain/time.ts';
import { conversion, isEnergyUnit, isPowerUnit, readQuantity } from '../domain/units.ts';
import { fieldMessages } from '../contracts/validate.ts';
import { getAsset, type Asset } from '../store/assets.ts';
import { getSensor, type SensorInContext } from '../store/sensors.ts';
import { flexReferences, type Reference } from '../policies/references.ts';
import { SOC_LOOKUP_STEPS } from './sensorState.ts';
import { inheritedFlexContext } from './storedConfig.ts';
import { checkTriggerValues } from './storedValues.ts';
import type {
  CommitmentSpec,
  JobSpec,
  ProcessJobSpec,
  SeriesSpec,
  SocConstraintSpec,
  StorageDeviceSpec,
  StorageJobSpec,
} from '../contracts/jobSpec.ts';
import { jobReferences } from './jobReferences.ts';
import { startOnGrid } from './timeGrid.ts';

/** Asset types and the scheduler that serves them (in the 1.0 dialect, storage serves all but processes). */
const storageTypes = new Set(['battery', 'one-way_evse', 'two-way_evse']);
const processTypes = new Set(['process', 'load']);

export interface TriggerInput {
  start: DateTime;
  duration?: IsoDuration;
  /** The schedule's step (FlexMeasures 1.0); else the (smallest) sensor resolution. */
  resolution?: IsoDuration;
  prior?: DateTime;
  flexContext: Record<string, unknown>;
}

/** Flex-model and flex-context errors: field messages straight under `json`, as the reference nests them. */
const flexError = (fields: Record<string, unknown> | string) => unprocessable('json', fields);
/** A message for a field; a dotted path (`soc-gain.0`) names a list item or sub-field. */
const fail = (field: string, message: string) => flexError(fieldTree(field.split('.'), [message]));

function parseFlex<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {}, { reportInput: true });
  if (!result.success) throw flexError(fieldMessages(result.error.issues));
  return result.data;
}

/**
 * Every sensor and asset a trigger names or its job will use: those of the request's and the
 * asset's stored flex-configs (all of them, also fields the job ends up not using) and those of
 * the resolved job (attribute fallbacks such as `market_id` included).
 * @param request the flex-model (object, or list of device entries) and flex-context as sent.
 */
export function triggerReferences(spec: JobSpec, asset: Asset, request: { flexModel?: unknown; flexContext?: unknown }): Reference[] {
  const prefix = Array.isArray(request.flexModel) ? 'flex-model' : '';
  return [
    ...flexReferences(request.flexModel, prefix),
    ...flexReferences(request.flexContext),
    ...flexReferences(asset.attributes['flex-model']),
    ...flexReferences(asset.attributes['flex-context']),
    ...jobReferences(spec),
  ];
}

/** A sensor attribute, falling back to the asset's attribute of the same name. */
function attribute(sensor: SensorInContext, asset: Asset, name: string): unknown {
  return sensor.attributes[name] ?? asset.attributes[name];
}

const asNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * A capacity attribute in MW: a number, or a quantity such as "8 MW" (1.0's `production_capacity` and
 * `consumption_capacity` sensor attributes are written so); anything else counts as absent.
 */
function capacityAttributeMw(v: unknown): number | undefined {
  if (typeof v !== 'string') return asNumber(v);
  const n = readQuantity(v, 'MW', 'MW');
  return typeof n === 'number' ? n : undefined;
}

/** Stored flex config on the asset (attributes `flex-model` / `flex-context`), under the request's. */
function stored(asset: Asset, key: 'flex-model' | 'flex-context'): Record<string, unknown> {
  const v = asset.attributes[key];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

async function referencedSensor(db: Knex, field: string, sensorId: number): Promise<SensorInContext> {
  const s = await getSensor(db, sensorId);
  if (!s) throw fail(field, `No sensor found with id ${sensorId}.`);
  return s;
}

/** How a variable quantity's values are read: into which unit, how a sensor converts, which overlap wins. */
interface QuantityKind {
  /** A fixed value (also a segment's or a sensor's default) in the wanted unit; throws the field's 422. */
  read: (field: string, value: number | string) => number;
  /** The unit a sensor's data is converted into; throws the field's 422 when it cannot be. */
  sensorUnit: (field: string, sensor: SensorInContext) => string;
  /** Overlapping segments: the first listed wins, or the smallest (capacities), as in 1.0. */
  overlap: 'first' | 'min';
}

type Check = (n: number) => string | undefined;
const nonNegative: Check = (n) => (n < 0 ? 'Must be greater than or equal to 0.' : undefined);
const positive: Check = (n) => (n > 0 ? undefined : 'Must be greater than 0.');
const fraction: Check = (n) => (n > 0 && n <= 1 ? undefined : 'Must be greater than 0 and less than or equal to 1.');

function checked(field: string, n: number, check?: Check): number {
  const problem = check?.(n);
  if (problem) throw fail(field, problem);
  return n;
}

/** A physical quantity in `unit`; bare numbers are in `defaultUnit`. */
const quantityIn = (unit: string, defaultUnit: string, overlap: 'first' | 'min', check?: Check): QuantityKind => ({
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

/** A price per MWh (energy) or per MW (capacity breaches), in the currency it is given in. */
const priceIn = (per: 'MWh' | 'MW', check?: Check): QuantityKind => ({
  read: (field, value) => checked(field, fixedPrice(field, String(value), per), check),
  sensorUnit: (_field, s) => s.unit.replace(/\/.*/, `/${per}`),
  overlap: 'first',
});

/** A fixed fraction: 0.98 or "98%", in (0, 1]. */
const fractionOf = (field: string, value: number | string) =>
  quantityIn('dimensionless', 'dimensionless', 'first', fraction).read(field, value);

/** A segment's window in milliseconds, from two of start, end and duration (the schema ensures two). */
function segmentWindow(s: TimedSegment): [number, number] {
  if (s.start && s.end) return [s.start.toMillis(), s.end.toMillis()];
  if (s.start) return [s.start.toMillis(), s.start.plus(s.duration!.luxon).toMillis()];
  return [s.end!.minus(s.duration!.luxon).toMillis(), s.end!.toMillis()];
}

/**
 * A variable quantity (FlexMeasures 1.0) as a series spec: a fixed value, a sensor (with its
 * `default` for steps without data) or time segments. Segments that end before the schedule
 * starts or begin after its longest possible end are dropped, as 1.0 ignores them.
 * @param fallback the value of steps no segment covers (an attribute the field overrides).
 * @returns the spec, or undefined when the field is absent.
 */
async function seriesOf(
  db: Knex,
  field: string,
  value: VariableQuantity | undefined,
  kind: QuantityKind,
  horizon: Horizon,
  fallback?: number,
): Promise<SeriesSpec | undefined> {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    const segments = value.flatMap((segment, i) => {
      const v = kind.read(`${field}.${i}.value`, segment.value);
      const [startMs, endMs] = segmentWindow(segment);
      return endMs > horizon.startMs && startMs < horizon.maxEndMs ? [{ startMs, endMs, value: v }] : [];
    });
    return { segments, overlap: kind.overlap, ...(fallback !== undefined && { default: fallback }) };
  }
  if (typeof value === 'object') {
    const s = await referencedSensor(db, field, value.sensor);
    const unit = kind.sensorUnit(field, s);
    return { sensor: s.id, unit, ...(value.default !== undefined && { default: kind.read(`${field}.default`, value.default) }) };
  }
  return { fixed: kind.read(field, value) };
}

interface Horizon {
  startMs: number;
  endMs: number;
  stepMs: number;
  maxEndMs: number;
}

/** The longest schedule of a sensor of this resolution, as the operator set it (in steps or as a duration). */
export function maxPlanningMs(config: Pick<Config, 'maxPlanningHorizon'>, sensorStepMs: number): number {
  const max = config.maxPlanningHorizon;
  return 'steps' in max ? max.steps * sensorStepMs : max.ms;
}

/**
 * The schedule's window and step.
 * @param sensorStepMs the (smallest) sensor resolution: the maximum horizon counts its steps.
 */
function horizonOf(config: Config, input: TriggerInput, sensorStepMs: number): Horizon {
  const startMs = input.start.toMillis();
  const stepMs = input.resolution?.ms ?? sensorStepMs;
  const maxMs = maxPlanningMs(config, sensorStepMs);
  const tooLong = () => fail('duration', `Duration exceeds the maximum planning horizon of ${maxMs / sensorStepMs} steps.`);
  // Bounded before any date arithmetic: a huge duration (P99999999D) would make the end NaN.
  if (input.duration && input.duration.ms > maxMs) throw tooLong();
  const durationMs = input.duration ? input.start.plus(input.duration.luxon).toMillis() - startMs : config.planningHorizonMs;
  if (durationMs <= 0) throw fail('duration', 'The schedule duration must be positive.');
  if (!Number.isFinite(durationMs) || durationMs > maxMs) throw tooLong();
  return { startMs, endMs: startMs + durationMs, stepMs, maxEndMs: startMs + maxMs };
}

/** A requested schedule resolution must be a whole multiple of each scheduled sensor's, as in 1.0. */
function checkResolution(input: TriggerInput, sensors: SensorInContext[]): void {
  const ms = input.resolution?.ms;
  if (ms === undefined) return;
  for (const s of sensors) {
    if (ms <= 0 || ms % s.event_resolution_ms !== 0) {
      const message = `Resolution of ${formatTimedelta(ms)} is incompatible with the sensor's required resolution of ${formatTimedelta(s.event_resolution_ms)}.`;
      throw unprocessable('json', { resolution: [message] });
    }
  }
}

/** SoC constraints given as a sensor (FlexMeasures 1.0), as `{ [key]: { sensor, unit } }`; nothing for a list. */
async function socConstraintSensor<K extends string>(
  db: Knex,
  field: string,
  key: K,
  value: StorageFlexModel['soc-targets'],
): Promise<Partial<Record<K, { sensor: number; unit: 'MWh' }>>> {
  if (value === undefined || Array.isArray(value)) return {};
  const s = await referencedSensor(db, field, value.sensor);
  if (!conversion(s.unit, 'MWh', s.event_resolution_ms || 3600_000)) throw fail(field, `Cannot convert ${s.unit} to MWh`);
  return { [key]: { sensor: s.id, unit: 'MWh' } } as Partial<Record<K, { sensor: number; unit: 'MWh' }>>;
}

/** Reads SoC constraints into MWh, checking windows and the planning horizon. */
function socConstraints(
  field: string,
  list: z.output<typeof socConstraint>[] | undefined,
  socUnit: 'MWh' | 'kWh',
  horizon: Horizon,
): SocConstraintSpec[] {
  return (list ?? []).map((c, i) => {
    const valueMwh = readQuantity(c.value, 'MWh', socUnit);
    if (typeof valueMwh !== 'number') throw flexError({ [field]: { [i]: { value: [valueMwh.error] } } });
    let spec: SocConstraintSpec;
    if ('datetime' in c) spec = { valueMwh, atMs: c.datetime.toMillis() };
    else {
      const end = 'end' in c ? c.end : c.start.plus(c.duration.luxon);
      if (c.start > end) throw flexError(`Start ${formatStart(c.start)} cannot be after end ${formatStart(end)}.`);
      spec = { valueMwh, startMs: c.start.toMillis(), endMs: end.toMillis() };
    }
    const lastMs = 'atMs' in spec ? spec.atMs : spec.endMs;
    if (lastMs > horizon.maxEndMs) {
      throw flexError({
        [field]: {
          [i]: [`Target datetime exceeds the maximum planning horizon (${new Date(horizon.maxEndMs).toISOString()}).`],
        },
      });
    }
    return spec;
  });
}

const lastInstant = (list: SocConstraintSpec[]) => Math.max(-Infinity, ...list.map((c) => ('atMs' in c ? c.atMs : c.endMs)));

/** The SoC unit: as given, else implied by the power sensor's unit (a kW sensor means kWh). */
function socUnitOf(model: StorageFlexModel, sensor: SensorInContext): 'MWh' | 'kWh' {
  if (model['soc-unit']) return model['soc-unit'];
  if (sensor.unit === 'kW' || sensor.unit === 'kWh') return 'kWh';
  return 'MWh';
}

/**
 * soc-at-start from a state of charge given as a time series (1.0): the value of the segment
 * nearest the schedule start (one containing it, ends included) within four steps, the later
 * segment on a tie; else a 422, as for a stale sensor.
 * @param toMwh reads a segment's value (its index, for the message) into MWh.
 */
function socAtStartFromSeries(
  series: TimedSegment[],
  start: DateTime,
  stepMs: number,
  toMwh: (i: number, value: number | string) => number,
): number {
  const t = start.toMillis();
  const radiusMs = SOC_LOOKUP_STEPS * stepMs;
  let best: { i: number; distance: number; startMs: number } | undefined;
  series.forEach((segment, i) => {
    const [from, to] = segmentWindow(segment);
    const distance = t < from ? from - t : t > to ? t - to : 0;
    if (distance > radiusMs) return;
    if (!best || distance < best.distance || (distance === best.distance && from >= best.startMs)) best = { i, distance, startMs: from };
  });
  if (!best) {
    throw fail(
      'state-of-charge',
      `No recent state-of-charge value found within ${formatTimedelta(radiusMs)} of schedule start ${formatStart(start)}.`,
    );
  }
  return toMwh(best.i, series[best.i].value);
}

/** What a device's spec takes from the site and the dialect. */
interface DeviceContext {
  horizon: Horizon;
  start: DateTime;
  /** The site's power capacity, the last fallback of the device's (FlexMeasures 1.0). */
  sitePower: SeriesSpec | undefined;
  /** 1.0 dialect: one non-zero directional capacity alone means none in the other direction. */
  oppositeCapacityZero: boolean;
}

/**
 * A device's state of charge in MWh: its bounds, where it starts (given, from a state-of-charge
 * series, stored on the sensor for this start, or 0), and its targets, minima and maxima, listed
 * or from sensors.
 * @returns the spec's SoC fields, the state-of-charge sensor named, and whether the SoC at the
 *   start is to be read from it.
 */
async function socSpec(
  db: Knex,
  { sensor, asset, model }: { sensor: SensorInContext; asset: Asset; model: StorageFlexModel },
  { horizon, start }: Pick<DeviceContext, 'horizon' | 'start'>,
) {
  const socUnit = socUnitOf(model, sensor);
  const inMwh = (field: string, v: number | string | undefined, fallbackMwh?: number): number | undefined => {
    if (v === undefined) return fallbackMwh;
    const n = readQuantity(v, 'MWh', socUnit);
    if (typeof n !== 'number') throw fail(field, n.error);
    return n;
  };
  const listed = (field: 'soc-targets' | 'soc-minima' | 'soc-maxima') => {
    const v = model[field];
    return socConstraints(field, Array.isArray(v) ? v : undefined, socUnit, horizon);
  };
  const targets = listed('soc-targets');
  const minima = listed('soc-minima');
  const maxima = listed('soc-maxima');
  const socConstraintSensors = {
    ...(await socConstraintSensor(db, 'soc-targets', 'targets', model['soc-targets'])),
    ...(await socConstraintSensor(db, 'soc-minima', 'minima', model['soc-minima'])),
    ...(await socConstraintSensor(db, 'soc-maxima', 'maxima', model['soc-maxima'])),
  };
  const socMin = inMwh('soc-min', model['soc-min'], asNumber(attribute(sensor, asset, 'min_soc_in_mwh')) ?? 0)!;
  if (socMin < 0) throw fail('soc-min', 'Must be greater than or equal to 0.');
  const highestTarget = targets.length ? Math.max(...targets.map((t) => t.valueMwh)) : undefined;
  const socMax = inMwh('soc-max', model['soc-max'], asNumber(attribute(sensor, asset, 'max_soc_in_mwh')) ?? highestTarget);
  if (socMax === undefined) throw flexError('Need maximal permitted state of charge, please specify soc-max or some soc-targets.');
  const storedSoc =
    storedInstantMs(attribute(sensor, asset, 'soc_datetime')) === start.toMillis()
      ? asNumber(attribute(sensor, asset, 'soc_in_mwh'))
      : undefined;
  const stateOfCharge = model['state-of-charge'];
  const socSeries = Array.isArray(stateOfCharge) ? stateOfCharge : undefined;
  const socRef = Array.isArray(stateOfCharge) ? undefined : stateOfCharge;
  const fromSeries =
    model['soc-at-start'] === undefined && socSeries
      ? socAtStartFromSeries(socSeries, start, horizon.stepMs, (i, v) => inMwh(`state-of-charge.${i}.value`, v)!)
      : undefined;
  const socAtStart = fromSeries ?? inMwh('soc-at-start', model['soc-at-start'], storedSoc ?? 0)!;
  // 1.0 reads an omitted soc-at-start from the state-of-charge sensor, once that is authorized (readSensorState).
  const fromSocSensor = model['soc-at-start'] === undefined && socRef !== undefined;
  return {
    socAtStartMwh: socAtStart,
    socMinMwh: socMin,
    socMaxMwh: socMax,
    socTargets: targets,
    socMinima: minima,
    socMaxima: maxima,
    ...(Object.keys(socConstraintSensors).length && { socConstraintSensors }),
    socRef,
    fromSocSensor,
  };
}

async function deviceSpec(
  db: Knex,
  sensor: SensorInContext,
  asset: Asset,
  model: StorageFlexModel,
  { horizon, start, sitePower, oppositeCapacityZero }: DeviceContext,
): Promise<StorageDeviceSpec> {
  const { socRef, fromSocSensor, ...soc } = await socSpec(db, { sensor, asset, model }, { horizon, start });

  const roundtrip = model['roundtrip-efficiency'] ?? asNumber(attribute(sensor, asset, 'roundtrip_efficiency'));
  if (roundtrip !== undefined && (model['charging-efficiency'] !== undefined || model['discharging-efficiency'] !== undefined)) {
    throw flexError({ _schema: ['Fields `charging_efficiency` and `roundtrip_efficiency` are mutually exclusive.'] });
  }
  const oneWay = roundtrip === undefined ? undefined : Math.sqrt(fractionOf('roundtrip-efficiency', roundtrip));
  const efficiency = async (field: 'charging-efficiency' | 'discharging-efficiency', attr: string): Promise<SeriesSpec> => {
    if (oneWay !== undefined) return { fixed: oneWay };
    const given = model[field] ?? (attribute(sensor, asset, attr) as string | number | undefined);
    // Above 100% the trigger's value rules refuse (checkTriggerValues).
    const spec = await seriesOf(db, field, given, quantityIn('dimensionless', 'dimensionless', 'first', positive), horizon);
    return spec ?? { fixed: 1 };
  };
  const storage = model['storage-efficiency'] ?? asNumber(attribute(sensor, asset, 'storage_efficiency'));
  // 1.0 clips above 100% to 100% (fixed or per step: buildProblem clips series); 0.18's value rules refuse it.
  const storageKind = quantityIn('dimensionless', 'dimensionless', 'first', positive);
  // A device capacity given as segments keeps the sensor's attribute where no segment applies.
  const mw = (field: string, v: StorageFlexModel['power-capacity'], attr: unknown) => {
    const attrMw = capacityAttributeMw(attr);
    return seriesOf(db, field, v ?? attrMw, quantityIn('MW', 'MW', 'min'), horizon, attrMw);
  };
  let consumption = await mw('consumption-capacity', model['consumption-capacity'], attribute(sensor, asset, 'consumption_capacity'));
  let production = await mw('production-capacity', model['production-capacity'], attribute(sensor, asset, 'production_capacity'));
  if (oppositeCapacityZero && consumption && !production && nonZero(consumption)) production = { fixed: 0 };
  else if (oppositeCapacityZero && production && !consumption && nonZero(production)) consumption = { fixed: 0 };
  // Without a power capacity, 1.0 takes the larger directional capacity, else the site's.
  const powerCapacity =
    (await mw('power-capacity', model['power-capacity'], attribute(sensor, asset, 'capacity_in_mw'))) ??
    larger(consumption, production) ??
    sitePower;
  const flows = (field: 'soc-gain' | 'soc-usage') =>
    Promise.all((model[field] ?? []).map((g, i) => seriesOf(db, `${field}.${i}`, g, quantityIn('MW', 'MW', 'first'), horizon)));
  const gains = await flows('soc-gain');
  const usages = await flows('soc-usage');
  const socSensor = socRef ? await referencedSensor(db, 'state-of-charge', socRef.sensor) : null;
  const strictlyConsumer = sensor.attributes.is_consumer === true && sensor.attributes.is_producer === false;
  const strictlyProducer = sensor.attributes.is_producer === true && sensor.attributes.is_consumer === false;
  return {
    sensorId: sensor.id,
    name: sensor.name,
    ...soc,
    powerCapacityMw: powerCapacity ?? null,
    consumptionCapacityMw: consumption ?? null,
    productionCapacityMw: production ?? null,
    chargingEfficiency: await efficiency('charging-efficiency', 'charging-efficiency'),
    dischargingEfficiency: await efficiency('discharging-efficiency', 'discharging-efficiency'),
    storageEfficiencyPerSensorStep:
      typeof storage === 'object'
        ? (await seriesOf(db, 'storage-efficiency', storage, storageKind, horizon))!
        : storage === undefined
          ? 1
          : Math.min(1, storageKind.read('storage-efficiency', storage)),
    socGainMw: gains.filter((g): g is SeriesSpec => g !== undefined),
    socUsageMw: usages.filter((g): g is SeriesSpec => g !== undefined),
    canConsume: !strictlyProducer,
    canProduce: !strictlyConsumer && sensor.asset_type !== 'one-way_evse',
    socSensorId: socSensor?.id ?? null,
    ...(fromSocSensor && { socAtStartFromSensor: true }),
    ...(await outputSensor(db, model, 'consumption', 'consumptionSensorId')),
    ...(await outputSensor(db, model, 'production', 'productionSensorId')),
  };
}

/** Whether a capacity may be other than zero somewhere (a sensor may always be). */
const nonZero = (spec: SeriesSpec): boolean =>
  'fixed' in spec ? spec.fixed !== 0 : 'segments' in spec ? spec.segments.some((s) => s.value !== 0) : true;

/** The larger of two directional capacities, per step; none when neither is given or the one given is zero throughout. */
function larger(a: SeriesSpec | undefined, b: SeriesSpec | undefined): SeriesSpec | undefined {
  const given = [a, b].filter((s): s is SeriesSpec => s !== undefined);
  if (given.length === 1) return nonZero(given[0]) ? given[0] : undefined;
  if (!given.length) return undefined;
  const [x, y] = given;
  return 'fixed' in x && 'fixed' in y ? { fixed: Math.max(x.fixed, y.fixed) } : { max: given };
}

/** An output sensor field as the spec's `…SensorId` key, absent when the field is. */
async function outputSensor<F extends string, K extends string>(
  db: Knex,
  config: Partial<Record<F, { sensor: number }>>,
  field: F,
  key: K,
): Promise<Partial<Record<K, number>>> {
  const ref = config[field];
  return ref ? ({ [key]: (await referencedSensor(db, field, ref.sensor)).id } as Partial<Record<K, number>>) : {};
}

/** A fixed price such as "100 EUR/MWh" or "10 EUR/kW", in its currency per MWh or per MW. */
function fixedPrice(field: string, value: string, per: 'MWh' | 'MW'): number {
  const m = /^\s*[-+\d.eE]+\s*([A-Z]{3})\/(.+)$/.exec(value);
  if (!m) throw fail(field, `Cannot convert value \`${value}\` to a price per ${per}`);
  const n = readQuantity(value, `${m[1]}/${per}`, `${m[1]}/${per}`);
  if (typeof n !== 'number') throw fail(field, n.error);
  return n;
}

async function priceOf(
  db: Knex,
  context: FlexContext,
  which: 'consumption' | 'production',
  fallbackSensorId: number | undefined,
  horizon: Horizon,
): Promise<SeriesSpec | null> {
  const modern = context[`${which}-price`];
  const legacy = context[`${which}-price-sensor`];
  if (modern !== undefined) return (await seriesOf(db, `${which}-price`, modern, priceIn('MWh'), horizon))!;
  const sensorId = legacy ?? fallbackSensorId;
  if (sensorId === undefined) return null;
  const s = await referencedSensor(db, `${which}-price-sensor`, sensorId);
  return { sensor: s.id, unit: s.unit.replace(/\/.*/, '/MWh') };
}

async function siteCapacity(
  db: Knex,
  context: FlexContext,
  field:
    'site-power-capacity' | 'site-consumption-capacity' | 'site-production-capacity' | 'site-peak-consumption' | 'site-peak-production',
  attrMw: unknown,
  horizon: Horizon,
): Promise<SeriesSpec | undefined> {
  const v = context[field];
  const n = asNumber(attrMw);
  // A bare number has no unit: refuse it rather than guess between kW and MW.
  if (v !== undefined) return seriesOf(db, field, v, quantityIn('MW', 'dimensionless', 'min', nonNegative), horizon, n);
  return n === undefined ? undefined : { fixed: n };
}

/**
 * The sensors of `inflexible-consumption` and `inflexible-production` (FlexMeasures 1.0), checked
 * as 1.0 checks them: not mixed with `inflexible-device-sensors`, each sensor listed once, and no
 * sensor whose own `consumption_is_positive` contradicts the list it is in.
 */
async function signedInflexibleSensors(db: Knex, context: FlexContext): Promise<{ consumption: number[]; production: number[] }> {
  const lists = { consumption: context['inflexible-consumption'] ?? [], production: context['inflexible-production'] ?? [] };
  if (context['inflexible-device-sensors'] && (lists.consumption.length || lists.production.length)) {
    throw fail(
      'inflexible-device-sensors',
      'Must pass either inflexible-device-sensors (deprecated) or inflexible-consumption/inflexible-production.',
    );
  }
  const seen = new Set<number>();
  for (const kind of ['consumption', 'production'] as const) {
    const field = `inflexible-${kind}`;
    for (const [i, ref] of lists[kind].entries()) {
      const sensor = await referencedSensor(db, `${field}.${i}`, ref.sensor);
      if (seen.has(sensor.id))
        throw fail(field, `Sensor ${sensor.id} may only be listed once across inflexible-consumption and inflexible-production.`);
      seen.add(sensor.id);
      const declared = sensor.attributes.consumption_is_positive;
      if (typeof declared === 'boolean' && declared !== (kind === 'consumption')) {
        const text = declared ? 'True' : 'False';
        throw fail(
          field,
          `Sensor ${sensor.id} has \`consumption_is_positive=${text}\`, which conflicts with the sign convention of the \`${field}\` field.`,
        );
      }
    }
  }
  return { consumption: lists.consumption.map((r) => r.sensor), production: lists.production.map((r) => r.sensor) };
}

/**
 * The `source-types` and `exclude-source-types` filters of every `{"sensor": id, …}` in the flex
 * configuration, by sensor id; each absent when none is given, so older jobs keep their cache keys.
 */
function sourceTypeFilters(...configs: unknown[]): {
  sourceTypes?: Record<string, string[]>;
  excludeSourceTypes?: Record<string, string[]>;
} {
  const only: Record<string, string[]> = {};
  const excluded: Record<string, string[]> = {};
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    const v = value as Record<string, unknown>;
    if (typeof v.sensor === 'number' && Array.isArray(v['source-types'])) only[v.sensor] = v['source-types'] as string[];
    if (typeof v.sensor === 'number' && Array.isArray(v['exclude-source-types']))
      excluded[v.sensor] = v['exclude-source-types'] as string[];
    Object.values(v).forEach(walk);
  };
  configs.forEach(walk);
  return {
    ...(Object.keys(only).length && { sourceTypes: only }),
    ...(Object.keys(excluded).length && { excludeSourceTypes: excluded }),
  };
}

/** FlexMeasures 1.0's breach prices where relaxation is on and no price is given: per MWh (SoC) or per MW. */
const RELAXED = { soc: 1e6, site: 1e7, device: 1e5 };

/**
 * The soft constraints of a flex-context (FlexMeasures 1.0): breach prices, given or filled in by
 * the relax flags, and demand charges. Relaxation is on by default only in the 1.0 dialect and
 * only for a request that speaks 1.0 (its `consumption-price`), so 0.18 requests keep 0.18's hard
 * constraints; device capacities are relaxed only when asked for by name. Absent when nothing is soft.
 */
async function softConstraintsOf(
  db: Knex,
  config: Config,
  context: FlexContext,
  sitePower: SeriesSpec | undefined,
  horizon: Horizon,
): Promise<Pick<StorageJobSpec, 'breachPrices' | 'sitePowerCapacityMw' | 'sitePeakConsumption' | 'sitePeakProduction'>> {
  const relax = context['relax-constraints'] ?? (config.apiCompat === '1.0' && context['consumption-price'] !== undefined);
  const relaxSoc = context['relax-soc-constraints'] ?? relax;
  const relaxSite = context['relax-site-capacity-constraints'] ?? relax;
  const relaxDevice = context['relax-capacity-constraints'] ?? false;
  type BreachField = `${'soc-minima' | 'soc-maxima' | 'consumption' | 'production' | 'site-consumption' | 'site-production'}-breach-price`;
  // A fixed price stays a number, as in jobs of earlier versions; variable prices are series.
  const price = async (field: BreachField, per: 'MWh' | 'MW', relaxed?: number): Promise<number | SeriesSpec | undefined> => {
    const spec = await seriesOf(db, field, context[field], priceIn(per, nonNegative), horizon);
    if (!spec) return relaxed;
    return 'fixed' in spec ? spec.fixed : spec;
  };
  const breach = {
    socMinima: await price('soc-minima-breach-price', 'MWh', relaxSoc ? RELAXED.soc : undefined),
    socMaxima: await price('soc-maxima-breach-price', 'MWh', relaxSoc ? RELAXED.soc : undefined),
    consumption: await price('consumption-breach-price', 'MW', relaxDevice ? RELAXED.device : undefined),
    production: await price('production-breach-price', 'MW', relaxDevice ? RELAXED.device : undefined),
    siteConsumption: await price('site-consumption-breach-price', 'MW', relaxSite ? RELAXED.site : undefined),
    siteProduction: await price('site-production-breach-price', 'MW', relaxSite ? RELAXED.site : undefined),
  };
  const given = Object.fromEntries(Object.entries(breach).filter(([, v]) => v !== undefined));
  const peak = async (which: 'consumption' | 'production') => {
    const field = `site-peak-${which}-price` as const;
    const v = context[field];
    if (v === undefined) return {};
    // A fixed price stays a number, as in jobs of earlier versions; variable prices are series.
    const spec = (await seriesOf(db, field, v, priceIn('MW', nonNegative), horizon))!;
    const p = 'fixed' in spec ? spec.fixed : spec;
    const thresholdMw = (await siteCapacity(db, context, `site-peak-${which}`, undefined, horizon)) ?? { fixed: 0 };
    return { [which === 'consumption' ? 'sitePeakConsumption' : 'sitePeakProduction']: { thresholdMw, price: p } };
  };
  return {
    ...(Object.keys(given).length ? { breachPrices: given, sitePowerCapacityMw: sitePower ?? null } : {}),
    ...(await peak('consumption')),
    ...(await peak('production')),
  };
}

/**
 * A commitment's price per MW and step: given per MW (or kW), or per MWh (or kWh), which is then
 * taken times the step length, as 1.0 converts it; fixed, from a sensor or as a time series.
 * Absent prices are zero.
 */
async function commitmentPrice(db: Knex, field: string, value: Commitment['up-price'], horizon: Horizon): Promise<SeriesSpec> {
  const which = field.endsWith('up-price') ? 'up-price' : 'down-price';
  const refused = (at: string) => fail(at, `Commitment ${which} must have a power or energy unit in its denominator.`);
  if (value === undefined) return { fixed: 0 };
  const kind: QuantityKind = {
    read: (at, given) => {
      const m = /^\s*[-+\d.eE]+\s*([A-Z]{3})\/(.+)$/.exec(String(given));
      if (!m || !(isPowerUnit(m[2]) || isEnergyUnit(m[2]))) throw refused(at);
      const n = readQuantity(String(given), `${m[1]}/MW`, `${m[1]}/MW`, horizon.stepMs);
      if (typeof n !== 'number') throw fail(at, n.error);
      return n;
    },
    sensorUnit: (at, s) => {
      const unit = s.unit.replace(/\/.*/, '/MW');
      if (!/^[A-Z]{3}\/MW$/.test(unit) || !conversion(s.unit, unit, horizon.stepMs)) throw refused(at);
      return unit;
    },
    overlap: 'first',
  };
  return (await seriesOf(db, field, value, kind, horizon))!;
}

/** A commitment's baseline in MW: a power, fixed, from a power sensor, or as a time series. */
async function commitmentBaseline(
  db: Knex,
  field: string,
  value: NonNullable<Commitment['baseline']>,
  horizon: Horizon,
): Promise<SeriesSpec> {
  const unit = Array.isArray(value)
    ? 'MW'
    : typeof value === 'object'
      ? (await referencedSensor(db, field, value.sensor)).unit
      : typeof value === 'string'
        ? value.replace(/^\s*[-+\d.eE]+\s*/, '') || 'MW'
        : 'MW';
  if (!isPowerUnit(unit)) throw fail(field, 'Commitment baseline must have a power unit.');
  return (await seriesOf(db, field, value, quantityIn('MW', 'MW', 'first'), horizon))!;
}

/**
 * The flex-context's commitments (FlexMeasures 1.0). A commitment binds the site's flow, or the
 * net flow of the devices its `sensors` name, which must be scheduled or inflexible devices of
 * this job. Flexsite's scheduler stays linear, so fixed prices with an up-price below the
 * down-price (a non-convex cost) are refused here rather than solved with binaries.
 * @param deviceSensorIds the sensors a commitment may name: scheduled and inflexible devices.
 * @returns `{ commitments }`, or nothing when the flex-context has none.
 */
async function commitmentsOf(
  db: Knex,
  context: FlexContext,
  horizon: Horizon,
  deviceSensorIds: Set<number>,
): Promise<{ commitments?: CommitmentSpec[] }> {
  const list = context.commitments ?? [];
  const out: CommitmentSpec[] = [];
  for (const [i, c] of list.entries()) {
    const at = (field: string) => `commitments.${i}.${field}`;
    if (c.group) {
      throw fail(at('group'), 'Commitments scoped by an electrical group are not supported yet; list the power sensors under `sensors`.');
    }
    for (const [k, id] of (c.sensors ?? []).entries()) {
      await referencedSensor(db, at(`sensors.${k}`), id);
      if (!deviceSensorIds.has(id)) {
        throw fail(at(`sensors.${k}`), `Sensor ${id} is neither a scheduled device nor an inflexible device of this flex-context.`);
      }
    }
    const upPrice = await commitmentPrice(db, at('up-price'), c['up-price'], horizon);
    const downPrice = await commitmentPrice(db, at('down-price'), c['down-price'], horizon);
    if ('fixed' in upPrice && 'fixed' in downPrice && upPrice.fixed < downPrice.fixed) {
      throw fail(at('up-price'), 'The up-price must not be below the down-price (a non-convex cost, which Flexsite does not schedule).');
    }
    out.push({
      name: c.name,
      baselineMw: await commitmentBaseline(db, at('baseline'), c.baseline!, horizon),
      upPrice,
      downPrice,
      scopeSensorIds: c.sensors ?? null,
    });
  }
  return out.length ? { commitments: out } : {};
}

/** The smaller of two optional limits; where a sensor gives one, they are combined when the job runs. */
const tighter = (a: SeriesSpec | undefined, b: SeriesSpec | undefined): SeriesSpec | null => {
  if (!a || !b) return a ?? b ?? null;
  if ('fixed' in a && 'fixed' in b) return { fixed: Math.min(a.fixed, b.fixed) };
  // Segments under a fixed limit: each segment, and the steps none covers, take the smaller.
  if ('segments' in a && 'fixed' in b) {
    const segments = a.segments.map((s) => ({ ...s, value: Math.min(s.value, b.fixed) }));
    return { ...a, segments, default: Math.min(a.default ?? b.fixed, b.fixed) };
  }
  if ('fixed' in a && 'segments' in b) return tighter(b, a);
  return { min: [a, b] };
};

/**
 * The site-power-capacity stored on a device's asset or its ancestors, which FlexMeasures 1.0 takes
 * as the device's power capacity of last resort (`_get_device_power_capacity`): a trigger's own
 * site-power-capacity bounds the site, not the device. Undefined when none is stored; the
 * trigger's then serves (Flexsite's lenience, where FlexMeasures fails the job).
 */
async function storedSitePowerCapacity(db: Knex, sensor: SensorInContext, horizon: Horizon): Promise<SeriesSpec | undefined> {
  const deviceAsset = await getAsset(db, sensor.generic_asset_id);
  if (!deviceAsset) return undefined;
  const context = parseFlex(flexContext, await inheritedFlexContext(db, deviceAsset, {}));
  return siteCapacity(db, context, 'site-power-capacity', undefined, horizon);
}

/**
 * Resolves a trigger for one or more storage devices into a job spec, answering every
 * flex-model/flex-context error with a 422 before any job exists.
 * @param devices the power sensors to schedule, each with its own flex-model.
 * @param asset the asset whose site limits apply.
 * @returns the job spec.
 */
export async function resolveStorageJob(
  db: Knex,
  config: Config,
  requested: TriggerInput,
  devices: { sensor: SensorInContext; flexModel: unknown }[],
  asset: Asset,
): Promise<StorageJobSpec> {
  const rawContext = { ...stored(asset, 'flex-context'), ...requested.flexContext };
  const context = parseFlex(flexContext, rawContext);
  const sensorStepMs = Math.min(...devices.map((d) => d.sensor.event_resolution_ms || Infinity));
  if (!Number.isFinite(sensorStepMs)) throw flexError('Cannot schedule an instantaneous sensor: it has no event resolution.');
  checkResolution(
    requested,
    devices.map((d) => d.sensor),
  );
  const { input, requestedStartMs } = startOnGrid(requested, requested.resolution?.ms ?? sensorStepMs);
  const horizon = horizonOf(config, input, sensorStepMs);
  const { stepMs } = horizon;
  const sitePower = await siteCapacity(db, context, 'site-power-capacity', asset.attributes.capacity_in_mw, horizon);
  const dialect10 = config.apiCompat === '1.0';
  const deviceContext = { horizon, start: input.start, sitePower, oppositeCapacityZero: dialect10 };
  const specs: StorageDeviceSpec[] = [];
  let socUnit: 'MWh' | 'kWh' = 'MWh';
  const rawModels = devices.map((d) => ({
    ...stored(asset, 'flex-model'),
    ...(d.flexModel && typeof d.flexModel === 'object' ? d.flexModel : {}),
  }));
  const models = rawModels.map((m) => parseFlex(storageFlexModel, m));
  const marketSensorId = asNumber(attribute(devices[0].sensor, asset, 'market_id'));
  for (const [i, d] of devices.entries()) {
    const model = models[i];
    socUnit = socUnitOf(model, d.sensor);
    const storedSitePower = await storedSitePowerCapacity(db, d.sensor, horizon);
    specs.push(await deviceSpec(db, d.sensor, asset, model, { ...deviceContext, sitePower: storedSitePower ?? sitePower }));
  }
  // Targets beyond the requested end extend the schedule (within the maximum horizon).
  const latestTarget = Math.max(...specs.map((s) => lastInstant(s.socTargets)));
  const endMs = Math.max(horizon.endMs, Math.ceil((latestTarget - horizon.startMs) / stepMs) * stepMs + horizon.startMs);
  if (endMs - horizon.startMs < stepMs) throw fail('duration', 'The schedule must cover at least one step of the sensor resolution.');
  const first = devices[0].sensor;
  const siteConsumption = await siteCapacity(
    db,
    context,
    'site-consumption-capacity',
    asset.attributes.consumption_capacity_in_mw,
    horizon,
  );
  const siteProduction = await siteCapacity(db, context, 'site-production-capacity', asset.attributes.production_capacity_in_mw, horizon);
  const inflexible = context['inflexible-device-sensors'] ?? [];
  for (const [i, sensorId] of inflexible.entries()) await referencedSensor(db, `inflexible-device-sensors.${i}`, sensorId);
  const signed = await signedInflexibleSensors(db, context);
  const customScheduler = attribute(first, asset, 'custom-scheduler');
  const preferChargingSooner = devices.every((d) => (d.flexModel as Record<string, unknown> | null)?.['prefer-charging-sooner'] !== false);
  // 1.0's default is on; the 0.18 dialect keeps its constant tie-breaker unless asked.
  const preferCurtailingLater = models.every((m) => m['prefer-curtailing-later'] ?? config.apiCompat === '1.0');
  const spec: StorageJobSpec = {
    scheduler: 'StorageScheduler',
    startMs: horizon.startMs,
    endMs,
    stepMs,
    startIso: formatStart(input.start),
    ...(requestedStartMs !== undefined && { requestedStartMs }),
    priorMs: input.prior?.toMillis() ?? null,
    devices: specs,
    consumptionPrice: await priceOf(db, context, 'consumption', marketSensorId, horizon),
    productionPrice: await priceOf(db, context, 'production', undefined, horizon),
    inflexibleSensorIds: inflexible,
    inflexibleConsumptionSensorIds: signed.consumption,
    inflexibleProductionSensorIds: signed.production,
    ...(await softConstraintsOf(db, config, context, sitePower, horizon)),
    ...(await commitmentsOf(
      db,
      context,
      horizon,
      new Set([...specs.map((s) => s.sensorId), ...inflexible, ...signed.consumption, ...signed.production]),
    )),
    siteConsumptionCapacityMw: tighter(siteConsumption, sitePower),
    siteProductionCapacityMw: tighter(siteProduction, sitePower),
    preferChargingSooner,
    ...(preferCurtailingLater && { preferCurtailingLater: true as const }),
    socUnit,
    customScheduler: typeof customScheduler === 'string' && customScheduler ? customScheduler : null,
    ...(await outputSensor(db, context, 'aggregate-power', 'aggregatePowerSensorId')),
    ...(await outputSensor(db, context, 'aggregate-consumption', 'aggregateConsumptionSensorId')),
    ...(await outputSensor(db, context, 'aggregate-production', 'aggregateProductionSensorId')),
    ...sourceTypeFilters(context, models),
  };
  // After the resolution, whose messages name shapes and units more precisely: what it lets
  // through (a breach price of 1e120, an unknown currency, a negative capacity) the rules refuse.
  await checkTriggerValues(db, { models: rawModels, context: rawContext, marketSensorId, clipStorageEfficiency: dialect10 });
  return spec;
}
/**
 * Resolves a trigger for a process asset (INFLEXIBLE, SHIFTABLE or BREAKABLE load).
 * @returns the job spec.
 */
export async function resolveProcessJob(
  db: Knex,
  config: Config,
  requested: TriggerInput,
  sensor: SensorInContext,
  asset: Asset,
  rawModel: unknown,
): Promise<ProcessJobSpec> {
  const rawContext = { ...stored(asset, 'flex-context'), ...requested.flexContext };
  const context = parseFlex(flexContext, rawContext);
  const marketId = asNumber(attribute(sensor, asset, 'market_id'));
  const rawFlexModel = { ...stored(asset, 'flex-model'), ...(rawModel as object) };
  await checkTriggerValues(db, {
    models: [rawFlexModel],
    context: rawContext,
    marketSensorId: marketId,
    clipStorageEfficiency: config.apiCompat === '1.0',
  });
  const model = parseFlex(processFlexModel, rawFlexModel);
  if (!sensor.event_resolution_ms) throw flexError('Cannot schedule an instantaneous sensor: it has no event resolution.');
  checkResolution(requested, [sensor]);
  const { input, requestedStartMs } = startOnGrid(requested, requested.resolution?.ms ?? sensor.event_resolution_ms);
  const horizon = horizonOf(config, input, sensor.event_resolution_ms);
  const { stepMs } = horizon;
  // A process longer than the schedule fills the whole schedule, as FlexMeasures clips it.
  const durationSteps = Math.min(Math.ceil(model.duration.ms / stepMs), Math.floor((horizon.endMs - horizon.startMs) / stepMs));
  const processType =
    model['process-type'] ?? (attribute(sensor, asset, 'process-type') as ProcessJobSpec['processType'] | undefined) ?? 'INFLEXIBLE';
  return {
    scheduler: 'ProcessScheduler',
    startMs: horizon.startMs,
    endMs: horizon.endMs,
    stepMs,
    startIso: formatStart(input.start),
    ...(requestedStartMs !== undefined && { requestedStartMs }),
    priorMs: input.prior?.toMillis() ?? null,
    sensorId: sensor.id,
    powerMw: model.power,
    durationSteps,
    processType,
    optimizationSense: model['optimization-sense'] ?? 'MIN',
    restrictions: (model['time-restrictions'] ?? []).map((r) => ({
      startMs: r.start.toMillis(),
      endMs: r.start.plus(r.duration.luxon).toMillis(),
    })),
    consumptionPrice: await priceOf(db, context, 'consumption', marketId, horizon),
    ...sourceTypeFilters(context),
  };
}

/**
 * Picks the scheduler for the asset type and resolves a single-sensor trigger.
 * @returns the job spec; 422 for asset types nothing can schedule (0.18 dialect).
 */
export async function resolveSensorJob(
  db: Knex,
  config: Config,
  input: TriggerInput,
  sensor: SensorInContext,
  asset: Asset,
  flexModel: unknown,
): Promise<JobSpec> {
  if (processTypes.has(sensor.asset_type)) return resolveProcessJob(db, config, input, sensor, asset, flexModel);
  // FlexMeasures 1.0 schedules every other asset type as storage; 0.18 kept a list.
  const storage = config.apiCompat === '1.0' || storageTypes.has(sensor.asset_type);
  if (storage || typeof attribute(sensor, asset, 'custom-scheduler') === 'string') {
    return resolveStorageJob(db, config, input, [{ sensor, flexModel }], asset);
  }
  throw flexError(`Scheduling is not (yet) supported for asset type ${sensor.asset_type}.`);
}
