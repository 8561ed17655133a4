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
import type { StorageProblem } from '../worker/src/scheduling/storageProblem.ts';
import { median, seeded } from './_stats.ts';

const HORIZONS = [96, 192, 672, 2520];
const RUNS = 5;

/** A day-shaped price with evening peak, a midday dip that turns negative on sunny days, and noise. */
function benchProblem(stepCount: number, variant: 'split' | 'single' | 'soft'): StorageProblem {
  const random = seeded(42);
  const sunny = Array.from({ length: Math.ceil(stepCount / 96) }, () => random());
  const hourOf = (j: number): number => (j % 96) / 4;
  const bump = (h: number, at: number, width: number): number => Math.exp(-(((h - at) / width) ** 2));
  const prices = Array.from({ length: stepCount }, (_, j) => {
    const h = hourOf(j);
    return 200 + 70 * bump(h, 8, 1.5) + 120 * bump(h, 19, 2) - 260 * sunny[Math.floor(j / 96)] * bump(h, 13, 2.5) + 20 * (random() - 0.5);
  });
  const inflexible = Array.from({ length: stepCount }, (_, j) => {
    const h = hourOf(j);
    return 0.35 + 0.6 * bump(h, 7.5, 1) + 0.8 * bump(h, 19, 1.5) - 4 * sunny[Math.floor(j / 96)] * bump(h, 13, 3) + 0.2 * random();
  }).map((kw) => kw / 1000);
  const fill = (value: number): number[] => new Array<number>(stepCount).fill(value);
  const daily = (hour: number, value: number) => Array.from({ length: stepCount }, (_, j) => (hourOf(j) === hour ? value : null));
  const soft: Partial<StorageProblem> =
    variant === 'soft'
      ? {
          sitePowerCapacityMw: fill(0.006),
          siteBreach: { consumption: fill(10_000), production: fill(10_000) },
          sitePeakConsumption: { thresholdMw: fill(0.003), price: fill(500) },
          sitePeakProduction: { thresholdMw: fill(0.003), price: fill(500) },
        }
      : {};
  const device = {
    socMinimaMwh: variant === 'soft' ? daily(7, 0.007) : null,
    socMaximaMwh: variant === 'soft' ? daily(13, 0.003) : null,
    ...(variant === 'soft' && {
      breach: { socMinima: fill(1e6), socMaxima: fill(1e6), consumption: fill(1e5), production: fill(1e5), powerCapacityMw: fill(0.006) },
    }),
  };
  return {
    ...soft,
    stepCount,
    stepHours: 0.25,
    devices: [
      {
        socAtStartMwh: 0.004,
        socMinMwh: 0.001,
        socMaxMwh: 0.0095,
        ...device,
        socTargetsMwh: null,
        consumptionCapacityMw: fill(0.005),
        productionCapacityMw: fill(0.005),
        chargingEfficiency: fill(Math.sqrt(0.9)),
        dischargingEfficiency: fill(Math.sqrt(0.9)),
        storageEfficiency: fill(0.99999),
        stockDeltaMw: null,
      },
    ],
    inflexiblePowerMw: inflexible,
    siteConsumptionCapacityMw: fill(0.0045),
    siteProductionCapacityMw: fill(0.0045),
    consumptionPrice: variant === 'single' ? prices : prices.map((p) => p + 120),
    productionPrice: prices,
    preferChargingSooner: true,
  };
}

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
