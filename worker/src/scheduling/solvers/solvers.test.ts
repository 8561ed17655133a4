import { describe, expect, it } from 'vitest';
import { buildStorageModel, twoWaySteps, type LpModel } from '../lpModel.ts';
import { solveStorage } from '../solveStorage.ts';
import type { StorageProblem } from '../storageProblem.ts';
import { battery, constant, scheduleViolations } from '../testFixtures.ts';
import { objectiveValue, solutionViolations } from '../verifySolution.ts';
import { highsSolver } from './highs.ts';
import type { LpSolver, SolvedLp } from './lpSolver.ts';
import { yalpsSolver } from './yalps.ts';

/** Deterministic pseudo-random numbers in [0, 1) (Park–Miller). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647;
  };
}

/**
 * A small random site: one battery (odd seeds) or two (even seeds) with losses, an inflexible load
 * and a site limit; unless the seed is a multiple of 3, the middle third of the prices is negative
 * and the batteries start nearly full, so the LP burns energy and binaries get added.
 */
function randomProblem(seed: number, stepCount: number): StorageProblem {
  const random = seeded(seed);
  const T = stepCount;
  const deviceCount = seed % 2 === 1 ? 1 : 2;
  const negative = seed % 3 !== 0;
  const devices = Array.from({ length: deviceCount }, (_, d) => {
    const device = battery({
      stepCount: T,
      socAtStartMwh: negative ? 3.5 : 1 + 2 * random(),
      socMinMwh: 0.5,
      socMaxMwh: 4,
      powerMw: 1 + random(),
      roundtripEfficiency: 0.8 + 0.2 * random(),
      storageEfficiency: 0.999,
      name: `battery ${d}`,
    });
    const targets: (number | null)[] = new Array<number | null>(T).fill(null);
    if (random() < 0.5) targets[T - 1] = 1 + 2 * random();
    return { ...device, socTargetsMwh: targets };
  });
  const negativeStep = (j: number): boolean => negative && j >= T / 3 && j < (2 * T) / 3;
  const consumptionPrice = Array.from({ length: T }, (_, j) => 50 + 40 * Math.sin(j / 3) + 20 * random() - (negativeStep(j) ? 120 : 0));
  const split = random() < 0.5;
  return {
    stepCount: T,
    stepHours: 0.25,
    devices,
    inflexiblePowerMw: Array.from({ length: T }, () => 2 * random() - 1),
    siteConsumptionCapacityMw: constant(T, 4),
    siteProductionCapacityMw: constant(T, 3.5),
    consumptionPrice,
    productionPrice: split ? consumptionPrice.map((p, j) => p - 10 * random() - (j % 5 === 0 ? -15 : 0)) : null,
    preferChargingSooner: random() < 0.7,
  };
}

async function solveOrThrow(solver: LpSolver, model: LpModel): Promise<SolvedLp> {
  const outcome = await solver.solve(model, { timeLimitSeconds: 60, mipRelGap: 1e-7 });
  if (outcome.status !== 'optimal') throw new Error(outcome.reason);
  return outcome;
}

const relativeDifference = (a: number, b: number): number => Math.abs(a - b) / Math.max(1, Math.abs(a), Math.abs(b));

describe('HiGHS and yalps agree', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('on the LP relaxation of random problem %i (T = 24)', async (seed) => {
    const { model } = buildStorageModel(randomProblem(seed, 24));
    const highs = await solveOrThrow(highsSolver, model);
    const yalps = await solveOrThrow(yalpsSolver, model);
    expect(solutionViolations(model, highs.x)).toEqual([]);
    expect(solutionViolations(model, yalps.x)).toEqual([]);
    expect(relativeDifference(highs.objective, yalps.objective)).toBeLessThan(1e-6);
    expect(relativeDifference(highs.objective, objectiveValue(model, highs.x))).toBeLessThan(1e-9);
  });

  it.each([11, 12, 13, 14])('on the full MILP of random problem %i (T = 12, a binary on every two-way step)', async (seed) => {
    const problem = randomProblem(seed, 12);
    const { model, index } = buildStorageModel(
      problem,
      problem.devices.map((_, d) => new Set(twoWaySteps(problem, d))),
    );
    expect(index.binaryCount).toBeGreaterThanOrEqual(12);
    const highs = await solveOrThrow(highsSolver, model);
    const yalps = await solveOrThrow(yalpsSolver, model);
    expect(solutionViolations(model, yalps.x)).toEqual([]);
    expect(relativeDifference(highs.objective, yalps.objective)).toBeLessThan(1e-5);
  });

  it.each([21, 22, 23, 24, 25, 26])('on the verified schedule of random problem %i (T = 48)', async (seed) => {
    const problem = randomProblem(seed, 48);
    const highs = await solveStorage(problem, { solver: highsSolver, mipRelGap: 1e-7 });
    const yalps = await solveStorage(problem, { solver: yalpsSolver, mipRelGap: 1e-7 });
    expect(scheduleViolations(problem, highs)).toEqual([]);
    expect(scheduleViolations(problem, yalps)).toEqual([]);
    expect(yalps.stats.solver).toBe('yalps');
    expect(relativeDifference(highs.stats.objective ?? NaN, yalps.stats.objective ?? NaN)).toBeLessThan(1e-5);
  });
});

describe('solver adapters', () => {
  // x ≤ 2 (no lower bound: flipped for yalps), y free (split for yalps), z binary: every substitution.
  const tiny: LpModel = {
    columnCount: 3,
    columnLower: Float64Array.from([-Infinity, -Infinity, 0]),
    columnUpper: Float64Array.from([2, Infinity, 1]),
    columnCost: Float64Array.from([-1, 0.5, 0.5]),
    columnInteger: Uint8Array.from([0, 0, 1]),
    columnNames: ['x', 'y', 'z'],
    rowCount: 2,
    rowLower: Float64Array.from([-1, 0.3]),
    rowUpper: Float64Array.from([1, Infinity]),
    rowStarts: Int32Array.from([0, 2, 3]),
    rowColumns: Int32Array.from([0, 1, 2]),
    rowValues: Float64Array.from([1, -1, 1]),
    rowNames: ['x − y ∈ [−1, 1]', 'z ≥ 0.3'],
    objectiveConstant: 10,
  };

  it.each([highsSolver, yalpsSolver])('$name handles ranged rows, free and flipped columns and binaries', async (solver) => {
    const solved = await solveOrThrow(solver, tiny);
    // Minimise −x + 0.5y + 0.5z + 10 with x ≤ 2, y ≥ x − 1, z ∈ {0, 1}, z ≥ 0.3: x = 2, y = 1, z = 1.
    expect(solved.objective).toBeCloseTo(9, 9);
    expect(Array.from(solved.x)).toEqual([expect.closeTo(2, 9), expect.closeTo(1, 9), expect.closeTo(1, 9)]);
  });

  it.each([highsSolver, yalpsSolver])('$name reports infeasibility', async (solver) => {
    const infeasible: LpModel = { ...tiny, rowLower: Float64Array.from([-1, 1.5]) };
    const outcome = await solver.solve(infeasible, { timeLimitSeconds: 10, mipRelGap: 1e-6 });
    expect(outcome.status).toBe('infeasible');
  });
});
