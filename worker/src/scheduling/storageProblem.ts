/**
 * Solver-neutral input of the storage scheduler.
 *
 * The server resolves every flex-model / flex-context field into plain per-step arrays before
 * handing the problem to a worker, so nothing here knows about sensors, units or databases.
 *
 * Conventions:
 * - Step j covers [start + j·Δ, start + (j+1)·Δ) and all per-step arrays have `stepCount` entries.
 * - Power is in MW, consumption (charging) positive, production (discharging) negative.
 * - State of charge (SoC) is in MWh. A SoC constraint at index j applies at the END of step j,
 *   i.e. at instant start + (j+1)·Δ (use {@link socStepForInstant} to map instants).
 * - Prices are in currency per MWh; costs come out in currency.
 */

/** Per-step values; `null` entries mean "no constraint at this step". */
export type OptionalSeries = readonly (number | null)[];

/** One flexible storage device (its own stock; v0.19-style single stock group per device). */
export interface StorageDevice {
  /** Label used in messages, e.g. the sensor name; optional. */
  readonly name?: string;
  /** SoC at the start of the schedule (MWh). */
  readonly socAtStartMwh: number;
  /** Hard lower SoC bound at the end of every step (MWh). */
  readonly socMinMwh: number;
  /** Hard upper SoC bound at the end of every step (MWh); must be finite. */
  readonly socMaxMwh: number;
  /** Per-step minimum SoC at the end of step j (MWh), or null for none. */
  readonly socMinimaMwh: OptionalSeries | null;
  /** Per-step maximum SoC at the end of step j (MWh), or null for none. */
  readonly socMaximaMwh: OptionalSeries | null;
  /** Per-step exact SoC target at the end of step j (MWh), or null for none. */
  readonly socTargetsMwh: OptionalSeries | null;
  /** Largest charging (consumption) power per step (MW, ≥ 0). */
  readonly consumptionCapacityMw: readonly number[];
  /** Largest discharging (production) power per step (MW, ≥ 0). */
  readonly productionCapacityMw: readonly number[];
  /** Fraction of charged energy that reaches the stock, per step (> 0; 1 = lossless). */
  readonly chargingEfficiency: readonly number[];
  /** Fraction of stock energy that reaches the grid when discharging, per step (> 0). */
  readonly dischargingEfficiency: readonly number[];
  /** Fraction of the stock kept over one step, per step (0 < e ≤ 1). */
  readonly storageEfficiency: readonly number[];
  /** Stock change not caused by the device power (soc-gain minus soc-usage), per step (MW); null = 0. */
  readonly stockDeltaMw: readonly number[] | null;
  /**
   * Soft constraints: a breach price per step makes the matching constraint breachable at that
   * price (see {@link BreachPrices}). Absent = hard, as before.
   */
  readonly breach?: DeviceBreachPrices;
}

/**
 * Breach prices of a device's soft constraints. Each is charged twice, as FlexMeasures 1.0 does:
 * on the height of the largest breach (per group of steps sharing limit and price) and on the
 * area of every breach (price per hour). SoC prices are in currency/MWh, capacity prices in currency/MW.
 */
export interface DeviceBreachPrices {
  /** Makes soc-minima soft (and, together with `socMaxima`, soc-targets). */
  readonly socMinima?: readonly number[];
  /** Makes soc-maxima soft (and, together with `socMinima`, soc-targets). */
  readonly socMaxima?: readonly number[];
  /** Makes the consumption capacity soft; `powerCapacityMw` stays hard. */
  readonly consumption?: readonly number[];
  /** Makes the production capacity soft; `powerCapacityMw` stays hard. */
  readonly production?: readonly number[];
  /** Hard power limit in both directions while a directional capacity is soft (MW). */
  readonly powerCapacityMw?: readonly number[];
}

