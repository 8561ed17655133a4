import { explainInfeasibility, explainSolverInfeasibility } from './explainInfeasibility.ts';
import { solveWithKeptRows } from './keptRows.ts';
import { buildStorageModel, twoWaySteps, type StorageModelIndex } from './lpModel.ts';
import { completeSchedule, type DeviceSchedule, type StorageSchedule } from './scheduleResult.ts';
import { highsSolver } from './solvers/highs.ts';
import type { LpSolver } from './solvers/lpSolver.ts';
import { hardPart, softStructuralErrors, structuralErrors, type StorageProblem } from './storageProblem.ts';
import { objectiveValue, solutionViolations } from './verifySolution.ts';

/** Tuning of {@link solveStorage}. */
export interface SolveStorageOptions {
  /** Solver adapter; HiGHS by default. */
  readonly solver?: LpSolver;
  /** Wall-clock budget for all solves together (s); default 60. */
  readonly timeLimitSeconds?: number;
  /** Relative MIP gap; default 1e-6. */
  readonly mipRelGap?: number;
  /** Most solves before giving up; the last one puts binaries on every two-way step. Default 6. */
  readonly maxIterations?: number;
}

/** Why a schedule could not be produced. */
export type SchedulingErrorKind = 'invalid-problem' | 'infeasible' | 'solver' | 'verification';

const HEADLINES: Record<SchedulingErrorKind, string> = {
  'invalid-problem': 'The scheduling problem is malformed',
  infeasible: 'The input data yields an infeasible problem',
  solver: 'The solver did not find a proven optimum',
  verification: 'The solver returned a solution that violates the model',
};

/** A failed schedule, with every reason in the message so it survives structured cloning. */
export class SchedulingError extends Error {
  readonly kind: SchedulingErrorKind;
  readonly reasons: readonly string[];

  constructor(kind: SchedulingErrorKind, reasons: readonly string[]) {
    super(`${HEADLINES[kind]}:\n${reasons.map((reason) => `- ${reason}`).join('\n')}`);
    this.name = 'SchedulingError';
    this.kind = kind;
    this.reasons = reasons;
  }
}

/** Charge and discharge both above this (MW) in one step counts as simultaneous. */
const SIMULTANEOUS_MW = 1e-9;

/**
 * Schedules storage devices at least cost.
 *
 * Method: reject malformed or visibly infeasible problems with plain-language reasons; solve the
 * LP (no binaries); wherever a device charges and discharges in the same step (the LP "burns"
 * energy through losses when prices are negative), add a sign binary on those steps and their
 * neighbours and solve again, until no such step remains; each of these solves leaves out the rows
 * the previous solution keeps clear of (see keptRows.ts). The final solution is checked against every bound and
 * row of the model before it is returned.
 *
 * @param problem the problem.
 * @param options solver, limits and iteration budget.
 * @returns the schedule with costs and solver statistics.
 * @throws SchedulingError when the problem is malformed or infeasible, the solver fails, or its
 *   solution does not verify.
 */
