import type { StorageDevice } from './storageProblem.ts';

/**
 * Coefficients of the linear loss model for one step: S' = a·S + b·(energy flow of the step).
 *
 * The flow is taken to enter at a constant rate during the step while the stock decays
 * exponentially, which gives a = e and b = (e − 1)/ln e (b → 1 as e → 1). Applying it to four
 * quarter-hours with e each equals applying it once to the hour with e⁴.
 *
 * @param storageEfficiency fraction of the stock kept over the step (0 < e ≤ 1).
 * @returns the decay factor a and the in-step flow factor b.
 */
export function lossCoefficients(storageEfficiency: number): { a: number; b: number } {
  const e = storageEfficiency;
  // Below this distance from 1 the closed form loses precision; its Taylor expansion is exact enough.
  if (Math.abs(1 - e) < 1e-9) return { a: e, b: 1 - (1 - e) / 2 };
  return { a: e, b: (e - 1) / Math.log(e) };
}

/**
 * Energy added to the stock per step by a device power (before storage losses), in MWh.
 *
 * @param device the device.
 * @param step the step index.
 * @param powerMw device power (MW, charging positive).
 * @param stepHours step length (h).
 * @returns the stock change (MWh) caused by the power and by the device's stock delta.
 */
export function stockInflowMwh(device: StorageDevice, step: number, powerMw: number, stepHours: number): number {
  const flowMw = powerMw >= 0 ? powerMw * device.chargingEfficiency[step] : powerMw / device.dischargingEfficiency[step];
  return (flowMw + (device.stockDeltaMw?.[step] ?? 0)) * stepHours;
}

/**
 * SoC at the end of a step, from the SoC at its start and a constant device power.
 *
 * @param device the device.
 * @param step the step index.
 * @param socMwh SoC at the start of the step (MWh).
 * @param powerMw device power during the step (MW, charging positive).
 * @param stepHours step length (h).
 * @returns the SoC at the end of the step (MWh).
 */
export function nextSocMwh(device: StorageDevice, step: number, socMwh: number, powerMw: number, stepHours: number): number {
  const { a, b } = lossCoefficients(device.storageEfficiency[step]);
  return a * socMwh + b * stockInflowMwh(device, step, powerMw, stepHours);
}

/**
 * Device power that moves the SoC from `socMwh` to `targetMwh` within one step (inverse of {@link nextSocMwh}).
 *
 * @param device the device.
 * @param step the step index.
 * @param socMwh SoC at the start of the step (MWh).
 * @param targetMwh wanted SoC at the end of the step (MWh).
 * @param stepHours step length (h).
 * @returns the required power (MW, charging positive), not limited by any capacity.
 */
export function powerToReachMw(device: StorageDevice, step: number, socMwh: number, targetMwh: number, stepHours: number): number {
  const { a, b } = lossCoefficients(device.storageEfficiency[step]);
  const flowMw = (targetMwh - a * socMwh) / b / stepHours - (device.stockDeltaMw?.[step] ?? 0);
  return flowMw >= 0 ? flowMw / device.chargingEfficiency[step] : flowMw * device.dischargingEfficiency[step];
}

/**
 * Integrates a power schedule into SoC values.
 *
 * @param device the device.
 * @param powerMw device power per step (MW, charging positive).
 * @param stepHours step length (h).
 * @returns SoC at the start followed by the SoC at the end of every step (T + 1 values, MWh).
 */
export function integrateSocMwh(device: StorageDevice, powerMw: readonly number[], stepHours: number): number[] {
  const soc = [device.socAtStartMwh];
  powerMw.forEach((p, j) => soc.push(nextSocMwh(device, j, soc[j], p, stepHours)));
  return soc;
}