/** A priced deviation from a baseline flow: FlexMeasures' flow commitment, per step ("each"). */
export interface FlowCommitment {
  readonly name: string;
  /** Baseline per step (MW, consumption positive); null = no commitment in that step. */
  readonly baselineMw: OptionalSeries;
  /** Cost per MW above the baseline, per step (currency; already multiplied by the step length for energy prices). */
  readonly upPrice: readonly number[];
  /** Cost per MW below the baseline is −downPrice (a positive down-price rewards going below); per step. */
  readonly downPrice: readonly number[];
  /** Indices of the devices whose power counts; null = the whole site (inflexible power included). */
  readonly devices: readonly number[] | null;
}

/** A demand charge: price per MW by which the peak over each run of equal thresholds exceeds the threshold. */
export interface PeakCharge {
  readonly thresholdMw: readonly number[];
  /** Currency per MW of the peak excess, per step. */
  readonly price: readonly number[];
}

/** Optional presentation hints used only to phrase messages in the user's own terms. */
export interface ProblemDisplay {
  /** Unit the user gave SoC values in; power is then shown in the matching kW / MW. */
  readonly socUnit?: 'MWh' | 'kWh';
  /** Schedule start as ISO 8601 with offset; messages show instants in that offset. */
  readonly startIso?: string;
}

/** The whole scheduling problem: devices scheduled together behind one site connection. */
export interface StorageProblem {
  /** Number of steps T. */
  readonly stepCount: number;
  /** Step length Δ in hours (0.25 for 15 minutes). */
  readonly stepHours: number;
  /** Flexible storage devices, scheduled jointly. */
  readonly devices: readonly StorageDevice[];
  /** Summed power of all inflexible devices per step (MW, consumption positive). */
  readonly inflexiblePowerMw: readonly number[];
  /** Site consumption limit per step (MW, ≥ 0); null (whole or per step) = unbounded. */
  readonly siteConsumptionCapacityMw: OptionalSeries | null;
  /** Site production limit per step (MW, ≥ 0); null (whole or per step) = unbounded. */
  readonly siteProductionCapacityMw: OptionalSeries | null;
  /** Price of consumed energy per step (currency/MWh). */
  readonly consumptionPrice: readonly number[];
  /** Price paid for produced energy per step (currency/MWh); null = the consumption price. */
  readonly productionPrice: readonly number[] | null;
  /** Among equal-cost schedules, prefer a fuller storage sooner (charge early, discharge late). */
  readonly preferChargingSooner: boolean;
  /**
   * The tie-breaker falls linearly from its full weight at the first step to zero at the last
   * (FlexMeasures 1.0's `prefer-curtailing-later`), so that of equal-cost schedules the one that
   * holds back (curtails) later wins; absent = a constant weight.
   */
  readonly preferCurtailingLater?: boolean;
  /** Hard site limit in both directions while a site capacity is soft (MW); null = unbounded. */
  readonly sitePowerCapacityMw?: OptionalSeries | null;
  /** Breach prices (currency/MW, see {@link DeviceBreachPrices}) making the site capacities soft. */
  readonly siteBreach?: { readonly consumption?: readonly number[]; readonly production?: readonly number[] };
  /** Demand charges on the site's consumption and production peaks. */
  readonly sitePeakConsumption?: PeakCharge | null;
  readonly sitePeakProduction?: PeakCharge | null;
  /** User commitments of the flex-context. */
  readonly commitments?: readonly FlowCommitment[];
  /** Presentation hints for messages. */
  readonly display?: ProblemDisplay;
}

/**
 * Maps a SoC constraint instant onto the step whose END it is: j = (t − t0)/Δ − 1. An instant
 * between grid points binds the step that ends at or before it (a target at 07:05 is met by
 * 07:00), so that a target is kept early rather than dropped.
 *
 * @param startMs schedule start (epoch ms).
 * @param stepMs step length (ms).
 * @param stepCount number of steps T.
 * @param instantMs instant of the constraint (epoch ms).
 * @returns the step index, or null when no step ends in (start, instant] or the instant lies beyond the end.
 */
