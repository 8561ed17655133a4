/**
 * What a scheduling job needs, as resolved synchronously at trigger time. It is plain JSON: it is
 * stored with the job, hashed for job reuse, and read back when the job runs (possibly after a
 * restart). Time series that come from sensors stay references until the job runs, so that a
 * job uses the data known at its belief time.
 */

/**
 * A per-step value: fixed; read from a sensor and converted into the wanted unit (`default` for
 * steps without data); or time segments [startMs, endMs), where overlapping segments give the
 * first listed value or the smallest (capacities), and `default` fills uncovered steps; or the
 * smallest known of several (a site capacity under the site's power capacity), or the largest
 * (a device's power capacity inferred from its directional capacities).
 */
export type SeriesSpec =
  | { fixed: number }
  | { sensor: number; unit: string; default?: number }
  | { segments: { startMs: number; endMs: number; value: number }[]; overlap: 'first' | 'min'; default?: number }
  | { min: SeriesSpec[] }
  | { max: SeriesSpec[] };

export type SocConstraintSpec = { valueMwh: number; atMs: number } | { valueMwh: number; startMs: number; endMs: number };

export interface StorageDeviceSpec {
  sensorId: number;
  name: string;
  socAtStartMwh: number;
  socMinMwh: number;
  socMaxMwh: number;
  socTargets: SocConstraintSpec[];
  socMinima: SocConstraintSpec[];
  socMaxima: SocConstraintSpec[];
  /**
   * SoC constraints given as sensors (FlexMeasures 1.0), read when the job runs: each belief
   * binds every step boundary of its event, converted into `unit`. Absent when none is given.
   */
  socConstraintSensors?: Partial<Record<'targets' | 'minima' | 'maxima', { sensor: number; unit: 'MWh' }>>;
  /** Null when nothing gives a power capacity (nor a directional or site one): the job then fails. */
  powerCapacityMw: SeriesSpec | null;
  consumptionCapacityMw: SeriesSpec | null;
  productionCapacityMw: SeriesSpec | null;
  chargingEfficiency: SeriesSpec;
  dischargingEfficiency: SeriesSpec;
  /** Fraction kept per step of the power sensor's resolution (a series when variable). */
  storageEfficiencyPerSensorStep: number | SeriesSpec;
  socGainMw: SeriesSpec[];
  socUsageMw: SeriesSpec[];
  /** Consumption-only or production-only devices (EV chargers, sensor attributes). */
  canConsume: boolean;
  canProduce: boolean;
  /** Optional output sensor for the scheduled state of charge. */
  socSensorId: number | null;
  /** soc-at-start is still to be read from the state-of-charge sensor (`readSensorState`). */
  socAtStartFromSensor?: true;
  /** An EV charger: without a recent measurement it may plan from `socAtArrivalMwh`. */
  evCharger?: true;
  /** An EV's assumed state of charge (soc-at-arrival), for when its sensor has no recent measurement. */
  socAtArrivalMwh?: number;
  /** Where `readSensorState` took soc-at-start from the assumption: the sensor, its last measurement before the start (if any). */
  socAssumed?: { sensorId: number; sinceMs?: number; lookupMs: number; valueMwh: number };
  /**
   * Where `readSensorState` read soc-at-start: the job warns when the reading is not at the start,
   * and that the SoC is unknown when it is older than `maxAgeMs`.
   */
  socReading?: { sensorId: number; atMs: number; valueMwh?: number; maxAgeMs?: number };
  /** FlexMeasures 1.0 output sensors: the schedule as consumption and/or production. */
  consumptionSensorId?: number;
  productionSensorId?: number;
}

/**
 * A flex-context commitment (FlexMeasures 1.0): the baseline in MW, the prices in currency per MW
 * and step (energy prices already times the step length), and its scope: the power sensors whose
 * flow it binds (scheduled or inflexible devices), or null for the whole site.
 */
export interface CommitmentSpec {
  name: string;
  baselineMw: SeriesSpec;
  upPrice: SeriesSpec;
  downPrice: SeriesSpec;
  scopeSensorIds: number[] | null;
}

/** What every scheduling job spec holds: its window and step, the time of its beliefs, what it reads. */
interface JobWindowSpec {
  startMs: number;
  endMs: number;
  stepMs: number;
  /** The start on the sensor's grid, in the client's offset, for messages. */
  startIso: string;
  /** The start as requested, when it lay between grid points and was floored (the job warns). */
  requestedStartMs?: number;
  /** Belief time of inputs and outputs; null = when the job runs. */
  priorMs: number | null;
  /** Source-type filters by sensor id (FlexMeasures 1.0 `source-types`): only those sources' beliefs are read. */
  sourceTypes?: Record<string, string[]>;
  /** Source types not read, by sensor id (FlexMeasures 1.0 `exclude-source-types`). */
  excludeSourceTypes?: Record<string, string[]>;
}

export interface StorageJobSpec extends JobWindowSpec {
  scheduler: 'StorageScheduler';
  devices: StorageDeviceSpec[];
  consumptionPrice: SeriesSpec | null;
  productionPrice: SeriesSpec | null;
  inflexibleSensorIds: number[];
  /** Inflexible devices named by what their positive values mean (absent in jobs of older versions). */
  inflexibleConsumptionSensorIds?: number[];
  inflexibleProductionSensorIds?: number[];
  siteConsumptionCapacityMw: SeriesSpec | null;
  siteProductionCapacityMw: SeriesSpec | null;
  /**
   * Soft constraints (FlexMeasures 1.0): breach prices in currency per MWh (SoC) or per MW
   * (capacities), and the site's power capacity that stays hard behind soft site capacities.
   * Absent in jobs without soft constraints.
   */
  breachPrices?: Partial<
    Record<'socMinima' | 'socMaxima' | 'consumption' | 'production' | 'siteConsumption' | 'siteProduction', number | SeriesSpec>
  >;
  sitePowerCapacityMw?: SeriesSpec | null;
  /** Demand charges: currency per MW of the peak above the threshold. */
  sitePeakConsumption?: { thresholdMw: SeriesSpec; price: number | SeriesSpec };
  sitePeakProduction?: { thresholdMw: SeriesSpec; price: number | SeriesSpec };
  /** The flex-context's commitments; absent when there are none. */
  commitments?: CommitmentSpec[];
  /** FlexMeasures 1.0 output sensor for the site's power (scheduled plus inflexible devices). */
  aggregatePowerSensorId?: number;
  /** The site's power as consumption and/or production, split as a device's `consumption`/`production`. */
  aggregateConsumptionSensorId?: number;
  aggregateProductionSensorId?: number;
  preferChargingSooner: boolean;
  /** The tie-breaker fades linearly over the schedule (FlexMeasures 1.0); absent = constant. */
  preferCurtailingLater?: true;
  socUnit: 'MWh' | 'kWh';
  /** A module named by the `custom-scheduler` attribute, run instead of the built-in solver. */
  customScheduler: string | null;
}

export interface ProcessJobSpec extends JobWindowSpec {
  scheduler: 'ProcessScheduler';
  sensorId: number;
  powerMw: number;
  durationSteps: number;
  processType: 'INFLEXIBLE' | 'BREAKABLE' | 'SHIFTABLE';
  optimizationSense: 'MAX' | 'MIN';
  /** Forbidden windows [startMs, endMs). */
  restrictions: { startMs: number; endMs: number }[];
  consumptionPrice: SeriesSpec | null;
}

export type JobSpec = StorageJobSpec | ProcessJobSpec;
