import { solve, type Constraint, type Options } from 'yalps';
import type { LpModel } from '../lpModel.ts';
import { objectiveValue } from '../verifySolution.ts';
import type { LpOutcome, LpSolver, SolveLimits } from './lpSolver.ts';

/**
 * How a model column x maps onto yalps' non-negative variables y:
 * shift x = lower + y, flip x = upper − y (no lower bound), free x = y⁺ − y⁻.
 */
type Substitution = { kind: 'shift'; offset: number } | { kind: 'flip'; offset: number } | { kind: 'free' };

function substitutionFor(lower: number, upper: number): Substitution {
  if (Number.isFinite(lower)) return { kind: 'shift', offset: lower };
  if (Number.isFinite(upper)) return { kind: 'flip', offset: upper };
  return { kind: 'free' };
}

const OBJECTIVE = -1;

/**
 * yalps (pure TypeScript dense simplex + branch and cut). Only sensible for small models
 * (a few hundred steps); used to cross-check HiGHS. yalps knows only y ≥ 0, so lower bounds are
 * shifted out and remaining upper bounds become rows.
 */
export const yalpsSolver: LpSolver = {
  name: 'yalps',
  async solve(model: LpModel, limits: SolveLimits): Promise<LpOutcome> {
    const n = model.columnCount;
    const substitutions = Array.from({ length: n }, (_, i) => substitutionFor(model.columnLower[i], model.columnUpper[i]));

    // Column-wise coefficients of the original rows, with the row bounds moved by the substituted offsets.
    const coefficients: [number, number][][] = Array.from({ length: n }, () => []);
    const rowShift = new Float64Array(model.rowCount);
    for (let r = 0; r < model.rowCount; r++) {
      for (let k = model.rowStarts[r]; k < model.rowStarts[r + 1]; k++) {
        const i = model.rowColumns[k];
        coefficients[i].push([r, model.rowValues[k]]);
        const sub = substitutions[i];
        if (sub.kind !== 'free') rowShift[r] += model.rowValues[k] * sub.offset;
      }
    }
    const constraints: [number, Constraint][] = [];
    for (let r = 0; r < model.rowCount; r++) {
      const lower = model.rowLower[r] - rowShift[r];
      const upper = model.rowUpper[r] - rowShift[r];
      if (lower === upper) constraints.push([r, { equal: lower }]);
      else if (Number.isFinite(lower) || Number.isFinite(upper)) {
        constraints.push([r, { ...(Number.isFinite(lower) ? { min: lower } : {}), ...(Number.isFinite(upper) ? { max: upper } : {}) }]);
      }
    }

    const variables: [string, [number, number][]][] = [];
    const binaries = new Set<string>();
    const integers = new Set<string>();
    let boundRow = model.rowCount;
    for (let i = 0; i < n; i++) {
      const sub = substitutions[i];
      const cost = model.columnCost[i];
      const sign = sub.kind === 'flip' ? -1 : 1;
      const terms: [number, number][] = coefficients[i].map(([r, a]) => [r, sign * a]);
      terms.push([OBJECTIVE, sign * cost]);
      const lower = model.columnLower[i];
      const upper = model.columnUpper[i];
      if (model.columnInteger[i] === 1 && lower === 0 && upper === 1) binaries.add(`${i}`);
      else {
        if (model.columnInteger[i] === 1) integers.add(`${i}`);
        if (sub.kind === 'shift' && Number.isFinite(upper)) {
          terms.push([boundRow, 1]);
          constraints.push([boundRow++, { max: upper - lower }]);
        }
      }
      variables.push([`${i}`, terms]);
      if (sub.kind === 'free') variables.push([`${i}-`, terms.map(([r, a]) => [r, -a])]);
    }

    const isMip = binaries.size + integers.size > 0;
    const options: Options = {
      maxPivots: 10_000_000,
      tolerance: limits.mipRelGap,
      timeout: limits.timeLimitSeconds * 1000,
      includeZeroVariables: false,
    };
    const started = performance.now();
    const solution = solve({ direction: 'minimize', objective: OBJECTIVE, constraints, variables, binaries, integers }, options);
    const solveMs = performance.now() - started;
    if (solution.status !== 'optimal') {
      const status =
        solution.status === 'infeasible'
          ? 'infeasible'
          : solution.status === 'unbounded'
            ? 'unbounded'
            : solution.status === 'timedout'
              ? 'limit'
              : 'error';
      return { status, reason: `yalps: ${solution.status}`, solveMs };
    }

    const y = new Map(solution.variables);
    const x = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const sub = substitutions[i];
      const value = y.get(`${i}`) ?? 0;
      if (sub.kind === 'shift') x[i] = sub.offset + value;
      else if (sub.kind === 'flip') x[i] = sub.offset - value;
      else x[i] = value - (y.get(`${i}-`) ?? 0);
    }
    // yalps does not report the achieved gap; the requested one bounds it.
    return { status: 'optimal', x, objective: objectiveValue(model, x), mipGap: isMip ? limits.mipRelGap : null, solveMs };
  },
};
