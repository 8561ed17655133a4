import { stockBoundsMwh } from './lpModel.ts';
import { stepCost, type StorageSchedule } from './scheduleResult.ts';
import { integrateSocMwh } from './socDynamics.ts';
import { siteLimitsMw, type StorageDevice, type StorageProblem } from './storageProblem.ts';

/**
 * Test helper: a per-step series with the same value everywhere.
 *
 * @param stepCount number of steps.
 * @param value the value.
 * @returns the series.
 */
export function constant(stepCount: number, value: number): number[] {
  return new Array<number>(stepCount).fill(value);
}

/** Options of {@link battery}; unspecified fields get a lossless 2 MW battery. */
export interface BatteryOptions {
  readonly stepCount: number;
  readonly socAtStartMwh?: number;
  readonly socMinMwh?: number;
  readonly socMaxMwh?: number;
  readonly powerMw?: number;
  readonly roundtripEfficiency?: number;
  readonly storageEfficiency?: number;
  readonly name?: string;
}

/**
 * Test helper: a battery device with constant capacities and efficiencies (√r both ways).
 *
 * @param options the battery's parameters.
 * @returns the device.
 */
export function battery(options: BatteryOptions): StorageDevice {
  const T = options.stepCount;
  const oneWay = Math.sqrt(options.roundtripEfficiency ?? 1);
  return {
    name: options.name,
    socAtStartMwh: options.socAtStartMwh ?? 2.5,
    socMinMwh: options.socMinMwh ?? 0,
    socMaxMwh: options.socMaxMwh ?? 5,
    socMinimaMwh: null,
    socMaximaMwh: null,
    socTargetsMwh: null,
    consumptionCapacityMw: constant(T, options.powerMw ?? 2),
    productionCapacityMw: constant(T, options.powerMw ?? 2),
    chargingEfficiency: constant(T, oneWay),
    dischargingEfficiency: constant(T, oneWay),
    storageEfficiency: constant(T, options.storageEfficiency ?? 1),
    stockDeltaMw: null,
  };
}

/**
 * Test helper: a single-site problem at 15-minute steps with no inflexible load.
 *
 * @param devices the devices.
 * @param prices consumption prices (currency/MWh), one per step.
 * @param siteCapacityMw symmetric site limit, or null for none.
 * @returns the problem.
 */
export function site(devices: StorageDevice[], prices: number[], siteCapacityMw: number | null): StorageProblem {
  const T = prices.length;
  return {
    stepCount: T,
    stepHours: 0.25,
    devices,
    inflexiblePowerMw: constant(T, 0),
    siteConsumptionCapacityMw: siteCapacityMw === null ? null : constant(T, siteCapacityMw),
    siteProductionCapacityMw: siteCapacityMw === null ? null : constant(T, siteCapacityMw),
    consumptionPrice: prices,
    productionPrice: null,
    preferChargingSooner: true,
  };
}

/** Day 2 of the FlexMeasures fixtures at 15-minute steps: 100 (00–08 h), 90 (08–16 h), 100 (16–24 h) EUR/MWh. */
export const DAY_2_PRICES: number[] = [...constant(32, 100), ...constant(32, 90), ...constant(32, 100)];

/**
 * Test helper: every way a schedule can break its problem, checked from the schedule alone
 * (device and site power limits, SoC recomputed from the power, SoC bounds and targets, costs).
 * Recomputing the SoC from net power also exposes simultaneous charging and discharging, since
 * that would make the reported SoC differ from the integrated one whenever efficiencies are below 1.
 *
 * @param problem the problem.
 * @param schedule the schedule.
 * @param tolerance absolute tolerance (MW, MWh, currency).
 * @returns one line per violation.
 */
export function scheduleViolations(problem: StorageProblem, schedule: StorageSchedule, tolerance = 1e-6): string[] {
  const out: string[] = [];
  const T = problem.stepCount;
  problem.devices.forEach((device, d) => {
    const { powerMw, socMwh } = schedule.devices[d];
    const integrated = integrateSocMwh(device, powerMw, problem.stepHours);
    for (let j = 0; j < T; j++) {
      const p = powerMw[j];
      if (p > device.consumptionCapacityMw[j] + tolerance)
        out.push(`device ${d} step ${j}: power ${p} above ${device.consumptionCapacityMw[j]}`);
      if (p < -device.productionCapacityMw[j] - tolerance)
        out.push(`device ${d} step ${j}: power ${p} below ${-device.productionCapacityMw[j]}`);
      const soc = socMwh[j + 1];
      if (Math.abs(soc - integrated[j + 1]) > tolerance)
        out.push(`device ${d} step ${j}: SoC ${soc} but power integrates to ${integrated[j + 1]}`);
      const [lower, upper] = stockBoundsMwh(problem, d, j);
      if (soc < lower - tolerance || soc > upper + tolerance) out.push(`device ${d} step ${j}: SoC ${soc} outside [${lower}, ${upper}]`);
    }
  });
  for (let j = 0; j < T; j++) {
    const site = schedule.devices.reduce((sum, device) => sum + device.powerMw[j], problem.inflexiblePowerMw[j]);
    const { consumptionMw, productionMw } = siteLimitsMw(problem, j);
    if (Math.abs(site - schedule.sitePowerMw[j]) > tolerance)
      out.push(`step ${j}: site power ${schedule.sitePowerMw[j]} but devices sum to ${site}`);
    if (site > consumptionMw + tolerance || site < -productionMw - tolerance)
      out.push(`step ${j}: site power ${site} outside [${-productionMw}, ${consumptionMw}]`);
    if (Math.abs(schedule.costPerStep[j] - stepCost(problem, j, site)) > tolerance)
      out.push(`step ${j}: cost ${schedule.costPerStep[j]} is wrong`);
  }
  const total = schedule.costPerStep.reduce((a, b) => a + b, 0);
  if (Math.abs(total - schedule.totalCost) > tolerance) out.push(`total cost ${schedule.totalCost} differs from the sum ${total}`);
  return out;
}