export function socStepForInstant(startMs: number, stepMs: number, stepCount: number, instantMs: number): number | null {
  const step = Math.floor((instantMs - startMs) / stepMs) - 1;
  return step >= 0 && instantMs - startMs <= stepCount * stepMs ? step : null;
}

/** A SoC constraint at an instant or over a window (both ends inclusive). */
export type SocConstraintInput =
  { readonly valueMwh: number; readonly atMs: number } | { readonly valueMwh: number; readonly startMs: number; readonly endMs: number };

/**
 * Places SoC constraints (instants or inclusive windows) on the per-step grid.
 * Overlaps are combined with `combine` ("max" for minima, "min" for maxima, "last" for targets).
 *
 * @param startMs schedule start (epoch ms).
 * @param stepMs step length (ms).
 * @param stepCount number of steps T.
 * @param constraints the constraints in the order given by the user.
 * @param combine how to merge two values landing on the same step.
 * @returns a per-step series (null where nothing applies), or null when no constraint lands on the grid.
 */
export function socSeries(
  startMs: number,
  stepMs: number,
  stepCount: number,
  constraints: readonly SocConstraintInput[],
  combine: 'max' | 'min' | 'last',
): (number | null)[] | null {
  const series: (number | null)[] = new Array<number | null>(stepCount).fill(null);
  let placed = false;
  const place = (step: number | null, value: number): void => {
    if (step === null) return;
    const previous = series[step];
    placed = true;
    if (previous === null || combine === 'last') series[step] = value;
    else series[step] = combine === 'max' ? Math.max(previous, value) : Math.min(previous, value);
  };
  for (const c of constraints) {
    if ('atMs' in c) {
      place(socStepForInstant(startMs, stepMs, stepCount, c.atMs), c.valueMwh);
      continue;
    }
    // Every tick inside the window, start and end included.
    const firstTick = startMs + Math.ceil((c.startMs - startMs) / stepMs) * stepMs;
    for (let t = firstTick; t <= c.endMs; t += stepMs) {
      place(socStepForInstant(startMs, stepMs, stepCount, t), c.valueMwh);
    }
  }
  return placed ? series : null;
}

/**
 * Checks the structural invariants of a problem (array lengths, finite numbers, signs).
 * Conflicting but well-formed constraints are left to `explainInfeasibility`.
 *
 * @param problem the problem to check.
 * @returns a list of problems with the input; empty when it is well formed.
 */
