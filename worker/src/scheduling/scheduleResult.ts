import { productionPrices, type StorageProblem } from './storageProblem.ts';

/** Schedule of one storage device. */
export interface DeviceSchedule {
  /** Device power per step (MW, consumption/charging positive). */
  readonly powerMw: number[];
  /** SoC at the start followed by the SoC at the end of each step (T + 1 values, MWh). */
  readonly socMwh: number[];
}

/** How the schedule was obtained. */
export interface SolverStats {
  /** "highs", "yalps", "fallback" or a custom scheduler's name. */
  readonly solver: string;
  /** Number of solves (1 = the LP was already free of simultaneous charging and discharging). */
  readonly iterations: number;
  /** Binary columns in the final model. */
  readonly binaries: number;
  /** Final relative MIP gap, or null when the final model was an LP. */
  readonly mipGap: number | null;
  /** Objective of the final model: energy cost plus tie-breaker (currency). */
  readonly objective: number | null;
  /** Columns and rows of the final model. */
  readonly columns: number;
  readonly rows: number;
  /** Time spent building models, inside the solver, and verifying the solution (ms). */
  readonly buildMs: number;
  readonly solveMs: number;
  readonly verifyMs: number;
}

/** A storage schedule: what `solveStorage`, `fallbackSchedule` and custom schedulers return. */
export interface StorageSchedule {
  /** One entry per device, in problem order. */
  readonly devices: DeviceSchedule[];
  /** Site power per step: devices plus inflexible power (MW, consumption positive). */
  readonly sitePowerMw: number[];
  /** Energy cost per step (currency; negative = revenue). */
  readonly costPerStep: number[];
  /** Sum of the cost per step (currency). */
  readonly totalCost: number;
  /**
   * Cost per commitment (currency), by name: "energy" (= totalCost) and, when the problem has
   * them, each soft constraint's breach cost, the demand charges and the user's commitments.
   */
  readonly commitmentCosts?: Readonly<Record<string, number>>;
  readonly stats: SolverStats;
}

/**
 * Energy cost of one step for a given site power: consumption bought at the consumption price,
 * production sold at the production price.
 *
 * @param problem the problem.
 * @param step the step index.
 * @param sitePowerMw site power during the step (MW, consumption positive).
 * @returns the cost in currency.
 */
export function stepCost(
  problem: Pick<StorageProblem, 'consumptionPrice' | 'productionPrice' | 'stepHours'>,
  step: number,
  sitePowerMw: number,
): number {
  const price = sitePowerMw >= 0 ? problem.consumptionPrice[step] : productionPrices(problem)[step];
  return price * sitePowerMw * problem.stepHours;
}

/**
 * Completes device schedules with site power and costs.
 *
 * @param problem the problem.
 * @param devices power and SoC per device.
 * @param stats how the schedule was obtained.
 * @param otherCosts costs of soft constraints and commitments, by name.
 * @returns the full schedule.
 */
export function completeSchedule(
  problem: StorageProblem,
  devices: DeviceSchedule[],
  stats: SolverStats,
  otherCosts: Readonly<Record<string, number>> = {},
): StorageSchedule {
  const sitePowerMw = problem.inflexiblePowerMw.map((inflexible, j) =>
    devices.reduce((sum, device) => sum + device.powerMw[j], inflexible),
  );
  const costPerStep = sitePowerMw.map((power, j) => stepCost(problem, j, power));
  const totalCost = costPerStep.reduce((a, b) => a + b, 0);
  return { devices, sitePowerMw, costPerStep, totalCost, commitmentCosts: { energy: totalCost, ...otherCosts }, stats };
}
