import type { StorageDevice, StorageProblem } from './storageProblem.ts';

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
