import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { conversion } from '../domain/units.ts';
import { mostRecentBeliefs } from '../store/beliefs.ts';
import { resampleToGrid } from '../domain/resample.ts';
import { getSensor, getSensors, type Sensor, type SensorInContext } from '../store/sensors.ts';
import { socSeries, type ProcessProblem, type StorageDevice, type StorageProblem } from '../../../worker/src/tasks.ts';
import type { ProcessJobSpec, SeriesSpec, SocConstraintSpec, StorageJobSpec } from '../contracts/jobSpec.ts';
import { SchedulingFailure } from './failure.ts';
import { firstStepBounds } from './measuredState.ts';
import { assumedZeroPower, extendedPrices, loadNegativeThroughout, noHouseLoad, type InputAt } from './warnings.ts';
import type { JobWarning } from '../contracts/responses.ts';

type FlowCommitment = NonNullable<StorageProblem['commitments']>[number];

/**
 * The job's sensors, each read from the store once per job: by the owner check, which fails the
 * job for one that does not exist, then for the inputs and the outputs.
 */
export interface JobSensors {
  (id: number): Promise<SensorInContext>;
  /** Reads those of `ids` not read yet, together in one statement. */
  load(ids: readonly number[]): Promise<void>;
}

/** @returns a reader of sensors that reads each one once. */
export function sensorsOnce(db: Knex): JobSensors {
  const read = new Map<number, Promise<SensorInContext>>();
  const one = (id: number) => {
    if (!read.has(id))
      read.set(
        id,
        getSensor(db, id).then((s) => s!),
      );
    return read.get(id)!;
  };
  const load = async (ids: readonly number[]) => {
    const unread = ids.filter((id) => !read.has(id));
    if (!unread.length) return;
    const found = await getSensors(db, unread);
    // An unknown id reads as none, as `one` reads it.
    for (const id of unread) if (!read.has(id)) read.set(id, Promise.resolve(found.get(id)!));
  };
  return Object.assign(one, { load });
}

/**
 * Sign of consumption in a sensor's stored data. Power sensors store production as positive
 * unless their attribute `consumption_is_positive` says otherwise; schedules and inflexible
 * loads are handled consumption-positive, so values cross this boundary multiplied by it.
 */
export const consumptionSign = (sensor: Sensor): 1 | -1 => (sensor.attributes.consumption_is_positive === true ? 1 : -1);

/**
 * The schedule's steps, and how its inputs are read: from which store, as known at which belief
 * time, the sensors through the job's reader, their beliefs from which sources.
 */
interface Grid {
  db: Knex;
  beliefTimeMs: number;
  startMs: number;
  endMs: number;
  stepMs: number;
  steps: number;
  sensors: JobSensors;
  sourceTypes: Record<string, string[]>;
  excludeSourceTypes: Record<string, string[]>;
}

const gridOf = (
  spec: {
    startMs: number;
    endMs: number;
    stepMs: number;
    sourceTypes?: Record<string, string[]>;
    excludeSourceTypes?: Record<string, string[]>;
  },
  reading: ProblemReading,
): Grid => ({
  db: reading.db,
  beliefTimeMs: reading.beliefTimeMs,
  sensors: reading.sensors,
  sourceTypes: spec.sourceTypes ?? {},
  excludeSourceTypes: spec.excludeSourceTypes ?? {},
  startMs: spec.startMs,
  endMs: spec.startMs + Math.floor((spec.endMs - spec.startMs) / spec.stepMs) * spec.stepMs,
  stepMs: spec.stepMs,
  steps: Math.floor((spec.endMs - spec.startMs) / spec.stepMs),
});

/**
 * A sensor's most recent beliefs (known at `beliefTimeMs`) on the schedule grid, in `unit`.
 * @returns one value per step, null where nothing is known.
 */
async function sensorSeries(sensorId: number, unit: string, grid: Grid, sign: 1 | -1 = 1): Promise<(number | null)[]> {
  const sensor = await grid.sensors(sensorId);
  const events = await mostRecentBeliefs(grid.db, {
    sensorId,
    eventResolutionMs: sensor.event_resolution_ms,
    startMs: grid.startMs,
    endMs: grid.endMs,
    // An hourly price covers a schedule that starts at a quarter past.
    overlapping: true,
    beliefsBeforeMs: grid.beliefTimeMs,
    sourceTypes: grid.sourceTypes[sensorId],
    excludeSourceTypes: grid.excludeSourceTypes[sensorId],
  });
  const values = resampleToGrid(events, {
    startMs: grid.startMs,
    endMs: grid.endMs,
    stepMs: grid.stepMs,
    eventResolutionMs: sensor.event_resolution_ms,
  });
  const c = conversion(sensor.unit, unit, grid.stepMs) ?? { scale: 1, offset: 0 };
  return values.map((v) => (v === null ? null : sign * (v * c.scale + c.offset)));
}

