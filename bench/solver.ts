/**
 * Storage scheduler benchmark: one battery with prices and one inflexible load at 96, 192, 672 and
 * 2520 quarter-hour steps. Prints the median model-build time, the median solve time (LP first,
 * binaries where needed, verification included) and the binaries added. Figures only, no asserts.
 *
 * Two price variants: "split" buys at spot + 120 and sells at spot (an LP: buying never pays back
 * through losses), "single" buys and sells at spot, whose negative midday prices make the LP burn
 * energy, so binaries get added on those steps.
 *
 * "soft" is "split" with every soft constraint of FlexMeasures 1.0 on: daily SoC minima and maxima,
 * device and site capacities breachable at a price, and demand charges on both site peaks
 * (target: 2520 steps in under 1 s).
 *
 * Run with `npx tsx bench/solver.ts`.
 */
import { buildStorageModel } from '../worker/src/scheduling/lpModel.ts';
import { solveStorage } from '../worker/src/scheduling/solveStorage.ts';
import { highsRuntime } from '../worker/src/scheduling/solvers/highs.ts';
import { median } from './_stats.ts';
import { benchProblem } from './_storageBenchProblem.ts';

const HORIZONS = [96, 192, 672, 2520];
const RUNS = 5;

const ms = (value: number): string => `${value.toFixed(1)} ms`.padStart(11);

await highsRuntime();
console.log('variant  steps  columns   rows  build (median)  solve+verify (median)  iterations  binaries  negative-price steps');
for (const [variant, T] of (['split', 'single', 'soft'] as const).flatMap((v) => HORIZONS.map((h) => [v, h] as const))) {
  const problem = benchProblem(T, variant);
  const builds: number[] = [];
  const solves: number[] = [];
  let last = await solveStorage(problem, { timeLimitSeconds: 120 });
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    buildStorageModel(problem);
    builds.push(performance.now() - started);
    last = await solveStorage(problem, { timeLimitSeconds: 120 });
    solves.push(last.stats.solveMs + last.stats.verifyMs);
  }
  const negative = problem.productionPrice?.filter((p) => p < 0).length ?? 0;
  console.log(
    `${variant.padEnd(7)}  ${String(T).padStart(5)}  ${String(last.stats.columns).padStart(7)}  ${String(last.stats.rows).padStart(5)}  ${ms(median(builds)).padStart(14)}  ${ms(median(solves)).padStart(21)}  ${String(last.stats.iterations).padStart(10)}  ${String(last.stats.binaries).padStart(8)}  ${String(negative).padStart(20)}`,
  );
}
