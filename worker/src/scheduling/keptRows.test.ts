import { describe, expect, it } from 'vitest';
import { solveWithKeptRows } from './keptRows.ts';
import { LpBuilder, type LpModel } from './lpModel.ts';
import { highsSolver } from './solvers/highs.ts';
import type { LpSolver } from './solvers/lpSolver.ts';

/** HiGHS, recording the row count of every model it is given. */
function countingSolver(): { solver: LpSolver; rowCounts: number[] } {
  const rowCounts: number[] = [];
  return {
    rowCounts,
    solver: {
      name: 'counting',
      solve(model, limits) {
        rowCounts.push(model.rowCount);
        return highsSolver.solve(model, limits);
      },
    },
  };
}

const limits = () => ({ timeLimitSeconds: 10, mipRelGap: 1e-6 });

describe('solveWithKeptRows', () => {
  // Maximise x + y subject to x + y ≤ 1, x ≤ 0.4 and x − y = 0.2: x = 0.4, y = 0.2 (the sum row stays slack).
  function model(): LpModel {
    const lp = new LpBuilder();
    const x = lp.addColumn('x', 0, 10, -1);
    const y = lp.addColumn('y', 0, 10, -1);
    lp.addRow('sum', -Infinity, 1, [
      [x, 1],
      [y, 1],
    ]);
    lp.addRow('x cap', -Infinity, 0.4, [[x, 1]]);
    lp.addRow('difference', 0.2, 0.2, [
      [x, 1],
      [y, -1],
    ]);
    return lp.finish();
  }

  it('solves the whole model without a seed', async () => {
    const { solver, rowCounts } = countingSolver();
    const outcome = await solveWithKeptRows(solver, model(), null, limits);
    expect(outcome.status === 'optimal' && outcome.objective).toBeCloseTo(-0.6, 9);
    expect(rowCounts).toEqual([3]);
  });

  it('leaves out rows the seed keeps clear of and keeps the ones it touches', async () => {
    const { solver, rowCounts } = countingSolver();
    // At the seed the x cap binds and the sum row is slack: only the sum row is left out.
    const outcome = await solveWithKeptRows(solver, model(), Float64Array.from([0.4, 0.2]), limits);
    expect(outcome.status === 'optimal' && outcome.objective).toBeCloseTo(-0.6, 9);
    expect(rowCounts).toEqual([2]);
  });

  it('puts back a left-out row the relaxation violates and solves again', async () => {
    const { solver, rowCounts } = countingSolver();
    // At the seed both inequalities are slack; without them x = y + 0.2 = 10 violates both.
    const outcome = await solveWithKeptRows(solver, model(), Float64Array.from([0, 0]), limits);
    expect(outcome.status).toBe('optimal');
    if (outcome.status !== 'optimal') return;
    expect(outcome.objective).toBeCloseTo(-0.6, 9);
    expect(Array.from(outcome.x)).toEqual([expect.closeTo(0.4, 9), expect.closeTo(0.2, 9)]);
    expect(rowCounts).toEqual([1, 3]);
  });

  it('solves the whole model when the relaxation has no optimum', async () => {
    const lp = new LpBuilder();
    const x = lp.addColumn('x', 0, Infinity, -1);
    lp.addRow('x cap', -Infinity, 1, [[x, 1]]);
    const { solver, rowCounts } = countingSolver();
    const outcome = await solveWithKeptRows(solver, lp.finish(), Float64Array.from([0]), limits);
    expect(outcome.status === 'optimal' && outcome.objective).toBeCloseTo(-1, 9);
    expect(rowCounts).toEqual([0, 1]);
  });
});