/**
 * The setpoint a device follows in the first step while that step is under way (the job is made
 * after it began): the newest plan of the step stored on its power sensor before the job.
 * @returns MW, consumption positive; null when the step has not begun or no plan gave it a setpoint.
 */
async function setpointUnderWay(sensorId: number, grid: Grid): Promise<number | null> {
  if (grid.beliefTimeMs <= grid.startMs || grid.beliefTimeMs >= grid.startMs + grid.stepMs) return null;
  const sensor = await grid.sensors(sensorId);
  const planned = await mostRecentBeliefs(grid.db, {
    sensorId,
    eventResolutionMs: sensor.event_resolution_ms,
    startMs: grid.startMs,
    endMs: grid.startMs + grid.stepMs,
    overlapping: true,
    beliefsBeforeMs: grid.beliefTimeMs,
    sourceTypes: ['scheduler'],
  });
  const inForce = planned
    .filter((b) => b.eventStartMs <= grid.startMs)
    .reduce<(typeof planned)[number] | undefined>(
      (newest, b) => (!newest || b.beliefTimeMs >= newest.beliefTimeMs ? b : newest),
      undefined,
    );
  const c = conversion(sensor.unit, 'MW', grid.stepMs);
  return inForce && c ? consumptionSign(sensor) * (inForce.value * c.scale + c.offset) : null;
}

async function series(spec: SeriesSpec, grid: Grid): Promise<(number | null)[]> {
  if ('fixed' in spec) return new Array<number>(grid.steps).fill(spec.fixed);
  if ('min' in spec || 'max' in spec) {
    const [parts, pick] = 'min' in spec ? [spec.min, Math.min] : [spec.max, Math.max];
    const values = await Promise.all(parts.map((s) => series(s, grid)));
    return values.reduce((acc, part) => acc.map((v, j) => (v === null ? part[j] : part[j] === null ? v : pick(v, part[j]!))));
  }
  const values = 'segments' in spec ? segmentSeries(spec, grid) : await sensorSeries(spec.sensor, spec.unit, grid);
  return spec.default === undefined ? values : values.map((v) => v ?? spec.default!);
}

/**
 * Time segments on the grid: a step takes the segments its start lies in, [start, end); where
 * several do, the first listed or the smallest, as the spec says; null where none does.
 */
function segmentSeries(spec: Extract<SeriesSpec, { segments: unknown }>, grid: Grid): (number | null)[] {
  return Array.from({ length: grid.steps }, (_, j) => {
    const t = grid.startMs + j * grid.stepMs;
    const covering = spec.segments.filter((s) => s.startMs <= t && t < s.endMs).map((s) => s.value);
    if (!covering.length) return null;
    return spec.overlap === 'min' ? Math.min(...covering) : covering[0];
  });
}

/** Fills gaps: nulls at the edges take the nearest known value, interior gaps the previous one. */
function extendGaps(values: (number | null)[]): number[] | undefined {
  const first = values.find((v) => v !== null);
  if (first === undefined || first === null) return undefined;
  let last = first;
  return values.map((v) => (v === null ? last : (last = v)));
}

/** The field and, for a sensor series, the sensor an input is read from, as warnings name it. */
async function inputAt(field: string, spec: SeriesSpec, grid: Grid): Promise<InputAt> {
  if (!('sensor' in spec)) return { field };
  return { field, sensorId: spec.sensor, sensorName: (await grid.sensors(spec.sensor)).name };
}

/**
 * Prices per step (currency/MWh); the job fails when none at all are known. Unknown steps are
 * extended, and a warning says which and how.
 */
async function prices(
  spec: SeriesSpec | null,
  grid: Grid,
  field: string,
  { log, warnings }: { log: Logger; warnings: JobWarning[] },
): Promise<number[]> {
  if (!spec)
    throw new SchedulingFailure(
      'UnknownPricesException',
      'Prices unknown for planning window. (no price sensor or price in the flex-context)',
    );
  const raw = await series(spec, grid);
  const filled = extendGaps(raw);
  if (!filled)
    throw new SchedulingFailure(
      'UnknownPricesException',
      `Prices unknown for planning window. (sensor ${'sensor' in spec ? spec.sensor : '?'})`,
    );
  const warning = extendedPrices(raw, await inputAt(field, spec, grid), grid);
  if (warning) {
    log.warn({ sensor: warning.sensor_id ?? null, periods: warning.periods }, 'prices partially unknown; extended');
    warnings.push(warning);
  }
  return filled;
}