export function structuralErrors(problem: StorageProblem): string[] {
  const errors: string[] = [];
  const T = problem.stepCount;
  if (!Number.isInteger(T) || T < 1) errors.push(`stepCount must be a positive integer, got ${T}`);
  if (!(problem.stepHours > 0) || !Number.isFinite(problem.stepHours)) {
    errors.push(`stepHours must be a positive number, got ${problem.stepHours}`);
  }
  if (problem.devices.length === 0) errors.push('at least one storage device is required');
  if (errors.length > 0) return errors;

  const series = (label: string, values: readonly number[] | null, check: (v: number) => boolean, rule: string): void => {
    if (values === null) return;
    if (values.length !== T) {
      errors.push(`${label} has ${values.length} values, expected ${T}`);
      return;
    }
    const bad = values.findIndex((v) => !Number.isFinite(v) || !check(v));
    if (bad >= 0) errors.push(`${label}[${bad}] = ${values[bad]} must be ${rule}`);
  };
  const optional = (label: string, values: OptionalSeries | null, check: (v: number) => boolean, rule: string): void => {
    if (values === null) return;
    if (values.length !== T) {
      errors.push(`${label} has ${values.length} values, expected ${T}`);
      return;
    }
    const bad = values.findIndex((v) => v !== null && (!Number.isFinite(v) || !check(v)));
    if (bad >= 0) errors.push(`${label}[${bad}] = ${values[bad]} must be ${rule}`);
  };
  const any = (): boolean => true;
  const nonNegative = (v: number): boolean => v >= 0;
  const positive = (v: number): boolean => v > 0;

  series('inflexiblePowerMw', problem.inflexiblePowerMw, any, 'finite');
  series('consumptionPrice', problem.consumptionPrice, any, 'finite');
  series('productionPrice', problem.productionPrice, any, 'finite');
  optional('siteConsumptionCapacityMw', problem.siteConsumptionCapacityMw, nonNegative, 'finite and ≥ 0');
  optional('siteProductionCapacityMw', problem.siteProductionCapacityMw, nonNegative, 'finite and ≥ 0');

  problem.devices.forEach((device, d) => {
    const p = `devices[${d}].`;
    for (const [key, value] of [
      ['socAtStartMwh', device.socAtStartMwh],
      ['socMinMwh', device.socMinMwh],
      ['socMaxMwh', device.socMaxMwh],
    ] as const) {
      if (!Number.isFinite(value)) errors.push(`${p}${key} must be finite, got ${value}`);
    }
    optional(`${p}socMinimaMwh`, device.socMinimaMwh, any, 'finite');
    optional(`${p}socMaximaMwh`, device.socMaximaMwh, any, 'finite');
    optional(`${p}socTargetsMwh`, device.socTargetsMwh, any, 'finite');
    series(`${p}consumptionCapacityMw`, device.consumptionCapacityMw, nonNegative, 'finite and ≥ 0');
    series(`${p}productionCapacityMw`, device.productionCapacityMw, nonNegative, 'finite and ≥ 0');
    series(`${p}chargingEfficiency`, device.chargingEfficiency, positive, '> 0');
    series(`${p}dischargingEfficiency`, device.dischargingEfficiency, positive, '> 0');
    series(`${p}storageEfficiency`, device.storageEfficiency, (v) => v > 0 && v <= 1, 'in (0, 1]');
    series(`${p}stockDeltaMw`, device.stockDeltaMw, any, 'finite');
  });
  return errors;
}

/**
 * The effective production price series (the consumption price where none is given).
 *
 * @param problem the problem.
 * @returns production prices per step (currency/MWh).
 */
export function productionPrices(problem: Pick<StorageProblem, 'consumptionPrice' | 'productionPrice'>): readonly number[] {
  return problem.productionPrice ?? problem.consumptionPrice;
}

/**
 * Site limits per step with nulls turned into infinities, to keep arithmetic simple.
 *
 * @param problem the problem.
 * @param step the step index.
 * @returns the site consumption and production limits (MW, possibly Infinity).
 */
export function siteLimitsMw(problem: StorageProblem, step: number): { consumptionMw: number; productionMw: number } {
  return {
    consumptionMw: problem.siteConsumptionCapacityMw?.[step] ?? Infinity,
    productionMw: problem.siteProductionCapacityMw?.[step] ?? Infinity,
  };
}

/**
 * Whether a device capacity is soft: it has a breach price and is not zero over the whole window.
 * A capacity that is zero throughout says the device cannot flow that way at all (a one-way
 * charger never discharges), so it stays strictly zero, as in FlexMeasures 1.0.
 */
export const softCapacity = (capacity: readonly number[], price: readonly number[] | undefined): price is readonly number[] =>
  price !== undefined && capacity.some((v) => v > 0);

/** Whether a device's soc-targets are soft: a target is two-sided, so it needs both SoC breach prices. */
export const softTargets = (device: StorageDevice): boolean => Boolean(device.breach?.socMinima && device.breach.socMaxima);

/**
 * The problem with its soft constraints left out: soft SoC constraints dropped, soft capacities
 * replaced by the hard power limits behind them. Feasibility is decided on this part alone.
 *
 * @param problem the problem.
 * @returns the hard part (the problem itself when nothing is soft).
 */
