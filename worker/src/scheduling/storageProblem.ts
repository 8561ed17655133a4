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
  /** Presentation hints for messages. */
  readonly display?: ProblemDisplay;
}

/**
 * Maps a SoC constraint instant onto the step whose END it is: j = (t − t0)/Δ − 1.
 *
 * @param startMs schedule start (epoch ms).
 * @param stepMs step length (ms).
 * @param stepCount number of steps T.
 * @param instantMs instant of the constraint (epoch ms).
 * @returns the step index, or null when the instant is the start itself, outside (start, end], or off the step grid.
 */
export function socStepForInstant(startMs: number, stepMs: number, stepCount: number, instantMs: number): number | null {
  const offsetMs = instantMs - startMs;
  if (offsetMs <= 0 || offsetMs % stepMs !== 0) return null;
  const step = offsetMs / stepMs - 1;
  return step < stepCount ? step : null;
}

/** A SoC constraint at an instant or over a window (both ends inclusive). */
export type SocConstraintInput =
  | { readonly valueMwh: number; readonly atMs: number }
  | { readonly valueMwh: number; readonly startMs: number; readonly endMs: number };

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
export function productionPrices(problem: StorageProblem): readonly number[] {
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
