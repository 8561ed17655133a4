import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StorageSchedule } from './scheduleResult.ts';
import type { StorageProblem } from './storageProblem.ts';

/** What a custom scheduler module must export. */
export interface CustomSchedulerModule {
  schedule(problem: StorageProblem): StorageSchedule | Promise<StorageSchedule>;
}

function hasScheduleFunction(value: unknown): value is CustomSchedulerModule {
  return typeof value === 'object' && value !== null && 'schedule' in value && typeof value.schedule === 'function';
}

/**
 * Runs a deployment-provided scheduler module (named by the asset's `custom-scheduler` attribute)
 * on a storage problem and checks that the answer has the shape of a {@link StorageSchedule}.
 *
 * @param modulePath absolute path or URL of an ES module exporting `schedule(problem)`.
 * @param problem the problem, exactly as the built-in scheduler receives it.
 * @returns the custom scheduler's schedule.
 * @throws Error when the module cannot be loaded, has no `schedule` export, or returns a malformed schedule.
 */
export async function runCustomScheduler(modulePath: string, problem: StorageProblem): Promise<StorageSchedule> {
  const specifier = isAbsolute(modulePath) ? pathToFileURL(modulePath).href : modulePath;
  const loaded: unknown = await import(specifier);
  if (!hasScheduleFunction(loaded)) throw new Error(`custom scheduler ${modulePath} does not export a schedule(problem) function`);
  const schedule = await loaded.schedule(problem);
  const problems = scheduleShapeErrors(problem, schedule);
  if (problems.length > 0) throw new Error(`custom scheduler ${modulePath} returned a malformed schedule:\n- ${problems.join('\n- ')}`);
  return schedule;
}

/**
 * Checks array lengths and numbers of a schedule against its problem (not its optimality or feasibility).
 *
 * @param problem the problem.
 * @param schedule the schedule to check.
 * @returns one line per problem found.
 */
export function scheduleShapeErrors(problem: StorageProblem, schedule: StorageSchedule): string[] {
  const errors: string[] = [];
  const T = problem.stepCount;
  const finiteArray = (label: string, values: unknown, length: number): void => {
    if (!Array.isArray(values) || values.length !== length) errors.push(`${label} must be an array of ${length} numbers`);
    else if (values.some((v) => typeof v !== 'number' || !Number.isFinite(v))) errors.push(`${label} must contain finite numbers only`);
  };
  if (!Array.isArray(schedule.devices) || schedule.devices.length !== problem.devices.length) {
    errors.push(`devices must hold ${problem.devices.length} device schedules`);
  } else {
    schedule.devices.forEach((device, d) => {
      finiteArray(`devices[${d}].powerMw`, device.powerMw, T);
      finiteArray(`devices[${d}].socMwh`, device.socMwh, T + 1);
    });
  }
  finiteArray('sitePowerMw', schedule.sitePowerMw, T);
  finiteArray('costPerStep', schedule.costPerStep, T);
  if (typeof schedule.totalCost !== 'number' || !Number.isFinite(schedule.totalCost)) errors.push('totalCost must be a finite number');
  if (typeof schedule.stats !== 'object' || schedule.stats === null) errors.push('stats must be an object');
  return errors;
}