/** A limit per step; unknown steps stay unbounded (null). */
async function limits(spec: SeriesSpec | null, grid: Grid) {
  return spec ? series(spec, grid) : null;
}

async function filledSeries(spec: SeriesSpec, grid: Grid, fallback: number): Promise<number[]> {
  return (await series(spec, grid)).map((v) => v ?? fallback);
}

/** The fraction kept per sensor step, clipped to [0, 1] where a sensor gives it; 1 where unknown. */
async function storageEfficiency(spec: number | SeriesSpec, grid: Grid): Promise<number[]> {
  if (typeof spec === 'number') return new Array<number>(grid.steps).fill(spec);
  return (await filledSeries(spec, grid, 1)).map((e) => Math.min(1, Math.max(0, e)));
}

/**
 * SoC constraints from a sensor (FlexMeasures 1.0): each belief binds the step boundaries from
 * its event's start to its end, both included (an instantaneous one its instant), in MWh.
 */
async function socConstraintsOf(ref: { sensor: number; unit: string } | undefined, grid: Grid): Promise<SocConstraintSpec[]> {
  if (!ref) return [];
  const sensor = await grid.sensors(ref.sensor);
  const resolution = sensor.event_resolution_ms;
  const events = await mostRecentBeliefs(grid.db, {
    sensorId: ref.sensor,
    eventResolutionMs: resolution,
    startMs: grid.startMs,
    endMs: grid.endMs,
    overlapping: true,
    beliefsBeforeMs: grid.beliefTimeMs,
    sourceTypes: grid.sourceTypes[ref.sensor],
    excludeSourceTypes: grid.excludeSourceTypes[ref.sensor],
  });
  const c = conversion(sensor.unit, ref.unit, resolution || grid.stepMs) ?? { scale: 1, offset: 0 };
  return events.map((e) => {
    const valueMwh = e.value * c.scale + c.offset;
    return resolution ? { valueMwh, startMs: e.eventStartMs, endMs: e.eventStartMs + resolution } : { valueMwh, atMs: e.eventStartMs };
  });
}

/**
 * The flex-context's commitments on the grid. A scoped commitment binds the net flow of the
 * devices it names: scheduled ones by their index, inflexible ones by their known power, which is
 * taken off the baseline. Steps where a sensor baseline is unknown carry no commitment.
 */
async function commitments(spec: StorageJobSpec, grid: Grid, inflexibleBySensor: Map<number, number[]>): Promise<FlowCommitment[]> {
  return Promise.all(
    (spec.commitments ?? []).map(async (c) => {
      const baseline = await series(c.baselineMw, grid);
      const scope = c.scopeSensorIds;
      const fixedPart = (j: number) => (scope ?? []).reduce((sum, id) => sum + (inflexibleBySensor.get(id)?.[j] ?? 0), 0);
      return {
        name: c.name,
        baselineMw: baseline.map((q, j) => (q === null ? null : q - fixedPart(j))),
        upPrice: await filledSeries(c.upPrice, grid, 0),
        downPrice: await filledSeries(c.downPrice, grid, 0),
        devices: scope && spec.devices.flatMap((d, i) => (scope.includes(d.sensorId) ? [i] : [])),
      };
    }),
  );
}

/** How a job's problem is read: the store, the job's sensor reader, the belief time, where warnings go. */
export interface ProblemReading {
  db: Knex;
  sensors: JobSensors;
  beliefTimeMs: number;
  /** Collects what was filled in or extended. */
  warnings: JobWarning[];
}

/**
 * Turns a resolved storage job into the solver-neutral problem of the worker, reading every
 * sensor-valued input as known at the belief time.
 * @returns the problem.
 */
