import { pathToFileURL } from 'node:url';
import { workerData } from 'node:worker_threads';
import type { StorageSchedule } from './scheduleResult.ts';
import type { StorageProblem } from './storageProblem.ts';
import { unregisteredSchedulerReason, type SchedulerPlugins } from './schedulerPlugins.ts';

/** What a custom scheduler module must export. */
export interface CustomSchedulerModule {
  schedule(problem: StorageProblem): StorageSchedule | Promise<StorageSchedule>;
}

function hasScheduleFunction(value: unknown): value is CustomSchedulerModule {
  return typeof value === 'object' && value !== null && 'schedule' in value && typeof value.schedule === 'function';
}

/**
 * The plugins this thread may load: handed over by the server when it starts the pool (the
 * operator's folder, read once), never taken from a task.
 */
function threadPlugins(): SchedulerPlugins {
  const given = (workerData as { schedulerPlugins?: Record<string, string> } | null)?.schedulerPlugins;
  return new Map(Object.entries(given ?? {}));
}

/**
 * Runs a deployment's scheduler plugin (named by the `custom-scheduler` attribute) on a storage
 * problem and checks that the answer has the shape of a {@link StorageSchedule}. Only a name the
 * operator registered is loaded; anything else (a path, a URL, `node:` modules) is refused here,
 * whatever reached the store.
 *
 * @param plugin the plugin's name.
 * @param problem the problem, exactly as the built-in scheduler receives it.
 * @param plugins the registered plugins (this thread's, from the server).
 * @returns the plugin's schedule.
 * @throws Error when the name is not registered, the module has no `schedule` export, or returns a malformed schedule.
 */
export async function runCustomScheduler(
  plugin: string,
  problem: StorageProblem,
  plugins: SchedulerPlugins = threadPlugins(),
): Promise<StorageSchedule> {
  const refused = unregisteredSchedulerReason(plugin, plugins);
  if (refused !== null) throw new Error(refused);
  const loaded: unknown = await import(pathToFileURL(plugins.get(plugin)!).href);
  if (!hasScheduleFunction(loaded)) throw new Error(`custom scheduler ${plugin} does not export a schedule(problem) function`);
  const schedule = await loaded.schedule(problem);
  const problems = scheduleShapeErrors(problem, schedule);
  if (problems.length > 0) throw new Error(`custom scheduler ${plugin} returned a malformed schedule:\n- ${problems.join('\n- ')}`);
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
