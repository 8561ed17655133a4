import type { LpModel } from '../lpModel.ts';

/** Limits passed to a solver for one solve. */
export interface SolveLimits {
  /** Wall-clock limit for this solve (s). */
  readonly timeLimitSeconds: number;
  /** Relative MIP gap at which a MILP counts as solved. */
  readonly mipRelGap: number;
}

/** An optimal solution as reported by a solver (to be verified independently by the caller). */
export interface SolvedLp {
  readonly status: 'optimal';
  /** Column values in model order. */
  readonly x: Float64Array;
  /** Objective value including the model's constant. */
  readonly objective: number;
  /** Final relative MIP gap, or null for a pure LP. */
  readonly mipGap: number | null;
  /** Time spent inside the solver (ms). */
  readonly solveMs: number;
}

/** A solve that did not end with a proven optimum. */
export interface FailedLp {
  readonly status: 'infeasible' | 'unbounded' | 'limit' | 'error';
  /** The solver's own words for the outcome. */
  readonly reason: string;
  readonly solveMs: number;
}

/** Outcome of one solve. */
export type LpOutcome = SolvedLp | FailedLp;

/** A solver adapter: turns an {@link LpModel} into the solver's input and reads the answer back. */
export interface LpSolver {
  readonly name: string;
  solve(model: LpModel, limits: SolveLimits): Promise<LpOutcome>;
}