export async function buildStorageProblem(spec: StorageJobSpec, reading: ProblemReading & { log: Logger }): Promise<StorageProblem> {
  const grid = gridOf(spec, reading);
  const consumptionPrice = await prices(spec.consumptionPrice, grid, 'consumption-price', reading);
  const productionPrice = spec.productionPrice ? await prices(spec.productionPrice, grid, 'production-price', reading) : null;
  const { inflexible, inflexibleBySensor } = await inflexiblePower(spec, grid, reading);
  const b = spec.breachPrices ?? {};
  const perStep = breachPerStep(grid);
  const devices: StorageDevice[] = [];
  for (const d of spec.devices) devices.push(await storageDevice(d, spec, grid));
  return {
    stepCount: grid.steps,
    stepHours: spec.stepMs / 3_600_000,
    devices,
    inflexiblePowerMw: inflexible,
    siteConsumptionCapacityMw: await limits(spec.siteConsumptionCapacityMw, grid),
    siteProductionCapacityMw: await limits(spec.siteProductionCapacityMw, grid),
    ...(spec.breachPrices && {
      sitePowerCapacityMw: await limits(spec.sitePowerCapacityMw ?? null, grid),
      siteBreach: { consumption: await perStep(b.siteConsumption), production: await perStep(b.siteProduction) },
    }),
    ...(spec.sitePeakConsumption && {
      sitePeakConsumption: {
        thresholdMw: await filledSeries(spec.sitePeakConsumption.thresholdMw, grid, 0),
        price: (await perStep(spec.sitePeakConsumption.price))!,
      },
    }),
    ...(spec.sitePeakProduction && {
      sitePeakProduction: {
        thresholdMw: await filledSeries(spec.sitePeakProduction.thresholdMw, grid, 0),
        price: (await perStep(spec.sitePeakProduction.price))!,
      },
    }),
    ...(spec.commitments && { commitments: await commitments(spec, grid, inflexibleBySensor) }),
    consumptionPrice,
    productionPrice,
    preferChargingSooner: spec.preferChargingSooner,
    preferCurtailingLater: spec.preferCurtailingLater === true,
    display: { socUnit: spec.socUnit, startIso: spec.startIso },
  };
}

/** A breach price per step; steps a variable one does not cover cost nothing to breach, as 1.0 zeroes unknown prices. */
const breachPerStep = (grid: Grid) => async (price: number | SeriesSpec | undefined) =>
  price === undefined ? undefined : filledSeries(typeof price === 'number' ? { fixed: price } : price, grid, 0);

/**
 * The site's inflexible power per step (MW, consumption positive), in total and per device (for
 * commitments naming one); unknown steps count as zero, with a warning.
 */
async function inflexiblePower(
  spec: StorageJobSpec,
  grid: Grid,
  { log, warnings }: { log: Logger; warnings: JobWarning[] },
): Promise<{ inflexible: number[]; inflexibleBySensor: Map<number, number[]> }> {
  const inflexible = new Array<number>(grid.steps).fill(0);
  // 0.18's list reads each sensor's sign attribute; 1.0's lists say what positive values mean.
  const signed: [number, 1 | -1][] = [
    ...(await Promise.all(
      spec.inflexibleSensorIds.map(async (id): Promise<[number, 1 | -1]> => [id, consumptionSign(await grid.sensors(id))]),
    )),
    ...(spec.inflexibleConsumptionSensorIds ?? []).map((id): [number, 1 | -1] => [id, 1]),
    ...(spec.inflexibleProductionSensorIds ?? []).map((id): [number, 1 | -1] => [id, -1]),
  ];
  const inflexibleBySensor = new Map<number, number[]>();
  const inputs: { input: InputAt; sign: 1 | -1 }[] = [];
  for (const [sensorId, sign] of signed) {
    const values = await sensorSeries(sensorId, 'MW', grid, sign);
    const input = { field: 'inflexible-device-sensors', sensorId, sensorName: (await grid.sensors(sensorId)).name };
    inputs.push({ input, sign });
    const assumed = assumedZeroPower(values, input, grid);
    if (assumed) {
      log.warn({ sensor: sensorId }, 'assuming zero power where the inflexible device is unknown');
      warnings.push(assumed);
    }
    // Sensors listed as production are no loads.
    const negative =
      !spec.inflexibleProductionSensorIds?.includes(sensorId) &&
      loadNegativeThroughout(values, { ...input, stepMs: grid.stepMs }, sign === 1 ? 'consumption positive' : 'production positive');
    if (negative) warnings.push(negative);
    inflexibleBySensor.set(
      sensorId,
      values.map((v) => v ?? 0),
    );
    values.forEach((v, j) => (inflexible[j] += v ?? 0));
  }
  const unloaded = noHouseLoad(inputs);
  if (unloaded) warnings.push(unloaded);
  return { inflexible, inflexibleBySensor };
}

