import highsPackage, { type Highs, type ModelData, type ModelStatusCode } from 'highs';
import type { LpModel } from '../lpModel.ts';
import type { LpOutcome, LpSolver, SolveLimits } from './lpSolver.ts';

// The package ships one declaration file, which TypeScript reads as CommonJS and so types the
// default import as the module object; the ESM build Node loads exports the loader itself.
const loadHighs = typeof highsPackage === 'function' ? highsPackage : highsPackage.default;

// One WASM instance per thread: loading costs ~60 ms and the memory it grows is kept anyway.
let runtime: Promise<Highs> | undefined;

/**
 * The HiGHS runtime of this thread, loaded on first use.
 *
 * @returns the loaded runtime.
 */
export function highsRuntime(): Promise<Highs> {
  runtime ??= loadHighs();
  return runtime;
}

/**
 * Converts a model into HiGHS' typed-array form. The typed-array path is used instead of LP text
 * because HiGHS' LP reader silently misreads ranged rows.
 *
 * @param model the model.
 * @returns HiGHS model data (row-wise matrix).
 */
export function toHighsModel(model: LpModel): ModelData {
  return {
    numCols: model.columnCount,
    numRows: model.rowCount,
    offset: model.objectiveConstant,
    colCost: model.columnCost,
    colLower: model.columnLower,
    colUpper: model.columnUpper,
    rowLower: model.rowLower,
    rowUpper: model.rowUpper,
    matrix: {
      format: 'csr',
      numRows: model.rowCount,
      numCols: model.columnCount,
      starts: model.rowStarts,
      indices: model.rowColumns,
      values: model.rowValues,
    },
    integrality: Int32Array.from(model.columnInteger),
  };
}

const STATUS_TEXT: Record<ModelStatusCode, string> = {
  0: 'not set',
  1: 'load error',
  2: 'invalid model',
  3: 'presolve error',
  4: 'solve error',
  5: 'postsolve error',
  6: 'empty model',
  7: 'optimal',
  8: 'infeasible',
  9: 'infeasible or unbounded',
  10: 'unbounded',
  11: 'objective bound reached',
  12: 'objective target reached',
  13: 'time limit reached',
  14: 'iteration limit reached',
  15: 'unknown',
  16: 'solution limit reached',
  17: 'interrupted',
};

/**
 * MIP options for our models. Their binaries sit on the few steps where the LP burns energy (see
 * solveStorage.ts), and the LP relaxation with root cuts nearly closes the gap, so branch and
 * bound finds the optimum within a handful of nodes. HiGHS' primal heuristics (feasibility jump,
 * RINS/RENS sub-MIPs, reduced-cost fixing) and symmetry detection then cost seconds on a
 * 2520-step model without finding anything the tree does not: on the soft bench (26 binaries,
 * 30k rows) one MILP took 8.9 s with the defaults and 3.1 s without them, same optimum within the 1e-6 gap; the
 * single-price MILP with a binary on every one of 672 steps went from 22 s to 15 s.
 */
const LEAN_MIP = {
  mip_heuristic_effort: 0,
  mip_heuristic_run_feasibility_jump: false,
  mip_heuristic_run_rins: false,
  mip_heuristic_run_rens: false,
  mip_heuristic_run_root_reduced_cost: false,
  mip_detect_symmetry: false,
} as const;

/** HiGHS (WebAssembly build from npm `highs`) fed with CSR typed arrays. */
export const highsSolver: LpSolver = {
  name: 'highs',
  async solve(model: LpModel, limits: SolveLimits): Promise<LpOutcome> {
    const highs = await highsRuntime();
    const isMip = model.columnInteger.includes(1);
    return highs.withModel(toHighsModel(model), (m): LpOutcome => {
      m.options.set({
        output_flag: false,
        time_limit: Math.max(limits.timeLimitSeconds, 0.001),
        mip_rel_gap: limits.mipRelGap,
        // With the default 1e-6, a "zero" binary would still let capacity × 1e-6 charge and discharge at once.
        mip_feasibility_tolerance: 1e-9,
        ...(isMip && LEAN_MIP),
      });
      const started = performance.now();
      const { modelStatus } = m.run();
      const solveMs = performance.now() - started;
      const reason = `HiGHS: ${STATUS_TEXT[modelStatus]}`;
      const status = highs.constants.modelStatus;
      if (modelStatus === status.optimal) {
        // Guard against a non-finite gap info value rather than pass it on to JSON.
        const gap = isMip ? Number(m.info.get('mip_gap')) : Number.NaN;
        return {
          status: 'optimal',
          x: m.getSolution().colValue,
          objective: m.getObjectiveValue(),
          mipGap: isMip ? (Number.isFinite(gap) ? gap : 0) : null,
          solveMs,
        };
      }
      // Our models bound every column, so "infeasible or unbounded" can only mean infeasible.
      if (modelStatus === status.infeasible || modelStatus === status.unboundedOrInfeasible) {
        return { status: 'infeasible', reason, solveMs };
      }
      if (modelStatus === status.unbounded) return { status: 'unbounded', reason, solveMs };
      const limitReached: readonly ModelStatusCode[] = [
        status.objectiveBound,
        status.objectiveTarget,
        status.timeLimit,
        status.iterationLimit,
        status.solutionLimit,
        status.interrupted,
      ];
      return { status: limitReached.includes(modelStatus) ? 'limit' : 'error', reason, solveMs };
    });
  },
};