export function hardPart(problem: StorageProblem): StorageProblem {
  const siteSoft = problem.siteBreach;
  const anySoft = problem.devices.some((d) => d.breach) || siteSoft?.consumption || siteSoft?.production;
  if (!anySoft) return problem;
  const T = problem.stepCount;
  const power = (d: StorageDevice): readonly number[] => d.breach?.powerCapacityMw ?? new Array<number>(T).fill(Infinity);
  return {
    ...problem,
    devices: problem.devices.map((d) => ({
      ...d,
      socMinimaMwh: d.breach?.socMinima ? null : d.socMinimaMwh,
      socMaximaMwh: d.breach?.socMaxima ? null : d.socMaximaMwh,
      socTargetsMwh: softTargets(d) ? null : d.socTargetsMwh,
      consumptionCapacityMw: softCapacity(d.consumptionCapacityMw, d.breach?.consumption) ? power(d) : d.consumptionCapacityMw,
      productionCapacityMw: softCapacity(d.productionCapacityMw, d.breach?.production) ? power(d) : d.productionCapacityMw,
      breach: undefined,
    })),
    siteConsumptionCapacityMw: siteSoft?.consumption ? (problem.sitePowerCapacityMw ?? null) : problem.siteConsumptionCapacityMw,
    siteProductionCapacityMw: siteSoft?.production ? (problem.sitePowerCapacityMw ?? null) : problem.siteProductionCapacityMw,
    siteBreach: undefined,
  };
}

/**
 * Structural checks of the soft parts: series lengths, non-negative breach prices, finite hard
 * power limits behind soft device capacities, and convex commitments (up-price ≥ down-price, so
 * the LP needs no binaries for them).
 *
 * @param problem the problem.
 * @returns a list of problems; empty when well formed.
 */
export function softStructuralErrors(problem: StorageProblem): string[] {
  const T = problem.stepCount;
  const errors: string[] = [];
  const prices = (label: string, values: readonly number[] | undefined): void => {
    if (values === undefined) return;
    if (values.length !== T) errors.push(`${label} has ${values.length} values, expected ${T}`);
    else if (values.some((v) => !Number.isFinite(v) || v < 0)) errors.push(`${label} must be finite and ≥ 0`);
  };
  problem.devices.forEach((d, i) => {
    const b = d.breach;
    if (!b) return;
    prices(`devices[${i}].breach.socMinima`, b.socMinima);
    prices(`devices[${i}].breach.socMaxima`, b.socMaxima);
    prices(`devices[${i}].breach.consumption`, b.consumption);
    prices(`devices[${i}].breach.production`, b.production);
    if ((b.consumption || b.production) && b.powerCapacityMw?.length !== T) {
      errors.push(`devices[${i}].breach.powerCapacityMw is needed (${T} values) when a device capacity is soft`);
    }
  });
  prices('siteBreach.consumption', problem.siteBreach?.consumption);
  prices('siteBreach.production', problem.siteBreach?.production);
  for (const [label, peak] of [
    ['sitePeakConsumption', problem.sitePeakConsumption],
    ['sitePeakProduction', problem.sitePeakProduction],
  ] as const) {
    if (!peak) continue;
    prices(`${label}.price`, peak.price);
    if (peak.thresholdMw.length !== T) errors.push(`${label}.thresholdMw has ${peak.thresholdMw.length} values, expected ${T}`);
  }
  for (const c of problem.commitments ?? []) {
    if (c.baselineMw.length !== T || c.upPrice.length !== T || c.downPrice.length !== T) {
      errors.push(`commitment "${c.name}" needs ${T} values per series`);
      continue;
    }
    const j = c.upPrice.findIndex((up, k) => c.baselineMw[k] !== null && !(up >= c.downPrice[k]));
    if (j >= 0) errors.push(`commitment "${c.name}": the up-price must not be below the down-price (step ${j})`);
    if (c.devices?.some((d) => !(d >= 0 && d < problem.devices.length))) errors.push(`commitment "${c.name}" names an unknown device`);
  }
  return errors;
}