/** One storage device of the job on the grid: its capacities, efficiencies, SoC bounds and targets, and breach prices. */
async function storageDevice(d: StorageJobSpec['devices'][number], spec: StorageJobSpec, grid: Grid): Promise<StorageDevice> {
  if (!d.powerCapacityMw) {
    throw new SchedulingFailure('ValueError', 'Power capacity is not defined in the sensor attributes or the flex-model.');
  }
  const b = spec.breachPrices ?? {};
  const perStep = breachPerStep(grid);
  const power = await filledSeries(d.powerCapacityMw, grid, 0);
  const capped = async (s: SeriesSpec | null, allowed: boolean) => {
    if (!allowed) return new Array<number>(grid.steps).fill(0);
    const own = s ? await filledSeries(s, grid, Infinity) : power;
    return own.map((v, j) => Math.max(0, Math.min(v, power[j])));
  };
  const sensor = await grid.sensors(d.sensorId);
  const perSensorStep = sensor.event_resolution_ms ? spec.stepMs / sensor.event_resolution_ms : 1;
  const stockDelta = new Array<number>(grid.steps).fill(0);
  for (const [specs, sign] of [
    [d.socGainMw, 1],
    [d.socUsageMw, -1],
  ] as const) {
    for (const s of specs) (await filledSeries(s, grid, 0)).forEach((v, j) => (stockDelta[j] += sign * v));
  }
  const fromSensors = d.socConstraintSensors ?? {};
  const place = async (list: typeof d.socTargets, kind: 'targets' | 'minima' | 'maxima', combine: 'max' | 'min' | 'last') =>
    socSeries(
      spec.startMs,
      spec.stepMs,
      grid.steps,
      [...list, ...(await socConstraintsOf(fromSensors[kind], grid))].map((c) =>
        'atMs' in c ? { valueMwh: c.valueMwh, atMs: c.atMs } : c,
      ),
      combine,
    );
  const device: StorageDevice = {
    name: d.name,
    socAtStartMwh: d.socAtStartMwh,
    socMinMwh: d.socMinMwh,
    socMaxMwh: d.socMaxMwh,
    socTargetsMwh: await place(d.socTargets, 'targets', 'last'),
    socMinimaMwh: await place(d.socMinima, 'minima', 'max'),
    socMaximaMwh: await place(d.socMaxima, 'maxima', 'min'),
    consumptionCapacityMw: await capped(d.consumptionCapacityMw, d.canConsume),
    productionCapacityMw: await capped(d.productionCapacityMw, d.canProduce),
    chargingEfficiency: await filledSeries(d.chargingEfficiency, grid, 1),
    dischargingEfficiency: await filledSeries(d.dischargingEfficiency, grid, 1),
    // Storage efficiency is given per sensor resolution; a step of another length keeps e^(Δ/r).
    storageEfficiency: (await storageEfficiency(d.storageEfficiencyPerSensorStep, grid)).map((e) => e ** perSensorStep),
    stockDeltaMw: stockDelta.some((v) => v !== 0) ? stockDelta : null,
    ...(spec.breachPrices && {
      breach: {
        socMinima: await perStep(b.socMinima),
        socMaxima: await perStep(b.socMaxima),
        consumption: await perStep(b.consumption),
        production: await perStep(b.production),
        // The power capacity stays hard behind soft directional capacities.
        powerCapacityMw: power,
      },
    }),
  };
  const setpointMw = d.socReading ? await setpointUnderWay(d.sensorId, grid) : null;
  return { ...device, ...firstStepBounds(device, d.socReading, setpointMw, spec) };
}

/**
 * Turns a resolved process job into the worker's process problem.
 * @returns the problem.
 */
export async function buildProcessProblem(spec: ProcessJobSpec, reading: ProblemReading): Promise<ProcessProblem> {
  const grid = gridOf(spec, reading);
  const forbidden = Array.from({ length: grid.steps }, (_, j) => {
    const t0 = spec.startMs + j * spec.stepMs;
    const t1 = t0 + spec.stepMs;
    return spec.restrictions.some((r) => r.startMs < t1 && t0 < r.endMs);
  });
  const raw = spec.consumptionPrice ? await series(spec.consumptionPrice, grid) : [];
  const consumptionPrice = extendGaps(raw);
  if (!consumptionPrice) {
    const sensor = spec.consumptionPrice && 'sensor' in spec.consumptionPrice ? spec.consumptionPrice.sensor : '?';
    throw new SchedulingFailure('UnknownPricesException', `Prices unknown for planning window. (sensor ${sensor})`);
  }
  const extended = extendedPrices(raw, await inputAt('consumption-price', spec.consumptionPrice!, grid), grid);
  if (extended) reading.warnings.push(extended);
  return {
    processType: spec.processType,
    consumptionPrice,
    forbidden,
    powerMw: spec.powerMw,
    durationSteps: spec.durationSteps,
    stepHours: spec.stepMs / 3_600_000,
    optimizationSense: spec.optimizationSense,
  };
}
