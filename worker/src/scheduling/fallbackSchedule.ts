import { completeSchedule, type DeviceSchedule, type StorageSchedule } from './scheduleResult.ts';
import { nextSocMwh, powerToReachMw } from './socDynamics.ts';
import { siteLimitsMw, type StorageDevice, type StorageProblem } from './storageProblem.ts';

/**
 * The SoC the fallback steers toward: the first soc-target (kept within soc-min and soc-max);
 * else the first minimum if it lies above the start; else the first maximum if it lies below the
 * start; else none (idle).
 */
function fallbackGoalMwh(device: StorageDevice): number | null {
  const firstOf = (series: readonly (number | null)[] | null): number | null => series?.find((v): v is number => v !== null) ?? null;
  const target = firstOf(device.socTargetsMwh);
  if (target !== null) return Math.min(device.socMaxMwh, Math.max(device.socMinMwh, target));
  const minimum = Math.max(device.socMinMwh, firstOf(device.socMinimaMwh) ?? -Infinity);
  if (minimum > device.socAtStartMwh) return minimum;
  const maximum = Math.min(device.socMaxMwh, firstOf(device.socMaximaMwh) ?? Infinity);
  return maximum < device.socAtStartMwh ? maximum : null;
}

/**
 * The simple policy FlexMeasures v0.19 fell back to when the optimisation failed: each device
 * charges (or discharges) at full power toward its first target or violated bound, stops as soon
 * as it gets there and idles afterwards. Unlike v0.19 it also stays within the site limits left
 * after the inflexible load and the devices before it, so it never creates a new site violation.
 *
 * @param problem a structurally valid problem (it may be infeasible).
 * @returns a schedule in the same shape as an optimised one, with `stats.solver = "fallback"`.
 */
export function fallbackSchedule(problem: StorageProblem): StorageSchedule {
  const started = performance.now();
  const T = problem.stepCount;
  // Site room left per step, shared by the devices in problem order.
  const roomUpMw = Array.from({ length: T }, (_, j) => Math.max(0, siteLimitsMw(problem, j).consumptionMw - problem.inflexiblePowerMw[j]));
  const roomDownMw = Array.from({ length: T }, (_, j) => Math.max(0, siteLimitsMw(problem, j).productionMw + problem.inflexiblePowerMw[j]));

  const devices: DeviceSchedule[] = problem.devices.map((device) => {
    const goal = fallbackGoalMwh(device);
    const powerMw: number[] = [];
    const socMwh = [device.socAtStartMwh];
    const charging = goal !== null && goal > device.socAtStartMwh;
    let done = goal === null;
    for (let j = 0; j < T; j++) {
      let power = 0;
      if (!done && goal !== null) {
        const neededMw = powerToReachMw(device, j, socMwh[j], goal, problem.stepHours);
        power = charging
          ? Math.max(0, Math.min(neededMw, device.consumptionCapacityMw[j], roomUpMw[j]))
          : Math.min(0, Math.max(neededMw, -device.productionCapacityMw[j], -roomDownMw[j]));
        // Stop once this step gets there (or the goal was passed, e.g. by a soc-gain).
        done = charging ? neededMw <= power : neededMw >= power;
        if (power > 0) roomUpMw[j] -= power;
        else roomDownMw[j] += power;
      }
      powerMw.push(power);
      socMwh.push(nextSocMwh(device, j, socMwh[j], power, problem.stepHours));
    }
    return { powerMw, socMwh };
  });

  return completeSchedule(problem, devices, {
    solver: 'fallback',
    iterations: 0,
    binaries: 0,
    mipGap: null,
    objective: null,
    columns: 0,
    rows: 0,
    buildMs: 0,
    solveMs: performance.now() - started,
    verifyMs: 0,
  });
}
