/**
 * The storage problems bench/solver.ts measures (bench/run.ts skips files starting with `_`):
 * one battery with prices and one inflexible load, in three variants (see bench/solver.ts).
 */
import type { StorageProblem } from '../worker/src/scheduling/storageProblem.ts';
import { seeded } from './_stats.ts';

/** The variants of {@link benchProblem}. */
export type BenchVariant = 'split' | 'single' | 'soft';

/** A day-shaped price with evening peak, a midday dip that turns negative on sunny days, and noise. */
export function benchProblem(stepCount: number, variant: BenchVariant): StorageProblem {
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