export async function solveStorage(problem: StorageProblem, options: SolveStorageOptions = {}): Promise<StorageSchedule> {
  const errors = [...structuralErrors(problem), ...softStructuralErrors(problem)];
  if (errors.length > 0) throw new SchedulingError('invalid-problem', errors);
  // Only hard constraints can make a problem infeasible; soft ones are breached at their price.
  const hard = hardPart(problem);
  const conflicts = explainInfeasibility(hard);
  if (conflicts.length > 0) throw new SchedulingError('infeasible', conflicts);

  const solver = options.solver ?? highsSolver;
  const timeLimitSeconds = options.timeLimitSeconds ?? 60;
  const mipRelGap = options.mipRelGap ?? 1e-6;
  const maxIterations = Math.max(1, options.maxIterations ?? 6);
  const deadline = performance.now() + timeLimitSeconds * 1000;
  const remainingSeconds = (): number => (deadline - performance.now()) / 1000;
  const binarySteps = problem.devices.map(() => new Set<number>());
  let buildMs = 0;
  let solveMs = 0;
  // The previous solve's solution: later builds share its columns, so it tells which rows matter.
  let seed: Float64Array | null = null;

  for (let iteration = 1; ; iteration++) {
    const buildStarted = performance.now();
    const { model, index } = buildStorageModel(problem, binarySteps);
    buildMs += performance.now() - buildStarted;
    if (remainingSeconds() <= 0) {
      throw new SchedulingError('solver', [`time limit of ${timeLimitSeconds} s reached after ${iteration - 1} solves`]);
    }
    const outcome = await solveWithKeptRows(solver, model, seed, () => ({ timeLimitSeconds: remainingSeconds(), mipRelGap }));
    solveMs += outcome.solveMs;
    if (outcome.status === 'infeasible') {
      throw new SchedulingError('infeasible', await explainSolverInfeasibility(hard, (p) => lpIsFeasible(p, solver, remainingSeconds())));
    }
    if (outcome.status !== 'optimal') throw new SchedulingError('solver', [outcome.reason]);

    const simultaneous = simultaneousSteps(index, outcome.x);
    if (simultaneous.some((steps) => steps.length > 0)) {
      seed = outcome.x;
      if (iteration >= maxIterations) {
        throw new SchedulingError('solver', [`devices still charge and discharge in the same step after ${iteration} solves`]);
      }
      simultaneous.forEach((steps, d) => {
        // The last allowed solve gets binaries wherever a device can go both ways, so it cannot fail this way.
        const twoWay = twoWaySteps(hard, d);
        const add = iteration === maxIterations - 1 ? twoWay : withNeighbours(steps, twoWay);
        for (const j of add) binarySteps[d].add(j);
      });
      continue;
    }

    const verifyStarted = performance.now();
    const violations = solutionViolations(model, outcome.x);
    const recomputed = objectiveValue(model, outcome.x);
    if (Math.abs(recomputed - outcome.objective) > 1e-6 * Math.max(1, Math.abs(recomputed))) {
      violations.push(`objective reported as ${outcome.objective} but the solution gives ${recomputed}`);
    }
    const verifyMs = performance.now() - verifyStarted;
    if (violations.length > 0) throw new SchedulingError('verification', violations.slice(0, 20));

    const commitmentCosts = Object.fromEntries(
      index.priced.map((p) => [p.name, p.terms.reduce((sum, [c, cost]) => sum + cost * outcome.x[c], 0)]),
    );
    return completeSchedule(
      problem,
      deviceSchedules(problem, index, outcome.x),
      {
        solver: solver.name,
        iterations: iteration,
        binaries: index.binaryCount,
        mipGap: outcome.mipGap,
        objective: outcome.objective,
        columns: model.columnCount,
        rows: model.rowCount,
        buildMs,
        solveMs,
        verifyMs,
      },
      commitmentCosts,
    );
  }
}

/**
 * Steps on either side of a burning step that get a sign binary along with it. Forbidding the burn
 * on one step mostly moves it to the step next to it (the energy still has to go somewhere), and
 * each round costs a whole MILP: on the soft 2520-step bench the burn crept two steps outwards
 * over three MILPs (10, 12, 14 binaries, ~5 s each); two neighbours each side settle it in one.
 */
const NEIGHBOUR_STEPS = 2;

/** The given steps and up to {@link NEIGHBOUR_STEPS} steps either side of each, kept to the allowed ones. */
function withNeighbours(steps: readonly number[], allowed: readonly number[]): number[] {
  const allowedSet = new Set(allowed);
  const out = new Set<number>();
  for (const j of steps) {
    for (let k = j - NEIGHBOUR_STEPS; k <= j + NEIGHBOUR_STEPS; k++) if (allowedSet.has(k)) out.add(k);
  }
  return [...out];
}

/** Per device, the steps without a sign binary where the solution charges and discharges at once. */
function simultaneousSteps(index: StorageModelIndex, x: Float64Array): number[][] {
  return index.charge.map((charge, d) =>
    Array.from(charge.keys()).filter(
      (j) => index.sign[d][j] < 0 && x[charge[j]] > SIMULTANEOUS_MW && x[index.discharge[d][j]] > SIMULTANEOUS_MW,
    ),
  );
}

function deviceSchedules(problem: StorageProblem, index: StorageModelIndex, x: Float64Array): DeviceSchedule[] {
  return problem.devices.map((device, d) => ({
    powerMw: Array.from(index.charge[d], (c, j) => x[c] - x[index.discharge[d][j]]),
    socMwh: [device.socAtStartMwh, ...Array.from(index.stock[d], (s) => x[s])],
  }));
}

/** Whether the LP relaxation of a problem has any feasible point (used to locate infeasibilities). */
async function lpIsFeasible(problem: StorageProblem, solver: LpSolver, timeLimitSeconds: number): Promise<boolean> {
  const { model } = buildStorageModel(problem);
  const outcome = await solver.solve(model, { timeLimitSeconds: Math.max(1, Math.min(timeLimitSeconds, 10)), mipRelGap: 1 });
  return outcome.status === 'optimal';
}
