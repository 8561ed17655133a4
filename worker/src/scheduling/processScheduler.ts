/**
 * Scheduler for processes with a fixed power and duration (FlexMeasures' process flex-model):
 * no optimisation solver is needed, only a scan over the allowed positions.
 */

/** INFLEXIBLE runs as early as allowed, SHIFTABLE runs as one block, BREAKABLE runs on any steps. */
export type ProcessType = 'INFLEXIBLE' | 'SHIFTABLE' | 'BREAKABLE';

/** The input of the process scheduler, resolved to the step grid by the server. */
export interface ProcessProblem {
  readonly processType: ProcessType;
  /** Consumption price per step (currency/MWh); its length is the number of steps. */
  readonly consumptionPrice: readonly number[];
  /** Steps in which the process may not run (time restrictions), one flag per step. */
  readonly forbidden: readonly boolean[];
  /** Nominal power while running (MW, consumption positive). */
  readonly powerMw: number;
  /** Number of steps the process runs. */
  readonly durationSteps: number;
  /** Step length (h), for the cost. */
  readonly stepHours: number;
  /** MIN picks the cheapest steps, MAX the most expensive ones (default MIN). */
  readonly optimizationSense?: 'MIN' | 'MAX';
}

/** The schedule of a process. */
export interface ProcessSchedule {
  /** Power per step (MW, consumption positive). */
  readonly powerMw: number[];
  /** Energy cost of the schedule (currency). */
  readonly totalCost: number;
}

/**
 * Places a process on the step grid.
 *
 * - INFLEXIBLE starts at the first step that is not forbidden and runs without interruption
 *   (time restrictions only delay its start; a run reaching past the horizon is cut off there).
 * - SHIFTABLE runs as one contiguous block with no forbidden step inside it, at the position with
 *   the lowest (MIN) or highest (MAX) summed price; ties go to the earliest position.
 * - BREAKABLE runs on the cheapest (MIN) or dearest (MAX) allowed steps in any order; ties go to
 *   the earliest steps.
 *
 * @param problem the process and its prices.
 * @returns power per step and the cost.
 * @throws Error when the input is malformed or the process cannot be placed.
 */
export function scheduleProcess(problem: ProcessProblem): ProcessSchedule {
  const T = problem.consumptionPrice.length;
  const n = problem.durationSteps;
  if (problem.forbidden.length !== T) throw new Error(`forbidden has ${problem.forbidden.length} flags for ${T} price steps`);
  if (!Number.isInteger(n) || n < 0) throw new Error(`durationSteps must be a non-negative integer, got ${n}`);
  if (!Number.isFinite(problem.powerMw)) throw new Error(`powerMw must be finite, got ${problem.powerMw}`);
  if (problem.consumptionPrice.some((p) => !Number.isFinite(p))) throw new Error('consumptionPrice must contain finite numbers only');

  // Compare "badness" so MIN and MAX share one scan: lower is better.
  const sign = problem.optimizationSense === 'MAX' ? -1 : 1;
  const running = new Array<boolean>(T).fill(false);
  if (n > 0) {
    if (problem.processType === 'INFLEXIBLE') {
      const first = problem.forbidden.indexOf(false);
      if (first < 0) throw new Error('the process cannot start: every step is excluded by the time restrictions');
      for (let j = first; j < Math.min(T, first + n); j++) running[j] = true;
    } else if (problem.processType === 'SHIFTABLE') {
      const start = bestBlockStart(problem, sign);
      for (let j = start; j < start + n; j++) running[j] = true;
    } else {
      const allowed = Array.from(problem.forbidden.keys()).filter((j) => !problem.forbidden[j]);
      if (allowed.length < n)
        throw new Error(`the process needs ${n} steps but only ${allowed.length} are allowed by the time restrictions`);
      // Stable sort keeps earlier steps first among equal prices.
      allowed.sort((a, b) => sign * (problem.consumptionPrice[a] - problem.consumptionPrice[b]));
      for (const j of allowed.slice(0, n)) running[j] = true;
    }
  }
  const powerMw = running.map((on) => (on ? problem.powerMw : 0));
  const totalCost = powerMw.reduce((sum, p, j) => sum + p * problem.consumptionPrice[j] * problem.stepHours, 0);
  return { powerMw, totalCost };
}

/** Earliest start of the best contiguous block without forbidden steps. */
function bestBlockStart(problem: ProcessProblem, sign: number): number {
  const T = problem.consumptionPrice.length;
  const n = problem.durationSteps;
  let best = -1;
  let bestScore = 0;
  let windowPrice = 0;
  let windowForbidden = 0;
  // Sliding window over [j − n + 1, j]: price sum and forbidden count in O(T).
  for (let j = 0; j < T; j++) {
    windowPrice += problem.consumptionPrice[j];
    windowForbidden += problem.forbidden[j] ? 1 : 0;
    if (j >= n) {
      windowPrice -= problem.consumptionPrice[j - n];
      windowForbidden -= problem.forbidden[j - n] ? 1 : 0;
    }
    if (j < n - 1 || windowForbidden > 0) continue;
    const score = sign * windowPrice;
    // Strictly better only (with a little slack for summation noise), so ties keep the earliest start.
    if (best < 0 || score < bestScore - 1e-9 * Math.max(1, Math.abs(bestScore))) {
      bestScore = score;
      best = j - n + 1;
    }
  }
  if (best < 0) throw new Error(`no run of ${n} consecutive allowed steps fits in the ${T} steps of the schedule`);
  return best;
}
