import type { StorageProblem } from './storageProblem.ts';

const STEPS = 96;
const series = (f: (t: number) => number) => Array.from({ length: STEPS }, (_, t) => f(t));

/**
 * The schedule a scheduling thread solves when the server starts, through the `storageSchedule`
 * task itself: a day of one battery against a daily price curve with a site limit. Small, but it
 * goes through the same model building, HiGHS solve and verification as a real schedule.
 */
export const WARM_UP_PROBLEM: StorageProblem = {
  stepCount: STEPS,
  stepHours: 0.25,
  devices: [
    {
      socAtStartMwh: 0.5,
      socMinMwh: 0.1,
      socMaxMwh: 0.95,
      socMinimaMwh: null,
      socMaximaMwh: null,
      socTargetsMwh: null,
      consumptionCapacityMw: series(() => 0.5),
      productionCapacityMw: series(() => 0.5),
      chargingEfficiency: series(() => 0.95),
      dischargingEfficiency: series(() => 0.95),
      storageEfficiency: series(() => 1),
      stockDeltaMw: null,
    },
  ],
  inflexiblePowerMw: series((t) => 0.1 * Math.sin(t / 7)),
  siteConsumptionCapacityMw: series(() => 0.45),
  siteProductionCapacityMw: series(() => 0.45),
  consumptionPrice: series((t) => 180 + 70 * Math.sin((t / STEPS) * 2 * Math.PI)),
  productionPrice: null,
  preferChargingSooner: true,
};
